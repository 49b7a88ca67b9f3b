import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { InternalClient } from '@shortener/chassis';
import {
  encodeVisitRecord,
  encodeVisitTraces,
  internalApi,
  VISIT_EVENT_SCHEMA_VERSION,
  VISIT_TRACES_HEADER,
  VISITS_TOPIC,
  type VisitEvent,
} from '@shortener/contracts';
import { startStack, testServers, waitFor, type Stack } from '@shortener/testkit';

// Traces on the real servers: the services export to a local OTLP/HTTP receiver (JSON), and
// one redirect's trace reaches, through its visit's Kafka record, the analytics span that
// stored that visit (as a link: a store holds the visits of many requests). Log lines carry
// the trace id; a record without the trace header, or with a hostile one, is stored all the
// same. And off (no exporter configured), a service does not even load the SDK.

interface ReceivedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}

/** OTLP/HTTP with JSON bodies (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): ids in hex. */
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: {
      spans?: {
        name: string;
        kind: number;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        links?: { traceId: string; spanId: string }[];
        attributes?: { key: string; value: OtlpValue }[];
      }[];
    }[];
  }[];
}

const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? value.intValue ?? value.boolValue;

/** A collector's way in, as small as it gets: every span posted to /v1/traces, kept. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[] }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraces;
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = String(
          valueOf(
            resourceSpans.resource?.attributes?.find((entry) => entry.key === 'service.name')
              ?.value ?? {},
          ),
        );
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              name: span.name,
              kind: span.kind,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              links: span.links ?? [],
              attributes: Object.fromEntries(
                (span.attributes ?? []).map(({ key, value }) => [key, valueOf(value)]),
              ),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver not bound');
  return { server, url: `http://127.0.0.1:${address.port}`, spans };
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** OTLP's SPAN_KIND_SERVER. */
const SERVER = 2;

