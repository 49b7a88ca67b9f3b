import type { ServerResponse } from 'node:http';
import { HttpException } from '@nestjs/common';
import { createMetrics } from '@shortener/chassis';
import { LIVE_END_REASONS } from '@shortener/contracts';
import { FakeResponse, fakeFeed } from '@shortener/testkit';
import { LIVE_STREAM_MESSAGES, LiveStreams } from './live-streams';

function streams(perUser: number, perInstance: number) {
  const feed = fakeFeed();
  const metrics = createMetrics('gateway');
  const value = new LiveStreams({
    feed: feed.value,
    perUser,
    perInstance,
    heartbeatMs: 60_000,
    stopping: new AbortController().signal,
    metrics,
  });
  const open = (userId: string, urlID: string, allowed = () => Promise.resolve()) => {
    const res = new FakeResponse();
    const opened = value.open(res as unknown as ServerResponse, {
      userId,
      urlID,
      allowed,
      sessionAlive: () => Promise.resolve(true),
    });
    return { res, opened };
  };
  const count = async () =>
    (await metrics.registry.getSingleMetric('gateway_live_streams')!.get()).values[0]!.value;
  return { feed, value, open, count };
}

async function refusal(opened: Promise<void>): Promise<{ status: number; body: unknown }> {
  try {
    await opened;
  } catch (error) {
    if (error instanceof HttpException)
      return { status: error.getStatus(), body: error.getResponse() };
    throw error;
  }
  throw new Error('opened');
}

describe('the live streams of an instance', () => {
  it('has a series at 0 for each limit a stream is refused at and each outcome of a lag, before any', async () => {
    const metrics = createMetrics('gateway');
    new LiveStreams({
      feed: fakeFeed().value,
      perUser: 1,
      perInstance: 1,
      heartbeatMs: 60_000,
      stopping: new AbortController().signal,
      metrics,
    });
    const text = await metrics.registry.metrics();
    for (const limit of ['user', 'instance']) {
      expect(text).toContain(
        `gateway_live_streams_refused_total{limit="${limit}",service="gateway"} 0`,
      );
    }
    for (const outcome of ['refetch', 'cut']) {
      expect(text).toContain(
        `gateway_live_stream_lags_total{outcome="${outcome}",service="gateway"} 0`,
      );
    }
  });

  it('holds a place while the link is checked, so requests at once cannot pass a limit', async () => {
    const { open, count } = streams(1, 10);
    let allow!: () => void;
    const first = open('u1', 'AbC1234', () => new Promise<void>((resolve) => (allow = resolve)));
    expect(await refusal(open('u1', 'AbC1234').opened)).toEqual({
      status: 429,
      body: { message: LIVE_STREAM_MESSAGES.user },
    });
    allow();
    await first.opened;
    expect(first.res.status).toBe(200);
    expect(await count()).toBe(1);
  });

  it('gives the place back when the check refuses, and when the stream ends', async () => {
    const { open, count } = streams(1, 1);
    const notFound = new Error('Url not found');
    await expect(open('u1', 'AbC1234', () => Promise.reject(notFound)).opened).rejects.toBe(
      notFound,
    );
    const stream = open('u1', 'AbC1234');
    await stream.opened;
    expect(await refusal(open('u2', 'XyZ9876').opened)).toEqual({
      status: 429,
      body: { message: LIVE_STREAM_MESSAGES.instance },
    });
    stream.res.emit('close');
    expect(await count()).toBe(0);
    await open('u2', 'XyZ9876').opened;
  });

  it('ends the streams of a link removed anywhere or here, with the reason, and no other', async () => {
    const { feed, value, open, count } = streams(10, 10);
    const watched = [open('u1', 'AbC1234'), open('u2', 'AbC1234')];
    const other = open('u1', 'XyZ9876');
    await Promise.all([...watched, other].map((stream) => stream.opened));
    const ended = `event: end\ndata: ${JSON.stringify({ reason: LIVE_END_REASONS.linkDeleted })}\n\n`;

    feed.removed('AbC1234');
    for (const { res } of watched) {
      expect(res.written).toContain(ended);
      expect(res.ended).toBe(true);
    }
    expect(other.res.ended).toBe(false);
    expect(await count()).toBe(1);
    expect(feed.watching('AbC1234')).toBe(0);

    value.linkRemoved('XyZ9876');
    expect(other.res.written).toContain(ended);
    expect(await count()).toBe(0);
  });
});
