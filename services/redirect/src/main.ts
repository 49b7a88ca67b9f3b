import { exitOnStartupError } from '@shortener/chassis';
import { startRedirect } from './service';

export { startRedirect };

if (require.main === module) {
  startRedirect().catch((error: unknown) =>
    exitOnStartupError('redirect', error, Number(process.env['PORT'] ?? 7004)),
  );
}
