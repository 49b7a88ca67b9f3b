// Imported first by main.ts: tracing, when configured, must start before anything it
// instruments is loaded (see @shortener/telemetry).
import { startTracing } from '@shortener/telemetry';

startTracing('redirect');
