import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { screen } from '@testing-library/preact';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../test/render';

const rootPackage = JSON.parse(
  readFileSync(path.resolve(fileURLToPath(import.meta.url), '../../../../package.json'), 'utf8'),
) as { repository?: { url?: string } };

describe('the footer', () => {
  it("links to the source repository of the root package.json's `repository` field", () => {
    renderApp('/');
    const link = screen.getByRole('link', { name: /source code/i });
    expect(rootPackage.repository?.url).toMatch(/^https:\/\/[^/]+\/[^/]+\/[^/]+$/);
    expect(link.getAttribute('href')).toBe(rootPackage.repository?.url);
  });
});
