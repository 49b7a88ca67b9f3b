import {
  bySize,
  DLQ_MAX_VALUE_BYTES,
  DLQ_TRUNCATED_HEADER,
  letter,
  type RejectedMessage,
} from './dead-letter.producer';

const source = { topic: 'visits', partition: 2 };

function rejected(value: Buffer | null, offset = '7'): RejectedMessage {
  return { offset, key: Buffer.from('k'), value, headers: { origin: 'test' }, reason: 'why' };
}

describe('dead letters', () => {
  it('keep the message as it came, with why and where from', () => {
    const value = Buffer.from('{"x":1}');
    expect(letter(source, rejected(value))).toEqual({
      key: Buffer.from('k'),
      value,
      headers: { origin: 'test', 'dlq-reason': 'why', 'dlq-source': 'visits/2/7' },
    });
  });

  it('cut a value Kafka could refuse with our headers, saying how large it was', () => {
    const value = Buffer.alloc(DLQ_MAX_VALUE_BYTES + 5000, 1);
    const cut = letter(source, rejected(value));
    expect(cut.value).toHaveLength(DLQ_MAX_VALUE_BYTES);
    expect(cut.headers?.[DLQ_TRUNCATED_HEADER]).toBe(String(value.length));
  });

  it('go in sends of at most 512 KB of values, in order, a larger one alone', () => {
    const sizes = [100_000, 300_000, 200_000, 900_000, 10, null];
    const letters = sizes.map((size) => ({ value: size === null ? null : Buffer.alloc(size) }));
    const groups = bySize(letters).map((group) => group.map((item) => item.value?.length ?? null));
    expect(groups).toEqual([[100_000, 300_000], [200_000], [900_000], [10, null]]);
  });
});
