// Every path infra touches, derived from this file's location so a clone works
// wherever it is checked out.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INFRA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT_DIR = path.dirname(INFRA_DIR);
export const STATE_DIR = path.join(ROOT_DIR, '.infra');

export const paths = {
  stateFile: path.join(STATE_DIR, 'state.json'),
  lockFile: path.join(STATE_DIR, 'lock'),

  redisDir: path.join(STATE_DIR, 'redis'),
  redisLog: path.join(STATE_DIR, 'redis', 'redis.log'),
  redisPidFile: path.join(STATE_DIR, 'redis', 'redis.pid'),

  kafkaPom: path.join(INFRA_DIR, 'kafka', 'pom.xml'),
  kafkaLog4j: path.join(INFRA_DIR, 'kafka', 'log4j.properties'),
  kafkaDir: path.join(STATE_DIR, 'kafka'),
  kafkaLib: path.join(STATE_DIR, 'kafka', 'lib'),
  kafkaData: path.join(STATE_DIR, 'kafka', 'data'),
  kafkaLog: path.join(STATE_DIR, 'kafka', 'broker.log'),
  kafkaProperties: path.join(STATE_DIR, 'kafka', 'server.properties'),
  kafkaClusterId: path.join(STATE_DIR, 'kafka', 'cluster.id'),
};
