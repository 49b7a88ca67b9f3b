import { cleanup } from '@testing-library/preact';
import { afterEach, beforeAll } from 'vitest';
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

// jsdom has no layout: React Router's scroll restoration only needs the call to exist.
window.scrollTo = () => undefined;
