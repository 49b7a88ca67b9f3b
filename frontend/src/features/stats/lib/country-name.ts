import { UNKNOWN_COUNTRY } from '@shortener/contracts/web-stats';

let names: Intl.DisplayNames | null | undefined;

/**
 * A country's name in the reader's language from its ISO 3166-1 code, by the browser's own
 * Intl.DisplayNames (no data file shipped); 'Unknown' for ZZ, the code itself when the
 * browser cannot name it.
 */
export function countryName(code: string): string {
  if (code === UNKNOWN_COUNTRY) return 'Unknown';
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames(undefined, { type: 'region', fallback: 'none' });
    } catch {
      names = null;
    }
  }
  try {
    return names?.of(code) ?? code;
  } catch {
    return code;
  }
}

/** How a country reads in the stats: its name and code, or only 'Unknown' when none is known. */
export function countryLabel(code: string): string {
  return code === UNKNOWN_COUNTRY ? countryName(code) : `${countryName(code)} (${code})`;
}
