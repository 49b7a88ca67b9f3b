// The redirect service as its own process: configuration from the environment, links from
// Redis, visits to Kafka. (The embedded host starts it with in-process adapters: see index.ts.)
import './tracing';
import { atExit, runService } from '@shortener/chassis';
import { stopTracing } from '@shortener/telemetry';
import { service } from './service';

atExit({ name: 'export the last traces', run: stopTracing });
runService(service);
