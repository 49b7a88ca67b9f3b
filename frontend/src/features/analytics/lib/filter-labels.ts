import { DIRECT_REFERRER } from '@shortener/contracts/web-stats';
import { deviceName, systemName } from '../../../lib/system-name';
import { countryLabel } from '../../stats/lib/country-name';
import type { AnalyticsFilter } from './analytics-view';

/** Each filter's name as its chip and list call it. */
export const FILTER_NAMES: Record<AnalyticsFilter, string> = {
  link: 'Link',
  domain: 'Domain',
  country: 'Country',
  device: 'Device',
  browser: 'Browser',
  os: 'OS',
  referrer: 'Referrer',
  utm_source: 'UTM source',
  utm_medium: 'UTM medium',
  utm_campaign: 'UTM campaign',
};

/** A filter's value as people read it: the same words as the list it was picked in. */
export function filterValueLabel(name: AnalyticsFilter, value: string): string {
  switch (name) {
    case 'country':
      return /^[A-Z]{2}$/.test(value) ? countryLabel(value) : value;
    case 'device':
      return deviceName(value);
    case 'os':
      return systemName(value);
    case 'referrer':
      return value === DIRECT_REFERRER ? 'Direct' : value;
    default:
      return value;
  }
}
