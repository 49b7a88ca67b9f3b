import type { IConfigMap, ISecret } from 'kubernetes-models/v1';
import {
  describeObject,
  ofKind,
  overlays,
  render,
  renderWithComponent,
} from './support/kubernetes';
import { allContainers, podSpec, renderedOverlay } from './support/overlay';
import { configVariables, isService, requiredInDeployment, SERVICES } from './support/repo';

// Each test lists every problem it finds (expect(problems).toEqual([])), so one run names
// all that is wrong, with the object it is wrong in.

/** The Secret production reads without rendering it: created in the namespace beforehand. */
const EXTERNAL_SECRET = 'shortener-secrets';

/** Variables holding a secret: never given as a plain value or in the environment. */
const SECRET_VARIABLE = /SECRET|PASSWORD|DATABASE_URL|REDIS_URL/;

describe.each(overlays())('the %s overlay: configuration and secrets', (overlay) => {
  const rendered = renderedOverlay(overlay);
  const { find, deploymentOf, podTemplates, secretFilesOf, environmentOf, secretOf } = rendered;

  it('gives each service every address and secret it needs, and only variables it reads', () => {
    const problems: string[] = [];
    const configMapKeys = new Set<string>();
    for (const deployment of rendered.deployments) {
      const service = deployment.metadata.name;
      if (!isService(service)) continue;
      const container = podSpec(deployment).containers[0]!;
      const reads = configVariables(service);
      const environment = environmentOf(podSpec(deployment), container, problems);
      for (const name of requiredInDeployment(service)) {
        if (!environment.has(name)) problems.push(`${service}: ${name} is not given`);
      }
      // Given one by one: each must be read by the service (NAME_FILE: NAME), or it is a typo.
      for (const { name } of container.env ?? []) {
        if (!reads.includes(name.replace(/_FILE$/, ''))) {
          problems.push(`${service}: ${name} is not read by it`);
        }
      }
      for (const source of container.envFrom ?? []) {
        const configMap = find<IConfigMap>('ConfigMap', source.configMapRef?.name ?? '');
        for (const key of Object.keys(configMap?.data ?? {})) configMapKeys.add(key);
      }
    }
    // The shared ConfigMap: each key read by at least one service.
    const readByAny = new Set(SERVICES.flatMap(configVariables));
    for (const key of configMapKeys) {
      if (!readByAny.has(key)) problems.push(`ConfigMap key ${key} is read by no service`);
    }
    expect(problems).toEqual([]);
  });

  it('keeps secrets out of the environment: each is a file of a Secret that exists or is the documented one, readable by the service only', () => {
    const problems: string[] = [];
    const secrets = ofKind<ISecret>(rendered.objects, 'Secret');
    for (const { owner, spec } of podTemplates()) {
      for (const container of allContainers(spec)) {
        const files = secretFilesOf(spec, container);
        const named = new Set<string>();
        for (const variable of container.env ?? []) {
          const where = `${owner} ${container.name} ${variable.name}`;
          if (variable.valueFrom?.secretKeyRef) {
            problems.push(`${where}: a Secret in the environment, not mounted as a file`);
          } else if (variable.name.endsWith('_FILE')) {
            if (files.has(variable.value ?? '')) named.add(variable.value!);
            else problems.push(`${where}: ${variable.value} is no file of a mounted Secret`);
          } else if (SECRET_VARIABLE.test(variable.name)) {
            problems.push(`${where}: a secret given as a plain value`);
          }
        }
        for (const [file, { secret: name, key, optional, mode }] of files) {
          const where = `${owner} ${container.name} ${file}`;
          const secret = secrets.find((candidate) => candidate.metadata.name === name);
          const keys = Object.keys({ ...secret?.data, ...secret?.stringData });
          if (!secret && name !== EXTERNAL_SECRET) {
            problems.push(`${where}: Secret ${name} is neither rendered nor documented`);
          } else if (secret && !keys.includes(key) && !optional) {
            problems.push(`${where}: Secret ${name} has no key ${key}`);
          }
          if (!named.has(file)) problems.push(`${where}: mounted, but no variable names it`);
          // Read by the service's group (fsGroup), no one else.
          if (mode !== 0o440) problems.push(`${where}: mode ${mode?.toString(8)}, not 440`);
          const group = container.securityContext?.runAsGroup ?? spec.securityContext?.runAsGroup;
          if (spec.securityContext?.fsGroup !== group) {
            problems.push(`${where}: fsGroup ${spec.securityContext?.fsGroup}, not ${group}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives the previous INTERNAL_API_SECRET, during a rotation, to every service that reads it, from the Secret if there', () => {
    const problems: string[] = [];
    const given: string[] = [];
    for (const name of SERVICES) {
      if (!configVariables(name).includes('INTERNAL_API_SECRET_PREVIOUS')) continue;
      const spec = podSpec(deploymentOf(name));
      const file = secretOf(spec, spec.containers[0]!, 'INTERNAL_API_SECRET_PREVIOUS');
      if (file?.secret.startsWith(EXTERNAL_SECRET) && file.key === 'INTERNAL_API_SECRET_PREVIOUS') {
        given.push(name);
        if (!file.optional) problems.push(`${name}: required, not only during a rotation`);
      }
    }
    expect(problems).toEqual([]);
    expect(given.sort()).toEqual(['analytics', 'auth', 'links', 'redirect']);
  });

  it('gives redirect and analytics a Kafka user of their own, with SCRAM and a password from the Secret', () => {
    const problems: string[] = [];
    const credentials: Record<string, Record<string, string | undefined>> = {};
    for (const deployment of rendered.deployments) {
      const container = podSpec(deployment).containers[0]!;
      const environment = environmentOf(podSpec(deployment), container, problems);
      const kafka = [...environment.keys()].filter((key) =>
        /^KAFKA_(SASL|USERNAME|PASSWORD)/.test(key),
      );
      if (!['redirect', 'analytics'].includes(deployment.metadata.name)) {
        // The shared ConfigMap names the mechanism for everyone; credentials only the clients.
        const credentialKeys = kafka.filter((key) => key !== 'KAFKA_SASL_MECHANISM');
        if (credentialKeys.length > 0)
          problems.push(`${deployment.metadata.name}: ${credentialKeys.join()}`);
        continue;
      }
      if (secretOf(podSpec(deployment), container, 'KAFKA_PASSWORD')?.optional !== false) {
        problems.push(`${deployment.metadata.name}: KAFKA_PASSWORD is optional or not a file`);
      }
      credentials[deployment.metadata.name] = {
        mechanism: environment.get('KAFKA_SASL_MECHANISM'),
        username: environment.get('KAFKA_USERNAME'),
        // The dev overlay generates the Secret, with a hash after its name.
        password: environment
          .get('KAFKA_PASSWORD')
          ?.replace(/^(secret:shortener-secrets)-\w+\//, '$1/'),
      };
    }
    expect(problems).toEqual([]);
    expect(credentials).toEqual({
      redirect: {
        mechanism: 'scram-sha-512',
        username: 'shortener-redirect',
        password: `secret:${EXTERNAL_SECRET}/KAFKA_REDIRECT_PASSWORD`,
      },
      analytics: {
        mechanism: 'scram-sha-512',
        username: 'shortener-analytics',
        password: `secret:${EXTERNAL_SECRET}/KAFKA_ANALYTICS_PASSWORD`,
      },
    });
  });

  it('takes REDIS_URL (it carries Redis’s password) only from the Secret, always', () => {
    const problems: string[] = [];
    const clients: string[] = [];
    for (const deployment of rendered.deployments) {
      const container = podSpec(deployment).containers[0]!;
      const environment = environmentOf(podSpec(deployment), container, problems);
      if (!environment.has('REDIS_URL')) continue;
      clients.push(deployment.metadata.name);
      const file = secretOf(podSpec(deployment), container, 'REDIS_URL');
      if (!file?.secret.startsWith(EXTERNAL_SECRET) || file.key !== 'REDIS_URL') {
        problems.push(`${deployment.metadata.name}: REDIS_URL is not from the Secret`);
      } else if (file.optional) {
        problems.push(`${deployment.metadata.name}: REDIS_URL from the Secret is optional`);
      }
    }
    for (const configMap of ofKind<IConfigMap>(rendered.objects, 'ConfigMap')) {
      if (configMap.data?.['REDIS_URL'] !== undefined) {
        problems.push(`${describeObject(configMap)} has a REDIS_URL (without a password)`);
      }
    }
    expect(problems).toEqual([]);
    expect(clients.sort()).toEqual(['analytics', 'gateway', 'links', 'redirect']);
  });
});

describe('k8s/components/external-secrets: the Secret kept from a secret manager', () => {
  interface ExternalSecret {
    kind: string;
    metadata: { name: string; namespace?: string };
    spec: { secretStoreRef: { kind: string; name: string }; target: { name: string } };
  }

  it('adds to the production overlay only an ExternalSecret making the Secret its pods mount', () => {
    const production = render('production');
    const objects = renderWithComponent('production', 'k8s/components/external-secrets');
    const added = objects.filter(
      (object) => !production.some((other) => JSON.stringify(other) === JSON.stringify(object)),
    );
    expect(added.map(describeObject)).toEqual(['ExternalSecret/shortener-secrets']);
    const external = added[0] as unknown as ExternalSecret;
    expect(external.metadata.namespace).toBe('shortener');
    expect(external.spec.secretStoreRef.kind).toBe('ClusterSecretStore');
    const mounted = new Set(
      [
        ...JSON.stringify(production).matchAll(/"(?:secretName|name)":"(shortener-secrets[^"]*)"/g),
      ].map((match) => match[1]),
    );
    expect([...mounted]).toEqual([external.spec.target.name]);
  });
});
