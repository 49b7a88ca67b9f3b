import { useEffect, useState, type RefObject } from 'react';

/** The current time, refreshed every `intervalMs`: one timer drives a whole list of countdowns. */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => {
      setNow(Date.now());
    }, intervalMs);
    return () => {
      window.clearInterval(timer);
    };
  }, [intervalMs]);
  return now;
}

type Tick = (now: number) => void;

/** Whoever shows the time each second; one timer for them all, running only while any does. */
const ticking = new Set<Tick>();
let secondTimer: number | undefined;

function everySecond(tick: Tick): () => void {
  ticking.add(tick);
  secondTimer ??= window.setInterval(() => {
    const now = Date.now();
    for (const each of ticking) each(now);
  }, 1000);
  return () => {
    ticking.delete(tick);
    if (ticking.size === 0 && secondTimer !== undefined) {
      window.clearInterval(secondTimer);
      secondTimer = undefined;
    }
  };
}

/**
 * The current time, refreshed each second while `ref`'s element is on screen (or near it) and
 * not at all while it is off: a list of hundreds of countdowns redraws only the few in view.
 * Where IntersectionObserver is missing the element counts as on screen.
 */
export function useNowWhileVisible(ref: RefObject<Element | null>): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    if (typeof IntersectionObserver === 'undefined') return everySecond(setNow);
    // Going out of view stops the ticks without a render of its own.
    let stop: (() => void) | null = null;
    const observer = new IntersectionObserver(
      (entries) => {
        const entry = entries[entries.length - 1];
        if (entry?.isIntersecting && !stop) {
          // Current at once when it comes into view, then with the others each second.
          setNow(Date.now());
          stop = everySecond(setNow);
        } else if (entry && !entry.isIntersecting && stop) {
          stop();
          stop = null;
        }
      },
      { rootMargin: '200px 0px' },
    );
    observer.observe(element);
    return () => {
      observer.disconnect();
      stop?.();
    };
  }, [ref]);
  return now;
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_DELAY = 2 ** 31 - 1;

/**
 * The time, renewed only when one of `moments` passes: a list hides a link when it expires
 * without redrawing every second.
 */
export function useNowAtEach(moments: readonly number[]): number {
  const [now, setNow] = useState(() => Date.now());
  const next = moments.reduce(
    (soonest, moment) => (moment > now && moment < soonest ? moment : soonest),
    Infinity,
  );
  useEffect(() => {
    if (!Number.isFinite(next)) return;
    // Each renewal sets a new timer, so a moment further off than a timer reaches is waited
    // for in steps, and a timer that fires early is followed by another.
    const timer = window.setTimeout(
      () => setNow((before) => Math.max(Date.now(), before + 1)),
      Math.min(Math.max(0, next - Date.now()), MAX_DELAY),
    );
    return () => window.clearTimeout(timer);
  }, [next, now]);
  return now;
}