describe('traces', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stack: Stack;
  let links: InternalClient;
  let analytics: InternalClient;
  let producer: Producer;

  async function createLink(): Promise<string> {
    const response = await links.call(internalApi.createLink, {
      identity: { userId: 'traces-test' },
      body: { url: 'https://example.com/traced', days: 7 },
    });
    if (response.status !== 201) throw new Error(`not created: ${response.body.message}`);
    return response.body.urlID;
  }

  async function visitCount(code: string): Promise<number> {
    const response = await analytics.call(internalApi.visitCounts, { body: { codes: [code] } });
    return response.body.counts[code] ?? 0;
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startStack({
      services: ['analytics', 'links', 'redirect'],
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        // Spans leave within a fifth of a second, not the default five.
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      // Its request log lines, to look for trace ids in.
      serviceEnv: { links: { LOG_LEVEL: 'info' } },
      // The SDK and its instrumentations take seconds more to load on a busy machine.
      healthTimeoutMs: 60_000,
    });
    links = new InternalClient('links', stack.get('links').url, stack.secret);
    analytics = new InternalClient('analytics', stack.get('analytics').url, stack.secret);
    for (const service of [stack.get('redirect'), stack.get('analytics'), stack.get('links')]) {
      await waitFor(async () => (await fetch(`${service.url}/readyz`)).ok, {
        what: `${service.name} ready`,
        timeoutMs: 30_000,
      });
    }
    producer = new Kafka({
      clientId: 'traces-test',
      brokers: testServers.kafkaBrokers,
      logLevel: logLevel.NOTHING,
    }).producer();
    await producer.connect();
  }, 240_000);

  afterAll(async () => {
    await producer?.disconnect();
    await stack?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it("carries one redirect's trace through Kafka to the span that stored its visit", async () => {
    const code = await createLink();
    // The caller's trace (a browser's or an edge's), so the redirect's span joins a known trace.
    const traceId = hex(16);
    const response = await fetch(`${stack.get('redirect').url}/r/${code}`, {
      redirect: 'manual',
      headers: { traceparent: `00-${traceId}-${hex(8)}-01` },
    });
    expect(response.status).toBe(302);

    const redirectSpan = await waitFor(
      () =>
        receiver.spans.find(
          (span) => span.service === 'redirect' && span.traceId === traceId && span.kind === SERVER,
        ),
      { what: "the redirect's server span", timeoutMs: 20_000 },
    );
    const storeSpan = await waitFor(
      () =>
        receiver.spans.find(
          (span) =>
            span.service === 'analytics' &&
            span.name === 'visits store' &&
            span.links.some(
              (link) => link.traceId === traceId && link.spanId === redirectSpan.spanId,
            ),
        ),
      { what: 'the store span linked to the redirect', timeoutMs: 30_000 },
    );
    // The store is a trace of its own (a batch's), not a child of any one redirect.
    expect(storeSpan.traceId).not.toBe(traceId);
    expect(storeSpan.attributes['messaging.destination.name']).toBe(VISITS_TOPIC);
    expect(await visitCount(code)).toBe(1);
    // Its database work happens inside it: the INSERT is one of its children.
    await waitFor(
      () =>
        receiver.spans.find(
          (span) =>
            span.service === 'analytics' &&
            span.traceId === storeSpan.traceId &&
            span.parentSpanId === storeSpan.spanId &&
            String(span.attributes['db.system'] ?? span.attributes['db.system.name']) ===
              'postgresql',
        ),
      { what: "the store's PostgreSQL span", timeoutMs: 20_000 },
    );
  });

  it('writes the trace id in the log lines of a traced request', async () => {
    await createLink();
    const linksTraces = new Set(
      (
        await waitFor(
          () => {
            const found = receiver.spans.filter(
              (span) => span.service === 'links' && span.kind === SERVER,
            );
            return found.length > 0 ? found : undefined;
          },
          { what: "the links service's server spans", timeoutMs: 20_000 },
        )
      ).map((span) => span.traceId),
    );
    const requestLines = stack
      .get('links')
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('"request completed"'))
      .map((line) => JSON.parse(line) as { trace_id?: string; span_id?: string });
    expect(requestLines.length).toBeGreaterThan(0);
    for (const line of requestLines) {
      expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(requestLines.some((line) => linksTraces.has(line.trace_id!))).toBe(true);
  });

  it('stores the visits of records without a trace header, or with a hostile one', async () => {
    const code = await createLink();
    const visit = (): VisitEvent => ({
      schemaVersion: VISIT_EVENT_SCHEMA_VERSION,
      id: randomUUID(),
      urlID: code,
      timestamp: Date.now(),
      ip: '203.0.113.9',
      userAgent: 'Mozilla/5.0',
      referrer: null,
    });
    const valid = encodeVisitTraces([{ traceId: hex(16), spanId: hex(8), traceFlags: 1 }]);
    const headers: (Record<string, string | Buffer | (string | Buffer)[]> | undefined)[] = [
      undefined,
      { [VISIT_TRACES_HEADER]: 'not a traceparent' },
      { [VISIT_TRACES_HEADER]: Buffer.from([0xff, 0x00, 0xfe, 0x2c, 0x2c]) },
      { [VISIT_TRACES_HEADER]: `${'00-'.repeat(50_000)},${valid}` },
      { [VISIT_TRACES_HEADER]: [valid, 'ff-zz', valid] },
      { [VISIT_TRACES_HEADER]: `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01` },
    ];
    await producer.send({
      topic: VISITS_TOPIC,
      acks: -1,
      messages: headers.map((header) => ({
        key: code,
        value: encodeVisitRecord([visit()]),
        ...(header ? { headers: header } : {}),
      })),
    });
    await waitFor(async () => (await visitCount(code)) === headers.length, {
      what: `all ${headers.length} visits stored`,
      timeoutMs: 30_000,
    });
    expect((await fetch(`${stack.get('analytics').url}/readyz`)).status).toBe(200);
  });

  it('loads no SDK in a service when no exporter is configured, and loads it when one is', () => {
    const root = path.resolve(__dirname, '../..');
    // What the redirect's main.ts loads before it runs (its tracing, then the service).
    const loaded = (env: NodeJS.ProcessEnv): string[] =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            '-e',
            `require('./services/redirect/dist/tracing.js');
             require('./services/redirect/dist/service.js');
             process.stdout.write(JSON.stringify(Object.keys(require.cache)));
             process.exit(0);`,
          ],
          { cwd: root, env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8' },
        ),
      ) as string[];
    const sdkModules = (modules: string[]) =>
      modules.filter((file) => /@opentelemetry[\\/](sdk-|instrumentation|exporter-)/.test(file));
    expect(sdkModules(loaded({}))).toEqual([]);
    expect(sdkModules(loaded({ OTEL_TRACES_EXPORTER: 'none' }))).toEqual([]);
    expect(
      sdkModules(loaded({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })),
    ).toEqual([]);
    expect(sdkModules(loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }))).not.toEqual([]);
  });
});
