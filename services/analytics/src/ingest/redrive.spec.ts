import type { KafkaMessage } from 'kafkajs';
import { choose, redriven, REDRIVEN_FROM_HEADER } from './redrive';

const letter = (fields: Partial<KafkaMessage> = {}): KafkaMessage =>
  ({
    key: Buffer.from('abc1234'),
    value: Buffer.from('{"schemaVersion":1}'),
    timestamp: '1764150000000',
    attributes: 0,
    offset: '7',
    headers: {
      'dlq-reason': 'refused by the database: violates check constraint',
      'dlq-source': 'visits/2/1041',
      'dlq-part': '3/10',
      traceparent: '00-abc-def-01',
    },
    ...fields,
  }) as KafkaMessage;

describe('choose', () => {
  it('keeps every letter without a filter', () => {
    expect(choose(letter(), {})).toBe('redrive');
  });

  it('keeps a letter from `from`, and before `to`', () => {
    expect(choose(letter(), { from: 1764150000000, to: 1764150000001 })).toBe('redrive');
    expect(choose(letter(), { from: 1764150000001 })).toBe('filtered');
    expect(choose(letter(), { to: 1764150000000 })).toBe('filtered');
  });

  it('matches a part of the reason in any letter case', () => {
    expect(choose(letter(), { reason: 'CHECK CONSTRAINT' })).toBe('redrive');
    expect(choose(letter(), { reason: 'not JSON' })).toBe('filtered');
  });

  it('passes over a letter cut when it was dead-lettered, or one without a value', () => {
    const cut = letter({ headers: { ...letter().headers, 'dlq-truncated-from': '2000000' } });
    expect(choose(cut, {})).toBe('truncated');
    expect(choose(letter({ value: null }), {})).toBe('truncated');
  });
});

describe('redriven', () => {
  it('goes back with its key, value and own headers, naming the letter it came from', () => {
    const message = redriven(letter(), 'visits.dlq/0/7');
    expect(message.key).toEqual(Buffer.from('abc1234'));
    expect(message.value).toEqual(Buffer.from('{"schemaVersion":1}'));
    expect(message.headers).toEqual({
      traceparent: '00-abc-def-01',
      [REDRIVEN_FROM_HEADER]: 'visits.dlq/0/7',
    });
  });
});
