// The analytics service as its own process: configuration from the environment, visits from
// Kafka. (The embedded host starts it with an in-process bus instead: see index.ts.)
import './tracing';
import { atExit, runService } from '@shortener/chassis';
import { stopTracing } from '@shortener/telemetry';
import { service } from './service';

atExit({ name: 'export the last traces', run: stopTracing });
runService(service);
