import type { IConfigMap } from 'kubernetes-models/v1';
import type { IJob } from 'kubernetes-models/batch/v1';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ofKind, overlays, selects, type Container } from './support/kubernetes';
import {
  containerPort,
  GATEWAY,
  OPS_PORT_NAME,
  podLabels,
  podSpec,
  reachableFrom,
  renderedOverlay,
  routedTo,
  type NetworkPolicy,
} from './support/overlay';
import { SERVICES, serviceSpec } from './support/repo';

// Each test lists every problem it finds (expect(problems).toEqual([])), so one run names
// all that is wrong, with the object it is wrong in.

/** The ports of the servers a service may use (services/services.json "servers"). */
const DATASTORE_PORTS = { postgres: 5432, redis: 6379, kafka: 9092 };

describe.each(overlays())('the %s overlay: network policies', (overlay) => {
  const rendered = renderedOverlay(overlay);
  const { deploymentOf, selectedDeployments } = rendered;

  let policies: NetworkPolicy[];
  beforeAll(() => {
    policies = ofKind<INetworkPolicy>(rendered.objects, 'NetworkPolicy');
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
    const reachable = rendered.deployments
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
    const routed = routedTo(rendered.objects, problems);
    expect(problems).toEqual([]);
    expect(routed.length).toBeGreaterThan(0);
    expect(reachableFrom(rendered.objects, GATEWAY.namespace)).toEqual(routed);
    // Nothing is left open to the retired controller's namespace.
    expect(reachableFrom(rendered.objects, 'ingress-nginx')).toEqual([]);
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
      ...rendered.deployments.map(
        (deployment) => [deployment.metadata.name, podLabels(deployment)] as const,
      ),
      ...ofKind<IJob>(rendered.objects, 'Job').map(
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
      const brokers = ofKind<IConfigMap>(rendered.objects, 'ConfigMap')
        .map((configMap) => configMap.data?.['KAFKA_BROKERS'])
        .find(Boolean);
      const namespace = /^[^.]+\.([^.]+)\.svc/.exec(brokers ?? '')?.[1];
      expect(where['kafka']).toMatch(new RegExp(`^namespace ${namespace} pods `));
    });
  }
});
