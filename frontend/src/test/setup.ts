import { cleanup } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { preloadPages } from '../app/router';

// Preact's act returns a promise even for a callback done when it returns, whose renders and
// effects it has flushed by then: the tests call those `void act(...)`.

// Pages are fetched when first shown (router.tsx); tests start with every one at hand.
beforeAll(preloadPages);

afterEach(() => {
  cleanup();
  localStorage.clear();
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; Max-Age=0; Path=/`;
  }
});

// Preact runs effects after the next frame, or after 35 ms when no frame comes
// (preact/hooks afterNextFrame), and then calls cancelAnimationFrame: a file whose last test
// ended inside those 35 ms had jsdom torn down first, and Vitest failed the run on the
// ReferenceError. Each file waits them out, on real timers, before its environment goes.
const PREACT_AFTER_PAINT_MS = 35;
afterAll(async () => {
  vi.useRealTimers();
  await new Promise((resolve) => setTimeout(resolve, PREACT_AFTER_PAINT_MS + 15));
});

// jsdom has no layout: React Router's scroll restoration only needs the call to exist.
window.scrollTo = () => undefined;
