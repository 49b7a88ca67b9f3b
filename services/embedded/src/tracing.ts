// Imported by main.ts before the rest (after young-generation.ts): tracing, when configured,
// must start before anything it instruments is loaded (see @shortener/telemetry). One process
// hosts every service, so its spans all carry one service.name.
import { startTracing } from '@shortener/telemetry';

startTracing('embedded');
