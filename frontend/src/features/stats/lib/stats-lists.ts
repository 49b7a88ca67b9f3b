import { DIRECT_REFERRER, type LinkStats } from '@shortener/contracts/web-stats';
import { deviceName, systemName } from '../../../lib/system-name';
import { countryLabel } from './country-name';

/** One entry of a top list: the value as the API names it, as people read it, its visits. */
export interface TopEntry {
  key: string;
  label: string;
  visits: number;
}

/** A breakdown of the stats, under the name of the filter that keeps one of its entries. */
export interface StatsList {
  title: string;
  filter: 'browser' | 'os' | 'device' | 'referrer' | 'country';
  entries: TopEntry[];
}

/** Named counts as entries, each labelled by `name`. */
export function named(
  list: { name: string; visits: number }[],
  name = (key: string) => key,
): TopEntry[] {
  return list.map(({ name: key, visits }) => ({ key, label: name(key), visits }));
}

/** The breakdowns a link's stats and the account's analytics both show, in their order. */
export function statsLists(
  stats: Pick<LinkStats, 'browsers' | 'os' | 'devices' | 'referrers' | 'countries'>,
): StatsList[] {
  return [
    { title: 'Browsers', filter: 'browser', entries: named(stats.browsers) },
    { title: 'OS', filter: 'os', entries: named(stats.os, systemName) },
    { title: 'Devices', filter: 'device', entries: named(stats.devices, deviceName) },
    {
      title: 'Referrers',
      filter: 'referrer',
      entries: named(stats.referrers, (key) => (key === DIRECT_REFERRER ? 'Direct' : key)),
    },
    {
      title: 'Countries',
      filter: 'country',
      entries: stats.countries.map(({ code, visits }) => ({
        key: code,
        label: countryLabel(code),
        visits,
      })),
    },
  ];
}
