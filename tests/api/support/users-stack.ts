import { randomInt } from 'node:crypto';
import { Client } from 'pg';
import {
  startOAuth2Mock,
  startStack,
  testServers,
  type MockUser,
  type OAuth2Mock,
  type Stack,
  type StackOptions,
} from '@shortener/testkit';
import { Browser } from './browser';
import { signIn } from './sign-in';

/** An address of a client of its own (loopback's X-Forwarded-For is believed here). */
export const someAddress = (): string => `198.18.${randomInt(256)}.${randomInt(1, 255)}`;

/** A browser posing as a client of its own address, so per-address limits stay out of the way. */
export const someClient = (): Browser => new Browser({ 'x-forwarded-for': someAddress() });

/** The whole stack from its builds, its users signing in at the OAuth2 mock, and the database. */
export interface UsersStack {
  provider: OAuth2Mock;
  stack: Stack;
  /** A client of the test database. */
  db: Client;
  /** A browser of a client of its own (someClient) for each user, signed in, on /profile. */
  signedIn<Name extends string>(names: readonly Name[]): Promise<Record<Name, Browser>>;
  /** Stops all three. */
  stop(): Promise<void>;
}

/**
 * Starts the OAuth2 mock for these users, the stack with auth signing in through it (the
 * options' auth variables added to the mock's), and a client of the test database; what has
 * started is stopped again when a later step fails.
 */
export async function startUsersStack(
  users: Record<string, MockUser>,
  options: StackOptions = {},
): Promise<UsersStack> {
  const provider = await startOAuth2Mock(users);
  let stack: Stack | undefined;
  let db: Client | undefined;
  const stop = async () => {
    await db?.end();
    await stack?.stop();
    await provider.stop();
  };
  try {
    stack = await startStack({
      ...options,
      serviceEnv: {
        ...options.serviceEnv,
        auth: { ...provider.env, ...options.serviceEnv?.auth },
      },
    });
    const client = new Client({ connectionString: testServers.databaseUrl });
    await client.connect();
    db = client;
    const origin = stack.url;
    return { provider, stack, db, signedIn: (names) => signedInClients(origin, names), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function signedInClients<Name extends string>(
  origin: string,
  names: readonly Name[],
): Promise<Record<Name, Browser>> {
  const browsers = {} as Record<Name, Browser>;
  for (const name of names) {
    browsers[name] = someClient();
    expect((await signIn(browsers[name], origin, name)).landedAt).toBe(`${origin}/profile`);
  }
  return browsers;
}
