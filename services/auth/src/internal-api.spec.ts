import { handlersAgainst } from '@shortener/chassis-nest';
import { internalApi, signInApi } from '@shortener/contracts';
import { AppModule } from './app.module';
import { loadAuthConfig } from './config';

describe('the auth service against its contract entries', () => {
  it('has exactly one handler for each call internalApi lists for it and each sign-in route, and no other', () => {
    const config = loadAuthConfig({ INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' });
    expect(
      handlersAgainst(AppModule.forRoot(config), [
        ...Object.values(internalApi).filter((entry) => entry.service === 'auth'),
        ...Object.values(signInApi),
      ]),
    ).toEqual({
      unserved: [],
      servedTwice: [],
      unlisted: [],
    });
  });
});
