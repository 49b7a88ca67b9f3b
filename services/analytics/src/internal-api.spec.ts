import { inProcess } from '@shortener/chassis';
import { internalRoutesAgainstContract } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import { loadAnalyticsConfig } from './config';
import type { VisitSource } from './ingest/visit-source';

/** The routes do not depend on where visits come from. */
const noVisits: VisitSource = { start: () => undefined, stop: () => Promise.resolve() };

describe('the analytics service against its internal API contract', () => {
  it('serves exactly the calls internalApi lists for it, each answering a status listed there', () => {
    const config = loadAnalyticsConfig({ INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' });
    expect(
      internalRoutesAgainstContract(
        AppModule.forRoot(config, { visits: inProcess(noVisits) }),
        'analytics',
      ),
    ).toEqual({
      undescribed: [],
      unserved: [],
      successNotListed: [],
    });
  });
});
