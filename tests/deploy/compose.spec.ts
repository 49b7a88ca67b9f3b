import {
  composeSchemaProblems,
  environmentOf,
  loadCompose,
  type ComposeFile,
  type ComposeService,
} from './support/compose';
import {
  configVariables,
  isService,
  repoPathExists,
  requiredInDeployment,
  SERVICES,
  type ServiceName,
} from './support/repo';

const KAFKA_IMAGE = 'apache/kafka:3.9.1';

/** The service built from services/<name>/Dockerfile, by its deployable's name. */
function builtServices(compose: ComposeFile): Map<ServiceName, [string, ComposeService]> {
  const built = new Map<ServiceName, [string, ComposeService]>();
  for (const [key, service] of Object.entries(compose.services)) {
    const dockerfile = typeof service.build === 'object' ? service.build.dockerfile : undefined;
    const name = /^services\/([a-z-]+)\/Dockerfile$/.exec(dockerfile ?? '')?.[1] ?? '';
    if (isService(name)) built.set(name, [key, service]);
  }
  return built;
}

const isOneShot = (service: ComposeService) => service.restart === 'no';

describe('docker-compose.yml', () => {
  // As `docker compose` reads it with nothing set: every default applies.
  const compose = loadCompose();

  it('is valid against the Compose specification', () => {
    expect(composeSchemaProblems(compose)).toEqual([]);
  });

  it('runs PostgreSQL 16, Redis 7 and a KRaft Kafka 3.9.1 from their official images', () => {
    const images = Object.values(compose.services).map((service) => service.image);
    expect(images).toEqual(
      expect.arrayContaining(['postgres:16-alpine', 'redis:7-alpine', KAFKA_IMAGE]),
    );
    const kafka = Object.values(compose.services).find(
      (service) => service.image === KAFKA_IMAGE && !isOneShot(service),
    )!;
    expect(environmentOf(kafka).get('KAFKA_PROCESS_ROLES')).toBe('broker,controller');
  });

  it('creates the visits topic (6 partitions) and its dead-letter topic once, with the Kafka image', () => {
    const jobs = Object.values(compose.services).filter(
      (service) => service.image === KAFKA_IMAGE && isOneShot(service),
    );
    expect(jobs).toHaveLength(1);
    const script = [jobs[0]!.command ?? []].flat().join('\n');
    expect(script).toMatch(
      /--create --if-not-exists --topic visits --partitions "\$VISITS_PARTITIONS"/,
    );
    expect(script).toMatch(/--create --if-not-exists --topic visits\.dlq /);
    expect(environmentOf(jobs[0]!).get('VISITS_PARTITIONS')).toBe('6');
  });

  it('builds every service from its own Dockerfile, with the repository as context', () => {
    const built = builtServices(compose);
    expect([...built.keys()].sort()).toEqual([...SERVICES].sort());
    for (const [name, [, service]] of built) {
      expect({ name, build: service.build }).toEqual({
        name,
        build: { context: '.', dockerfile: `services/${name}/Dockerfile` },
      });
      expect(repoPathExists(`services/${name}/Dockerfile`)).toBe(true);
    }
  });

  it('gives every built and every long-running service a healthcheck', () => {
    const without = Object.entries(compose.services)
      .filter(([, service]) => service.build !== undefined || !isOneShot(service))
      .filter(([, { healthcheck }]) => !healthcheck?.test || healthcheck.disable === true)
      .map(([key]) => key);
    expect(without).toEqual([]);
  });

  it('starts a service only once what it depends on is healthy, or has completed', () => {
    const problems: string[] = [];
    for (const [key, service] of Object.entries(compose.services)) {
      if (Array.isArray(service.depends_on)) {
        problems.push(`${key}: depends_on without conditions`);
        continue;
      }
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const target = compose.services[dependency];
        const expected =
          target && isOneShot(target) ? 'service_completed_successfully' : 'service_healthy';
        if (!target) problems.push(`${key}: depends on unknown ${dependency}`);
        else if (condition !== expected) {
          problems.push(`${key}: waits for ${dependency} with ${condition}, not ${expected}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('publishes one port, the gateway’s 8080, which serves the web app too', () => {
    const published = Object.entries(compose.services)
      .filter(([, service]) => (service.ports ?? []).length > 0)
      .map(([key, service]) => [key, service.ports]);
    const [gatewayKey] = builtServices(compose).get('gateway')!;
    expect(published).toEqual([[gatewayKey, ['8080:8080']]]);
  });

  it('gives each service every address it needs, none on localhost, and only variables it reads', () => {
    const problems: string[] = [];
    for (const [name, [, service]] of builtServices(compose)) {
      const environment = environmentOf(service);
      const reads = configVariables(name);
      for (const key of environment.keys()) {
        if (!reads.includes(key)) problems.push(`${name}: ${key} is not read by it`);
      }
      for (const key of requiredInDeployment(name)) {
        const value = environment.get(key);
        if (!value) problems.push(`${name}: ${key} is not given`);
        else if (key !== 'PUBLIC_ORIGIN' && /127\.0\.0\.1|localhost/.test(value)) {
          problems.push(`${name}: ${key}=${value} points at the container itself`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('takes INTERNAL_API_SECRET from the environment, else a marked development default', () => {
    const secretOf = (file: ComposeFile) =>
      [...builtServices(file).values()].map(([, service]) =>
        environmentOf(service).get('INTERNAL_API_SECRET'),
      );
    const defaults = new Set(secretOf(compose));
    expect(defaults.size).toBe(1);
    const [fallback = ''] = defaults;
    expect(fallback).toMatch(/dev-only/);
    expect(fallback.length).toBeGreaterThanOrEqual(16);
    const given = 'a-secret-from-the-environment-0123456789';
    expect(new Set(secretOf(loadCompose({ INTERNAL_API_SECRET: given })))).toEqual(
      new Set([given]),
    );
  });

  it('passes the Google sign-in settings through to auth, unset by default', () => {
    const google = {
      GOOGLE_CLIENT_ID: 'client-id.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: 'client-secret',
      GOOGLE_CALLBACK_URL: 'https://short.example.com/auth/google/callback',
      GOOGLE_AUTHORIZATION_URL: 'http://oauth.test/authorize',
      GOOGLE_TOKEN_URL: 'http://oauth.test/token',
      GOOGLE_USERINFO_URL: 'http://oauth.test/userinfo',
    };
    const authOf = (file: ComposeFile) => environmentOf(builtServices(file).get('auth')![1]);
    const withGoogle = authOf(loadCompose(google));
    const byDefault = authOf(compose);
    for (const [key, value] of Object.entries(google)) {
      expect({ key, given: withGoogle.get(key), unset: byDefault.get(key) }).toEqual({
        key,
        given: value,
        // The services treat an empty variable as unset: sign-in is off, endpoints are Google's.
        unset: '',
      });
    }
  });
});
