/**
 * The breakdown dimensions, as the breakdown tables name them: ingest writes them (a breakdown
 * row of rollupsOf names its dimension by its index here), the stats read them back.
 */
export const DIMENSIONS = [
  'browser',
  'os',
  'device',
  'referrer',
  'country',
  'utm_source',
  'utm_medium',
  'utm_campaign',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What the rollups need of a visit really inserted. */
export interface RolledVisit {
  urlId: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  bot: boolean;
  platform: string;
  browser: string;
  device: string;
  country: string;
  referrerHost: string;
  visitor: Buffer;
  /** The campaign its request named, if any: counted only when named. */
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
}

/**
 * What a set of visits adds to the rollups, summed in memory, as the columns of one
 * `unnest` each. Hours are counted from the epoch (UTC), days likewise. Rows come ordered by
 * link, then hour or day, dimension and value, so that two transactions raising the same rows
 * take their row locks in the same order.
 */
interface Rollups {
  /** visit_hours: per link and hour. */
  hours: {
    urlIds: string[];
    hours: number[];
    visits: number[];
    humans: number[];
    bots: number[];
  };
  /**
   * Per link, hour, dimension (an index into DIMENSIONS) and value: the hourly breakdowns as
   * they are, and summed per day the daily ones.
   */
  breakdowns: {
    urlIds: string[];
    hours: number[];
    dimensions: number[];
    values: string[];
    visits: number[];
  };
  /** visitor_days: per link, day and visitor, with the last visit of the day (milliseconds). */
  visitors: { urlIds: string[]; days: number[]; visitors: Buffer[]; lastSeen: number[] };
  /** link_stats: visits per link. */
  links: { urlIds: string[]; visits: number[] };
}

interface LinkHour {
  visits: number;
  bots: number;
  /** Visits per value, one map per dimension. */
  values: Record<Dimension, Map<string, number>>;
}

interface LastVisit {
  visitor: Buffer;
  timestamp: number;
}

interface Link {
  visits: number;
  hours: Map<number, LinkHour>;
  /** Per day, the visitors by their hash (as a latin1 string). */
  days: Map<number, Map<string, LastVisit>>;
}

const byNumber = (a: number, b: number) => a - b;
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function bump(counts: Map<string, number>, value: string): void {
  counts.set(value, (counts.get(value) ?? 0) + 1);
}

/** Sums the rollups of visits (each counted once: give only the rows really inserted). */
export function rollupsOf(rows: readonly RolledVisit[]): Rollups {
  const links = new Map<string, Link>();
  for (const row of rows) {
    let link = links.get(row.urlId);
    if (link === undefined) {
      link = { visits: 0, hours: new Map(), days: new Map() };
      links.set(row.urlId, link);
    }
    link.visits += 1;
    const hourNumber = Math.floor(row.timestamp / HOUR_MS);
    let hour = link.hours.get(hourNumber);
    if (hour === undefined) {
      hour = {
        visits: 0,
        bots: 0,
        values: {
          browser: new Map(),
          os: new Map(),
          device: new Map(),
          referrer: new Map(),
          country: new Map(),
          utm_source: new Map(),
          utm_medium: new Map(),
          utm_campaign: new Map(),
        },
      };
      link.hours.set(hourNumber, hour);
    }
    hour.visits += 1;
    if (row.bot) hour.bots += 1;
    bump(hour.values.browser, row.browser);
    bump(hour.values.os, row.platform);
    bump(hour.values.device, row.device);
    bump(hour.values.referrer, row.referrerHost);
    bump(hour.values.country, row.country);
    if (row.utmSource) bump(hour.values.utm_source, row.utmSource);
    if (row.utmMedium) bump(hour.values.utm_medium, row.utmMedium);
    if (row.utmCampaign) bump(hour.values.utm_campaign, row.utmCampaign);
    const dayNumber = Math.floor(row.timestamp / DAY_MS);
    let day = link.days.get(dayNumber);
    if (day === undefined) {
      day = new Map();
      link.days.set(dayNumber, day);
    }
    const key = row.visitor.toString('latin1');
    const last = day.get(key);
    if (last === undefined) {
      day.set(key, { visitor: row.visitor, timestamp: row.timestamp });
    } else if (row.timestamp > last.timestamp) {
      last.timestamp = row.timestamp;
    }
  }

  const rollups: Rollups = {
    hours: { urlIds: [], hours: [], visits: [], humans: [], bots: [] },
    breakdowns: { urlIds: [], hours: [], dimensions: [], values: [], visits: [] },
    visitors: { urlIds: [], days: [], visitors: [], lastSeen: [] },
    links: { urlIds: [], visits: [] },
  };
  const { hours, breakdowns, visitors } = rollups;
  for (const urlId of [...links.keys()].sort(byString)) {
    const link = links.get(urlId)!;
    rollups.links.urlIds.push(urlId);
    rollups.links.visits.push(link.visits);
    for (const hourNumber of [...link.hours.keys()].sort(byNumber)) {
      const hour = link.hours.get(hourNumber)!;
      hours.urlIds.push(urlId);
      hours.hours.push(hourNumber);
      hours.visits.push(hour.visits);
      hours.humans.push(hour.visits - hour.bots);
      hours.bots.push(hour.bots);
      for (const [dimension, name] of DIMENSIONS.entries()) {
        const counts = hour.values[name];
        for (const value of [...counts.keys()].sort(byString)) {
          breakdowns.urlIds.push(urlId);
          breakdowns.hours.push(hourNumber);
          breakdowns.dimensions.push(dimension);
          breakdowns.values.push(value);
          breakdowns.visits.push(counts.get(value)!);
        }
      }
    }
    for (const dayNumber of [...link.days.keys()].sort(byNumber)) {
      const day = link.days.get(dayNumber)!;
      for (const key of [...day.keys()].sort(byString)) {
        const last = day.get(key)!;
        visitors.urlIds.push(urlId);
        visitors.days.push(dayNumber);
        visitors.visitors.push(last.visitor);
        visitors.lastSeen.push(last.timestamp);
      }
    }
  }
  return rollups;
}
