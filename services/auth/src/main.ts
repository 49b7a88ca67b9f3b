// The auth service as its own process, configured from the environment.
import './tracing';
import { atExit, runService } from '@shortener/chassis';
import { stopTracing } from '@shortener/telemetry';
import { service } from './service';

atExit({ name: 'export the last traces', run: stopTracing });
runService(service);
