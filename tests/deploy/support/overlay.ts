import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { IIngress, INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import type { IConfigMap, IService } from 'kubernetes-models/v1';
import {
  describeObject,
  ofKind,
  render,
  selects,
  type Container,
  type LabelSelector,
  type Manifest,
  type PodSpec,
} from './kubernetes';

// What the spec files on k8s/ (tests/deploy/kubernetes-*.spec.ts) read of a rendered overlay.

export type Deployment = Manifest & IDeployment;
export type NetworkPolicy = Manifest & INetworkPolicy;

/** A file a container sees of a mounted Secret. */
export interface SecretFile {
  secret: string;
  key: string;
  /** The pod starts without it (the key missing: no file). */
  optional: boolean;
  mode: number | undefined;
}

export const podSpec = (deployment: Deployment): PodSpec => deployment.spec!.template.spec!;
export const podLabels = (deployment: Deployment) =>
  deployment.spec!.template.metadata?.labels ?? {};
export const allContainers = (spec: PodSpec): Container[] => [
  ...(spec.initContainers ?? []),
  ...spec.containers,
];

export function containerPort(container: Container, port: number | string): number | undefined {
  return (container.ports ?? []).find((candidate) =>
    typeof port === 'number' ? candidate.containerPort === port : candidate.name === port,
  )?.containerPort;
}

/** A service's /readyz and /metrics port: the container port named ops, which OPS_PORT sets. */
export const OPS_PORT_NAME = 'ops';

/** The component that puts an Ingress for ingress-nginx in place of the HTTPRoute. */
export const INGRESS_COMPONENT = 'k8s/components/ingress-nginx';

/** The Gateway the HTTPRoute attaches to, which the cluster's operator provides. */
export const GATEWAY = { name: 'public', namespace: 'gateway-system' };

/** An HTTPRoute (gateway.networking.k8s.io/v1), the fields these tests read. */
export interface HTTPRouteRule {
  matches?: { path?: { type: string; value: string } }[];
  backendRefs?: { name: string; port?: number }[];
  filters?: {
    type: string;
    responseHeaderModifier?: { set?: { name: string; value: string }[] };
  }[];
  timeouts?: { request?: string; backendRequest?: string };
}
export type HTTPRoute = Manifest & {
  spec: {
    parentRefs?: Record<string, string>[];
    hostnames?: string[];
    rules?: HTTPRouteRule[];
  };
};

/** Where the edge sends one path: its match, and the Service and port it names. */
export interface EdgeRoute {
  /** The host it is for: `*` for any host no other route names (a branded domain's). */
  host: string;
  path: string;
  service: string;
  port: { name?: string; number?: number };
}

/**
 * The public routes of the HTTPRoutes and Ingresses among the objects, a path prefix being
 * "prefix <path>" in both (Gateway API's PathPrefix and the Ingress's Prefix match alike:
 * whole path segments).
 */
export function edgeRoutes(objects: readonly Manifest[]): EdgeRoute[] {
  const routes: EdgeRoute[] = [];
  const pathOf = (type: string, value: string) =>
    `${type === 'PathPrefix' || type === 'Prefix' ? 'prefix' : type} ${value}`;
  for (const route of ofKind<HTTPRoute>(objects, 'HTTPRoute')) {
    const hosts = route.spec.hostnames?.length ? route.spec.hostnames : ['*'];
    for (const rule of route.spec.rules ?? []) {
      for (const match of rule.matches ?? []) {
        for (const [host, backend] of hosts.flatMap((name) =>
          (rule.backendRefs ?? []).map((ref) => [name, ref] as const),
        )) {
          routes.push({
            host,
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
          host: rule.host ?? '*',
          path: pathOf(route.pathType, route.path ?? ''),
          service: backend.name,
          port: { name: backend.port?.name, number: backend.port?.number },
        });
      }
    }
  }
  return routes;
}

/**
 * Where a route of the edge leads, as "<Deployment>:<container port>": its Service, the
 * Deployment that Service selects and the container port its targetPort names; undefined
 * (and a problem) where it leads nowhere.
 */
export function routeTarget(
  objects: readonly Manifest[],
  route: EdgeRoute,
  problems: string[],
): string | undefined {
  const where = `${route.host} ${route.path} -> ${route.service}`;
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
  const containerPort = (podSpec(selected[0]!).containers[0]!.ports ?? []).find((candidate) =>
    typeof target === 'number' ? candidate.containerPort === target : candidate.name === target,
  )?.containerPort;
  if (containerPort === undefined) {
    problems.push(`${where}: no container port ${target}`);
    return undefined;
  }
  return `${route.service}:${containerPort}`;
}

/** Where all the edge's routes lead (routeTarget), each once. */
export function routedTo(objects: readonly Manifest[], problems: string[]): string[] {
  const targets = edgeRoutes(objects).map((route) => routeTarget(objects, route, problems));
  return [...new Set(targets.filter((target) => target !== undefined))].sort();
}

/**
 * What pods in the namespace of this name may connect to, as "<Deployment>:<container port>",
 * by the NetworkPolicies: rules letting in that namespace (a namespace selector by name, no pod
 * selector) or anyone.
 */
export function reachableFrom(objects: readonly Manifest[], namespace: string): string[] {
  const reached: string[] = [];
  const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
  for (const deployment of ofKind<IDeployment>(objects, 'Deployment')) {
    const labels = deployment.spec!.template.metadata?.labels ?? {};
    const container = podSpec(deployment).containers[0]!;
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

/**
 * An overlay rendered once for a describe block (in its beforeAll), with what its tests ask of
 * it: its objects and Deployments, and the pods' environment and Secret files as a service
 * reads them.
 */
export function renderedOverlay(overlay: string) {
  let objects: Manifest[] = [];
  let deployments: Deployment[] = [];

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

  return {
    get objects() {
      return objects;
    },
    get deployments() {
      return deployments;
    },
    find,
    deploymentOf,
    selectedDeployments,
    podTemplates,
    secretFilesOf,
    environmentOf,
    secretOf,
    serviceEnvironment,
  };
}
