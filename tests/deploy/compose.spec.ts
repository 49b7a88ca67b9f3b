import {
  composeSchemaProblems,
  environmentOf,
  loadCompose,
  type ComposeFile,
  type ComposeService,
} from './support/compose';
import { topicPartitions } from './support/kubernetes';
import {
  configVariables,
  isService,
  readRepoFile,
  repoPathExists,
  requiredInDeployment,
  SERVICES,
  serviceSpec,
  type ServiceName,
} from './support/repo';

const KAFKA_IMAGE = 'apache/kafka:3.9.1';

/** The compose services built as a service's image (build argument SERVICE), by that name. */
function builtServices(compose: ComposeFile): Map<ServiceName, [string, ComposeService]> {
  const built = new Map<ServiceName, [string, ComposeService]>();
  for (const [key, service] of Object.entries(compose.services)) {
    const args = typeof service.build === 'object' ? service.build.args : undefined;
    const name = String((Array.isArray(args) ? undefined : args?.['SERVICE']) ?? '');
    if (isService(name)) built.set(name, [key, service]);
  }
  return built;
}

/** The servers (by image) and services a compose service waits for; kafka-init stands for Kafka. */
function waitsFor(compose: ComposeFile, service: ComposeService): string[] {
  const names = Object.keys(service.depends_on ?? {}).map((key) => {
    const image = compose.services[key]?.image ?? '';
    if (image === KAFKA_IMAGE) return 'kafka';
    if (image.startsWith('postgres:')) return 'postgres';
    if (image.startsWith('redis:')) return 'redis';
    return key;
  });
  return [...new Set(names)].sort();
}

const isOneShot = (service: ComposeService) => service.restart === 'no';

/** What compose refuses to start without (`${VAR:?…}`): no default secret anywhere. */
const SECRETS = {
  INTERNAL_API_SECRET: 'internal-secret-from-the-environment-0123456789',
  POSTGRES_PASSWORD: 'postgres0password0from0env',
  REDIS_PASSWORD: 'redis0password0from0env',
  KAFKA_ADMIN_PASSWORD: 'kafka0admin0password',
  KAFKA_REDIRECT_PASSWORD: 'kafka0redirect0password',
  KAFKA_ANALYTICS_PASSWORD: 'kafka0analytics0password',
};

/** The ACLs kafka-init creates: `allow --allow-principal User:x --operation … --topic|--group|--cluster`. */
function aclsOf(script: string): Record<string, string[]> {
  const acls: Record<string, string[]> = {};
  for (const line of script.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0] !== 'allow') continue;
    const principal = words[words.indexOf('--allow-principal') + 1] ?? '?';
    const operations = words.filter((_, index) => words[index - 1] === '--operation');
    const resource = words.includes('--cluster')
      ? 'cluster'
      : words.includes('--topic')
        ? `topic ${words[words.indexOf('--topic') + 1]}`
        : `group ${words[words.indexOf('--group') + 1]}`;
    for (const operation of operations) (acls[principal] ??= []).push(`${operation} ${resource}`);
  }
  for (const list of Object.values(acls)) list.sort();
  return acls;
}

