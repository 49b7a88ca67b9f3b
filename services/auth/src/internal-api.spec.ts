import { internalRoutesAgainstContract } from '@shortener/chassis-nest';
import { AppModule } from './app.module';
import { loadAuthConfig } from './config';

describe('the auth service against its internal API contract', () => {
  it('serves exactly the calls internalApi lists for it, each answering a status listed there', () => {
    const config = loadAuthConfig({ INTERNAL_API_SECRET: 'a-test-secret-of-32-characters!!' });
    expect(internalRoutesAgainstContract(AppModule.forRoot(config), 'auth')).toEqual({
      undescribed: [],
      unserved: [],
      successNotListed: [],
    });
  });
});
