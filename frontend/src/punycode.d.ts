// The `punycode` package ships no types; the one function the web app uses.
declare module 'punycode/punycode.es6.js' {
  /** Throws RangeError on malformed input. */
  export function decode(input: string): string;
}