describe('docker-compose.yml', () => {
  // As `docker compose` reads it with the required secrets set and nothing else: every
  // other default applies.
  const compose = loadCompose(SECRETS);

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

  it('creates the visits topic and its dead-letter topic once, with the Kafka image and k8s/kafka’s partitions', () => {
    const jobs = Object.values(compose.services).filter(
      (service) => service.image === KAFKA_IMAGE && isOneShot(service),
    );
    expect(jobs).toHaveLength(1);
    const script = [jobs[0]!.command ?? []].flat().join('\n');
    expect(script).toMatch(
      /--create --if-not-exists --topic visits --partitions "\$VISITS_PARTITIONS"/,
    );
    expect(script).toMatch(
      new RegExp(
        `--create --if-not-exists --topic visits\\.dlq --partitions ${topicPartitions('visits.dlq')} `,
      ),
    );
    // The default: KAFKA_VISITS_PARTITIONS, when set, wins.
    expect(environmentOf(jobs[0]!).get('VISITS_PARTITIONS')).toBe(
      String(topicPartitions('visits')),
    );
  });

  it('builds every listed service from the root Dockerfile, with its name and port from the list', () => {
    const built = builtServices(compose);
    expect([...built.keys()].sort()).toEqual([...SERVICES].sort());
    for (const [name, [key, service]] of built) {
      const { port } = serviceSpec(name);
      expect({ key, build: service.build, PORT: environmentOf(service).get('PORT') }).toEqual({
        key: name,
        build: { context: '.', dockerfile: 'Dockerfile', args: { SERVICE: name, PORT: port } },
        PORT: String(port),
      });
    }
    expect(repoPathExists('Dockerfile')).toBe(true);
  });

  it('finds each service’s callees at their compose names and listed ports, and only those', () => {
    const problems: string[] = [];
    for (const [name, [, service]] of builtServices(compose)) {
      const environment = environmentOf(service);
      for (const other of SERVICES.map(serviceSpec)) {
        if (other.urlVariable === null) continue;
        const given = environment.get(other.urlVariable);
        const expected = serviceSpec(name).calls.includes(other.name)
          ? `http://${other.name}:${other.port}`
          : undefined;
        if (given !== expected) {
          problems.push(`${name}: ${other.urlVariable}=${given}, expected ${expected}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('starts each service after the servers and services the list says it depends on', () => {
    const waits = Object.fromEntries(
      [...builtServices(compose)].map(([name, [, service]]) => [name, waitsFor(compose, service)]),
    );
    const listed = Object.fromEntries(
      SERVICES.map(serviceSpec).map((spec) => [spec.name, [...spec.servers, ...spec.calls].sort()]),
    );
    expect(waits).toEqual(listed);
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

  it('publishes one port, the nginx edge’s 8080', () => {
    const published = Object.entries(compose.services)
      .filter(([, service]) => (service.ports ?? []).length > 0)
      .map(([key, service]) => [key, service.ports]);
    expect(published).toEqual([['edge', ['8080:8080']]]);
    // The web app's own nginx image (non-root).
    const nginxImage = /^ARG NGINX_IMAGE=(.+)$/m.exec(readRepoFile('Dockerfile'))?.[1];
    expect(compose.services['edge']?.image).toBe(nginxImage);
  });

  it('routes the edge with the template npm run stack uses, to the services’ compose names and ports', () => {
    const edge = compose.services['edge']!;
    expect(edge.volumes).toEqual([
      './infra/edge/shortener.conf.template:/etc/nginx/templates/shortener.conf.template:ro',
      './infra/edge/redact-queries.awk:/etc/nginx/redact-queries.awk:ro',
    ]);
    expect(repoPathExists('infra/edge/shortener.conf.template')).toBe(true);
    // nginx's error lines reach the log through the filter npm run stack's edge uses, and the
    // image's entrypoint (which fills in the template) still runs nginx.
    const entrypoint = [edge.entrypoint ?? []].flat().join(' ');
    expect(entrypoint).toContain('awk -f /etc/nginx/redact-queries.awk < /tmp/nginx-errors >&2');
    expect(entrypoint).toContain(
      "exec /docker-entrypoint.sh nginx -g 'daemon off;' 2> /tmp/nginx-errors",
    );
    const [redirectKey] = builtServices(compose).get('redirect')!;
    const [gatewayKey] = builtServices(compose).get('gateway')!;
    expect(Object.fromEntries(environmentOf(edge))).toEqual({
      EDGE_PORT: '8080',
      REDIRECT_UPSTREAM: `${redirectKey}:${serviceSpec('redirect').port}`,
      GATEWAY_UPSTREAM: `${gatewayKey}:${serviceSpec('gateway').port}`,
      // The product's own hosts, the operator's to name (empty: localhost and addresses only).
      EDGE_HOSTS: '',
    });
    // Every name the template takes is given, so the image's entrypoint fills in each one.
    const names = [
      ...readRepoFile('infra/edge/shortener.conf.template').matchAll(/\$\{([A-Z_]+)\}/g),
    ].map(([, name]) => name);
    expect([...new Set(names)].sort()).toEqual(
      Object.keys(Object.fromEntries(environmentOf(edge))).sort(),
    );
    // Behind it, the services believe X-Forwarded-For from this stack's network only.
    const { networks } = compose as {
      networks?: { default?: { ipam?: { config?: { subnet?: string }[] } } };
    };
    const network = networks?.default?.ipam?.config?.[0]?.subnet;
    expect(network).toBeDefined();
    for (const name of ['gateway', 'redirect'] as const) {
      const [, service] = builtServices(compose).get(name)!;
      expect(environmentOf(service).get('TRUSTED_PROXIES')).toBe(network);
    }
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

  it.each(Object.keys(SECRETS))('refuses to start without %s, naming it', (name) => {
    const others: Record<string, string> = { ...SECRETS };
    delete others[name];
    expect(() => loadCompose(others)).toThrow(new RegExp(`^${name} is required: set ${name}`));
    expect(() => loadCompose({ ...others, [name]: '' })).toThrow(`${name} is required`);
  });

  it('has no default secret: nothing published (dev-only…) is left to fall back on', () => {
    expect(readRepoFile('docker-compose.yml')).not.toMatch(/dev-only/i);
    const secretOf = (file: ComposeFile) =>
      new Set(
        [...builtServices(file).values()].map(([, service]) =>
          environmentOf(service).get('INTERNAL_API_SECRET'),
        ),
      );
    expect(secretOf(compose)).toEqual(new Set([SECRETS.INTERNAL_API_SECRET]));
  });

  it('runs Redis with a password, and every Redis client’s REDIS_URL carries it', () => {
    const redis = Object.values(compose.services).find(
      (service) => service.image === 'redis:7-alpine',
    )!;
    const script = [redis.command ?? []].flat().join('\n');
    expect(script).toMatch(/^exec redis-server - .*<<EOF\nrequirepass \$REDIS_PASSWORD\nEOF/);
    expect(environmentOf(redis).get('REDIS_PASSWORD')).toBe(SECRETS.REDIS_PASSWORD);
    expect([redis.healthcheck?.test ?? []].flat().join(' ')).toContain('REDISCLI_AUTH');
    const clients = [...builtServices(compose)]
      .filter(([name]) => configVariables(name).includes('REDIS_URL'))
      .map(([name, [, service]]) => [name, environmentOf(service).get('REDIS_URL')]);
    expect(clients.map(([name]) => name).sort()).toEqual([
      'analytics',
      'gateway',
      'links',
      'redirect',
    ]);
    for (const [name, url] of clients) {
      expect({ name, url }).toEqual({
        name,
        url: `redis://:${SECRETS.REDIS_PASSWORD}@redis:6379`,
      });
    }
  });

  describe('Kafka', () => {
    const kafka = Object.values(compose.services).find(
      (service) => service.image === KAFKA_IMAGE && !isOneShot(service),
    )!;
    const broker = environmentOf(kafka);
    const init = Object.values(compose.services).find(
      (service) => service.image === KAFKA_IMAGE && isOneShot(service),
    )!;
    const initScript = [init.command ?? []].flat().join('\n');

    it('listens for clients only with SASL/SCRAM-SHA-512; its controller only on loopback', () => {
      const listeners = (broker.get('KAFKA_LISTENERS') ?? '').split(',');
      const protocols = new Map(
        (broker.get('KAFKA_LISTENER_SECURITY_PROTOCOL_MAP') ?? '')
          .split(',')
          .map((pair) => pair.split(':') as [string, string]),
      );
      const open = listeners.filter((listener) => {
        const [name = '', address = ''] = listener.split('://');
        const protocol = protocols.get(name) ?? name;
        return !protocol.startsWith('SASL_') && !address.startsWith('127.0.0.1:');
      });
      expect(open).toEqual([]);
      expect(broker.get('KAFKA_ADVERTISED_LISTENERS')).toBe('SASL_PLAINTEXT://kafka:9092');
      expect(broker.get('KAFKA_SASL_ENABLED_MECHANISMS')).toBe('SCRAM-SHA-512');
      expect(broker.get('KAFKA_CONTROLLER_QUORUM_VOTERS')).toMatch(/^1@127\.0\.0\.1:/);
    });

    it('authorizes every request by ACL, with no one allowed by default', () => {
      expect(broker.get('KAFKA_AUTHORIZER_CLASS_NAME')).toBe(
        'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
      );
      expect(broker.get('KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND')).toBe('false');
      // admin: the broker and kafka-init; ANONYMOUS: the loopback-only controller listener.
      expect(broker.get('KAFKA_SUPER_USERS')).toBe('User:admin;User:ANONYMOUS');
    });

    it('creates the admin SCRAM user when it formats the storage, with a password it is given', () => {
      const script = [kafka.command ?? []].flat().join('\n');
      expect(script).toContain('kafka-storage.sh format --ignore-formatted');
      expect(script).toContain(
        '--add-scram "SCRAM-SHA-512=[name=admin,password=$BROKER_ADMIN_PASSWORD]"',
      );
      expect(script.trim()).toMatch(/exec \/etc\/kafka\/docker\/run$/);
      expect(broker.get('BROKER_ADMIN_PASSWORD')).toBe(SECRETS.KAFKA_ADMIN_PASSWORD);
      expect(broker.get('KAFKA_OPTS')).toContain('java.security.auth.login.config=');
      expect([kafka.healthcheck?.test ?? []].flat().join(' ')).toContain(
        '--command-config /opt/kafka/config/admin.properties',
      );
    });

    it('gives redirect and analytics SASL credentials of their own, which kafka-init creates', () => {
      const built = builtServices(compose);
      const clients: Record<string, Record<string, string | undefined>> = {};
      for (const name of ['redirect', 'analytics'] as const) {
        const environment = environmentOf(built.get(name)![1]);
        clients[name] = {
          mechanism: environment.get('KAFKA_SASL_MECHANISM'),
          username: environment.get('KAFKA_USERNAME'),
          password: environment.get('KAFKA_PASSWORD'),
        };
      }
      expect(clients).toEqual({
        redirect: {
          mechanism: 'scram-sha-512',
          username: 'redirect',
          password: SECRETS.KAFKA_REDIRECT_PASSWORD,
        },
        analytics: {
          mechanism: 'scram-sha-512',
          username: 'analytics',
          password: SECRETS.KAFKA_ANALYTICS_PASSWORD,
        },
      });
      expect(initScript).toContain('user redirect "$REDIRECT_PASSWORD"');
      expect(initScript).toContain('user analytics "$ANALYTICS_PASSWORD"');
      const initEnvironment = environmentOf(init);
      expect(initEnvironment.get('REDIRECT_PASSWORD')).toBe(SECRETS.KAFKA_REDIRECT_PASSWORD);
      expect(initEnvironment.get('ANALYTICS_PASSWORD')).toBe(SECRETS.KAFKA_ANALYTICS_PASSWORD);
      // No other service has any Kafka credentials.
      const others = [...built]
        .filter(([name]) => name !== 'redirect' && name !== 'analytics')
        .filter(([, [, service]]) =>
          [...environmentOf(service).keys()].some((key) => key.startsWith('KAFKA_')),
        );
      expect(others).toEqual([]);
    });

    it('lets only redirect write visits, and only analytics read it (in its group) and write visits.dlq', () => {
      expect(aclsOf(initScript)).toEqual({
        'User:redirect': ['Describe topic visits', 'IdempotentWrite cluster', 'Write topic visits'],
        'User:analytics': [
          'Describe topic visits',
          'Describe topic visits.dlq',
          'IdempotentWrite cluster',
          'Read group analytics',
          'Read topic visits',
          'Write topic visits.dlq',
        ],
      });
      const analytics = environmentOf(builtServices(compose).get('analytics')![1]);
      expect(analytics.get('KAFKA_CONSUMER_GROUP')).toBe('analytics');
    });

    it('starts the Kafka clients only once kafka-init has created their users and ACLs', () => {
      const [initKey] = Object.entries(compose.services).find(([, service]) => service === init)!;
      for (const name of ['redirect', 'analytics'] as const) {
        const [, service] = builtServices(compose).get(name)!;
        expect(Object.keys(service.depends_on ?? {})).toContain(initKey);
      }
    });
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
    const withGoogle = authOf(loadCompose({ ...SECRETS, ...google }));
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
