import { describe, expect, it } from 'vitest';
import {
  dayOf,
  periodFromDays,
  searchFromView,
  viewFromSearch,
  viewQuery,
  withFilter,
  withRange,
} from './analytics-view';

const view = (search: string) => viewFromSearch(new URLSearchParams(search));

describe('the analytics view in the URL', () => {
  it('reads the range and every filter under the API names', () => {
    expect(
      view(
        'range=30d&link=Ab3dE5g&domain=go.acme.example&country=GB&device=mobile&browser=Chrome&os=iOS' +
          '&referrer=(direct)&utm_source=news&utm_medium=email&utm_campaign=spring%20sale',
      ),
    ).toEqual({
      range: '30d',
      filters: {
        link: 'Ab3dE5g',
        domain: 'go.acme.example',
        country: 'GB',
        device: 'mobile',
        browser: 'Chrome',
        os: 'iOS',
        referrer: '(direct)',
        utm_source: 'news',
        utm_medium: 'email',
        utm_campaign: 'spring sale',
      },
    });
  });

  it('reads 7d without a range, or with one it does not know; leaves out empty and unknown names', () => {
    expect(view('')).toEqual({ range: '7d', filters: {} });
    expect(view('range=90d&country=&colour=red')).toEqual({ range: '7d', filters: {} });
  });

  it('keeps a filter as written, for the API to judge', () => {
    expect(view('country=gb').filters).toEqual({ country: 'gb' });
  });

  it('reads a period only with both ends', () => {
    expect(view('from=2026-11-01&to=2026-11-07T23:59:59Z')).toEqual({
      range: '7d',
      period: { from: '2026-11-01', to: '2026-11-07T23:59:59Z' },
      filters: {},
    });
    expect(view('from=2026-11-01').period).toBeUndefined();
  });

  it('writes the query in a fixed order: range, from, to, then the filters', () => {
    expect(searchFromView(view('country=GB&range=30d&browser=Chrome'))).toBe(
      'range=30d&country=GB&browser=Chrome',
    );
    expect(searchFromView(view('range=7d'))).toBe('');
    expect(searchFromView(view('range=all&to=2&from=1&utm_campaign=a%26b'))).toBe(
      'from=1&to=2&utm_campaign=a%26b',
    );
    expect(viewQuery(view('range=24h&device=bot'))).toEqual({ range: '24h', device: 'bot' });
  });

  it('comes back to the same view from what it writes', () => {
    for (const search of ['range=all&os=macOS', 'from=1&to=2&link=Ab3dE5g', 'referrer=a+b']) {
      const once = view(search);
      expect(view(searchFromView(once))).toEqual(once);
    }
  });

  it('sets, replaces and removes one filter; a preset range drops the period', () => {
    const start = view('from=1&to=2&country=GB');
    expect(withFilter(start, 'device', 'bot').filters).toEqual({ country: 'GB', device: 'bot' });
    expect(withFilter(start, 'country', 'FR').filters).toEqual({ country: 'FR' });
    expect(withFilter(start, 'country', undefined).filters).toEqual({});
    expect(withRange(start, '30d')).toEqual({ range: '30d', filters: { country: 'GB' } });
  });
});

describe('a custom period of whole days', () => {
  it('runs from the first day to the end of the last, in UTC', () => {
    expect(periodFromDays('2026-11-01', '2026-11-07')).toEqual({
      from: '2026-11-01',
      to: '2026-11-07T23:59:59Z',
    });
    expect(periodFromDays('2026-11-01', '2026-11-01')).toEqual({
      from: '2026-11-01',
      to: '2026-11-01T23:59:59Z',
    });
  });

  it('is refused backwards or unfinished', () => {
    expect(periodFromDays('2026-11-07', '2026-11-01')).toBeNull();
    expect(periodFromDays('', '2026-11-01')).toBeNull();
  });

  it("reads an API time back as its UTC day, for the form's inputs", () => {
    expect(dayOf('2026-11-07T23:59:59Z')).toBe('2026-11-07');
    expect(dayOf('2026-11-07')).toBe('2026-11-07');
    expect(dayOf(String(Date.UTC(2026, 10, 3, 12)))).toBe('2026-11-03');
    expect(dayOf('2026-11-07T10:00')).toBe('2026-11-07');
    expect(dayOf('soon')).toBe('');
  });
});
