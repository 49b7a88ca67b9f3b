import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { READINESS_CHECK_TIMEOUT_MS } from '@shortener/chassis';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { IIngress, INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { IConfigMap, ISecret, IService, IServiceAccount } from 'kubernetes-models/v1';
import {
  describeObject,
  kafkaTopics,
  KAFKA_FOLDER,
  ofKind,
  overlays,
  quantity,
  render,
  renderWithComponent,
  renderWithComponentInside,
  schemaProblems,
  selects,
  topicPartitions,
  type Container,
  type LabelSelector,
  type Manifest,
  type PodSpec,
} from './support/kubernetes';
import {
  configDefault,
  configVariables,
  isService,
  MIGRATING_SERVICES,
  readRepoFile,
  REPO_ROOT,
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

/** Variables holding a secret: never given as a plain value or in the environment. */
const SECRET_VARIABLE = /SECRET|PASSWORD|DATABASE_URL|REDIS_URL/;

/** A file a container sees of a mounted Secret. */
interface SecretFile {
  secret: string;
  key: string;
  /** The pod starts without it (the key missing: no file). */
  optional: boolean;
  mode: number | undefined;
}

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

/**
 * How long the edge keeps an idle connection to a pod: ingress-nginx's upstream-keepalive-timeout
 * (60 s unless the cluster changed it; no Ingress annotation sets it), and what the guide asks
 * of a Gateway's proxies. A service closing sooner races the edge's next request on that
 * connection.
 */
const EDGE_UPSTREAM_IDLE_MS = 60_000;

/** The component that puts an Ingress for ingress-nginx in place of the HTTPRoute. */
const INGRESS_COMPONENT = 'k8s/components/ingress-nginx';

/** The Gateway the HTTPRoute attaches to, which the cluster's operator provides. */
const GATEWAY = { name: 'public', namespace: 'gateway-system' };

/** ingress-nginx's controller defaults (its ConfigMap documentation) the Ingress ran with. */
const INGRESS_NGINX_DEFAULTS = {
  'nginx.ingress.kubernetes.io/proxy-connect-timeout': '5',
  'nginx.ingress.kubernetes.io/proxy-read-timeout': '60',
  'nginx.ingress.kubernetes.io/proxy-send-timeout': '60',
  'nginx.ingress.kubernetes.io/proxy-body-size': '1m',
};
/** The header ingress-nginx adds to every answer over TLS (hsts, hsts-max-age, hsts-include-subdomains). */
const INGRESS_NGINX_HSTS = 'max-age=15724800; includeSubDomains';

/** An HTTPRoute (gateway.networking.k8s.io/v1), the fields these tests read. */
interface HTTPRouteRule {
  matches?: { path?: { type: string; value: string } }[];
  backendRefs?: { name: string; port?: number }[];
  filters?: {
    type: string;
    responseHeaderModifier?: { set?: { name: string; value: string }[] };
  }[];
  timeouts?: { request?: string; backendRequest?: string };
}
type HTTPRoute = Manifest & {
  spec: {
    parentRefs?: Record<string, string>[];
    hostnames?: string[];
    rules?: HTTPRouteRule[];
  };
};

/** Where the edge sends one path: its match, and the Service and port it names. */
interface EdgeRoute {
  path: string;
  service: string;
  port: { name?: string; number?: number };
}

/**
 * The public routes of the HTTPRoutes and Ingresses among the objects, a path prefix being
 * "prefix <path>" in both (Gateway API's PathPrefix and the Ingress's Prefix match alike:
 * whole path segments).
 */
function edgeRoutes(objects: readonly Manifest[]): EdgeRoute[] {
  const routes: EdgeRoute[] = [];
  const pathOf = (type: string, value: string) =>
    `${type === 'PathPrefix' || type === 'Prefix' ? 'prefix' : type} ${value}`;
  for (const route of ofKind<HTTPRoute>(objects, 'HTTPRoute')) {
    for (const rule of route.spec.rules ?? []) {
      for (const match of rule.matches ?? []) {
        for (const backend of rule.backendRefs ?? []) {
          routes.push({
            path: pathOf(match.path?.type ?? '', match.path?.value ?? ''),
            service: backend.name,
            port: { number: backend.port },
          });
        }
      }
    }
  }
  for (const ingress of ofKind<IIngress>(objects, 'Ingress')) {
    for (const rule of ingress.spec?.rules ?? []) {
      for (const route of rule.http?.paths ?? []) {
        const backend = route.backend.service!;
        routes.push({
          path: pathOf(route.pathType, route.path ?? ''),
          service: backend.name,
          port: { name: backend.port?.name, number: backend.port?.number },
        });
      }
    }
  }
  return routes;
}

const podSpecOf = (deployment: Manifest & IDeployment): PodSpec => deployment.spec!.template.spec!;

/**
 * Where a route of the edge leads, as "<Deployment>:<container port>": its Service, the
 * Deployment that Service selects and the container port its targetPort names; undefined
 * (and a problem) where it leads nowhere.
 */
function routeTarget(
  objects: readonly Manifest[],
  route: EdgeRoute,
  problems: string[],
): string | undefined {
  const where = `${route.path} -> ${route.service}`;
  const service = ofKind<IService>(objects, 'Service').find(
    (candidate) => candidate.metadata.name === route.service,
  );
  const port = service?.spec?.ports?.find(
    (candidate) =>
      (route.port.name !== undefined && candidate.name === route.port.name) ||
      (route.port.number !== undefined && candidate.port === route.port.number),
  );
  if (!port) {
    problems.push(`${where}: Service ${route.service} has no port ${JSON.stringify(route.port)}`);
    return undefined;
  }
  const selected = ofKind<IDeployment>(objects, 'Deployment').filter((deployment) =>
    selects(
      { matchLabels: service?.spec?.selector ?? {} },
      deployment.spec!.template.metadata?.labels,
    ),
  );
  if (selected.map((deployment) => deployment.metadata.name).join() !== route.service) {
    problems.push(`${where}: Service ${route.service} does not select its Deployment alone`);
    return undefined;
  }
  const target = port.targetPort ?? port.port;
  const containerPort = (podSpecOf(selected[0]!).containers[0]!.ports ?? []).find((candidate) =>
    typeof target === 'number' ? candidate.containerPort === target : candidate.name === target,
  )?.containerPort;
  if (containerPort === undefined) {
    problems.push(`${where}: no container port ${target}`);
    return undefined;
  }
  return `${route.service}:${containerPort}`;
}

/** Where all the edge's routes lead (routeTarget), each once. */
function routedTo(objects: readonly Manifest[], problems: string[]): string[] {
  const targets = edgeRoutes(objects).map((route) => routeTarget(objects, route, problems));
  return [...new Set(targets.filter((target) => target !== undefined))].sort();
}

/**
 * What pods in the namespace of this name may connect to, as "<Deployment>:<container port>",
 * by the NetworkPolicies: rules letting in that namespace (a namespace selector by name, no pod
 * selector) or anyone.
 */
function reachableFrom(objects: readonly Manifest[], namespace: string): string[] {
  const reached: string[] = [];
  const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
  for (const deployment of ofKind<IDeployment>(objects, 'Deployment')) {
    const labels = deployment.spec!.template.metadata?.labels ?? {};
    const container = podSpecOf(deployment).containers[0]!;
    for (const { name, containerPort } of container.ports ?? []) {
      const allowed = policies.some(({ spec }) => {
        const types = spec!.policyTypes ?? ['Ingress'];
        if (!types.includes('Ingress') || !selects(spec!.podSelector, labels)) return false;
        return (spec!.ingress ?? []).some(
          (rule) =>
            (rule.ports === undefined ||
              rule.ports.some(
                ({ port }) => port === undefined || port === containerPort || port === name,
              )) &&
            (rule.from === undefined ||
              rule.from.length === 0 ||
              rule.from.some(
                (peer) =>
                  peer.podSelector === undefined &&
                  peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] ===
                    namespace,
              )),
        );
      });
      if (allowed) reached.push(`${deployment.metadata.name}:${containerPort}`);
    }
  }
  return reached.sort();
}

/** The host of the overlay's PUBLIC_ORIGIN (its ConfigMap). */
function publicOrigin(objects: readonly Manifest[]): URL {
  const origins = ofKind<IConfigMap>(objects, 'ConfigMap').map(
    (configMap) => configMap.data?.['PUBLIC_ORIGIN'],
  );
  expect(origins).toHaveLength(1);
  return new URL(origins[0]!);
}

/** The ports of the servers a service may use (services/services.json "servers"). */
const DATASTORE_PORTS = { postgres: 5432, redis: 6379, kafka: 9092 };

/** The release a pod belongs to (the Kubernetes recommended label). */
const RELEASE_LABEL = 'app.kubernetes.io/version';

/** An autoscaler waits this long after load falls before it removes any replica... */
const MIN_SCALE_DOWN_WINDOW_SECONDS = 300;
/** ...and then removes at most this share of its maximum a minute (at least one pod). */
const MAX_SCALE_DOWN_SHARE_PER_MINUTE = 0.1;

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
   * The files a container sees of the Secrets its pod mounts (secret and projected volumes,
   * each key listed), by path.
   */
  const secretFilesOf = (spec: PodSpec, container: Container): Map<string, SecretFile> => {
    const files = new Map<string, SecretFile>();
    for (const mount of container.volumeMounts ?? []) {
      const volume = (spec.volumes ?? []).find((candidate) => candidate.name === mount.name);
      const sources = [
        ...(volume?.secret ? [{ ...volume.secret, name: volume.secret.secretName }] : []),
        ...(volume?.projected?.sources ?? []).flatMap(({ secret }) => (secret ? [secret] : [])),
      ];
      for (const { name = '', items = [], optional = false } of sources) {
        for (const item of items) {
          files.set(`${mount.mountPath.replace(/\/$/, '')}/${item.path}`, {
            secret: name,
            key: item.key,
            optional,
            mode: item.mode ?? volume?.secret?.defaultMode ?? volume?.projected?.defaultMode,
          });
        }
      }
    }
    return files;
  };

  /**
   * A container's environment as the service reads it: the ConfigMaps of envFrom, then env
   * (its values, and "secret:<name>/<key>" for Secret references), and for each NAME_FILE
   * naming a file of a mounted Secret, NAME as "secret:<name>/<key>".
   */
  const environmentOf = (
    spec: PodSpec,
    container: Container,
    problems: string[],
  ): Map<string, string> => {
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
    const files = secretFilesOf(spec, container);
    for (const [name, value] of environment) {
      const file = name.endsWith('_FILE') ? files.get(value) : undefined;
      if (file)
        environment.set(name.slice(0, -'_FILE'.length), `secret:${file.secret}/${file.key}`);
    }
    return environment;
  };

  /** The Secret file a container's NAME_FILE names, if it is one. */
  const secretOf = (spec: PodSpec, container: Container, name: string): SecretFile | undefined => {
    const path = (container.env ?? []).find((variable) => variable.name === `${name}_FILE`)?.value;
    return secretFilesOf(spec, container).get(path ?? '');
  };

  /** A service's container (its Deployment's first) and its environment. */
  const serviceEnvironment = (name: string, problems: string[]) => {
    const spec = podSpec(deploymentOf(name));
    return environmentOf(spec, spec.containers[0]!, problems);
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
      const env = serviceEnvironment(name, problems);
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
      const env = serviceEnvironment(name, problems);
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

  it('gives a readiness probe twice the time a round of checks can take, so a hanging dependency does not time it out', () => {
    const problems: string[] = [];
    for (const deployment of deployments) {
      if (!isService(deployment.metadata.name)) continue;
      for (const container of podSpec(deployment).containers) {
        // Kubernetes' default when unset: 1 s.
        const timeoutMs = (container.readinessProbe?.timeoutSeconds ?? 1) * 1000;
        if (timeoutMs < 2 * READINESS_CHECK_TIMEOUT_MS) {
          problems.push(
            `${describeObject(deployment)} ${container.name}: readiness probe times out after ` +
              `${timeoutMs} ms, a round of checks may take ${READINESS_CHECK_TIMEOUT_MS} ms`,
          );
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
      const environment = environmentOf(podSpec(deployment), container, problems);
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

  it('reserves the redirect’s whole memory limit: a queue filled while Kafka is away must not get it evicted', () => {
    const { requests = {}, limits = {} } =
      podSpec(deploymentOf('redirect')).containers[0]!.resources ?? {};
    expect(requests['memory']).toBeDefined();
    expect(quantity(requests['memory']!)).toBe(quantity(limits['memory'] ?? 0));
  });

  it('gives the redirect a spool that outlives its container: an emptyDir at VISIT_SPOOL_DIR, larger than the spool may grow', () => {
    const spec = podSpec(deploymentOf('redirect'));
    const container = spec.containers[0]!;
    const folder = container.env?.find((variable) => variable.name === 'VISIT_SPOOL_DIR')?.value;
    const mount = container.volumeMounts?.find((volume) => volume.mountPath === folder);
    const volume = spec.volumes?.find((candidate) => candidate.name === mount?.name);
    expect(folder).toMatch(/^\//);
    expect(mount?.readOnly).not.toBe(true);
    expect(volume?.emptyDir).toBeDefined();
    // The spool's default limit (VISIT_SPOOL_MAX_BYTES), which no overlay raises.
    expect(quantity(volume!.emptyDir!.sizeLimit!)).toBeGreaterThan(256 * 1024 * 1024);
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

  /** The overlay's one HTTPRoute. */
  const httpRoute = (): HTTPRoute => {
    const routes = ofKind<Pick<HTTPRoute, 'spec'>>(objects, 'HTTPRoute');
    expect(routes.map(describeObject)).toEqual(['HTTPRoute/shortener']);
    return routes[0]!;
  };

  /** A Service's port of this name, by number. */
  const servicePort = (name: string, port: string) =>
    find<IService>('Service', name)?.spec?.ports?.find((candidate) => candidate.name === port)
      ?.port;

  it('routes /r/ straight to redirect, the API and sign-in to the gateway, the rest to the web app, by an HTTPRoute', () => {
    httpRoute();
    // The Ingress is an option (k8s/components/ingress-nginx), not the default.
    expect(ofKind(objects, 'Ingress')).toEqual([]);
    const problems: string[] = [];
    routedTo(objects, problems);
    expect(problems).toEqual([]);
    const routes = Object.fromEntries(
      edgeRoutes(objects).map((route) => [route.path, `${route.service}:${route.port.number}`]),
    );
    const at = (name: string) => `${name}:${servicePort(name, 'http')}`;
    expect(routes).toEqual({
      'prefix /r/': at('redirect'),
      'prefix /api': at('gateway'),
      'prefix /login': at('gateway'),
      'prefix /auth': at('gateway'),
      'prefix /logout': at('gateway'),
      'prefix /': at('frontend'),
    });
  });

  it('attaches the HTTPRoute to the operator’s Gateway, for the host PUBLIC_ORIGIN names (HTTPS only where it is https)', () => {
    const route = httpRoute();
    const origin = publicOrigin(objects);
    expect(route.spec.hostnames).toEqual([origin.hostname]);
    expect(route.spec.parentRefs).toEqual([
      {
        group: 'gateway.networking.k8s.io',
        kind: 'Gateway',
        ...GATEWAY,
        // Plain HTTP is the Gateway's to redirect, never served (the guide's listener names).
        ...(origin.protocol === 'https:' ? { sectionName: 'https' } : {}),
      },
    ]);
  });

  it('gives each route the timeout the Ingress had, but for /api, whose live streams it never cut', () => {
    // The Ingress's: the time allowed between two reads of an answer, for which Gateway API
    // has no field; its bound on a whole answer is as close as it gets. A live stream's
    // heartbeat came well within it, so the Ingress never ended one: /api has no deadline.
    const ingress = ofKind<IIngress>(
      renderWithComponentInside(overlay, INGRESS_COMPONENT),
      'Ingress',
    )[0]!;
    const readSeconds = Number(
      ingress.metadata?.annotations?.['nginx.ingress.kubernetes.io/proxy-read-timeout'],
    );
    expect(readSeconds).toBeGreaterThan(0);
    const heartbeatMs = Number(
      serviceEnvironment('gateway', []).get('LIVE_HEARTBEAT_MS') ??
        configDefault('gateway', 'LIVE_HEARTBEAT_MS'),
    );
    expect(heartbeatMs).toBeLessThan(readSeconds * 1000);
    const timeouts = Object.fromEntries(
      (httpRoute().spec.rules ?? []).flatMap((rule) =>
        (rule.matches ?? []).map((match) => [match.path?.value ?? '', rule.timeouts] as const),
      ),
    );
    const ingressBound = { request: `${readSeconds}s`, backendRequest: `${readSeconds}s` };
    expect(timeouts).toEqual({
      '/r/': ingressBound,
      '/api': { request: '0s', backendRequest: '0s' },
      '/login': ingressBound,
      '/auth': ingressBound,
      '/logout': ingressBound,
      '/': ingressBound,
    });
  });

  it('sends HSTS with every answer over HTTPS, as ingress-nginx did, and none over plain HTTP', () => {
    const https = publicOrigin(objects).protocol === 'https:';
    const hsts = (httpRoute().spec.rules ?? []).map((rule) =>
      (rule.filters ?? [])
        .filter((filter) => filter.type === 'ResponseHeaderModifier')
        .flatMap((filter) => filter.responseHeaderModifier?.set ?? [])
        .filter((header) => header.name.toLowerCase() === 'strict-transport-security')
        .map((header) => header.value)
        .join(),
    );
    expect(hsts.length).toBeGreaterThan(0);
    expect(new Set(hsts)).toEqual(new Set([https ? INGRESS_NGINX_HSTS : '']));
  });

  it('keeps idle connections open longer than the edge does, so that it closes them first', () => {
    const behindEdge = new Set(edgeRoutes(objects).map((route) => route.service));
    const problems: string[] = [];
    for (const name of SERVICES.filter((service) => behindEdge.has(service))) {
      const environment = serviceEnvironment(name, problems);
      const idleMs = Number(environment.get('KEEP_ALIVE_TIMEOUT_MS') ?? 5000);
      if (!(idleMs > EDGE_UPSTREAM_IDLE_MS)) {
        problems.push(`${name}: KEEP_ALIVE_TIMEOUT_MS=${environment.get('KEEP_ALIVE_TIMEOUT_MS')}`);
      }
    }
    expect([...behindEdge].sort()).toEqual(['frontend', 'gateway', 'redirect']);
    expect(problems).toEqual([]);
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

    it('let the edge reach only the gateway, the web app and redirect', () => {
      const reachable = deployments
        .map((deployment) => deployment.metadata.name)
        .filter((name) =>
          allowedSources(name).some((source) => ['outside', 'anyone'].includes(source)),
        );
      expect(reachable.sort()).toEqual(['frontend', 'gateway', 'redirect']);
      // The gateway forwards /r/ too, where no edge sends it straight there.
      expect(allowedSources('redirect')).toEqual(['gateway', 'outside']);
      expect(mayConnect('gateway', 'redirect')).toBe(true);
    });

    it('let the Gateway’s namespace reach exactly what the HTTPRoute sends to, on those ports', () => {
      const problems: string[] = [];
      const routed = routedTo(objects, problems);
      expect(problems).toEqual([]);
      expect(routed.length).toBeGreaterThan(0);
      expect(reachableFrom(objects, GATEWAY.namespace)).toEqual(routed);
      // Nothing is left open to the retired controller's namespace.
      expect(reachableFrom(objects, 'ingress-nginx')).toEqual([]);
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

    /**
     * Where the pods with these labels may open connections to `port` (a numbered port
     * outside the namespace): "anywhere", or each peer as "namespace <name> pods <k=v,...>".
     */
    const egressDestinations = (labels: Record<string, string>, port: number): string[] => {
      const destinations = new Set<string>();
      for (const policy of policies) {
        const { podSelector, policyTypes = ['Ingress'], egress = [] } = policy.spec!;
        if (!policyTypes.includes('Egress') || !selects(podSelector, labels)) continue;
        for (const rule of egress) {
          if (rule.ports && !rule.ports.some((allowed) => allowed.port === port)) continue;
          if ((rule.to ?? []).length === 0) destinations.add('anywhere');
          for (const peer of rule.to ?? []) {
            if (peer.ipBlock) destinations.add(`addresses ${peer.ipBlock.cidr}`);
            else if (!peer.namespaceSelector)
              continue; // a pod of this namespace
            else {
              const namespace = peer.namespaceSelector.matchLabels?.['kubernetes.io/metadata.name'];
              const pods = Object.entries(peer.podSelector?.matchLabels ?? {})
                .map(([key, value]) => `${key}=${value}`)
                .sort();
              destinations.add(`namespace ${namespace ?? '?'} pods ${pods.join(',') || 'all'}`);
            }
          }
        }
      }
      return [...destinations].sort();
    };

    /** Every pod template's labels, by the workload's name (the Deployments and the Job). */
    const workloadLabels = (): [string, Record<string, string>][] =>
      [
        ...deployments.map(
          (deployment) => [deployment.metadata.name, podLabels(deployment)] as const,
        ),
        ...ofKind<IJob>(objects, 'Job').map(
          (job) =>
            [
              job.metadata.labels?.['app.kubernetes.io/name'] ?? job.metadata.name,
              job.spec!.template.metadata?.labels ?? {},
            ] as const,
        ),
      ].map(([name, labels]) => [name, labels]);

    it('let every pod resolve names, at the cluster DNS (kube-dns) only', () => {
      const resolvers = Object.fromEntries(
        workloadLabels().map(([name, labels]) => [name, egressDestinations(labels, 53).join('; ')]),
      );
      expect(resolvers).toEqual(
        Object.fromEntries(
          workloadLabels().map(([name]) => [name, 'namespace kube-system pods k8s-app=kube-dns']),
        ),
      );
    });

    it('let only the services that use PostgreSQL, Redis and Kafka (services/services.json) reach them', () => {
      const reaching = Object.fromEntries(
        Object.keys(DATASTORE_PORTS).map((server) => [server, [] as string[]]),
      );
      for (const [name, labels] of workloadLabels()) {
        for (const [server, port] of Object.entries(DATASTORE_PORTS)) {
          if (egressDestinations(labels, port).length > 0) reaching[server]!.push(name);
        }
      }
      const users = (server: string) =>
        SERVICES.filter((name) => serviceSpec(name).servers.includes(server as never));
      expect(Object.fromEntries(Object.entries(reaching).map(([k, v]) => [k, v.sort()]))).toEqual({
        // and the migration Job
        postgres: [...users('postgres'), 'migrate'].sort(),
        redis: users('redis').sort(),
        kafka: users('kafka').sort(),
      });
    });

    if (overlay === 'production') {
      it('send datastore traffic only to the datastores, each one place the same for every client', () => {
        const problems: string[] = [];
        const where: Record<string, string> = {};
        for (const [server, port] of Object.entries(DATASTORE_PORTS)) {
          const found = new Set<string>();
          for (const [name, labels] of workloadLabels()) {
            const destinations = egressDestinations(labels, port);
            if (destinations.length === 0) continue;
            if (destinations.some((destination) => !destination.startsWith('namespace '))) {
              problems.push(`${name} reaches ${server} at ${destinations.join('; ')}`);
            }
            found.add(destinations.join('; '));
          }
          if (found.size !== 1) problems.push(`${server} at ${[...found].join(' | ')}`);
          where[server] = [...found][0] ?? '';
        }
        expect(problems).toEqual([]);
        // Kafka's bootstrap address is in the namespace the policies let Kafka traffic into.
        const brokers = ofKind<IConfigMap>(objects, 'ConfigMap')
          .map((configMap) => configMap.data?.['KAFKA_BROKERS'])
          .find(Boolean);
        const namespace = /^[^.]+\.([^.]+)\.svc/.exec(brokers ?? '')?.[1];
        expect(where['kafka']).toMatch(new RegExp(`^namespace ${namespace} pods `));
      });
    }
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

  it('spreads the gateway and redirect over zones and nodes, each revision on its own, without blocking a pod', () => {
    const spreads: Record<string, string[]> = {};
    for (const name of ['gateway', 'redirect']) {
      const deployment = deploymentOf(name);
      spreads[name] = (podSpec(deployment).topologySpreadConstraints ?? [])
        .map((constraint) =>
          [
            constraint.topologyKey,
            constraint.whenUnsatisfiable,
            `skew ${constraint.maxSkew}`,
            selects(constraint.labelSelector ?? {}, podLabels(deployment))
              ? 'its pods'
              : 'other pods',
            `by ${(constraint.matchLabelKeys ?? []).join()}`,
          ].join(' '),
        )
        .sort();
    }
    const expected = [
      'kubernetes.io/hostname ScheduleAnyway skew 1 its pods by pod-template-hash',
      'topology.kubernetes.io/zone ScheduleAnyway skew 1 its pods by pod-template-hash',
    ];
    expect(spreads).toEqual({ gateway: expected, redirect: expected });
  });

  it('scales down slowly, so that an outage (CPU falls with traffic) does not become a mass shutdown', () => {
    const problems: string[] = [];
    for (const hpa of ofKind<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler')) {
      const where = describeObject(hpa);
      const scaleDown = hpa.spec!.behavior?.scaleDown;
      const { maxReplicas } = hpa.spec!;
      if ((scaleDown?.stabilizationWindowSeconds ?? 0) < MIN_SCALE_DOWN_WINDOW_SECONDS) {
        problems.push(`${where}: scale-down window ${scaleDown?.stabilizationWindowSeconds}s`);
      }
      // Without policies Kubernetes may remove every replica above the minimum at once.
      const policies = scaleDown?.policies ?? [];
      if (policies.length === 0) problems.push(`${where}: no scale-down policies`);
      if (scaleDown?.selectPolicy === 'Disabled') continue;
      for (const { type, value, periodSeconds } of policies) {
        // Kubernetes rounds a percentage of the replicas up, as this does.
        const pods = type === 'Percent' ? Math.ceil((maxReplicas * value) / 100) : value;
        const perMinute = (pods * 60) / periodSeconds;
        if (perMinute > Math.max(1, Math.ceil(maxReplicas * MAX_SCALE_DOWN_SHARE_PER_MINUTE))) {
          problems.push(`${where}: a ${type} policy removes ${perMinute} pods a minute`);
        }
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
      const migrates = serviceEnvironment(service, problems).get('DB_MIGRATE');
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
    const secrets = ofKind<ISecret>(objects, 'Secret');
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
    for (const deployment of deployments) {
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
    for (const deployment of deployments) {
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
    it('runs several replicas of each, every image pinned by digest in a registry, and renders no Secret', () => {
      const problems: string[] = [];
      for (const deployment of deployments) {
        const where = describeObject(deployment);
        const replicas = replicasAtRest(deployment) ?? 1;
        if (replicas < 2) problems.push(`${where}: ${replicas} replica at rest`);
      }
      // A registry, a name and a digest: the bytes tested, not whatever a tag names today.
      for (const { owner, spec } of podTemplates()) {
        for (const { name, image = '' } of allContainers(spec)) {
          if (!/^[a-z0-9.-]+\.[a-z]+(:\d+)?\/[^:@]+@sha256:[0-9a-f]{64}$/.test(image)) {
            problems.push(`${owner} ${name}: image ${image} is not pinned by digest`);
          }
        }
      }
      // Consumers beyond the visits topic's partitions would sit idle.
      const analytics = deploymentOf('analytics').spec!.replicas ?? 1;
      const partitions = topicPartitions('visits');
      if (analytics > partitions) {
        problems.push(`analytics: ${analytics} consumers for ${partitions} partitions`);
      }
      expect(problems).toEqual([]);
      expect(ofKind(objects, 'Secret')).toEqual([]);
    });

    it('names the migration Job after the release its pods carry, so each release applies a Job of its own', () => {
      const jobs = ofKind<IJob>(objects, 'Job');
      const release = jobs[0]?.metadata.labels?.[RELEASE_LABEL];
      expect(release).toMatch(/^[\w.-]+$/);
      expect(jobs.map((job) => job.metadata.name)).toEqual([`migrate-${release}`]);
      const templates = [
        ...deployments.map((deployment) => [deployment, podLabels(deployment)] as const),
        ...jobs.map((job) => [job, job.spec!.template.metadata?.labels ?? {}] as const),
      ];
      const others = templates
        .filter(([, labels]) => labels[RELEASE_LABEL] !== release)
        .map(([owner]) => describeObject(owner));
      expect(others).toEqual([]);
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
        if (resource.type !== 'cluster' && resource.patternType !== 'literal') {
          // Only the re-drive's throwaway groups are named by a prefix.
          if (resource.type !== 'group' || resource.patternType !== 'prefix') return ['prefixed?'];
        }
        const name =
          resource.type === 'cluster'
            ? 'cluster'
            : `${resource.type} ${resource.name}${resource.patternType === 'prefix' ? '*' : ''}`;
        return operations.map((operation) => `${operation} ${name}`);
      })
      .sort();

  it('is one SCRAM-SHA-512 user per Kafka client, named as its Deployment logs in', () => {
    expect(
      users.map((user) => [user.kind, user.metadata.name, user.spec.authentication.type]),
    ).toEqual([
      ['KafkaUser', 'shortener-redirect', 'scram-sha-512'],
      ['KafkaUser', 'shortener-analytics', 'scram-sha-512'],
      ['KafkaUser', 'shortener-redrive', 'scram-sha-512'],
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

  it('lets only redirect (and the re-drive) write visits, and only analytics read it (in its group) and write visits.dlq', () => {
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
      // The operator's dead-letter re-drive: visits.dlq back to visits, in groups of its own.
      // Only what it needs (tests/faults/redrive-acls.fault-spec.ts fails it without each).
      'shortener-redrive': [
        'Delete group analytics-redrive-*',
        'Read group analytics-redrive-*',
        'Read topic visits.dlq',
        'Write topic visits',
      ],
    });
  });
});

describe('k8s/kafka: the topics (Strimzi KafkaTopic), where their partitions are written once', () => {
  const topics = kafkaTopics();

  it('declares visits and visits.dlq for the cluster, kept through the loss of a broker, with a set retention', () => {
    expect([...topics.keys()].sort()).toEqual(['visits', 'visits.dlq']);
    const problems: string[] = [];
    for (const topic of topics.values()) {
      const where = describeObject(topic);
      const { replicas, partitions, config = {} } = topic.spec;
      if (topic.apiVersion !== 'kafka.strimzi.io/v1beta2')
        problems.push(`${where}: ${topic.apiVersion}`);
      if (topic.metadata.namespace !== 'kafka') problems.push(`${where}: not in namespace kafka`);
      if (topic.metadata.labels?.['strimzi.io/cluster'] !== 'shortener') {
        problems.push(`${where}: not for the Strimzi cluster shortener`);
      }
      if (!(Number.isInteger(partitions) && partitions >= 1)) problems.push(`${where}: partitions`);
      if (replicas !== 3) problems.push(`${where}: ${replicas} replicas`);
      if (Number(config['min.insync.replicas']) !== 2) {
        problems.push(`${where}: min.insync.replicas ${config['min.insync.replicas']}`);
      }
      if (!(Number(config['retention.ms']) > 0)) problems.push(`${where}: no retention.ms`);
    }
    expect(problems).toEqual([]);
  });

  it('is what infra:up creates on a local broker', () => {
    const created = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { wantedTopics } = await import('./infra/lib/kafka.mjs'); process.stdout.write(JSON.stringify(wantedTopics({})));",
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(JSON.parse(created)).toEqual(
      [...topics.values()].map((topic) => ({
        topic: topic.metadata.name,
        numPartitions: topic.spec.partitions,
      })),
    );
  });

  it('is applied with the Kafka users, beside the cluster', () => {
    expect(readRepoFile(`${KAFKA_FOLDER}/kustomization.yaml`)).toMatch(/- kafka-topics\.yaml/);
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

describe.each(overlays())(
  'the %s overlay with k8s/components/ingress-nginx: an Ingress instead of the HTTPRoute',
  (overlay) => {
    let objects: Manifest[];
    let gatewayApi: Manifest[];
    beforeAll(() => {
      objects = renderWithComponentInside(overlay, INGRESS_COMPONENT);
      gatewayApi = render(overlay);
    });
    const ingress = () => ofKind<IIngress>(objects, 'Ingress')[0]!;

    it('renders valid objects, the Ingress for ingress-nginx and no HTTPRoute', () => {
      expect(objects.flatMap(schemaProblems)).toEqual([]);
      expect(ofKind(objects, 'HTTPRoute')).toEqual([]);
      expect(ofKind(objects, 'Ingress').map(describeObject)).toEqual(['Ingress/shortener']);
      expect(ingress().spec?.ingressClassName).toBe('nginx');
      // Nothing else changes but the policy letting the edge in.
      const others = (list: Manifest[]) =>
        list
          .filter((object) => !['Ingress', 'HTTPRoute'].includes(object.kind))
          .filter((object) => object.metadata.name !== 'allow-edge')
          .map((object) => JSON.stringify(object));
      expect(others(objects)).toEqual(others(gatewayApi));
    });

    it('routes as the HTTPRoute does, for the same host', () => {
      const byPath = (list: Manifest[]) => {
        const problems: string[] = [];
        const routes = edgeRoutes(list).map(
          (route) => [route.path, routeTarget(list, route, problems)] as const,
        );
        expect(problems).toEqual([]);
        return Object.fromEntries(routes);
      };
      expect(byPath(objects)).toEqual(byPath(gatewayApi));
      const origin = publicOrigin(objects);
      expect(ingress().spec?.rules?.map((rule) => rule.host)).toEqual([origin.hostname]);
      if (origin.protocol === 'https:') {
        expect(ingress().spec?.tls).toEqual([
          { hosts: [origin.hostname], secretName: 'shortener-tls' },
        ]);
        expect(ingress().metadata?.annotations?.['cert-manager.io/cluster-issuer']).toBeDefined();
      } else {
        expect(ingress().spec?.tls).toBeUndefined();
      }
    });

    it('writes out the timeouts and body size it ran with, ingress-nginx’s defaults', () => {
      const annotations = Object.fromEntries(
        Object.entries(ingress().metadata?.annotations ?? {}).filter(([name]) =>
          name.startsWith('nginx.ingress.kubernetes.io/'),
        ),
      );
      expect(annotations).toEqual(INGRESS_NGINX_DEFAULTS);
    });

    it('lets the controller’s namespace (ingress-nginx) reach exactly what the Ingress sends to', () => {
      const problems: string[] = [];
      const routed = routedTo(objects, problems);
      expect(problems).toEqual([]);
      expect(routed.length).toBeGreaterThan(0);
      expect(reachableFrom(objects, 'ingress-nginx')).toEqual(routed);
      expect(reachableFrom(objects, GATEWAY.namespace)).toEqual([]);
    });
  },
);
