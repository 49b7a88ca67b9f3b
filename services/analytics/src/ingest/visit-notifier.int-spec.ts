import { randomBytes } from 'node:crypto';
import pino from 'pino';
import Redis from 'ioredis';
import { accountVisitsKey, storedVisitsChannel, type StoredVisits } from '@shortener/contracts';
import { testServers, waitFor } from '@shortener/testkit';
import type { VisitRow } from './ingest.repository';
import { InProcessLiveVisits, redisVisitNotifier } from './visit-notifier';

/** Links of one test: a prefix of their own, for the pattern that observes them. */
const links = () => {
  const prefix = `n${randomBytes(3).toString('hex')}`;
  return { prefix, watched: `${prefix}w`, unwatched: `${prefix}u` };
};
const at = Date.parse('2026-11-23T10:00:00.123Z');

function row(urlId: string, n: number): VisitRow {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    urlId,
    timestamp: at,
    ipAddress: '203.0.113.9',
    platform: 'Windows',
    browser: 'Chrome',
    referrer: null,
    bot: false,
    device: 'desktop',
    country: 'NL',
    referrerHost: '(direct)',
    visitor: Buffer.alloc(16),
  };
}

const ids = (notice: StoredVisits) => [notice.urlID, notice.visits.map((visit) => visit._id)];

describe('live visit notices', () => {
  describe('through Redis', () => {
    const notifier = redisVisitNotifier(testServers.redisUrl, pino({ level: 'silent' }));
    const subscriber = new Redis(testServers.redisUrl);
    // A pattern subscription sees every notice published, and is not counted by NUMSUB.
    const observer = new Redis(testServers.redisUrl);

    afterAll(async () => {
      await notifier.close?.();
      subscriber.disconnect();
      observer.disconnect();
    });

    it('are published for the links a stream subscribed to, and not for the others', async () => {
      const { prefix, watched, unwatched } = links();
      const probe = storedVisitsChannel(`${prefix}p`);
      const received: StoredVisits[] = [];
      const published: string[] = [];
      let probed = false;
      subscriber.on('message', (channel: string, message: string) => {
        if (channel === probe) probed = true;
        else received.push(JSON.parse(message) as StoredVisits);
      });
      observer.on('pmessage', (_pattern: string, channel: string) => {
        if (channel !== probe) published.push(channel);
      });
      await subscriber.subscribe(storedVisitsChannel(watched), probe);
      await observer.psubscribe(storedVisitsChannel(`${prefix}*`));
      // The notifier's client takes no command before it is connected (no offline queue): a
      // probe notice, sent until one arrives, says it is.
      await waitFor(
        () => {
          if (!probed) notifier.value.stored([row(`${prefix}p`, 0)]);
          return probed;
        },
        { timeoutMs: 15_000, what: 'the notifier connected' },
      );

      notifier.value.stored([row(watched, 1), row(unwatched, 2), row(watched, 3)]);
      notifier.value.stored([row(unwatched, 4)]);
      notifier.value.stored([row(watched, 5)]);
      // The observer is a connection of its own: its copies may come after the subscriber's.
      await waitFor(() => received.length === 2 && published.length >= 2, {
        timeoutMs: 5000,
        what: 'two notices, received and observed',
      });

      expect(received.map(ids)).toEqual([
        [watched, [row(watched, 1).id, row(watched, 3).id]],
        [watched, [row(watched, 5).id]],
      ]);
      expect(received[0]!.visits[0]).toEqual({
        _id: row(watched, 1).id,
        createdAt: '2026-11-23T10:00:00.123Z',
        userAgent: { platform: 'Windows', browser: 'Chrome' },
        ipAddress: '203.0.113.9',
        country: 'NL',
        device: 'desktop',
        bot: false,
        referrer: null,
        utmSource: null,
        utmMedium: null,
        utmCampaign: null,
      });
      // Notices go out in order, so the unwatched link's would have come before the last one.
      expect(published).toEqual([storedVisitsChannel(watched), storedVisitsChannel(watched)]);
    });

    it("are published under an owner's key for each of their links, when a stream listens there", async () => {
      const { prefix, watched, unwatched } = links();
      const owner = `owner-${prefix}`;
      const account = storedVisitsChannel(accountVisitsKey(owner));
      const listener = new Redis(testServers.redisUrl);
      const received: StoredVisits[] = [];
      listener.on('message', (channel: string, message: string) => {
        if (channel === account) received.push(JSON.parse(message) as StoredVisits);
      });
      await listener.subscribe(account);
      try {
        const owners = new Map([
          [watched, owner],
          [unwatched, owner],
          [`${prefix}x`, 'someone-else'],
        ]);
        // Until the notifier is connected (no offline queue), a batch may go unsent.
        await waitFor(
          () => {
            if (received.length === 0) {
              notifier.value.stored(
                [row(watched, 1), row(`${prefix}x`, 2), row(unwatched, 3)],
                owners,
              );
            }
            return received.length >= 2;
          },
          { timeoutMs: 15_000, what: "the owner's notices" },
        );
        expect(received.slice(0, 2).map(ids)).toEqual([
          [watched, [row(watched, 1).id]],
          [unwatched, [row(unwatched, 3).id]],
        ]);
      } finally {
        listener.disconnect();
      }
    });
  });

  describe('in one process', () => {
    it('are told to the listeners of each link, and to nobody once they stop listening', () => {
      const live = new InProcessLiveVisits();
      const { watched, unwatched } = links();
      const received: StoredVisits[] = [];
      const stop = live.subscribe(watched, (notice) => received.push(notice));
      live.stored([row(watched, 1), row(unwatched, 2), row(watched, 3)]);
      stop();
      live.stored([row(watched, 4)]);
      expect(received.map(ids)).toEqual([[watched, [row(watched, 1).id, row(watched, 3).id]]]);
    });

    it("are told to the listeners of an owner's key for each of their links", () => {
      const live = new InProcessLiveVisits();
      const { prefix, watched, unwatched } = links();
      const received: StoredVisits[] = [];
      const stop = live.subscribe(accountVisitsKey('owner-a'), (notice) => received.push(notice));
      const owners = new Map([
        [watched, 'owner-a'],
        [`${prefix}x`, 'owner-b'],
      ]);
      live.stored([row(watched, 1), row(`${prefix}x`, 2), row(unwatched, 3)], owners);
      stop();
      live.stored([row(watched, 4)], owners);
      expect(received.map(ids)).toEqual([[watched, [row(watched, 1).id]]]);
    });
  });
});
