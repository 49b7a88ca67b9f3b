import type { IConfigMap, IService } from 'kubernetes-models/v1';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1';
import {
  describeObject,
  ofKind,
  overlays,
  render,
  renderWithComponentInside,
  schemaProblems,
  type Manifest,
} from './support/kubernetes';
import {
  edgeRoutes,
  GATEWAY,
  INGRESS_COMPONENT,
  reachableFrom,
  renderedOverlay,
  routedTo,
  routeTarget,
  type HTTPRoute,
} from './support/overlay';
import { configDefault, SERVICES } from './support/repo';

// Each test lists every problem it finds (expect(problems).toEqual([])), so one run names
// all that is wrong, with the object it is wrong in.

/**
 * How long the edge keeps an idle connection to a pod: ingress-nginx's upstream-keepalive-timeout
 * (60 s unless the cluster changed it; no Ingress annotation sets it), and what the guide asks
 * of a Gateway's proxies. A service closing sooner races the edge's next request on that
 * connection.
 */
const EDGE_UPSTREAM_IDLE_MS = 60_000;

/** ingress-nginx's controller defaults (its ConfigMap documentation) the Ingress ran with. */
const INGRESS_NGINX_DEFAULTS = {
  'nginx.ingress.kubernetes.io/proxy-connect-timeout': '5',
  'nginx.ingress.kubernetes.io/proxy-read-timeout': '60',
  'nginx.ingress.kubernetes.io/proxy-send-timeout': '60',
  'nginx.ingress.kubernetes.io/proxy-body-size': '1m',
};
/** The header ingress-nginx adds to every answer over TLS (hsts, hsts-max-age, hsts-include-subdomains). */
const INGRESS_NGINX_HSTS = 'max-age=15724800; includeSubDomains';

/** The host of the overlay's PUBLIC_ORIGIN (its ConfigMap). */
function publicOrigin(objects: readonly Manifest[]): URL {
  const origins = ofKind<IConfigMap>(objects, 'ConfigMap').map(
    (configMap) => configMap.data?.['PUBLIC_ORIGIN'],
  );
  expect(origins).toHaveLength(1);
  return new URL(origins[0]!);
}

describe.each(overlays())(
  'the %s overlay: the edge (an HTTPRoute to the operator’s Gateway)',
  (overlay) => {
    const rendered = renderedOverlay(overlay);
    const { find, serviceEnvironment } = rendered;

    /**
     * The overlay's HTTPRoute for its host (the other, shortener-branded, takes every other
     * host: kubernetes-branded-domains.spec.ts).
     */
    const httpRoute = (): HTTPRoute => {
      const routes = ofKind<Pick<HTTPRoute, 'spec'>>(rendered.objects, 'HTTPRoute');
      expect(routes.map(describeObject).sort()).toEqual([
        'HTTPRoute/shortener',
        'HTTPRoute/shortener-branded',
      ]);
      return routes.find((route) => route.metadata.name === 'shortener')!;
    };

    /** A Service's port of this name, by number. */
    const servicePort = (name: string, port: string) =>
      find<IService>('Service', name)?.spec?.ports?.find((candidate) => candidate.name === port)
        ?.port;

    it('routes /r/ straight to redirect, the API and sign-in to the gateway, the rest to the web app, by an HTTPRoute', () => {
      httpRoute();
      // The Ingress is an option (k8s/components/ingress-nginx), not the default.
      expect(ofKind(rendered.objects, 'Ingress')).toEqual([]);
      const problems: string[] = [];
      routedTo(rendered.objects, problems);
      expect(problems).toEqual([]);
      const routes = Object.fromEntries(
        edgeRoutes([httpRoute()]).map((route) => [
          route.path,
          `${route.service}:${route.port.number}`,
        ]),
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
      const origin = publicOrigin(rendered.objects);
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
      const https = publicOrigin(rendered.objects).protocol === 'https:';
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
      const behindEdge = new Set(edgeRoutes(rendered.objects).map((route) => route.service));
      const problems: string[] = [];
      for (const name of SERVICES.filter((service) => behindEdge.has(service))) {
        const environment = serviceEnvironment(name, problems);
        const idleMs = Number(environment.get('KEEP_ALIVE_TIMEOUT_MS') ?? 5000);
        if (!(idleMs > EDGE_UPSTREAM_IDLE_MS)) {
          problems.push(
            `${name}: KEEP_ALIVE_TIMEOUT_MS=${environment.get('KEEP_ALIVE_TIMEOUT_MS')}`,
          );
        }
      }
      expect([...behindEdge].sort()).toEqual(['frontend', 'gateway', 'redirect']);
      expect(problems).toEqual([]);
    });
  },
);

describe.each(overlays())(
  'the %s overlay with k8s/components/ingress-nginx: an Ingress instead of the HTTPRoute',
  (overlay) => {
    let objects: Manifest[];
    let gatewayApi: Manifest[];
    beforeAll(() => {
      objects = renderWithComponentInside(overlay, INGRESS_COMPONENT);
      gatewayApi = render(overlay);
    });
    const ingress = () =>
      ofKind<IIngress>(objects, 'Ingress').find(({ metadata }) => metadata.name === 'shortener')!;

    it('renders valid objects, the Ingress for ingress-nginx and no HTTPRoute', () => {
      expect(objects.flatMap(schemaProblems)).toEqual([]);
      expect(ofKind(objects, 'HTTPRoute')).toEqual([]);
      expect(ofKind(objects, 'Ingress').map(describeObject).sort()).toEqual([
        'Ingress/shortener',
        'Ingress/shortener-branded',
      ]);
      expect(ingress().spec?.ingressClassName).toBe('nginx');
      // Nothing else changes but the policy letting the edge in.
      const others = (list: Manifest[]) =>
        list
          .filter((object) => !['Ingress', 'HTTPRoute'].includes(object.kind))
          .filter((object) => object.metadata.name !== 'allow-edge')
          .map((object) => JSON.stringify(object));
      expect(others(objects)).toEqual(others(gatewayApi));
    });

    it('routes as the HTTPRoutes do, for the same hosts', () => {
      const byPath = (list: Manifest[]) => {
        const problems: string[] = [];
        const routes = edgeRoutes(list).map(
          (route) => [`${route.host} ${route.path}`, routeTarget(list, route, problems)] as const,
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
