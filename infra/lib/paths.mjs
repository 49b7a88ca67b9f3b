// Every path infra touches, derived from this file's location so a clone works
// wherever it is checked out.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INFRA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT_DIR = path.dirname(INFRA_DIR);
const SHARED_DIR = path.join(ROOT_DIR, '.infra');
/**
 * Where infra keeps what it started and the broker's data: .infra, or for a broker moved to
 * another KAFKA_PORT .infra/port-<port>, so a second broker can run from the same checkout
 * beside the first (the broker-killing fault scenarios on a private one, say) with its own state
 * and its own `down`. The Kafka jars are fetched once for both.
 */
const kafkaPort = (process.env.KAFKA_PORT ?? '').trim();
const STATE_DIR =
  /^\d+$/.test(kafkaPort) && kafkaPort !== '9092'
    ? path.join(SHARED_DIR, `port-${kafkaPort}`)
    : SHARED_DIR;

export const paths = {
  stateFile: path.join(STATE_DIR, 'state.json'),
  lockFile: path.join(STATE_DIR, 'lock'),

  redisDir: path.join(STATE_DIR, 'redis'),
  redisLog: path.join(STATE_DIR, 'redis', 'redis.log'),
  redisPidFile: path.join(STATE_DIR, 'redis', 'redis.pid'),

  kafkaPom: path.join(INFRA_DIR, 'kafka', 'pom.xml'),
  kafkaLog4j: path.join(INFRA_DIR, 'kafka', 'log4j.properties'),
  kafkaDir: path.join(STATE_DIR, 'kafka'),
  kafkaLib: path.join(SHARED_DIR, 'kafka', 'lib'),
  kafkaData: path.join(STATE_DIR, 'kafka', 'data'),
  kafkaLog: path.join(STATE_DIR, 'kafka', 'broker.log'),
  kafkaProperties: path.join(STATE_DIR, 'kafka', 'server.properties'),
  kafkaClusterId: path.join(STATE_DIR, 'kafka', 'cluster.id'),
};
