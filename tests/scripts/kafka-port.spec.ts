import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// KAFKA_PORT moves the local broker infra runs (its controller to the next port), so a
// second broker can run beside the first: a test that stops its broker, say, without
// stopping everyone's. infra is ES modules; Jest runs CommonJS, so they run in a child.
const SETUP = pathToFileURL(path.resolve(__dirname, '../../infra/lib/kafka-setup.mjs')).href;
const KAFKA = pathToFileURL(path.resolve(__dirname, '../../infra/lib/kafka.mjs')).href;
const PATHS = pathToFileURL(path.resolve(__dirname, '../../infra/lib/paths.mjs')).href;
const STATE = path.resolve(__dirname, '../../.infra');

/** infra's paths as a process started with `env` sees them (they are read as it loads). */
function pathsWith(env: Record<string, string>): Record<string, string> {
  const script = `const { paths } = await import(${JSON.stringify(PATHS)}); process.stdout.write(JSON.stringify(paths));`;
  const inherited = { ...process.env };
  delete inherited['KAFKA_PORT'];
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...inherited, ...env },
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as Record<string, string>;
}

function evaluate(expression: string, env: Record<string, string>): unknown {
  const script =
    `const setup = await import(${JSON.stringify(SETUP)});` +
    `const kafka = await import(${JSON.stringify(KAFKA)});` +
    `const env = JSON.parse(process.argv[1]);` +
    `try { process.stdout.write(JSON.stringify({ value: ${expression} })); }` +
    `catch (error) { process.stdout.write(JSON.stringify({ error: error.message })); }`;
  const child = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', script, JSON.stringify(env)],
    { encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout);
}

describe('the local broker’s ports (KAFKA_PORT)', () => {
  it('are 9092 and 9093 when it is unset or empty', () => {
    for (const env of [{}, { KAFKA_PORT: '' }] as Record<string, string>[]) {
      expect(evaluate('setup.brokerPorts(env)', env)).toEqual({
        value: { broker: 9092, controller: 9093 },
      });
      expect(evaluate('kafka.kafkaBrokers(env)', env)).toEqual({ value: ['127.0.0.1:9092'] });
    }
  });

  it('move broker, controller, listeners and the brokers the services are given', () => {
    const env = { KAFKA_PORT: '19092' };
    const properties = evaluate('setup.serverProperties(env)', env) as {
      value: Record<string, string>;
    };
    expect(properties.value).toMatchObject({
      listeners: 'PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093',
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:19092',
      'controller.quorum.voters': '1@127.0.0.1:19093',
    });
    expect(evaluate('kafka.kafkaBrokers(env)', env)).toEqual({ value: ['127.0.0.1:19092'] });
    // KAFKA_BROKERS, an external cluster, still wins.
    expect(
      evaluate('kafka.kafkaBrokers(env)', { ...env, KAFKA_BROKERS: 'kafka.example:9092' }),
    ).toEqual({ value: ['kafka.example:9092'] });
  });

  it('keep a moved broker’s state and data apart, so two run from one checkout; the jars are shared', () => {
    const usual = pathsWith({});
    const moved = pathsWith({ KAFKA_PORT: '19092' });
    expect(usual).toMatchObject({
      stateFile: path.join(STATE, 'state.json'),
      kafkaData: path.join(STATE, 'kafka', 'data'),
    });
    expect(pathsWith({ KAFKA_PORT: '9092' })).toEqual(usual);
    expect(moved).toMatchObject({
      stateFile: path.join(STATE, 'port-19092', 'state.json'),
      lockFile: path.join(STATE, 'port-19092', 'lock'),
      kafkaData: path.join(STATE, 'port-19092', 'kafka', 'data'),
      kafkaProperties: path.join(STATE, 'port-19092', 'kafka', 'server.properties'),
      kafkaLib: usual.kafkaLib,
    });
  });

  it.each(['abc', '80', '65535', '19092.5', '-1'])('refuse KAFKA_PORT=%s with one line', (raw) => {
    expect(evaluate('setup.brokerPorts(env)', { KAFKA_PORT: raw })).toEqual({
      error: `KAFKA_PORT must be a whole number from 1024 to 65534 (its controller takes the next port), not "${raw}".`,
    });
  });
});
