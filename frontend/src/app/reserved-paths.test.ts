import { readdirSync } from 'node:fs';
import path from 'node:path';
import { PAGE_PATH_SEGMENTS, RESERVED_ALIASES, WEB_APP_PAGES } from '@shortener/contracts';
import type { RouteObject } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { routes } from './router';

/** The first segment of every route path, through the nested routes. */
function firstSegments(list: RouteObject[]): string[] {
  return list.flatMap((route) => [
    ...(route.path && route.path !== '*' ? [route.path.split('/')[0]!] : []),
    ...firstSegments(route.children ?? []),
  ]);
}

describe("the web app's own paths", () => {
  it('are each listed in PAGE_PATH_SEGMENTS, so no alias can take one', () => {
    const publicFiles = readdirSync(path.join(import.meta.dirname, '../../public'));
    // Vite writes the bundles under assets/, beside the pages (vite/prerender-home.ts).
    const served = [
      ...firstSegments(routes),
      ...publicFiles,
      'assets',
      ...Object.values(WEB_APP_PAGES),
    ];
    for (const segment of served) {
      expect(PAGE_PATH_SEGMENTS).toContain(segment);
      expect(RESERVED_ALIASES).toContain(segment);
    }
  });
});
