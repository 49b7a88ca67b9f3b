import { visitUtmOf } from './visit-utm';

describe('visitUtmOf: the campaign fields of a redirect request', () => {
  it('reads utm_source, utm_medium and utm_campaign from the query string', () => {
    expect(
      visitUtmOf('/r/abc?utm_source=news&utm_medium=e%2Dmail&utm_campaign=spring+sale&x=1'),
    ).toEqual({ utmSource: 'news', utmMedium: 'e-mail', utmCampaign: 'spring sale' });
    expect(visitUtmOf('/spring?utm_campaign=launch')).toEqual({ utmCampaign: 'launch' });
  });

  it('is undefined without a query, without a utm_ parameter, or with only empty ones', () => {
    expect(visitUtmOf('/r/abc')).toBeUndefined();
    expect(visitUtmOf(undefined)).toBeUndefined();
    expect(visitUtmOf('/r/abc?ref=utm')).toBeUndefined();
    expect(visitUtmOf('/r/utm_abc')).toBeUndefined();
    expect(visitUtmOf('/r/abc?utm_source=&utm_medium=%00%07&utm_term=x')).toBeUndefined();
  });

  it('keeps the first of a repeated parameter, bounded, without control characters', () => {
    const utm = visitUtmOf(
      `/r/abc?utm_source=a%0D%0Ab&utm_source=second&utm_campaign=${'x'.repeat(500)}`,
    );
    expect(utm).toEqual({ utmSource: 'ab', utmCampaign: 'x'.repeat(100) });
  });

  it('never throws on a malformed query', () => {
    expect(visitUtmOf('/r/abc?utm_source=%E0%A4%A&utm_medium=%')).toEqual({
      utmSource: '\ufffd%A',
      utmMedium: '%',
    });
  });
});
