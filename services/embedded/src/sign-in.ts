import { BlockList, isIP } from 'node:net';
import { env, isProduction, localSignInRefusal } from '@shortener/chassis';

/**
 * Who may sign in to the embedded mode, decided once at start-up. The local sign-in (any
 * name, no password) makes whoever reaches the port any user, so it is on by itself only
 * when nobody else can reach the port: the server listens on loopback alone.
 */
type SignIn =
  { kind: 'google'; why: string } | { kind: 'local'; why: string } | { kind: 'none'; why: string };

/** Thrown for a combination that must not start; the message says what to change. */
export class SignInRefused extends Error {}

interface SignInSettings {
  googleConfigured: boolean;
  /** Every address the public port listens on is a loopback address. */
  loopbackOnly: boolean;
  /** HOST as set, for the message; undefined when unset (then loopback). */
  host: string | undefined;
  LOCAL_SIGN_IN: string | undefined;
  NODE_ENV: string | undefined;
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');
loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** A bound address (as server.address() reports it) that only this machine can reach. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return loopback.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** LOCAL_SIGN_IN read as every service reads a boolean; undefined when unset or empty. */
function localSignInAsked(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parsed = env.bool(false).safeParse(value.trim().toLowerCase());
  if (!parsed.success) {
    throw new SignInRefused(`LOCAL_SIGN_IN=${value} is not true or false`);
  }
  return parsed.data;
}

/** LOCAL_SIGN_IN as asked, refused outright under NODE_ENV production. */
function localSignInAllowed(settings: SignInSettings): boolean | undefined {
  const asked = localSignInAsked(settings.LOCAL_SIGN_IN);
  const refusal = localSignInRefusal(settings.NODE_ENV);
  if (asked === true && refusal !== undefined) {
    throw new SignInRefused(
      `LOCAL_SIGN_IN=true is refused when NODE_ENV=${settings.NODE_ENV?.trim()}: ${refusal}`,
    );
  }
  return asked;
}

function googleSignIn(asked: boolean | undefined): SignIn {
  return {
    kind: 'google',
    why: asked ? 'Google (LOCAL_SIGN_IN is ignored while Google is configured)' : 'Google',
  };
}

/**
 * Who may sign in to `npm run stack` (scripts/stack.mjs), the distributed mode tried on one
 * machine: Google, or nobody; the local sign-in only when asked for, and only while the
 * stack's public port is on loopback alone. Asked for on any other address it is refused
 * (not warned about, as `npm start` does): that port is the one other machines reach.
 */
export function chooseStackSignIn(settings: SignInSettings): SignIn {
  const asked = localSignInAllowed(settings);
  if (settings.googleConfigured) return googleSignIn(asked);
  if (asked !== true) {
    return {
      kind: 'none',
      why: 'none, because Google sign-in is not configured (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)',
    };
  }
  if (!settings.loopbackOnly) {
    throw new SignInRefused(
      `LOCAL_SIGN_IN=true is refused: the stack listens on ${settings.host ?? '0.0.0.0'}, beyond ` +
        'this machine, where anyone who reaches it could sign in as anyone with no password. ' +
        'Set HOST=127.0.0.1 to try the local sign-in, or configure Google sign-in ' +
        '(GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)',
    );
  }
  return {
    kind: 'local',
    why: 'local (no password), because LOCAL_SIGN_IN=true and the stack listens on loopback only',
  };
}

export function chooseSignIn(settings: SignInSettings): SignIn {
  const asked = localSignInAllowed(settings);
  const nodeEnv = settings.NODE_ENV?.trim();
  if (isProduction(nodeEnv) && !settings.googleConfigured) {
    throw new SignInRefused(
      `NODE_ENV=${nodeEnv} needs Google sign-in: set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET ` +
        '(the local sign-in is only for trying the product)',
    );
  }
  if (settings.googleConfigured) return googleSignIn(asked);
  if (asked === true) {
    return {
      kind: 'local',
      why: settings.loopbackOnly
        ? 'local (no password), because LOCAL_SIGN_IN=true'
        : 'local (no password), because LOCAL_SIGN_IN=true; anyone who can reach this port can sign in as anyone',
    };
  }
  if (asked === false) {
    return {
      kind: 'none',
      why: 'none, because Google sign-in is not configured and LOCAL_SIGN_IN=false',
    };
  }
  if (settings.loopbackOnly) {
    return { kind: 'local', why: 'local (no password), because it listens on loopback only' };
  }
  return {
    kind: 'none',
    why:
      `none, because Google sign-in is not configured and HOST=${settings.host ?? ''} is not ` +
      'loopback; set LOCAL_SIGN_IN=true to allow anyone who can reach this port to sign in as anyone',
  };
}
