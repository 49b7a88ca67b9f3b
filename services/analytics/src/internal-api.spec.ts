import { inProcess } from '@shortener/chassis';
import { handlersAgainst } from '@shortener/chassis-nest';
import { internalApi } from '@shortener/contracts';
import { AppModule } from './app.module';
import { loadAnalyticsConfig } from './config';
import type { VisitSource } from './ingest/visit-source';

/** The routes do not depend on where visits come from. */
const noVisits: VisitSource = { start: () => undefined, stop: () => Promise.resolve() };

describe('the analytics service against its internal API contract', () => {
  it('has exactly one handler for each call internalApi lists for it, and no other', () => {
    const config = loadAnalyticsConfig({ INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' });
    expect(
      handlersAgainst(
        AppModule.forRoot(config, {
          visits: inProcess(noVisits),
          notifier: inProcess({ stored: () => undefined }),
        }),
        Object.values(internalApi).filter((entry) => entry.service === 'analytics'),
      ),
    ).toEqual({
      unserved: [],
      servedTwice: [],
      unlisted: [],
    });
  });
});
