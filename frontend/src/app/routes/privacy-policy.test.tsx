import { DELETE_UNDO_OFFER_MS, DELETED_CODE_KEPT_DAYS } from '@shortener/contracts';
import { screen } from '@testing-library/preact';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render';

/** The policy's text, one space between words. */
async function policy(): Promise<string> {
  renderApp('/privacy_policy');
  const article = (await screen.findByRole('heading', { level: 1, name: 'Privacy policy' }))
    .parentElement;
  return (article?.textContent ?? '').replace(/\s+/g, ' ');
}

describe('the privacy policy says what the app does (issue 37)', () => {
  it('says a deleted link can be undone for a few seconds, and its code is held from reuse', async () => {
    const text = await policy();
    expect(text).toContain(`offers Undo for ${String(DELETE_UNDO_OFFER_MS / 1000)} seconds`);
    expect(text).toContain(
      `is not given to another link for ${String(DELETED_CODE_KEPT_DAYS)} days`,
    );
  });

  it("says countries come from the visitor's IP address, and what the link's owner sees", async () => {
    const text = await policy();
    expect(text).toContain('country, looked up from the IP address');
    expect(text).toContain('the referring site');
  });

  it('says an API key is kept only as a hash, and how long a revoked one stays', async () => {
    const text = await policy();
    expect(text).toContain('only a hash of the key is stored');
    // services/auth's API_KEY_REVOKED_RETENTION_DAYS, whose default is 30.
    expect(text).toContain('a revoked key is deleted 30 days later by default');
  });
});
