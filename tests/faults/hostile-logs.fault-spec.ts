import fc from 'fast-check';
import { serviceList, untilLogsWritten, waitFor } from '@shortener/testkit';
import { Browser } from '../api/support/browser';
import { signIn } from '../api/support/sign-in';
import { rawRequest, type RawRequest, type RawResponse } from './support/raw-http';
import {
  alice,
  alphanumeric,
  api,
  cases,
  encode,
  gateway,
  note,
  redirectPort,
  run,
  runs,
  short,
  shortenAs,
  stack,
  useHostileStack,
} from './support/hostile';

describe('hostile input: logs: no query value or OAuth code in any line', () => {
  useHostileStack();

  it('logs: no query value, nor an OAuth code or state, reaches any service log, on any route (item 6)', async () => {
    const services = serviceList().map(({ name }) => stack!.get(name));
    const start = new Map(services.map((service) => [service, service.output().length]));
    const logged = (): string =>
      services.map((service) => service.output().slice(start.get(service))).join('\n');
    const knownCode = await shortenAs(alice, `https://example.com/logs/${run}`);
    const everySecret: string[] = [];
    let serial = 0;
    const leaked = (values: readonly string[]): string | undefined => {
      const output = logged();
      const found = values.filter((value) => output.includes(value));
      if (found.length === 0) return undefined;
      const lines = output.split('\n').filter((line) => found.some((v) => line.includes(v)));
      return `${found.join(', ')} in:\n${short(lines.join('\n'), 2000)}`;
    };
    // A secret as tokens look (a prefix, base64url or a JWT's shape); its core, unique per case,
    // is what is looked for.
    const secret = fc.record({
      prefix: fc.constantFrom(
        '',
        'ghp_',
        'sk_live_',
        'xoxb-',
        'AKIA',
        'ya29.',
        'eyJhbGciOiJIUzI1NiJ9.',
      ),
      core: alphanumeric(8, 32),
      suffix: fc.constantFrom('', '==', '.c2lnbmF0dXJl', '-_~'),
    });
    const name = fc.oneof(
      fc.constantFrom(
        'token',
        'access_token',
        'key',
        'api_key',
        'code',
        'state',
        'sig',
        'password',
        'X-Amz-Signature',
      ),
      alphanumeric(1, 12),
    );
    const route = fc.constantFrom(
      'r via gateway',
      'r direct',
      'r unknown',
      'shorten url',
      'shorten parameter',
      'shorten bad body',
      'shorten too large',
      'login from',
      'callback unsolicited',
      'callback started',
      'callback error',
      'api user',
      'api visitors',
      'api unknown',
      'logout',
      'page',
      'full sign-in',
    );
    await fc.assert(
      fc.asyncProperty(route, name, secret, secret, async (where, key, first, second) => {
        const mark = `${run}${(serial++).toString(36)}x`;
        const value = `${first.prefix}${mark}${first.core}${first.suffix}`;
        const other = `${second.prefix}${mark}y${second.core}${second.suffix}`;
        const watched = [`${mark}${first.core}`, `${mark}y${second.core}`];
        const query = `${encode(key)}=${encode(value)}`;
        // The gateway logs each request with this id: once its line is there, the case's are.
        const id = ['X-Request-Id', `hostile-logs-${mark}`] as const;
        const gw = (request: RawRequest): Promise<RawResponse> =>
          rawRequest(gateway.port, { ...request, headers: [id, ...(request.headers ?? [])] });
        const apiWithId = (request: Parameters<typeof api>[0]): Promise<RawResponse> =>
          api({ ...request, headers: [id, ...(request.headers ?? [])] });
        let status: number;
        switch (where) {
          case 'r via gateway':
          case 'r unknown': {
            const code = where === 'r unknown' ? `${mark}`.slice(-7).padStart(7, '0') : knownCode;
            status = (await gw({ target: `/r/${code}?${query}&b=${encode(other)}` })).status;
            break;
          }
          case 'r direct':
            status = (await rawRequest(redirectPort, { target: `/r/${knownCode}?${query}` }))
              .status;
            break;
          case 'shorten url': {
            const target = `https://docs.example/report?${query}#${encode(other)}`;
            status = (
              await apiWithId({
                method: 'POST',
                target: `/api/shorten/?url=${encode(target)}&days=7`,
              })
            ).status;
            break;
          }
          case 'shorten parameter':
            status = (
              await apiWithId({
                method: 'POST',
                target: `/api/shorten/?url=https%3A%2F%2Fexample.com%2F&${query}`,
                as: alice,
              })
            ).status;
            break;
          case 'shorten bad body':
            status = (
              await apiWithId({
                method: 'POST',
                target: `/api/shorten/?${query}`,
                headers: [['Content-Type', 'application/json']],
                body: `{"url": "${value}`,
              })
            ).status;
            break;
          case 'shorten too large':
            status = (
              await apiWithId({
                method: 'POST',
                target: `/api/shorten/?${query}`,
                headers: [['Content-Type', 'application/json']],
                body: `"${'a'.repeat(20_000)}${value}"`,
              })
            ).status;
            break;
          case 'login from':
            status = (
              await gw({
                target: `/login?from=${encode(`/profile?${query}`)}`,
              })
            ).status;
            break;
          case 'callback unsolicited':
            status = (
              await gw({
                target: `/auth/google/callback?code=${encode(value)}&state=${encode(other)}`,
              })
            ).status;
            break;
          case 'callback error':
            status = (
              await gw({
                target: `/auth/google/callback?error=access_denied&error_description=${encode(value)}&state=${encode(other)}`,
              })
            ).status;
            break;
          case 'callback started': {
            // A sign-in this browser started: the state is good, the code is not the provider's.
            const browser = new Browser();
            const login = await browser.fetch(`${gateway.origin}/login`);
            const state = new URL(login.headers.get('location') ?? '').searchParams.get('state');
            if (!state) throw new Error(`/login: ${login.status}, no state`);
            watched.push(state);
            const callback = await browser.fetch(
              `${gateway.origin}/auth/google/callback?code=${encode(value)}&state=${encode(state)}`,
              { headers: { [id[0]]: id[1] } },
            );
            status = callback.status;
            if (![400, 502].includes(status))
              throw new Error(`a code the provider never issued: ${status}`);
            break;
          }
          case 'full sign-in': {
            const trip = await signIn(new Browser(), gateway.origin, 'dave', `/profile?${query}`);
            const callback = new URL(trip.callbackUrl);
            watched.push(
              callback.searchParams.get('code') ?? '',
              callback.searchParams.get('state') ?? '',
            );
            status = trip.callback.status;
            if (status !== 302) throw new Error(`sign-in: ${status}`);
            break;
          }
          case 'api user':
            status = (await apiWithId({ target: `/api/user?${query}`, as: alice })).status;
            break;
          case 'api visitors':
            status = (
              await apiWithId({
                target: `/api/visitors/${knownCode}?cursor=${encode(value)}&${query}`,
                as: alice,
              })
            ).status;
            break;
          case 'api unknown':
            status = (await apiWithId({ target: `/api/nothing-here/?${query}` })).status;
            break;
          case 'logout':
            status = (
              await gw({
                method: 'POST',
                target: `/logout?${query}`,
                headers: [['Origin', 'https://evil.example']],
              })
            ).status;
            break;
          case 'page':
            status = (await gw({ target: `/profile?${query}` })).status;
            break;
        }
        note(status);
        if (status >= 500 && where !== 'callback started') throw new Error(`${where}: ${status}`);
        everySecret.push(...watched.filter((v) => v.length >= 8));
        // /r/ goes through the gateway before its request log (as through the Ingress), so
        // only the redirect's lines tell of it: looked at below, with the full sign-ins'.
        if (!['r direct', 'r via gateway', 'r unknown', 'full sign-in'].includes(where)) {
          const gatewayLog = stack!.get('gateway');
          await waitFor(() => gatewayLog.output().slice(start.get(gatewayLog)).includes(id[1]), {
            what: `the gateway's log line of ${id[1]}`,
            timeoutMs: 5_000,
            intervalMs: 2,
          });
        }
        const leak = leaked(watched.filter((v) => v.length >= 8));
        if (leak) throw new Error(`${where}: logged ${leak}`);
      }),
      runs(300),
    );
    // Lines not waited for (the redirect's, /r/ through the gateway, the full sign-ins'): every
    // secret looked for once more, once every process has written the lines of its requests.
    for (const service of services) await untilLogsWritten(service);
    const leak = leaked(everySecret);
    if (leak) throw new Error(`logged ${leak}`);
    // The request lines were written (the level logs them), so a query in them would show.
    const output = logged();
    expect(output).toContain('/api/shorten/');
    expect(output).toContain('/auth/google/callback');
  });

  it('ran its 300 generated cases', () => {
    expect(cases).toBeGreaterThanOrEqual(300);
  });
});
