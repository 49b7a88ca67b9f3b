import type { UserData } from '@shortener/contracts/web';
import {
  createContext,
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
  forgetSignIn,
  isSignedIn,
  readCachedUser,
  removeLinkFromCachedUser,
  writeCachedUser,
} from '../../lib/storage';
import { getUser } from './api/get-user';

export type UserStatus = 'idle' | 'loading' | 'ready' | 'error';

interface SessionState {
  /** From the 'loggedIn' cookie, until the server says otherwise. */
  signedIn: boolean;
  user: UserData | null;
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
  /** After a delete: the link leaves the cached userData and the list shown. */
  removeLink: (urlID: string) => void;
  /** After a 401 or 'Unauthorized access': back to the sign-in prompt, caches cleared. */
  signOut: () => void;
}

const SessionContext = createContext<Session | null>(null);

const SIGNED_OUT: SessionState = {
  signedIn: false,
  user: null,
  status: 'idle',
  error: null,
  picture: null,
};

function ready(user: UserData): SessionState {
  return {
    signedIn: true,
    user,
    status: 'ready',
    error: null,
    picture: user.profilePicture || null,
  };
}

function initialState(): SessionState {
  if (!isSignedIn()) return SIGNED_OUT;
  const cached = readCachedUser();
  return cached ? ready(cached) : { ...SIGNED_OUT, signedIn: true };
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState(initialState);
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
      const cached = refresh ? null : readCachedUser();
      if (cached) {
        setState(ready(cached));
        return Promise.resolve();
      }
      if (inFlight.current) return inFlight.current;

      const asked = generation.current;
      setState((current) => ({ ...current, signedIn: true, status: 'loading', error: null }));
      const request = getUser()
        .then((result) => {
          if (asked !== generation.current) return;
          if (result.ok) {
            writeCachedUser(result.data);
            setState(ready(result.data));
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
    setState((current) => ({ ...current, user: null, status: 'idle', error: null }));
  }, []);

  const removeLink = useCallback((urlID: string) => {
    // A refresh asked before the delete may answer with the link still in it: drop it, and
    // let the next load ask the server again.
    generation.current += 1;
    inFlight.current = null;
    removeLinkFromCachedUser(urlID);
    setState((current) =>
      current.user
        ? {
            ...current,
            user: {
              ...current.user,
              urls: current.user.urls.filter((link) => link.urlID !== urlID),
            },
          }
        : current,
    );
  }, []);

  useEffect(() => {
    // Once per page load: a signed-out browser keeps nothing of an earlier session, and a
    // signed-in one without cached userData fetches it (the top bar shows its picture).
    if (!isSignedIn()) clearAllCaches();
    else if (!readCachedUser()) void loadUser();
  }, [loadUser]);

  const session = useMemo<Session>(
    () => ({ ...state, loadUser, forgetUser, removeLink, signOut }),
    [state, loadUser, forgetUser, removeLink, signOut],
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
