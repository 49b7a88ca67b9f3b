import { request } from 'node:http';

export interface HostAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request to `origin` (http://address:port) with the Host header given, which fetch
 * cannot set: a branded domain's request, as its DNS record brings it to the edge.
 */
export function requestWithHost(
  origin: string,
  host: string,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HostAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path: target,
        method: options.method ?? 'GET',
        headers: { ...options.headers, host },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * What the redirect service answers a branded host's path it has no link for: its 404, the
 * plain `Not found` of a path it does not route, or its "Link not found" page once it looks
 * `/{slug}` up on the host. The gateway answers neither (its JSON, the web app).
 */
export const REDIRECT_NOT_FOUND = /^Not found$|Link not found/;
