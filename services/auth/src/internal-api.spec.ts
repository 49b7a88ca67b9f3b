import { handlersAgainst } from '@shortener/chassis-nest';
import { internalApi } from '@shortener/contracts';
import { AppModule } from './app.module';
import { loadAuthConfig } from './config';

describe('the auth service against its internal API contract', () => {
  it('has exactly one handler for each call internalApi lists for it, and no other', () => {
    const config = loadAuthConfig({ INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' });
    expect(
      handlersAgainst(
        AppModule.forRoot(config),
        Object.values(internalApi).filter((entry) => entry.service === 'auth'),
      ),
    ).toEqual({
      unserved: [],
      servedTwice: [],
      unlisted: [],
    });
  });
});
