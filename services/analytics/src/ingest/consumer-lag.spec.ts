import { partitionLags, WatermarkHistory } from './consumer-lag';

describe('partitionLags', () => {
  it('is the high watermark less the next offset the group reads', () => {
    expect(
      partitionLags(
        [
          { partition: 0, high: '120', low: '0' },
          { partition: 1, high: '40', low: '10' },
        ],
        [
          { partition: 0, offset: '100' },
          { partition: 1, offset: '40' },
        ],
      ),
    ).toEqual([
      { partition: 0, lag: 20, next: 100n, high: 120n },
      { partition: 1, lag: 0, next: 40n, high: 40n },
    ]);
  });

  it('counts from the earliest offset kept where the group never committed', () => {
    expect(
      partitionLags(
        [
          { partition: 0, high: '50', low: '30' },
          { partition: 1, high: '7', low: '0' },
        ],
        [
          { partition: 0, offset: '-1' },
          // No entry at all for partition 1.
        ],
      ),
    ).toEqual([
      { partition: 0, lag: 20, next: 30n, high: 50n },
      { partition: 1, lag: 7, next: 0n, high: 7n },
    ]);
  });

  it('is never negative (a commit seen before the watermark moved)', () => {
    expect(
      partitionLags([{ partition: 0, high: '10', low: '0' }], [{ partition: 0, offset: '12' }]),
    ).toEqual([{ partition: 0, lag: 0, next: 12n, high: 10n }]);
  });

  it('keeps offsets past 2^53 exact', () => {
    expect(
      partitionLags(
        [{ partition: 0, high: '9007199254740999', low: '0' }],
        [{ partition: 0, offset: '9007199254740993' }],
      ),
    ).toEqual([{ partition: 0, lag: 6, next: 9007199254740993n, high: 9007199254740999n }]);
  });
});

describe('WatermarkHistory', () => {
  const at = (seconds: number) => 1_000_000 + seconds * 1000;

  it('is 0 while the group has read up to the watermark', () => {
    const history = new WatermarkHistory();
    expect(history.lagSeconds(0, 10n, 10n, at(0))).toBe(0);
    expect(history.lagSeconds(0, 25n, 25n, at(15))).toBe(0);
  });

  it('is the time since the round that first saw the next record to read', () => {
    const history = new WatermarkHistory();
    expect(history.lagSeconds(0, 10n, 10n, at(0))).toBe(0);
    // Records 10..19 appear; the group stays at 10.
    expect(history.lagSeconds(0, 10n, 20n, at(15))).toBe(0);
    expect(history.lagSeconds(0, 10n, 30n, at(30))).toBe(15);
    expect(history.lagSeconds(0, 10n, 30n, at(45))).toBe(30);
    // The group reads 10..19: its next record, 20, was first seen at 30 s.
    expect(history.lagSeconds(0, 20n, 30n, at(60))).toBe(30);
    expect(history.lagSeconds(0, 30n, 30n, at(75))).toBe(0);
  });

  it('counts a backlog older than its first round from that round (a lower bound)', () => {
    const history = new WatermarkHistory();
    expect(history.lagSeconds(1, 0n, 500n, at(0))).toBe(0);
    expect(history.lagSeconds(1, 0n, 500n, at(60))).toBe(60);
    expect(history.lagSeconds(1, 100n, 600n, at(120))).toBe(120);
  });

  it('keeps each partition apart', () => {
    const history = new WatermarkHistory();
    history.lagSeconds(0, 0n, 0n, at(0));
    history.lagSeconds(1, 0n, 0n, at(0));
    history.lagSeconds(0, 0n, 5n, at(10));
    expect(history.lagSeconds(0, 0n, 5n, at(20))).toBe(10);
    expect(history.lagSeconds(1, 0n, 0n, at(20))).toBe(0);
  });

  it('keeps at most its limit of watermarks, dropping the oldest (then a lower bound)', () => {
    const history = new WatermarkHistory(3);
    for (let round = 0; round <= 5; round += 1) {
      history.lagSeconds(0, 0n, BigInt(round + 1), at(round * 10));
    }
    // Marks at 30, 40 and 50 s are left: record 0, first seen at 0 s, counts from 30 s.
    expect(history.lagSeconds(0, 0n, 6n, at(60))).toBe(30);
  });
});
