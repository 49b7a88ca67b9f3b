import { useEffect } from 'react';
import { UNREACHABLE } from '../lib/api';
import { ErrorMessage } from './feedback';

/** How often a page that could not reach the server asks again by itself. */
const RETRY_EVERY_MS = 5_000;

/**
 * No answer came from the server: says so, with a Retry button. Unless `auto` is off (a
 * request that changes something, which the user should choose to send again), it also asks
 * again by itself every few seconds and when the browser says it is back online, so the page
 * recovers without the user.
 */
export function Unreachable({ onRetry, auto = true }: { onRetry: () => void; auto?: boolean }) {
  useRetryWhileUnreachable(auto, onRetry);
  return (
    <ErrorMessage
      action={
        <button type="button" className="button button--secondary" onClick={onRetry}>
          Retry
        </button>
      }
    >
      {UNREACHABLE}
      {auto ? '. This page tries again by itself.' : '. Check your connection and retry.'}
    </ErrorMessage>
  );
}

/** While `active`, calls `retry` every few seconds and when the browser says it is back online. */
export function useRetryWhileUnreachable(active: boolean, retry: () => void): void {
  useEffect(() => {
    if (!active) return;
    const timer = window.setInterval(retry, RETRY_EVERY_MS);
    window.addEventListener('online', retry);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('online', retry);
    };
  }, [active, retry]);
}
