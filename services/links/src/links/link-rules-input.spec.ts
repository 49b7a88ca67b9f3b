import { BadRequestException } from '@nestjs/common';
import { LINK_RULES_MESSAGES, TARGET_URL_MESSAGES } from '@shortener/contracts';
import { verifyLinkPassword } from '@shortener/link-cache';
import { readRules } from './link-rules-input';

const OWN = ['sho.rt'];

async function refusal(body: Record<string, unknown>): Promise<string | undefined> {
  try {
    await readRules(body, OWN);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return (error as BadRequestException).message;
  }
}

describe('readRules', () => {
  it('leaves out what is not given, and clears what is given null', async () => {
    expect(await readRules({}, OWN)).toEqual({});
    expect(
      await readRules(
        { ios: null, android: null, geo: null, password: null, maxVisits: null },
        OWN,
      ),
    ).toEqual({
      ios_url: null,
      android_url: null,
      geo_urls: null,
      password_hash: null,
      max_visits: null,
    });
  });

  it('takes countries in any case, stored upper case; an empty map is none', async () => {
    expect(
      await readRules({ geo: { gb: 'https://example.co.uk', De: 'https://e.de/' } }, OWN),
    ).toEqual({
      geo_urls: { GB: 'https://example.co.uk', DE: 'https://e.de/' },
    });
    expect(await readRules({ geo: {} }, OWN)).toEqual({ geo_urls: null });
  });

  it('keeps the password only as a hash that verifies', async () => {
    const { password_hash: hash } = await readRules({ password: 'pässword' }, OWN);
    expect(hash).toMatch(/^scrypt\$/);
    expect(await verifyLinkPassword('pässword', hash!)).toBe(true);
  });

  it.each([
    [{ ios: 'javascript:alert(1)' }, LINK_RULES_MESSAGES.url('ios', TARGET_URL_MESSAGES.scheme)],
    [
      { android: 'https://sho.rt/r/abc' },
      LINK_RULES_MESSAGES.url('android', TARGET_URL_MESSAGES.ownLinks),
    ],
    [{ geo: { ZZ: 'https://example.com' } }, LINK_RULES_MESSAGES.country('ZZ')],
    [{ geo: { '1A': 'https://example.com' } }, LINK_RULES_MESSAGES.country('1A')],
    [{ geo: 'GB' }, LINK_RULES_MESSAGES.geo],
    [{ maxVisits: -1 }, LINK_RULES_MESSAGES.maxVisits],
    [{ maxVisits: 2 ** 31 }, LINK_RULES_MESSAGES.maxVisits],
    [{ password: 'x'.repeat(129) }, LINK_RULES_MESSAGES.password],
  ])('refuses %j naming the field', async (body, message) => {
    expect(await refusal(body)).toBe(message);
  });
});
