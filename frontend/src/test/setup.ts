import { cleanup } from '@testing-library/react';
import { afterEach, beforeAll } from 'vitest';
import { preloadPages } from '../app/router';

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
