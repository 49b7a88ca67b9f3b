// The gateway as its own process: configuration from the environment, rate limits in Redis.
// (The embedded host starts it with in-process counters instead: see index.ts.)
import './tracing';
import { atExit, runService } from '@shortener/chassis';
import { stopTracing } from '@shortener/telemetry';
import { service } from './service';

atExit({ name: 'export the last traces', run: stopTracing });
runService(service);
