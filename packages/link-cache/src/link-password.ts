import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost (N), block size (r) and parallelism (p) for new hashes: 16 MiB, ~50 ms. */
const COST = 16_384;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** The largest cost a stored hash may ask for, so a hash read back cannot demand a huge job. */
const MAX_COST = 1 << 17;

interface Params {
  N: number;
  r: number;
  p: number;
}

/** scrypt off the event loop; the password NFC-normalized so one typed text has one hash. */
function derive(password: string, salt: Buffer, length: number, { N, r, p }: Params) {
  // scrypt needs 128 * N * r bytes; node refuses past maxmem (32 MiB by default).
  const maxmem = 256 * N * r;
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, { N, r, p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * A link's password as it is kept (the only form ever stored):
 * `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>`, with a fresh 16-byte salt.
 */
export async function hashLinkPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const params = { N: COST, r: BLOCK_SIZE, p: PARALLELISM };
  const key = await derive(password, salt, KEY_BYTES, params);
  const parts = [COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64url')];
  return ['scrypt', ...parts, key.toString('base64url')].join('$');
}

/** The parameters, salt and key of a hash in hashLinkPassword's form; null for anything else. */
function readHash(hash: string): (Params & { salt: Buffer; key: Buffer }) | null {
  const match = /^scrypt\$(\d{1,7})\$(\d{1,2})\$(\d{1,2})\$([\w-]{11,})\$([\w-]{22,86})$/.exec(
    hash,
  );
  if (!match) return null;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const powerOfTwo = N > 1 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > MAX_COST || r < 1 || r > 32 || p < 1 || p > 16) return null;
  const salt = Buffer.from(match[4] ?? '', 'base64url');
  const key = Buffer.from(match[5] ?? '', 'base64url');
  return { N, r, p, salt, key };
}

/**
 * Whether `password` is the one `hash` was made from (compared in constant time); false for a
 * hash that is not in hashLinkPassword's form.
 */
export async function verifyLinkPassword(password: string, hash: string): Promise<boolean> {
  const stored = readHash(hash);
  if (!stored) return false;
  const key = await derive(password, stored.salt, stored.key.length, stored);
  return timingSafeEqual(key, stored.key);
}
