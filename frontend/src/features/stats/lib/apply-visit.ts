import { OTHER_ENTRY, type LinkStats, type LiveVisit } from '@shortener/contracts/web-stats';

const BUCKET_MS = { hour: 60 * 60 * 1000, day: 24 * 60 * 60 * 1000 } as const;

/**
 * The stats with one live visit added: totals (not unique visitors, which only the server
 * can tell), the series bucket it falls in (a new one at the end when time moved past the
 * last), and the browser, OS, device and country lists. Referrers stay: a live visit does
 * not carry its referrer.
 */
export function applyVisit(stats: LinkStats, visit: LiveVisit): LinkStats {
  const time = Date.parse(visit.createdAt);
  if (Number.isNaN(time)) return stats;
  const size = BUCKET_MS[stats.interval];
  const bucket = Math.floor(time / size) * size;
  const human = visit.bot ? 0 : 1;
  const bot = visit.bot ? 1 : 0;

  let series = stats.series;
  const last = series.at(-1);
  if (!series.some((point) => point.t === bucket) && (!last || bucket > last.t)) {
    series = [...series, { t: bucket, visits: 0, humans: 0, bots: 0 }];
  }
  series = series.map((point) =>
    point.t === bucket
      ? {
          ...point,
          visits: point.visits + 1,
          humans: point.humans + human,
          bots: point.bots + bot,
        }
      : point,
  );

  return {
    ...stats,
    to: Math.max(stats.to, time),
    totals: {
      ...stats.totals,
      visits: stats.totals.visits + 1,
      humans: stats.totals.humans + human,
      bots: stats.totals.bots + bot,
    },
    series,
    browsers: countIn(stats.browsers, visit.userAgent.browser),
    os: countIn(stats.os, visit.userAgent.platform),
    devices: countIn(stats.devices, visit.device),
    countries: countIn(
      stats.countries.map(({ code, visits }) => ({ name: code, visits })),
      visit.country,
    ).map(({ name, visits }) => ({ code: name, visits })),
  };
}

/** One more visit for `name`: its entry, else 'Other' when the list is full, else a new entry. */
function countIn(
  list: readonly { name: string; visits: number }[],
  name: string,
  max = 10,
): { name: string; visits: number }[] {
  const key = list.some((entry) => entry.name === name)
    ? name
    : list.length >= max && list.some((entry) => entry.name === OTHER_ENTRY)
      ? OTHER_ENTRY
      : null;
  const counted =
    key === null
      ? [...list, { name, visits: 1 }]
      : list.map((entry) => (entry.name === key ? { ...entry, visits: entry.visits + 1 } : entry));
  // Most visits first, 'Other' last, as the server sorts them.
  return counted.sort(
    (a, b) =>
      Number(a.name === OTHER_ENTRY) - Number(b.name === OTHER_ENTRY) || b.visits - a.visits,
  );
}
