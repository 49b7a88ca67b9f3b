import { configDefault, configVariables, defaultPort, SERVICES, serviceSpec } from './support/repo';

// services/services.json says what each service needs; its configuration (src/config.ts)
// says what it really reads. They must agree, or the stack script, the tests and the
// deployments wire a service differently from what it does.

const SERVER_VARIABLES = { postgres: 'DATABASE_URL', redis: 'REDIS_URL', kafka: 'KAFKA_BROKERS' };

describe('services/services.json against the services’ configuration', () => {
  it.each(SERVICES)('%s listens by default on its listed port', (name) => {
    expect(defaultPort(name)).toBe(serviceSpec(name).port);
  });

  it.each(SERVICES)('%s reads the URL of exactly the services it is listed as calling', (name) => {
    const urlVariables = new Set(SERVICES.map((other) => serviceSpec(other).urlVariable));
    const read = configVariables(name).filter((variable) => urlVariables.has(variable));
    const listed = serviceSpec(name).calls.map((callee) => serviceSpec(callee).urlVariable);
    expect(read.sort()).toEqual(listed.sort());
    for (const callee of serviceSpec(name).calls) {
      const { urlVariable, port } = serviceSpec(callee);
      expect({ urlVariable, default: configDefault(name, urlVariable!) }).toEqual({
        urlVariable,
        default: `http://127.0.0.1:${port}`,
      });
    }
  });

  it.each(SERVICES)(
    '%s reads the address of exactly the servers it is listed as needing',
    (name) => {
      const read = Object.entries(SERVER_VARIABLES)
        .filter(([, variable]) => configVariables(name).includes(variable))
        .map(([server]) => server);
      expect(read.sort()).toEqual([...serviceSpec(name).servers].sort());
    },
  );
});
