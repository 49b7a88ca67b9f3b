import fs from 'node:fs';
import path from 'node:path';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1';
import type { IService } from 'kubernetes-models/v1';
import {
  describeObject,
  ofKind,
  overlays,
  render,
  renderFolder,
  renderWithComponentInside,
  schemaProblems,
  type Manifest,
} from './support/kubernetes';
import { edgeRoutes, GATEWAY, INGRESS_COMPONENT, type HTTPRoute } from './support/overlay';
import { readRepoFile, REPO_ROOT } from './support/repo';

// Branded domains in Kubernetes: a catch-all route to the redirect service for every host the
// main route does not name, and the per-domain certificate an operator copies
// (k8s/branded-domain): cert-manager's HTTP-01 through the Gateway, or through ingress-nginx.

/** The domain the per-domain folders are written for, as a name and in object names. */
const EXAMPLE_DOMAIN = 'go.example.com';
const EXAMPLE_NAME = 'go-example-com';
const DOMAIN_FOLDER = 'k8s/branded-domain';
const DOMAIN_FOLDER_INGRESS = 'k8s/branded-domain/ingress-nginx';

interface CertManagerObject extends Manifest {
  spec: {
    secretName?: string;
    dnsNames?: string[];
    issuerRef?: { group?: string; kind?: string; name?: string };
    acme?: {
      server?: string;
      email?: string;
      privateKeySecretRef?: { name?: string };
      solvers?: {
        http01?: {
          gatewayHTTPRoute?: { parentRefs?: Record<string, string>[] };
          ingress?: { ingressClassName?: string };
        };
      }[];
    };
  };
}

/** A Gateway listener, as gateway-listener.json adds it. */
interface Listener {
  name: string;
  protocol: string;
  port: number;
  hostname: string;
  tls: { mode: string; certificateRefs: { kind: string; name: string }[] };
  allowedRoutes: {
    namespaces: { from: string; selector: { matchLabels: Record<string, string> } };
  };
}

const named = <T extends Manifest>(objects: readonly Manifest[], kind: string, name: string) =>
  ofKind<T>(objects, kind).find((object) => object.metadata.name === name);

describe.each(overlays())('the %s overlay: branded domains', (overlay) => {
  let objects: Manifest[];
  beforeAll(() => {
    objects = render(overlay);
  });
  const servicePort = (name: string) =>
    named<Manifest & IService>(objects, 'Service', name)?.spec?.ports?.find(
      (port) => port.name === 'http',
    )?.port;

  it('sends every path of any host the main route does not name to the redirect service', () => {
    const branded = named<HTTPRoute>(objects, 'HTTPRoute', 'shortener-branded')!;
    expect(schemaProblems(branded)).toEqual([]);
    // No hostnames: any host the Gateway's listeners take; no sectionName: every listener that
    // lets the namespace in (each domain's HTTPS listener).
    expect(branded.spec.hostnames).toBeUndefined();
    expect(branded.spec.parentRefs).toEqual([
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', ...GATEWAY },
    ]);
    expect(edgeRoutes([branded])).toEqual([
      {
        host: '*',
        path: 'prefix /',
        service: 'redirect',
        port: { number: servicePort('redirect') },
      },
    ]);
    const main = named<HTTPRoute>(objects, 'HTTPRoute', 'shortener')!;
    const mainShortLink = (main.spec.rules ?? []).find(
      (rule) => rule.matches?.[0]?.path?.value === '/r/',
    );
    expect(branded.spec.rules?.[0]?.timeouts).toEqual(mainShortLink?.timeouts);
  });

  it('keeps the main host’s every path on the main route, which names it (the longest hostname wins)', () => {
    const routes = ofKind<HTTPRoute>(objects, 'HTTPRoute');
    const withHosts = routes.filter((route) => (route.spec.hostnames ?? []).length > 0);
    expect(withHosts.map(describeObject)).toEqual(['HTTPRoute/shortener']);
    const main = withHosts[0]!;
    expect(main.spec.hostnames).toHaveLength(1);
    // The main route answers every path of its host (its / prefix), so none falls through.
    expect(edgeRoutes([main]).map((route) => route.path)).toContain('prefix /');
  });

  it('with ingress-nginx, has a host-less Ingress rule (ingress-nginx’s default server) send every path to the redirect service', () => {
    const withComponent = renderWithComponentInside(overlay, INGRESS_COMPONENT);
    expect(ofKind(withComponent, 'HTTPRoute')).toEqual([]);
    const branded = named<Manifest & IIngress>(withComponent, 'Ingress', 'shortener-branded')!;
    const main = named<Manifest & IIngress>(withComponent, 'Ingress', 'shortener')!;
    expect(schemaProblems(branded)).toEqual([]);
    expect(branded.spec?.ingressClassName).toBe('nginx');
    expect(branded.spec?.tls).toBeUndefined();
    expect(edgeRoutes([branded])).toEqual([
      { host: '*', path: 'prefix /', service: 'redirect', port: { name: 'http' } },
    ]);
    // The main Ingress still names its host; the timeouts and body size are the same.
    expect(main.spec?.rules?.every((rule) => rule.host !== undefined)).toBe(true);
    expect(branded.metadata?.annotations).toEqual(
      Object.fromEntries(
        Object.entries(main.metadata?.annotations ?? {}).filter(([name]) =>
          name.startsWith('nginx.ingress.kubernetes.io/'),
        ),
      ),
    );
  });
});

