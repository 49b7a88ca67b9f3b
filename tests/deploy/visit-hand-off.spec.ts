import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IConfigMap } from 'kubernetes-models/v1';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { SHUTDOWN_TIMEOUT_MS } from '@shortener/chassis';
import { loadRedirectConfig } from '../../services/redirect/src/config';
import { ofKind, render, selects, type Manifest } from './support/kubernetes';
import { serviceSpec } from './support/repo';

// A redirect pod stopped during a Kafka outage hands its visits to analytics' internal ingest
// (issue 38, item 4). As deployed, that needs three things: the network policies let the pod
// reach analytics' port, the pod is told where analytics is, and its grace period holds the
// drain, the hand-off and the wait for a scrape of what it could not hand off.

const ANALYTICS = serviceSpec('analytics');

describe.each(['dev', 'production'])('the %s overlay, for the redirect’s hand-off', (overlay) => {
  const objects: Manifest[] = render(overlay);
  const deployment = (name: string) =>
    ofKind<IDeployment>(objects, 'Deployment').find((object) => object.metadata.name === name)!;
  const labels = (name: string) => deployment(name).spec!.template.metadata!.labels!;
  const redirectPod = deployment('redirect').spec!.template.spec!;
  const container = redirectPod.containers[0]!;
  const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
  const applying = (name: string, type: 'Ingress' | 'Egress') =>
    policies.filter(
      ({ spec }) =>
        selects(spec!.podSelector, labels(name)) &&
        (spec!.policyTypes ?? ['Ingress']).includes(type),
    );
  const onPort = (ports: { port?: number | string }[] | undefined) =>
    ports === undefined || ports.some(({ port }) => port === undefined || port === ANALYTICS.port);

  it('lets the redirect pods connect to analytics’ port, and analytics accept them', () => {
    const egress = applying('redirect', 'Egress').some(({ spec }) =>
      (spec!.egress ?? []).some(
        (rule) =>
          onPort(rule.ports) &&
          (rule.to ?? []).some(
            (peer) =>
              peer.namespaceSelector === undefined &&
              peer.podSelector !== undefined &&
              selects(peer.podSelector, labels('analytics')),
          ),
      ),
    );
    const ingress = applying('analytics', 'Ingress').some(({ spec }) =>
      (spec!.ingress ?? []).some(
        (rule) =>
          onPort(rule.ports) &&
          (rule.from ?? []).some(
            (peer) =>
              peer.namespaceSelector === undefined &&
              peer.podSelector !== undefined &&
              selects(peer.podSelector, labels('redirect')),
          ),
      ),
    );
    expect({ egress, ingress }).toEqual({ egress: true, ingress: true });
  });

  /** The redirect container's variables as given: its ConfigMaps', then its own literals. */
  const environment = (): Record<string, string> => {
    const configMaps = (container.envFrom ?? []).map((source) =>
      ofKind<IConfigMap>(objects, 'ConfigMap').find(
        (map) => map.metadata.name === source.configMapRef?.name,
      ),
    );
    // Secrets come as files (NAME_FILE): left out here.
    const literals = (container.env ?? [])
      .filter((variable) => !variable.name.endsWith('_FILE'))
      .map((variable): [string, string] => [variable.name, variable.value ?? '']);
    const given: Record<string, string> = {};
    for (const map of configMaps) Object.assign(given, map?.data);
    return { ...given, ...Object.fromEntries(literals) };
  };

  it('tells the redirect where analytics is: its Service and port', () => {
    expect(environment()['ANALYTICS_URL']).toBe(`http://analytics:${ANALYTICS.port}`);
  });

  it('gives a stopping pod the time its drain, its hand-off and the wait for a scrape may take', () => {
    // Loaded as the pod loads it, stand-ins for the secrets it reads from files.
    const config = loadRedirectConfig({
      ...environment(),
      INTERNAL_API_SECRET: 'a-deploy-test-secret-of-32-chars',
      KAFKA_PASSWORD: 'deploy-test',
      REDIS_URL: 'redis://redis:6379',
    });
    expect(config.VISIT_HAND_OFF_TIMEOUT_MS).toBeGreaterThan(0);
    const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
    const preStopSeconds = preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
    // The process exits by itself within SHUTDOWN_TIMEOUT_MS of SIGTERM, after the preStop.
    expect(redirectPod.terminationGracePeriodSeconds! * 1000).toBeGreaterThanOrEqual(
      preStopSeconds * 1000 + SHUTDOWN_TIMEOUT_MS,
    );
  });
});
