import { UTM_FIELDS, UTM_PARAMETERS, utmValue, type VisitUtm } from '@shortener/contracts';

/**
 * The campaign fields of a redirect request's target (`/r/abc?utm_source=x`), as its visit
 * keeps them (utmValue: no control characters, bounded); undefined when it names none. Cheap
 * on the hot path: no parse without a `?` and a `utm_` after it.
 */
export function visitUtmOf(target: string | undefined): VisitUtm | undefined {
  if (target === undefined) return undefined;
  const query = target.indexOf('?');
  if (query === -1 || target.indexOf('utm_', query) === -1) return undefined;
  const params = new URLSearchParams(target.slice(query + 1));
  let utm: VisitUtm | undefined;
  UTM_PARAMETERS.forEach((name, index) => {
    const value = utmValue(params.get(name));
    if (value !== undefined) (utm ??= {})[UTM_FIELDS[index]!] = value;
  });
  return utm;
}
