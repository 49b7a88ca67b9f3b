import { scryptSync } from 'node:crypto';
import { hashLinkPassword, verifyLinkPassword } from './link-password';

describe('link passwords', () => {
  it('keeps a password as scrypt$16384$8$1$<16-byte salt>$<32-byte key>, salted afresh', async () => {
    const hash = await hashLinkPassword('open sesame');
    const [name, N, r, p, salt = '', key = ''] = hash.split('$');
    expect([name, N, r, p]).toEqual(['scrypt', '16384', '8', '1']);
    expect(Buffer.from(salt, 'base64url')).toHaveLength(16);
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    expect(hash).not.toContain('open sesame');
    expect(await hashLinkPassword('open sesame')).not.toBe(hash);
  });

  it('derives the key with node:crypto scrypt, so any reader of the format can check it', async () => {
    const hash = await hashLinkPassword('pässword');
    const [, , , , salt = '', key = ''] = hash.split('$');
    const derived = scryptSync('pässword'.normalize('NFC'), Buffer.from(salt, 'base64url'), 32, {
      N: 16384,
      r: 8,
      p: 1,
    });
    expect(derived.toString('base64url')).toBe(key);
  });

  it('accepts the right password and refuses any other', async () => {
    const hash = await hashLinkPassword('correct horse');
    expect(await verifyLinkPassword('correct horse', hash)).toBe(true);
    expect(await verifyLinkPassword('correct horse ', hash)).toBe(false);
    expect(await verifyLinkPassword('Correct horse', hash)).toBe(false);
    expect(await verifyLinkPassword('', hash)).toBe(false);
  });

  it('takes a password typed in another Unicode normal form as the same', async () => {
    const hash = await hashLinkPassword('caf\u00e9');
    expect(await verifyLinkPassword('cafe\u0301', hash)).toBe(true);
  });

  it('reads a hash of other scrypt parameters in the same form', async () => {
    const salt = Buffer.alloc(16, 7);
    const key = scryptSync('pw', salt, 32, { N: 1024, r: 8, p: 1 });
    const hash = `scrypt$1024$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    expect(await verifyLinkPassword('pw', hash)).toBe(true);
  });

  it('refuses, without work, a hash not in the form or asking for too much', async () => {
    const hash = await hashLinkPassword('pw');
    const salt = Buffer.alloc(16).toString('base64url');
    const key = Buffer.alloc(32).toString('base64url');
    for (const bad of [
      '',
      'pw',
      hash.replace('scrypt$', 'bcrypt$'),
      hash.replace('$16384$', '$16383$'),
      `scrypt$1048576$8$1$${salt}$${key}`,
      `scrypt$16384$0$1$${salt}$${key}`,
      `scrypt$16384$8$1$${salt}$`,
      `${hash}$extra`,
    ]) {
      expect(await verifyLinkPassword('pw', bad)).toBe(false);
    }
  });
});
