// Punycode (RFC 3492) decoding, for showing internationalised host names as their owners
// typed them: browsers turn Unicode hosts into punycode (URL.href) but offer nothing the
// other way. The userland `punycode` package (the one Node's deprecated module came from).
import { decode } from 'punycode/punycode.es6.js';

/** The Unicode text of a punycode string (a label without its `xn--`), or null if malformed. */
export function decodePunycode(input: string): string | null {
  try {
    return decode(input);
  } catch {
    return null;
  }
}
