import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './services';

/** A user the mock provider signs in, as its userinfo endpoint describes them. */
export interface MockUser {
  sub: string;
  name: string;
  picture: string;
  email: string;
}

export interface OAuth2Mock {
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  /** GOOGLE_* variables that point the auth service at this provider. */
  env: Record<string, string>;
  output(): string;
  stop(): Promise<void>;
}

// oauth2-mock-server is an ES module, which Jest's CommonJS runtime cannot load: it runs in
// a child process. Its authorize endpoint takes a `login_hint` naming one of the users (the
// first one otherwise); the access token it issues resolves to that user at /userinfo.
const SCRIPT = `
import { OAuth2Server } from 'oauth2-mock-server';
const users = JSON.parse(process.env.MOCK_USERS);
const fallback = Object.keys(users)[0];
const byCode = new Map();
const byToken = new Map();
const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
server.service.on('beforeAuthorizeRedirect', ({ url }, req) => {
  const hint = typeof req.query.login_hint === 'string' ? req.query.login_hint : fallback;
  const code = url.searchParams.get('code');
  if (code && users[hint]) byCode.set(code, users[hint]);
});
server.service.on('beforeResponse', (response, req) => {
  const user = byCode.get(req.body.code);
  if (!user || response.statusCode !== 200) return;
  byCode.delete(req.body.code);
  byToken.set(response.body.access_token, user);
});
server.service.on('beforeUserinfo', (response, req) => {
  // passport-oauth2 sends the token as ?access_token= unless told to use the header.
  const url = new URL(req.url, 'http://mock.invalid');
  const token =
    url.searchParams.get('access_token') ??
    (req.headers.authorization ?? '').replace(/^Bearer /i, '');
  const user = byToken.get(token);
  if (!user) {
    response.statusCode = 401;
    response.body = { error: 'invalid_token', error_description: 'unknown access token' };
    return;
  }
  response.body = { ...user, email_verified: true };
});
await server.start(0, '127.0.0.1');
console.log('READY ' + server.issuer.url);
process.on('SIGTERM', () => server.stop().then(() => process.exit(0)));
`;

/** Starts a local OAuth2 provider standing in for Google, with the given users. */
export async function startOAuth2Mock(users: Record<string, MockUser>): Promise<OAuth2Mock> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    cwd: REPO_ROOT,
    env: { ...process.env, MOCK_USERS: JSON.stringify(users) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`OAuth2 mock did not start\n${output}`)),
      15_000,
    );
    createInterface({ input: child.stdout }).on('line', (line) => {
      output += `${line}\n`;
      if (line.startsWith('READY ')) {
        clearTimeout(timer);
        resolve(line.slice('READY '.length).trim());
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`OAuth2 mock exited\n${output}`));
    });
  });
  const authorizationUrl = `${issuer}/authorize`;
  const tokenUrl = `${issuer}/token`;
  const userinfoUrl = `${issuer}/userinfo`;
  return {
    issuer,
    authorizationUrl,
    tokenUrl,
    userinfoUrl,
    env: {
      GOOGLE_CLIENT_ID: 'shortener-test-client',
      GOOGLE_CLIENT_SECRET: 'shortener-test-secret',
      GOOGLE_AUTHORIZATION_URL: authorizationUrl,
      GOOGLE_TOKEN_URL: tokenUrl,
      GOOGLE_USERINFO_URL: userinfoUrl,
    },
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
