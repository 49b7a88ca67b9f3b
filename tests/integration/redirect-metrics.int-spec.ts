import { InternalClient } from '@shortener/chassis';
import { internalApi } from '@shortener/contracts';
import { startStack, waitFor, type Stack } from '@shortener/testkit';

// The redirect's own request histogram: every short-link request observed under one route,
// whatever its answer, so its traffic, error share and p99 (RedirectLatencyHigh) come from
// the service itself and not from an edge that may not export any.

const ROUTE = '/r/{code}';

/** The `_count` of each (method, status) of the short-link route in a /metrics text. */
function counts(text: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('http_request_duration_seconds_count{')) continue;
    const labels = Object.fromEntries(
      [...line.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name!, value!]),
    );
    if (labels['route'] !== ROUTE) continue;
    found[`${labels['method']} ${labels['status']}`] = Number(line.split(' ').pop());
  }
  return found;
}

describe("the redirect service's request histogram", () => {
  let stack: Stack;
  let links: InternalClient;

  beforeAll(async () => {
    stack = await startStack({
      services: ['links', 'redirect'],
      // Two unknown codes a minute: the third is answered 429.
      serviceEnv: { redirect: { REDIRECT_MISS_BUDGET: '2', REDIRECT_MISS_BURST: '2' } },
    });
    links = new InternalClient('links', stack.get('links').url, stack.secret);
    await waitFor(async () => (await fetch(`${stack.get('redirect').url}/readyz`)).ok, {
      what: 'redirect ready',
      timeoutMs: 30_000,
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('observes every /r/ request under one route, by method and status', async () => {
    const redirect = stack.get('redirect').url;
    const created = await links.call(internalApi.createLink, {
      identity: { userId: 'redirect-metrics' },
      body: { url: 'https://example.com/measured', days: 1 },
    });
    if (created.status !== 201) throw new Error(`not created: ${created.body.message}`);
    const code = created.body.urlID;
    const ask = async (page: string, method = 'GET') =>
      (await fetch(`${redirect}${page}`, { method, redirect: 'manual' })).status;

    const before = counts(await (await fetch(`${redirect}/metrics`)).text());
    // Series from start-up for the GET answers an alert divides by: none missing, all at 0.
    for (const status of ['302', '404', '429', '503']) expect(before[`GET ${status}`]).toBe(0);

    expect(await ask(`/r/${code}`)).toBe(302);
    expect(await ask(`/r/${code}?utm=1`)).toBe(302);
    expect(await ask(`/r/${code}`, 'HEAD')).toBe(302);
    expect(await ask('/r/bad!code')).toBe(404);
    expect(await ask('/r/zzzzzz1')).toBe(404);
    expect(await ask('/r/zzzzzz2')).toBe(404);
    expect(await ask('/r/zzzzzz3')).toBe(429);
    expect(await ask(`/r/${code}`, 'DELETE')).toBe(405);

    const text = await (await fetch(`${redirect}/metrics`)).text();
    expect(counts(text)).toEqual({
      // A password link's form (200) has its children from the start too.
      'GET 200': 0,
      'HEAD 200': 0,
      'GET 302': 2,
      'HEAD 302': 1,
      'GET 404': 3,
      'GET 429': 1,
      'GET 503': 0,
      'HEAD 404': 0,
      'HEAD 429': 0,
      'HEAD 503': 0,
      'DELETE 405': 1,
    });
    // No code, no query: the route is the only path label, whatever was asked.
    expect(text).not.toContain('zzzzzz');
    expect(text).not.toContain(code);
    // Durations were measured: a sum above 0 for the 302s, each in the first buckets.
    const sum =
      /http_request_duration_seconds_sum\{[^}]*method="GET"[^}]*route="\/r\/\{code\}"[^}]*status="302"[^}]*\} (\S+)/.exec(
        text,
      );
    expect(Number(sum?.[1])).toBeGreaterThan(0);
    expect(Number(sum?.[1])).toBeLessThan(1);
  });
});
