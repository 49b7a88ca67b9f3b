import {
  NEXT_CURSOR_HEADER,
  TOTAL_COUNT_HEADER,
  type ShortLink,
  type UserData,
} from '@shortener/contracts/web';
import {
  createContext,
  startTransition,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import {
  clearAllCaches,
  clearCachedUser,
  clearCachedVisitors,
  forgetSignIn,
  isSignedIn,
  putLinkInCachedUser,
  readCachedUser,
  readCachedUserPage,
  removeLinkFromCachedUser,
  withLink,
  writeCachedUser,
} from '../../lib/storage';
import { countOf } from '../../lib/count-header';
import { useHydrated } from '../../lib/hydration';
import { getUser } from './api/get-user';

export type UserStatus = 'idle' | 'loading' | 'ready' | 'error';

interface SessionState {
  /** From the 'loggedIn' cookie, until the server says otherwise. */
  signedIn: boolean;
  /** userData: the first page of the user's links (SPEC's list), as getUser gave it. */
  user: UserData | null;
  /** The pages after it the user asked for ("Load more"), kept in memory only. */
  more: ShortLink[];
  /** Where the page after the last one shown starts; null when nothing follows. */
  nextCursor: string | null;
  /** How many links the user has in all, as the server last said; null when not known. */
  total: number | null;
  status: UserStatus;
  error: string | null;
  /** The last known profile picture: the top bar keeps it while userData is refetched. */
  picture: string | null;
}

export interface Session extends SessionState {
  /** Uses cached userData when there is some, unless `refresh` asks for the server's. */
  loadUser: (options?: { refresh?: boolean }) => Promise<void>;
  /** After a shorten: the cached list is out of date and is fetched again when next needed. */
  forgetUser: () => void;
  /** After a delete: the link leaves the cached userData and the list shown; its cached visitors go. */
  removeLink: (urlID: string) => void;
  /** After an edit or an undone delete: the link as the server answered, in the list and the cache. */
  putLink: (link: ShortLink) => void;
  /** After a 401 or 'Unauthorized access': back to the sign-in prompt, caches cleared. */
  signOut: () => void;
  /**
   * Adds the page that starts at `after` to the list shown; dropped when the list has moved
   * on meanwhile (reloaded, or that page already added).
   */
  appendLinks: (after: string, links: ShortLink[], nextCursor: string | null) => void;
}

const SessionContext = createContext<Session | null>(null);

/**
 * The session a prerendered page was rendered for (the build's prerender of the home page,
 * once signed out and once signed in; main.tsx reads it back from the page). Only whether
 * the visitor is signed in: their picture and links are the browser's to know.
 */
export interface ShellSession {
  signedIn: boolean;
}

const SIGNED_OUT: SessionState = {
  signedIn: false,
  user: null,
  more: [],
  nextCursor: null,
  total: null,
  status: 'idle',
  error: null,
  picture: null,
};

function ready(user: UserData, nextCursor: string | null, total: number | null): SessionState {
  return {
    signedIn: true,
    user,
    more: [],
    nextCursor,
    total,
    status: 'ready',
    error: null,
    picture: user.profilePicture || null,
  };
}

function initialState(): SessionState {
  if (!isSignedIn()) return SIGNED_OUT;
  const cached = readCachedUserPage();
  return cached
    ? ready(cached.user, cached.nextCursor, cached.total)
    : { ...SIGNED_OUT, signedIn: true };
}

export function SessionProvider({
  children,
  shell = { signedIn: false },
}: {
  children: ReactNode;
  shell?: ShellSession;
}) {
  // The prerender runs at build time, where there is no cookie or storage to read.
  const [state, setState] = useState(() =>
    typeof document === 'undefined' ? SIGNED_OUT : initialState(),
  );
  // Until the prerendered page is taken over, the session it was rendered for: what the
  // browser knows (the cookie, the cached picture) follows in the render right after.
  const hydrated = useHydrated();
  const presented = hydrated ? state : { ...SIGNED_OUT, signedIn: shell.signedIn };
  const inFlight = useRef<Promise<void> | null>(null);
  // Bumped whenever what the server told us goes stale, so a late answer is dropped.
  const generation = useRef(0);

  const signOut = useCallback(() => {
    generation.current += 1;
    clearAllCaches();
    forgetSignIn();
    setState(SIGNED_OUT);
  }, []);

  const loadUser = useCallback(
    ({ refresh = false }: { refresh?: boolean } = {}): Promise<void> => {
      if (!isSignedIn()) {
        signOut();
        return Promise.resolve();
      }
      const cached = refresh ? null : readCachedUserPage();
      if (cached) {
        // The pages loaded after the first stay while the first is the same one.
        setState((current) =>
          current.user && current.more.length > 0
            ? { ...current, status: 'ready', error: null }
            : ready(cached.user, cached.nextCursor, cached.total),
        );
        return Promise.resolve();
      }
      if (inFlight.current) return inFlight.current;

      const asked = generation.current;
      setState((current) => ({ ...current, signedIn: true, status: 'loading', error: null }));
      const request = getUser({ first: !refresh })
        .then((result) => {
          if (asked !== generation.current) return;
          if (result.ok) {
            const nextCursor = result.headers.get(NEXT_CURSOR_HEADER) || null;
            const total = countOf(result.headers.get(TOTAL_COUNT_HEADER));
            writeCachedUser(result.data, nextCursor, total);
            // The user's list (or a page of it) to draw: in slices, so the page keeps
            // answering meanwhile.
            startTransition(() => setState(ready(result.data, nextCursor, total)));
          } else if (result.signedOut) {
            signOut();
          } else {
            setState((current) => ({ ...current, status: 'error', error: result.message }));
          }
        })
        .finally(() => {
          if (inFlight.current === request) inFlight.current = null;
        });
      inFlight.current = request;
      return request;
    },
    [signOut],
  );

  const forgetUser = useCallback(() => {
    generation.current += 1;
    inFlight.current = null;
    clearCachedUser();
    setState((current) => ({
      ...current,
      user: null,
      more: [],
      nextCursor: null,
      total: null,
      status: 'idle',
      error: null,
    }));
  }, []);

  const removeLink = useCallback((urlID: string) => {
    // A refresh asked before the delete may answer with the link still in it: drop it, and
    // let the next load ask the server again.
    generation.current += 1;
    inFlight.current = null;
    clearCachedVisitors(urlID);
    removeLinkFromCachedUser(urlID);
    setState((current) => {
      if (!current.user) return current;
      const urls = current.user.urls.filter((link) => link.urlID !== urlID);
      const more = current.more.filter((link) => link.urlID !== urlID);
      const gone = urls.length + more.length < current.user.urls.length + current.more.length;
      return {
        ...current,
        user: { ...current.user, urls },
        more,
        total: current.total !== null && gone ? current.total - 1 : current.total,
      };
    });
  }, []);

  const putLink = useCallback((link: ShortLink) => {
    // A refresh asked before the change may answer with the link as it was: drop it.
    generation.current += 1;
    inFlight.current = null;
    setState((current) => {
      if (!current.user) return current;
      // A link of a page after the first (kept in memory only) is changed where it is.
      if (current.more.some((known) => known.urlID === link.urlID)) {
        return {
          ...current,
          more: current.more.map((known) => (known.urlID === link.urlID ? link : known)),
        };
      }
      // A link back from a delete counts again; an edited one was counted already.
      const back = !current.user.urls.some((known) => known.urlID === link.urlID);
      return {
        ...current,
        user: { ...current.user, urls: withLink(current.user.urls, link) },
        total: current.total !== null && back ? current.total + 1 : current.total,
      };
    });
    putLinkInCachedUser(link);
  }, []);

  const appendLinks = useCallback(
    (after: string, links: ShortLink[], nextCursor: string | null) => {
      setState((current) => {
        if (!current.user || current.nextCursor !== after) return current;
        const shown = new Set([...current.user.urls, ...current.more].map((link) => link.urlID));
        return {
          ...current,
          more: [...current.more, ...links.filter((link) => !shown.has(link.urlID))],
          nextCursor,
        };
      });
    },
    [],
  );

  useEffect(() => {
    // Once per page load: a signed-out browser keeps nothing of an earlier session, and a
    // signed-in one without cached userData fetches it (the top bar shows its picture).
    if (!isSignedIn()) clearAllCaches();
    else if (!readCachedUser()) void loadUser();
  }, [loadUser]);

  const session = useMemo<Session>(
    () => ({ ...presented, loadUser, forgetUser, removeLink, putLink, signOut, appendLinks }),
    [presented, loadUser, forgetUser, removeLink, putLink, signOut, appendLinks],
  );
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession must be used inside <SessionProvider>.');
  return session;
}

/** The session for pages that show the user's links: loads userData when it is not there. */
export function useUser(): Session {
  const session = useSession();
  const { signedIn, status, loadUser } = session;
  useEffect(() => {
    if (signedIn && status === 'idle') void loadUser();
  }, [signedIn, status, loadUser]);
  return session;
}
