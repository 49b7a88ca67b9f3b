import { readFileSync } from 'node:fs';
import {
  REPO_ROOT,
  SERVICE_LIST_FILE,
  SERVICE_NAMES,
  serviceList,
  serviceListProblems,
  startOrder,
  type ServiceSpec,
} from './services';

const fileContents = (): { services: ServiceSpec[] } =>
  JSON.parse(readFileSync(SERVICE_LIST_FILE, 'utf8')) as { services: ServiceSpec[] };

/** The real list with one change made to it. */
function changed(change: (services: ServiceSpec[]) => void): { services: ServiceSpec[] } {
  const list = fileContents();
  change(list.services);
  return list;
}

const named = (services: ServiceSpec[], name: string): ServiceSpec =>
  services.find((service) => service.name === name)!;

describe('services/services.json', () => {
  it('is sane: every service with its folder, package and programs', () => {
    expect(serviceListProblems(fileContents(), REPO_ROOT)).toEqual([]);
  });

  it('names exactly the services the ServiceName type knows', () => {
    expect(
      serviceList()
        .map((service) => service.name)
        .sort(),
    ).toEqual([...SERVICE_NAMES].sort());
  });
});

describe('serviceListProblems', () => {
  it.each<[string, (services: ServiceSpec[]) => void, string]>([
    ['a name twice', (s) => s.push({ ...named(s, 'auth'), port: 7999 }), 'auth is listed twice'],
    ['a port twice', (s) => (named(s, 'links').port = 7001), "links: port 7001 is auth's too"],
    [
      'a call to a service listed later (or a cycle)',
      (s) => named(s, 'auth').calls.push('gateway'),
      'auth calls gateway, which is not listed before it',
    ],
    ['a call to itself', (s) => named(s, 'links').calls.push('links'), 'links calls itself'],
    [
      'a call to an unknown service',
      (s) => (named(s, 'redirect').calls = ['lnks' as never]),
      'redirect calls lnks, which is not listed before it',
    ],
    [
      'an unknown server',
      (s) => (named(s, 'redirect').servers = ['memcached' as never]),
      'redirect: unknown server memcached',
    ],
    [
      'a URL variable not named after its service',
      (s) => (named(s, 'links').urlVariable = 'LINK_URL'),
      'links: urlVariable LINK_URL, not LINKS_URL',
    ],
    [
      'a called service without a URL variable',
      (s) => (named(s, 'analytics').urlVariable = null),
      'analytics is called, but has no urlVariable to be found by',
    ],
    [
      'two public services',
      (s) => (named(s, 'redirect').public = true),
      '2 public services, not exactly one',
    ],
    [
      'a missing field',
      (s) => delete (named(s, 'auth') as Partial<ServiceSpec>).port,
      'services[0]: missing or malformed port',
    ],
    [
      'an unknown field',
      (s) => Object.assign(named(s, 'auth'), { prot: 7001 }),
      'services[0]: unknown field prot',
    ],
  ])('finds %s', (_, change, problem) => {
    expect(serviceListProblems(changed(change))).toContain(problem);
  });

  it('finds a package or a program that does not exist', () => {
    const list = changed((services) => {
      named(services, 'redirect').package = '@shortener/redirector';
      named(services, 'redirect').migrate = 'dist/migrate.js';
    });
    expect(serviceListProblems(list, REPO_ROOT)).toEqual([
      'redirect: package @shortener/redirector, but its package.json says @shortener/redirect',
      'redirect: dist/migrate.js has no source services/redirect/src/migrate.ts',
    ]);
  });
});

describe('startOrder', () => {
  it('starts each service after those it calls, the independent ones side by side', () => {
    expect(startOrder(['gateway', 'redirect', 'links', 'analytics', 'auth'])).toEqual([
      ['auth', 'analytics'],
      ['links'],
      ['redirect'],
      ['gateway'],
    ]);
  });

  it('ignores calls to services outside the stack', () => {
    expect(startOrder(['redirect', 'gateway'])).toEqual([['redirect'], ['gateway']]);
    expect(startOrder(['redirect', 'auth'])).toEqual([['auth', 'redirect']]);
  });
});