describe('k8s/branded-domain: one domain’s certificate and listener on the Gateway', () => {
  let objects: CertManagerObject[];
  let listenerPatch: { op: string; path: string; value: Listener }[];
  beforeAll(() => {
    objects = renderFolder(DOMAIN_FOLDER) as CertManagerObject[];
    listenerPatch = JSON.parse(readRepoFile(`${DOMAIN_FOLDER}/gateway-listener.json`)) as [];
  });

  it('renders an ACME Issuer solving HTTP-01 with an HTTPRoute on the Gateway’s plain-HTTP listener', () => {
    expect(
      objects.map((object) => `${object.apiVersion} ${describeObject(object)}`).sort(),
    ).toEqual([
      `cert-manager.io/v1 Certificate/branded-${EXAMPLE_NAME}`,
      'cert-manager.io/v1 Issuer/branded-domains',
    ]);
    // In the Gateway's namespace: its listeners read Secrets there, and its plain-HTTP
    // listener takes routes from there (docs/operations/gateway.md), the solver's included.
    expect(new Set(objects.map((object) => object.metadata.namespace))).toEqual(
      new Set([GATEWAY.namespace]),
    );
    const issuer = named<CertManagerObject>(objects, 'Issuer', 'branded-domains')!;
    expect(issuer.spec.acme?.server).toBe('https://acme-v02.api.letsencrypt.org/directory');
    expect(issuer.spec.acme?.privateKeySecretRef?.name).toBeTruthy();
    expect(issuer.spec.acme?.solvers).toEqual([
      {
        http01: {
          gatewayHTTPRoute: {
            parentRefs: [
              {
                group: 'gateway.networking.k8s.io',
                kind: 'Gateway',
                ...GATEWAY,
                sectionName: 'http',
              },
            ],
          },
        },
      },
    ]);
  });

  it('issues the domain’s certificate into the Secret its HTTPS listener names', () => {
    const certificate = named<CertManagerObject>(
      objects,
      'Certificate',
      `branded-${EXAMPLE_NAME}`,
    )!;
    expect(certificate.spec).toEqual({
      secretName: `branded-${EXAMPLE_NAME}-tls`,
      dnsNames: [EXAMPLE_DOMAIN],
      issuerRef: { group: 'cert-manager.io', kind: 'Issuer', name: 'branded-domains' },
    });
    expect(listenerPatch).toHaveLength(1);
    const [{ op, path: where, value: listener }] = listenerPatch as [(typeof listenerPatch)[0]];
    expect({ op, where }).toEqual({ op: 'add', where: '/spec/listeners/-' });
    // An HTTPS listener takes one hostname, and presents the certificate for it.
    expect(listener).toEqual({
      name: `branded-${EXAMPLE_NAME}`,
      protocol: 'HTTPS',
      port: 443,
      hostname: EXAMPLE_DOMAIN,
      tls: {
        mode: 'Terminate',
        certificateRefs: [{ kind: 'Secret', name: certificate.spec.secretName }],
      },
      allowedRoutes: {
        namespaces: {
          from: 'Selector',
          // The production overlay's namespace, where the catch-all route is.
          selector: { matchLabels: { 'kubernetes.io/metadata.name': 'shortener' } },
        },
      },
    });
    // Gateway API's SectionName and Hostname forms.
    expect(listener.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(listener.name.length).toBeLessThanOrEqual(253);
    expect(listener.hostname).toMatch(
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    );
    const production = render('production');
    expect(new Set(production.map((object) => object.metadata.namespace))).toContain('shortener');
  });
});

describe('k8s/branded-domain/ingress-nginx: one domain’s certificate with ingress-nginx', () => {
  let objects: Manifest[];
  beforeAll(() => {
    objects = renderFolder(DOMAIN_FOLDER_INGRESS);
  });

  it('renders an Ingress for the domain to the redirect service, whose annotation names an HTTP-01 Issuer of class nginx', () => {
    expect(objects.map(describeObject).sort()).toEqual([
      `Ingress/branded-${EXAMPLE_NAME}`,
      'Issuer/branded-domains',
      'NetworkPolicy/allow-acme-http01-solver',
    ]);
    const issuer = named<CertManagerObject>(objects, 'Issuer', 'branded-domains')!;
    expect(issuer.spec.acme?.solvers).toEqual([
      { http01: { ingress: { ingressClassName: 'nginx' } } },
    ]);
    const ingress = named<Manifest & IIngress>(objects, 'Ingress', `branded-${EXAMPLE_NAME}`)!;
    expect(schemaProblems(ingress)).toEqual([]);
    expect(ingress.metadata?.annotations?.['cert-manager.io/issuer']).toBe('branded-domains');
    expect(ingress.spec?.tls).toEqual([
      { hosts: [EXAMPLE_DOMAIN], secretName: `branded-${EXAMPLE_NAME}-tls` },
    ]);
    expect(edgeRoutes([ingress])).toEqual([
      { host: EXAMPLE_DOMAIN, path: 'prefix /', service: 'redirect', port: { name: 'http' } },
    ]);
    // In the app's namespace, beside the redirect Service it names; the solver's pods there
    // are let in past default-deny.
    expect(new Set(objects.map((object) => object.metadata.namespace))).toEqual(
      new Set(['shortener']),
    );
    const policy = named<Manifest>(objects, 'NetworkPolicy', 'allow-acme-http01-solver')!;
    expect(schemaProblems(policy)).toEqual([]);
  });
});

it('writes the example domain the same way in every file of the per-domain folders, so one replacement makes a copy', () => {
  const problems: string[] = [];
  for (const folder of [DOMAIN_FOLDER, DOMAIN_FOLDER_INGRESS]) {
    for (const file of fs.readdirSync(path.join(REPO_ROOT, folder))) {
      if (!/\.(ya?ml|json)$/.test(file)) continue;
      const text = readRepoFile(`${folder}/${file}`).replace(/^#.*$/gm, '');
      // Any other spelling of the example domain would stay behind in a copy.
      for (const [found] of text.matchAll(/go[._-]example[._-]com/g)) {
        if (found !== EXAMPLE_DOMAIN && found !== EXAMPLE_NAME) problems.push(`${file}: ${found}`);
      }
    }
  }
  expect(problems).toEqual([]);
});
