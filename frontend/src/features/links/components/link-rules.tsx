import type { ShortLink } from '@shortener/contracts/web';
import './link-rules.css';

/** Country codes by their names in the reader's language, where the browser knows them. */
function countryName(code: string): string {
  try {
    return new Intl.DisplayNames(undefined, { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The link's domain and rules, on its page; nothing for a link without any. */
export function LinkRules({ link }: { link: ShortLink }) {
  const rows: { term: string; value: string }[] = [
    ...(link.domain === undefined ? [] : [{ term: 'Domain', value: link.domain }]),
    ...(link.ios === undefined ? [] : [{ term: 'iPhone and iPad visitors', value: link.ios }]),
    ...(link.android === undefined ? [] : [{ term: 'Android visitors', value: link.android }]),
    ...Object.entries(link.geo ?? {}).map(([code, url]) => ({
      term: `Visitors from ${countryName(code)} (${code})`,
      value: url,
    })),
    ...(link.hasPassword ? [{ term: 'Password', value: 'Asked before the visit' }] : []),
    ...(link.maxVisits === undefined
      ? []
      : [{ term: 'Visit cap', value: `${link.maxVisits} visits, then it stops` }]),
  ];
  if (rows.length === 0) return null;
  return (
    <section className="link-rules" aria-labelledby="link-rules-heading">
      <h2 id="link-rules-heading" className="link-rules__title">
        Domain and rules
      </h2>
      <dl className="link-rules__list">
        {rows.map(({ term, value }) => (
          <div key={term} className="link-rules__row">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
