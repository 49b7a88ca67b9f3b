import { parseAllDocuments } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { IIngress, INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { IConfigMap, ISecret, IService, IServiceAccount } from 'kubernetes-models/v1';
import {
  describeObject,
  ofKind,
  overlays,
  quantity,
  render,
  schemaProblems,
  selects,
  type Container,
  type LabelSelector,
  type Manifest,
  type PodSpec,
} from './support/kubernetes';
import {
  configVariables,
  isService,
  MIGRATING_SERVICES,
  readRepoFile,
  repoPathExists,
  requiredInDeployment,
  SERVICES,
  serviceSpec,
} from './support/repo';

// Each test lists every problem it finds (expect(problems).toEqual([])), so one run names
// all that is wrong, with the object it is wrong in.

type Deployment = Manifest & IDeployment;
type NetworkPolicy = Manifest & INetworkPolicy;

/** The Secret production reads without rendering it: created in the namespace beforehand. */
const EXTERNAL_SECRET = 'shortener-secrets';

const podSpec = (deployment: Deployment): PodSpec => deployment.spec!.template.spec!;
const podLabels = (deployment: Deployment) => deployment.spec!.template.metadata?.labels ?? {};
const allContainers = (spec: PodSpec): Container[] => [
  ...(spec.initContainers ?? []),
  ...spec.containers,
];

function containerPort(container: Container, port: number | string): number | undefined {
  return (container.ports ?? []).find((candidate) =>
    typeof port === 'number' ? candidate.containerPort === port : candidate.name === port,
  )?.containerPort;
}

/** A service's /readyz and /metrics port: the container port named ops, which OPS_PORT sets. */
const OPS_PORT_NAME = 'ops';

describe.each(overlays())('the %s overlay', (overlay) => {
  let objects: Manifest[];
  let deployments: Deployment[];

  beforeAll(() => {
    objects = render(overlay);
    deployments = ofKind<IDeployment>(objects, 'Deployment');
  });

  const find = <T>(kind: string, name: string) =>
    objects.find((object) => object.kind === kind && object.metadata.name === name) as
      (Manifest & T) | undefined;

  const deploymentOf = (name: string): Deployment => {
    const deployment = find<IDeployment>('Deployment', name);
    if (!deployment) throw new Error(`no Deployment ${name} in the ${overlay} overlay`);
    return deployment;
  };

  const selectedDeployments = (selector: LabelSelector) =>
    deployments.filter((deployment) => selects(selector, podLabels(deployment)));

  /** Every pod template: the Deployments' and the migration Job's. */
  const podTemplates = (): { owner: string; spec: PodSpec }[] => [
    ...deployments.map((deployment) => ({
      owner: describeObject(deployment),
      spec: podSpec(deployment),
    })),
    ...ofKind<IJob>(objects, 'Job').map((job) => ({
      owner: describeObject(job),
      spec: job.spec!.template.spec!,
    })),
  ];

  /**
   * A container's environment as the kubelet builds it: the ConfigMaps of envFrom, then env
   * (its values, and "secret:<name>/<key>" for Secret references).
   */
  const environmentOf = (container: Container, problems: string[]): Map<string, string> => {
    const environment = new Map<string, string>();
    for (const source of container.envFrom ?? []) {
      const name = source.configMapRef?.name ?? '';
      const configMap = find<IConfigMap>('ConfigMap', name);
      if (!configMap) problems.push(`${container.name}: envFrom names a missing ConfigMap ${name}`);
      for (const [key, value] of Object.entries(configMap?.data ?? {})) environment.set(key, value);
    }
    for (const variable of container.env ?? []) {
      const secret = variable.valueFrom?.secretKeyRef;
      environment.set(
        variable.name,
        secret ? `secret:${secret.name}/${secret.key}` : (variable.value ?? ''),
      );
    }
    return environment;
  };

  it('renders only objects that are valid against the Kubernetes schemas', () => {
    expect(objects.length).toBeGreaterThan(0);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
  });

  it('puts every object in the overlay’s namespace', () => {
    const namespaces = ofKind(objects, 'Namespace').map((namespace) => namespace.metadata.name);
    expect(namespaces).toHaveLength(1);
    const elsewhere = objects
      .filter((object) => object.kind !== 'Namespace')
      .filter((object) => object.metadata.namespace !== namespaces[0])
      .map(describeObject);
    expect(elsewhere).toEqual([]);
  });

  it('deploys every service and the web app', () => {
    const names = deployments.map((deployment) => deployment.metadata.name).sort();
    expect(names).toEqual([...SERVICES, 'frontend'].sort());
  });

  it('runs each service on its listed port, behind a Service of its name on that port', () => {
    const problems: string[] = [];
    for (const name of SERVICES) {
      const { port } = serviceSpec(name);
      const container = podSpec(deploymentOf(name)).containers[0]!;
      const env = environmentOf(container, problems);
      if (containerPort(container, 'http') !== port) {
        problems.push(`${name}: container port http is ${containerPort(container, 'http')}`);
      }
      if (env.get('PORT') !== String(port)) problems.push(`${name}: PORT=${env.get('PORT')}`);
      const service = find<IService>('Service', name);
      const http = service?.spec?.ports?.find((candidate) => candidate.name === 'http');
      if (http?.port !== port || http.targetPort !== 'http') {
        problems.push(`Service/${name}: http is ${http?.port} -> ${http?.targetPort}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('tells every service where the services it calls are: their Service name and listed port', () => {
    const problems: string[] = [];
    for (const name of SERVICES) {
      const env = environmentOf(podSpec(deploymentOf(name)).containers[0]!, problems);
      for (const callee of serviceSpec(name).calls.map(serviceSpec)) {
        const expected = `http://${callee.name}:${callee.port}`;
        const given = env.get(callee.urlVariable ?? '');
        if (given !== expected) problems.push(`${name}: ${callee.urlVariable}=${given}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('probes /healthz for liveness and start-up, /readyz for readiness, on a declared port (a service’s ops port)', () => {
    const problems: string[] = [];
    for (const deployment of deployments) {
      const service = isService(deployment.metadata.name);
      for (const container of podSpec(deployment).containers) {
        const where = `${describeObject(deployment)} ${container.name}`;
        const probes = {
          liveness: [container.livenessProbe?.httpGet, '/healthz'],
          startup: [container.startupProbe?.httpGet, '/healthz'],
          readiness: [container.readinessProbe?.httpGet, '/readyz'],
        } as const;
        for (const [kind, [probe, path]] of Object.entries(probes)) {
          if (probe?.path !== path) problems.push(`${where}: ${kind} probe is not GET ${path}`);
          else if (containerPort(container, probe.port) === undefined) {
            problems.push(`${where}: ${kind} probe port ${probe.port} is not a container port`);
          } else if (
            service &&
            containerPort(container, probe.port) !== containerPort(container, OPS_PORT_NAME)
          ) {
            problems.push(`${where}: ${kind} probe port ${probe.port} is not the ops port`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('serves each service’s /readyz and /metrics on its ops port (OPS_PORT), where Prometheus scrapes', () => {
    const problems: string[] = [];
    for (const deployment of deployments) {
      if (!isService(deployment.metadata.name)) continue;
      const where = describeObject(deployment);
      const container = podSpec(deployment).containers[0]!;
      const opsPort = containerPort(container, OPS_PORT_NAME);
      const environment = environmentOf(container, problems);
      if (opsPort === undefined)
        problems.push(`${where}: no container port named ${OPS_PORT_NAME}`);
      else if (opsPort === containerPort(container, 'http')) {
        problems.push(`${where}: the ops port is the service's own port`);
      }
      if (environment.get('OPS_PORT') !== String(opsPort)) {
        problems.push(
          `${where}: OPS_PORT=${environment.get('OPS_PORT')}, the ops port is ${opsPort}`,
        );
      }
      const annotations = deployment.spec!.template.metadata?.annotations ?? {};
      const scrape = [
        annotations['prometheus.io/scrape'],
        annotations['prometheus.io/port'],
        annotations['prometheus.io/path'],
      ];
      if (scrape.join(' ') !== `true ${opsPort} /metrics`) {
        problems.push(
          `${where}: Prometheus scrapes ${scrape.join(' ')}, not /metrics on ${opsPort}`,
        );
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every container CPU and memory requests and limits, requests within limits', () => {
    const problems: string[] = [];
    for (const { owner, spec } of podTemplates()) {
      for (const container of allContainers(spec)) {
        const { requests = {}, limits = {} } = container.resources ?? {};
        for (const resource of ['cpu', 'memory']) {
          const request = requests[resource];
          const limit = limits[resource];
          if (request === undefined || limit === undefined) {
            problems.push(`${owner} ${container.name}: no ${resource} request or limit`);
          } else if (quantity(request) > quantity(limit)) {
            problems.push(`${owner} ${container.name}: ${resource} request ${request} > ${limit}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('runs every container as a numeric non-root user, read-only, without privileges', () => {
    const problems: string[] = [];
    for (const { owner, spec } of podTemplates()) {
      const pod = spec.securityContext ?? {};
      for (const container of allContainers(spec)) {
        const own = container.securityContext ?? {};
        const where = `${owner} ${container.name}`;
        const checks: [boolean, string][] = [
          [(own.runAsNonRoot ?? pod.runAsNonRoot) === true, 'runAsNonRoot is not true'],
          [(own.runAsUser ?? pod.runAsUser ?? 0) > 0, 'no numeric non-root runAsUser'],
          [
            (own.seccompProfile ?? pod.seccompProfile)?.type === 'RuntimeDefault',
            'seccompProfile is not RuntimeDefault',
          ],
          [own.readOnlyRootFilesystem === true, 'root file system is writable'],
          [own.allowPrivilegeEscalation === false, 'privilege escalation is allowed'],
          [own.privileged !== true, 'privileged'],
          [own.capabilities?.drop?.includes('ALL') === true, 'capabilities are not all dropped'],
          [(own.capabilities?.add ?? []).length === 0, 'capabilities are added'],
        ];
        for (const [ok, problem] of checks) if (!ok) problems.push(`${where}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives every pod its own service account, without an API token', () => {
    const problems: string[] = [];
    for (const { owner, spec } of podTemplates()) {
      const account = find<IServiceAccount>('ServiceAccount', spec.serviceAccountName ?? '');
      if (!account) problems.push(`${owner}: no ServiceAccount of its own`);
      if (
        spec.automountServiceAccountToken !== false ||
        account?.automountServiceAccountToken !== false
      ) {
        problems.push(`${owner}: the service account token is mounted`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('points every Service at the pods of one Deployment, on a port they expose', () => {
    const problems: string[] = [];
    for (const service of ofKind<IService>(objects, 'Service')) {
      const where = describeObject(service);
      const selected = selectedDeployments({ matchLabels: service.spec?.selector ?? {} });
      if (selected.length !== 1) {
        problems.push(`${where} selects ${selected.length} Deployments`);
        continue;
      }
      const container = podSpec(selected[0]!).containers[0]!;
      for (const port of service.spec?.ports ?? []) {
        if (containerPort(container, port.targetPort ?? port.port) === undefined) {
          problems.push(`${where}: target port ${port.targetPort} is not a container port`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('routes /r/ straight to redirect, the API and sign-in to the gateway, the rest to the web app', () => {
    const ingresses = ofKind<IIngress>(objects, 'Ingress');
    expect(ingresses).toHaveLength(1);
    const problems: string[] = [];
    const routes: Record<string, string> = {};
    for (const rule of ingresses[0]!.spec?.rules ?? []) {
      for (const route of rule.http?.paths ?? []) {
        const backend = route.backend.service!;
        const service = find<IService>('Service', backend.name);
        const port = service?.spec?.ports?.find(
          (candidate) =>
            candidate.name === backend.port?.name || candidate.port === backend.port?.number,
        );
        if (!port) problems.push(`${route.path}: Service ${backend.name} has no such port`);
        const selected = selectedDeployments({ matchLabels: service?.spec?.selector ?? {} });
        if (selected.map((deployment) => deployment.metadata.name).join() !== backend.name) {
          problems.push(`${route.path}: Service ${backend.name} does not select its Deployment`);
        }
        routes[`${route.pathType} ${route.path}`] = backend.name;
      }
    }
    expect(problems).toEqual([]);
    expect(routes).toEqual({
      'Prefix /r/': 'redirect',
      'Prefix /api': 'gateway',
      'Prefix /login': 'gateway',
      'Prefix /auth': 'gateway',
      'Prefix /logout': 'gateway',
      'Prefix /': 'frontend',
    });
  });

  describe('network policies', () => {
    let policies: NetworkPolicy[];
    beforeAll(() => {
      policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
    });

    const policiesOf = (name: string, type: 'Ingress' | 'Egress') =>
      policies.filter(
        (policy) =>
          selects(policy.spec!.podSelector, podLabels(deploymentOf(name))) &&
          (policy.spec!.policyTypes ?? ['Ingress']).includes(type),
      );

    /** Whether an ingress or egress rule's ports let a connection to the container's port through. */
    const coversPort = (
      ports: { port?: number | string }[] | undefined,
      container: Container,
      port: number | string,
    ): boolean =>
      ports === undefined ||
      ports.some(
        (allowed) =>
          allowed.port === undefined ||
          containerPort(container, allowed.port) === containerPort(container, port),
      );

    /**
     * Who may connect to a Deployment's pods on a port (its first, the service's own, unless
     * named): Deployment names, "outside" or "anyone"; with `namespaces`, a namespace
     * selector shows as "namespace <name>".
     */
    const allowedSources = (
      name: string,
      port?: number | string,
      { namespaces = false } = {},
    ): string[] => {
      const sources = new Set<string>();
      const container = podSpec(deploymentOf(name)).containers[0]!;
      const target = port ?? container.ports![0]!.containerPort;
      for (const policy of policiesOf(name, 'Ingress')) {
        for (const rule of policy.spec!.ingress ?? []) {
          if (!coversPort(rule.ports, container, target)) continue;
          if ((rule.from ?? []).length === 0) sources.add('anyone');
          for (const peer of rule.from ?? []) {
            const namespace = peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'];
            if (namespaces && namespace && !peer.podSelector) {
              sources.add(`namespace ${namespace}`);
            } else if (peer.ipBlock || peer.namespaceSelector) sources.add('outside');
            else if (peer.podSelector) {
              for (const source of selectedDeployments(peer.podSelector)) {
                sources.add(source.metadata.name);
              }
            }
          }
        }
      }
      return [...sources].sort();
    };

    /** Whether the source's egress rules let it connect to the target's port. */
    const mayConnect = (source: string, target: string): boolean => {
      const port = podSpec(deploymentOf(target)).containers[0]!.ports![0]!.containerPort;
      const toTarget = (peer: NonNullable<INetworkPolicy['spec']>['egress']) =>
        (peer ?? []).some(
          (rule) =>
            (rule.to === undefined ||
              rule.to.some(
                (to) =>
                  to.podSelector !== undefined &&
                  to.namespaceSelector === undefined &&
                  selects(to.podSelector, podLabels(deploymentOf(target))),
              )) &&
            (rule.ports === undefined || rule.ports.some((allowed) => allowed.port === port)),
        );
      return policiesOf(source, 'Egress').some((policy) => toTarget(policy.spec!.egress));
    };

    it('deny everything not allowed, in both directions', () => {
      const denyAll = policies.filter(
        ({ spec = { podSelector: {} } }) =>
          Object.keys(spec.podSelector).length === 0 &&
          spec.policyTypes?.includes('Ingress') &&
          spec.policyTypes.includes('Egress') &&
          spec.ingress === undefined &&
          spec.egress === undefined,
      );
      expect(denyAll).toHaveLength(1);
    });

    it.each(SERVICES)(
      'let only the services that call %s (services/services.json) reach it',
      (target) => {
        const callers = SERVICES.filter((name) => serviceSpec(name).calls.includes(target));
        // Who comes from outside is the Ingress's business, checked below.
        expect(allowedSources(target).filter((source) => source !== 'outside')).toEqual(
          [...callers].sort(),
        );
        const blocked = callers.filter((caller) => !mayConnect(caller, target));
        expect(blocked).toEqual([]);
      },
    );

    it('let the Ingress controller reach only the gateway, the web app and redirect', () => {
      const reachable = deployments
        .map((deployment) => deployment.metadata.name)
        .filter((name) =>
          allowedSources(name).some((source) => ['outside', 'anyone'].includes(source)),
        );
      expect(reachable.sort()).toEqual(['frontend', 'gateway', 'redirect']);
      // The gateway forwards /r/ too, where no Ingress sends it straight there.
      expect(allowedSources('redirect')).toEqual(['gateway', 'outside']);
      expect(mayConnect('gateway', 'redirect')).toBe(true);
    });

    it('let only the monitoring namespace reach each service’s ops port', () => {
      const sources = Object.fromEntries(
        SERVICES.map((name) => [
          name,
          allowedSources(name, OPS_PORT_NAME, { namespaces: true }).join(', '),
        ]),
      );
      expect(sources).toEqual(
        Object.fromEntries(SERVICES.map((name) => [name, 'namespace monitoring'])),
      );
    });

    it('let every pod resolve names', () => {
      const dns = policies.filter(
        ({ spec }) =>
          Object.keys(spec!.podSelector).length === 0 &&
          (spec!.egress ?? []).some((rule) =>
            (rule.ports ?? []).some(({ port, protocol }) => port === 53 && protocol === 'UDP'),
          ),
      );
      expect(dns).toHaveLength(1);
    });
  });

  it('autoscales the gateway and redirect on CPU, and leaves their replica count to it', () => {
    const autoscalers = ofKind<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler');
    const targets = autoscalers.map((hpa) => hpa.spec!.scaleTargetRef.name).sort();
    expect(targets).toEqual(['gateway', 'redirect']);
    const problems: string[] = [];
    for (const hpa of autoscalers) {
      const { scaleTargetRef, minReplicas = 1, maxReplicas, metrics = [] } = hpa.spec!;
      const where = describeObject(hpa);
      if (scaleTargetRef.kind !== 'Deployment') problems.push(`${where}: not a Deployment`);
      if (deploymentOf(scaleTargetRef.name).spec!.replicas !== undefined) {
        problems.push(`${where}: its Deployment sets replicas, fighting the autoscaler`);
      }
      if (!(minReplicas >= 1 && maxReplicas > minReplicas)) {
        problems.push(`${where}: replicas from ${minReplicas} to ${maxReplicas}`);
      }
      if (!metrics.some((metric) => metric.resource?.name === 'cpu')) {
        problems.push(`${where}: does not scale on CPU`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('covers every Deployment with one PodDisruptionBudget', () => {
    const budgets = ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget');
    const uncovered = deployments
      .filter(
        (deployment) =>
          budgets.filter((budget) => selects(budget.spec!.selector!, podLabels(deployment)))
            .length !== 1,
      )
      .map(describeObject);
    expect(uncovered).toEqual([]);
  });

  it('migrates auth, links and analytics in a Job with the Deployments’ images, not at start-up', () => {
    const jobs = ofKind<IJob>(objects, 'Job');
    expect(jobs).toHaveLength(1);
    const containers = jobs[0]!.spec!.template.spec!.containers;
    const problems: string[] = [];
    for (const service of MIGRATING_SERVICES) {
      // The image runs in its service's folder; the Job names the program in full.
      const entryPoint = `/app/services/${service}/${serviceSpec(service).migrate}`;
      const container = containers.find((candidate) => candidate.command?.includes(entryPoint));
      const serviceContainer = podSpec(deploymentOf(service)).containers[0]!;
      if (!container) problems.push(`the Job does not run ${entryPoint}`);
      else if (container.image !== serviceContainer.image) {
        problems.push(`${entryPoint} runs in ${container.image}, not ${serviceContainer.image}`);
      }
      if (!repoPathExists(`services/${service}/src/migrate.ts`)) {
        problems.push(`services/${service}/src/migrate.ts does not exist`);
      }
      const migrates = environmentOf(serviceContainer, problems).get('DB_MIGRATE');
      if (migrates !== 'false') problems.push(`${service} runs with DB_MIGRATE=${migrates}`);
    }
    expect(problems).toEqual([]);
  });

  it('gives each service every address and secret it needs, and only variables it reads', () => {
    const problems: string[] = [];
    const configMapKeys = new Set<string>();
    for (const deployment of deployments) {
      const service = deployment.metadata.name;
      if (!isService(service)) continue;
      const container = podSpec(deployment).containers[0]!;
      const reads = configVariables(service);
      const environment = environmentOf(container, problems);
      for (const name of requiredInDeployment(service)) {
        if (!environment.has(name)) problems.push(`${service}: ${name} is not given`);
      }
      // Given one by one: each must be read by the service, or it is a typo.
      for (const { name } of container.env ?? []) {
        if (!reads.includes(name)) problems.push(`${service}: ${name} is not read by it`);
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

  it('takes secrets only from Secrets, which exist or are the documented external one', () => {
    const problems: string[] = [];
    const secrets = ofKind<ISecret>(objects, 'Secret');
    for (const { owner, spec } of podTemplates()) {
      for (const container of allContainers(spec)) {
        for (const variable of container.env ?? []) {
          const reference = variable.valueFrom?.secretKeyRef;
          const where = `${owner} ${container.name} ${variable.name}`;
          if (!reference) {
            if (/SECRET|PASSWORD|DATABASE_URL/.test(variable.name)) {
              problems.push(`${where}: a secret given as a plain value`);
            }
            continue;
          }
          const secret = secrets.find((candidate) => candidate.metadata.name === reference.name);
          const keys = Object.keys({ ...secret?.data, ...secret?.stringData });
          if (!secret && reference.name !== EXTERNAL_SECRET) {
            problems.push(`${where}: Secret ${reference.name} is neither rendered nor documented`);
          } else if (secret && !keys.includes(reference.key) && reference.optional !== true) {
            problems.push(`${where}: Secret ${reference.name} has no key ${reference.key}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives redirect and analytics a Kafka user of their own, with SCRAM and a password from the Secret', () => {
    const problems: string[] = [];
    const credentials: Record<string, Record<string, string | undefined>> = {};
    for (const deployment of deployments) {
      const container = podSpec(deployment).containers[0]!;
      const environment = environmentOf(container, problems);
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
      const password = (container.env ?? []).find((variable) => variable.name === 'KAFKA_PASSWORD');
      if (password?.valueFrom?.secretKeyRef?.optional === true) {
        problems.push(`${deployment.metadata.name}: KAFKA_PASSWORD is optional`);
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
    for (const deployment of deployments) {
      const container = podSpec(deployment).containers[0]!;
      const environment = environmentOf(container, problems);
      if (!environment.has('REDIS_URL')) continue;
      clients.push(deployment.metadata.name);
      const variable = (container.env ?? []).find(({ name }) => name === 'REDIS_URL');
      const reference = variable?.valueFrom?.secretKeyRef;
      if (!reference?.name?.startsWith(EXTERNAL_SECRET) || reference.key !== 'REDIS_URL') {
        problems.push(`${deployment.metadata.name}: REDIS_URL is not from the Secret`);
      } else if (reference.optional === true) {
        problems.push(`${deployment.metadata.name}: REDIS_URL from the Secret is optional`);
      }
    }
    for (const configMap of ofKind<IConfigMap>(objects, 'ConfigMap')) {
      if (configMap.data?.['REDIS_URL'] !== undefined) {
        problems.push(`${describeObject(configMap)} has a REDIS_URL (without a password)`);
      }
    }
    expect(problems).toEqual([]);
    expect(clients.sort()).toEqual(['analytics', 'gateway', 'links', 'redirect']);
  });

  const replicasAtRest = (deployment: Deployment): number | undefined => {
    const hpa = find<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler', deployment.metadata.name);
    return hpa?.spec?.minReplicas ?? deployment.spec!.replicas;
  };

  if (overlay === 'dev') {
    it('runs one replica of each from locally built images, with fake secrets', () => {
      const problems: string[] = [];
      for (const deployment of deployments) {
        const where = describeObject(deployment);
        const replicas = replicasAtRest(deployment);
        if (replicas !== 1) problems.push(`${where}: ${replicas} replicas at rest`);
        const image = podSpec(deployment).containers[0]!.image ?? '';
        if (!/^shortener-[a-z]+:dev$/.test(image)) problems.push(`${where}: image ${image}`);
      }
      for (const secret of ofKind<ISecret>(objects, 'Secret')) {
        for (const [key, value] of Object.entries(secret.data ?? {})) {
          if (!Buffer.from(value, 'base64').toString().includes('dev-only-fake')) {
            problems.push(`${describeObject(secret)} ${key} is not marked dev-only-fake`);
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('says it is not production (NODE_ENV=development), since production refuses dev-only values', () => {
      const configMaps = ofKind<IConfigMap>(objects, 'ConfigMap');
      expect(configMaps.map((configMap) => configMap.data?.['NODE_ENV'])).toEqual(['development']);
      const secret = ofKind<ISecret>(objects, 'Secret')[0]!;
      expect(Object.keys(secret.data ?? {}).sort()).toEqual([
        'DATABASE_URL',
        'INTERNAL_API_SECRET',
        'KAFKA_ANALYTICS_PASSWORD',
        'KAFKA_REDIRECT_PASSWORD',
        'REDIS_URL',
      ]);
    });
  }

  if (overlay === 'production') {
    it('runs several replicas of each from pinned images, and renders no Secret', () => {
      const problems: string[] = [];
      for (const deployment of deployments) {
        const where = describeObject(deployment);
        const replicas = replicasAtRest(deployment) ?? 1;
        if (replicas < 2) problems.push(`${where}: ${replicas} replica at rest`);
        // A registry, a name and a version tag: never a floating "latest".
        const image = podSpec(deployment).containers[0]!.image ?? '';
        if (!/^[a-z0-9.-]+\.[a-z]+(:\d+)?\/.+:(?!latest$)[\w.-]+$/.test(image)) {
          problems.push(`${where}: image ${image} is not pinned in a registry`);
        }
      }
      // Consumers beyond the visits topic's partitions (6) would sit idle.
      const analytics = deploymentOf('analytics').spec!.replicas ?? 1;
      if (analytics > 6) problems.push(`analytics: ${analytics} consumers for 6 partitions`);
      expect(problems).toEqual([]);
      expect(ofKind(objects, 'Secret')).toEqual([]);
    });

    it('runs as production (the images’ NODE_ENV) and carries no dev-only value', () => {
      for (const configMap of ofKind<IConfigMap>(objects, 'ConfigMap')) {
        expect(configMap.data?.['NODE_ENV']).toBeUndefined();
      }
      expect(JSON.stringify(objects)).not.toMatch(/dev-only/i);
    });
  }
});

describe('k8s/kafka: the services’ Kafka users (Strimzi KafkaUser)', () => {
  interface KafkaUser {
    kind: string;
    metadata: { name: string; labels?: Record<string, string> };
    spec: {
      authentication: { type: string };
      authorization: {
        type: string;
        acls: {
          resource: { type: string; name?: string; patternType?: string };
          operations: string[];
          type?: string;
        }[];
      };
    };
  }
  const users = parseAllDocuments(readRepoFile('k8s/kafka/kafka-users.yaml')).map(
    (document) => document.toJS() as KafkaUser,
  );
  const aclsOf = (user: KafkaUser): string[] =>
    user.spec.authorization.acls
      .flatMap(({ resource, operations, type }) => {
        if (type !== undefined && type !== 'allow') return [`${type}?`];
        if (resource.type !== 'cluster' && resource.patternType !== 'literal') return ['prefixed?'];
        const name = resource.type === 'cluster' ? 'cluster' : `${resource.type} ${resource.name}`;
        return operations.map((operation) => `${operation} ${name}`);
      })
      .sort();

  it('is one SCRAM-SHA-512 user per Kafka client, named as its Deployment logs in', () => {
    expect(
      users.map((user) => [user.kind, user.metadata.name, user.spec.authentication.type]),
    ).toEqual([
      ['KafkaUser', 'shortener-redirect', 'scram-sha-512'],
      ['KafkaUser', 'shortener-analytics', 'scram-sha-512'],
    ]);
    for (const user of users) {
      expect(user.metadata.labels?.['strimzi.io/cluster']).toBe('shortener');
      expect(user.spec.authorization.type).toBe('simple');
    }
    for (const name of ['redirect', 'analytics']) {
      expect(readRepoFile(`k8s/base/${name}.yaml`)).toMatch(
        new RegExp(`- name: KAFKA_USERNAME\\n\\s+value: shortener-${name}\\n`),
      );
    }
  });

  it('lets only redirect write visits, and only analytics read it (in its group) and write visits.dlq', () => {
    expect(Object.fromEntries(users.map((user) => [user.metadata.name, aclsOf(user)]))).toEqual({
      'shortener-redirect': [
        'Describe topic visits',
        'IdempotentWrite cluster',
        'Write topic visits',
      ],
      'shortener-analytics': [
        'Describe topic visits',
        'Describe topic visits.dlq',
        'IdempotentWrite cluster',
        'Read group analytics',
        'Read topic visits',
        'Write topic visits.dlq',
      ],
    });
  });
});
