import { inProcess } from '@shortener/chassis';
import { internalRoutesAgainstContract } from '@shortener/chassis-nest';
import { MemoryLinkCache } from '@shortener/link-cache';
import { AppModule } from './app.module';
import { loadLinksConfig } from './config';

describe('the links service against its internal API contract', () => {
  it('serves exactly the calls internalApi lists for it, each answering a status listed there', () => {
    const config = loadLinksConfig({ INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' });
    expect(
      internalRoutesAgainstContract(
        AppModule.forRoot(config, { linkCache: inProcess(new MemoryLinkCache()) }),
        'links',
      ),
    ).toEqual({
      undescribed: [],
      unserved: [],
      successNotListed: [],
    });
  });
});
