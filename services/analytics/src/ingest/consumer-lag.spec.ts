import { partitionLags } from './consumer-lag';

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
      { partition: 0, lag: 20 },
      { partition: 1, lag: 0 },
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
      { partition: 0, lag: 20 },
      { partition: 1, lag: 7 },
    ]);
  });

  it('is never negative (a commit seen before the watermark moved)', () => {
    expect(
      partitionLags([{ partition: 0, high: '10', low: '0' }], [{ partition: 0, offset: '12' }]),
    ).toEqual([{ partition: 0, lag: 0 }]);
  });

  it('keeps offsets past 2^53 exact', () => {
    expect(
      partitionLags(
        [{ partition: 0, high: '9007199254740999', low: '0' }],
        [{ partition: 0, offset: '9007199254740993' }],
      ),
    ).toEqual([{ partition: 0, lag: 6 }]);
  });
});
