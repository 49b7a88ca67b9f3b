import { z } from 'zod';

/**
 * The routes that are not calls of the JSON API, each described once: the browser's sign-in
 * and sign-out (the auth service, reached through the gateway), the short link (the redirect
 * service) and every service's ops endpoints. Handlers are bound to their entries (@Route of
 * @shortener/chassis-nest), and whatever else routes by path reads them here: the gateway's
 * proxy and redirect fast path, the request log and tracing, the web app's short links.
 */

/** A schema the OpenAPI description names (under components/schemas). */
export interface NamedSchema {
  readonly name: string;
  readonly schema: z.ZodType;
}

export interface PageAnswer {
  readonly description: string;
  /** The body's media type (an HTML page, Prometheus text); none for an answer without one. */
  readonly media?: string;
  /** A JSON body with a schema; a handler bound to the entry returns it. */
  readonly body?: NamedSchema;
  readonly headers?: Readonly<Record<string, { description: string; schema: z.ZodType }>>;
}

export interface PageRoute {
  readonly operationId: string;
  /** GET routes answer HEAD too. */
  readonly method: 'GET' | 'POST';
  /** As OpenAPI writes it: `{name}` for a path parameter. */
  readonly path: string;
  readonly summary: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  /** By status; the first 2xx is the success answer. */
  readonly answers: Readonly<Record<number, PageAnswer>>;
}

/** A browser's way in and out, proxied by the gateway to the auth service. */
export interface SignInRoute extends PageRoute {
  /** Counted against the sign-in rate limit per address, at the gateway. */
  readonly signInAttempt: boolean;
  /** Ends the session the browser had (signing in again, signing out): caches forget it. */
  readonly endsSession: boolean;
}

const HTML = 'text/html';
/** An answer with an HTML page. */
export const page = (description: string): PageAnswer => ({ description, media: HTML });
/** The Location header of a redirect. */
export const location = (description: string) => ({
  Location: { description, schema: z.string() },
});

export const signInApi = {
  signIn: {
    operationId: 'signIn',
    method: 'GET',
    path: '/login',
    summary:
      'Starts signing in (?from= the same-site path to return to): sends the browser to ' +
      "Google, or shows the local sign-in form where that is on and Google isn't set up",
    signInAttempt: true,
    endsSession: false,
    answers: {
      200: page('The local sign-in form'),
      302: { description: "To Google's sign-in", headers: location("Google's sign-in") },
      500: page('Sign-in could not start'),
      503: page('Google sign-in is not configured'),
    },
  },
  googleCallback: {
    operationId: 'googleCallback',
    method: 'GET',
    path: '/auth/google/callback',
    summary:
      "Google's answer: a new session and its cookies (ending the one the browser had), " +
      'then back to the page sign-in started from',
    signInAttempt: true,
    endsSession: true,
    answers: {
      302: { description: 'Signed in, or refused at Google', headers: location('The page') },
      400: page('No code, or a sign-in not started from this browser'),
      502: page('Google did not confirm the sign-in'),
      503: page('Not configured, or no session could be made'),
    },
  },
  localSignIn: {
    operationId: 'localSignIn',
    method: 'POST',
    path: '/auth/local',
    summary: "The local sign-in form's post (a name and the page to return to)",
    signInAttempt: true,
    endsSession: true,
    answers: {
      302: { description: 'Signed in', headers: location('The page') },
      400: page('The form again, with why the name was refused'),
      403: page('Posted from another site'),
      404: page('Local sign-in is off'),
      409: page('The form again: the name belongs to an account spelled differently'),
      503: page('No session could be made'),
    },
  },
  signOutPage: {
    operationId: 'signOutPage',
    method: 'GET',
    path: '/logout',
    summary: 'A page whose button signs out (a GET signs no one out: any site can make one)',
    signInAttempt: false,
    endsSession: false,
    answers: { 200: page('The sign-out button') },
  },
  signOut: {
    operationId: 'signOut',
    method: 'POST',
    path: '/logout',
    summary: 'Ends the session and clears both cookies; from this origin only',
    signInAttempt: false,
    endsSession: true,
    answers: {
      302: { description: 'Signed out, to the home page', headers: location('/') },
      403: page('Sent from another site'),
    },
  },
} as const satisfies Record<string, SignInRoute>;

const stranger: PageAnswer = {
  description:
    'Not to a caller other than a direct loopback peer, nor on the main port with OPS_PORT set',
  media: 'application/json',
};

/**
 * Every service's ops endpoints, answered by the chassis (opsRoutes): /healthz to anyone;
 * /readyz and /metrics on the ops port, or without one to a direct loopback peer only.
 */
export const opsApi = {
  health: {
    operationId: 'health',
    method: 'GET',
    path: '/healthz',
    summary: 'Alive',
    answers: { 200: { description: '{status: "ok"}', media: 'application/json' } },
  },
  ready: {
    operationId: 'ready',
    method: 'GET',
    path: '/readyz',
    summary: 'Able to serve now: each dependency checked (at most once a second)',
    answers: {
      200: { description: 'Ready: {ready, checks}', media: 'application/json' },
      404: stranger,
      503: {
        description: 'Not ready, or shutting down: {ready, checks}',
        media: 'application/json',
      },
    },
  },
  metrics: {
    operationId: 'metrics',
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics',
    answers: {
      200: { description: 'The metrics', media: 'text/plain' },
      404: stranger,
      500: { description: 'The metrics could not be read', media: 'application/json' },
    },
  },
} as const satisfies Record<string, PageRoute>;

/** The ops paths: probes and scrapes, neither logged per request nor traced. */
export const OPS_PATHS: ReadonlySet<string> = new Set(
  Object.values(opsApi).map((entry) => entry.path),
);
