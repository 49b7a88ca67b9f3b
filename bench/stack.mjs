// What both benchmarks do with their test stack before they load it.
import { waitFor } from '../packages/testkit/dist/index.js';

/** Waits for each service's /readyz: /healthz answers before its database or broker is there. */
export async function whenReady(stack, names, timeoutMs = 60_000) {
  for (const name of names) {
    await waitFor(async () => (await fetch(`${stack.get(name).url}/readyz`)).ok, {
      timeoutMs,
      what: `${name} /readyz`,
    });
  }
}

/** Creates a 7-day link through the links service's internal API; returns its code. */
export async function createLink(links, url) {
  const created = await links.request('POST', '/internal/links', {
    identity: { userId: 'bench' },
    body: { url, days: 7 },
  });
  if (created.status !== 201) {
    throw new Error(`creating a link answered ${created.status}: ${JSON.stringify(created.body)}`);
  }
  return created.body.urlID;
}
