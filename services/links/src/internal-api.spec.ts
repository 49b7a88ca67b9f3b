import { inProcess } from '@shortener/chassis';
import { handlersAgainst } from '@shortener/chassis-nest';
import { internalApi } from '@shortener/contracts';
import { MemoryLinkCache } from '@shortener/link-cache';
import { AppModule } from './app.module';
import { loadLinksConfig } from './config';

describe('the links service against its internal API contract', () => {
  it('has exactly one handler for each call internalApi lists for it, and no other', () => {
    const config = loadLinksConfig({ INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' });
    expect(
      handlersAgainst(
        AppModule.forRoot(config, { linkCache: inProcess(new MemoryLinkCache()) }),
        Object.values(internalApi).filter((entry) => entry.service === 'links'),
      ),
    ).toEqual({
      unserved: [],
      servedTwice: [],
      unlisted: [],
    });
  });
});
