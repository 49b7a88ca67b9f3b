import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Link,
  type SpanContext,
} from '@opentelemetry/api';
import { OPS_PATHS } from '@shortener/contracts';
// Types only (erased): the modules themselves are required by startTracing, when tracing is on.
import type * as TraceSdk from '@opentelemetry/sdk-trace-node';
import type * as Resources from '@opentelemetry/resources';
import type * as Instrumentation from '@opentelemetry/instrumentation';
import type * as OtlpProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as OtlpJson from '@opentelemetry/exporter-trace-otlp-http';
import type * as HttpTracing from '@opentelemetry/instrumentation-http';
import type * as FetchTracing from '@opentelemetry/instrumentation-undici';
import type * as NestTracing from '@opentelemetry/instrumentation-nestjs-core';
import type * as PgTracing from '@opentelemetry/instrumentation-pg';
import type * as IORedisTracing from '@opentelemetry/instrumentation-ioredis';
import type * as KafkaTracing from '@opentelemetry/instrumentation-kafkajs';
import type * as PinoTracing from '@opentelemetry/instrumentation-pino';

type SpanExporter = TraceSdk.SpanExporter;

/**
 * OpenTelemetry traces from the OTEL_* variables, off (nothing loaded, a boolean's check)
 * unless an exporter is set; main.ts imports tracing.ts first so instrumentations can patch.
 */

/** The library name spans made by this code carry (instrumentations name their own). */
const TRACER_NAME = '@shortener/telemetry';

let sdk: { shutdown(): Promise<void> } | undefined;

function variable(env: NodeJS.ProcessEnv, name: string): string {
  return (env[name] ?? '').trim();
}

/**
 * Whether the environment configures a trace exporter: OTEL_TRACES_EXPORTER (other than
 * `none`) or an OTLP endpoint, and OTEL_SDK_DISABLED is not true. The SDK's own default is an
 * OTLP exporter to localhost; here nothing is sent, or loaded, until an operator asks.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (variable(env, 'OTEL_SDK_DISABLED').toLowerCase() === 'true') return false;
  const exporters = variable(env, 'OTEL_TRACES_EXPORTER')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters.includes('none')) return false;
  return (
    exporters.length > 0 ||
    variable(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== '' ||
    variable(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== ''
  );
}

/** Whether this process traces (startTracing found an exporter configured). */
export function tracingEnabled(): boolean {
  return sdk !== undefined;
}

/** Thrown at start-up for a tracing variable this build cannot honour (said in one line). */
export class TracingConfigError extends Error {}

/**
 * The span exporters OTEL_TRACES_EXPORTER names (OTLP unless it names others): OTLP over
 * HTTP, in protobuf (the standard's default) or JSON as OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL
 * says, or the console. Each exporter reads its own OTEL_EXPORTER_OTLP_* variables.
 */
function exportersFrom(env: NodeJS.ProcessEnv): SpanExporter[] {
  const names = variable(env, 'OTEL_TRACES_EXPORTER')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  return (names.length > 0 ? names : ['otlp']).map((name): SpanExporter => {
    // require, not import: only the exporter asked for is loaded, and synchronously, since
    // tracing starts before the service's own modules (an import() would let them load first).
    /* eslint-disable @typescript-eslint/no-require-imports */
    if (name === 'console') {
      const { ConsoleSpanExporter } = require('@opentelemetry/sdk-trace-node') as typeof TraceSdk;
      return new ConsoleSpanExporter();
    }
    if (name !== 'otlp') {
      throw new TracingConfigError(
        `OTEL_TRACES_EXPORTER=${name} is not supported: use otlp (or console, or none)`,
      );
    }
    const protocol =
      variable(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ||
      variable(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ||
      'http/protobuf';
    if (protocol === 'http/protobuf') {
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-proto') as typeof OtlpProto;
      return new OTLPTraceExporter();
    }
    if (protocol === 'http/json') {
      const { OTLPTraceExporter } =
        require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpJson;
      return new OTLPTraceExporter();
    }
    /* eslint-enable @typescript-eslint/no-require-imports */
    throw new TracingConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf or http/json ` +
        "(a collector's OTLP/HTTP port, 4318)",
    );
  });
}

/**
 * Starts tracing for `service` when an exporter is configured, else loads nothing. Traces
 * only (metrics stay Prometheus's); the SDK reads the other OTEL_* settings itself.
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk !== undefined) return true;
  if (!tracingConfigured(env)) return false;
  let exporters: SpanExporter[];
  try {
    exporters = exportersFrom(env);
  } catch (error) {
    if (!(error instanceof TracingConfigError)) throw error;
    // As a bad configuration stops every service: one line that says what to fix.
    process.stderr.write(`${service}: ${error.message}\n`);
    process.exit(1);
  }
  // Loaded here and only here: a process that does not trace never reads the SDK's code. The
  // trace SDK alone (not sdk-node, which loads every exporter of every signal, gRPC's too):
  // about half the modules, and so half the start-up it adds.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { NodeTracerProvider, BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-node') as typeof TraceSdk;
  const {
    defaultResource,
    detectResources,
    envDetector,
    hostDetector,
    processDetector,
    resourceFromAttributes,
  } = require('@opentelemetry/resources') as typeof Resources;
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof Instrumentation;
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof HttpTracing;
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof FetchTracing;
  const { NestInstrumentation } =
    require('@opentelemetry/instrumentation-nestjs-core') as typeof NestTracing;
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof PgTracing;
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof IORedisTracing;
  const { KafkaJsInstrumentation } =
    require('@opentelemetry/instrumentation-kafkajs') as typeof KafkaTracing;
  const { PinoInstrumentation } =
    require('@opentelemetry/instrumentation-pino') as typeof PinoTracing;
  /* eslint-enable @typescript-eslint/no-require-imports */
  // The service's name, then what the environment says (OTEL_SERVICE_NAME wins), then the process and host.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': service }))
    .merge(detectResources({ detectors: [envDetector, processDetector, hostDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: exporters.map((exporter) => new BatchSpanProcessor(exporter)),
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) =>
          // Probes and scrapes: many a minute, nothing to learn from a trace of each.
          OPS_PATHS.has((request.url ?? '/').split('?', 1)[0]!),
      }),
      new UndiciInstrumentation(),
      new NestInstrumentation(),
      // Queries outside a traced request or batch (timers, purges) would each be a trace.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new KafkaJsInstrumentation(),
      // Trace and span ids in every log line written inside a span; no OTLP log records.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk = provider;
  return true;
}

/** Exports the spans still buffered and stops tracing (at shutdown); nothing when off. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}

/** The active span's context when it is sampled (its trace is exported); else undefined. */
export function sampledSpan(): SpanContext | undefined {
  const span = trace.getSpan(context.active());
  if (span === undefined) return undefined;
  const spanContext = span.spanContext();
  return (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0 ? spanContext : undefined;
}

/** A span context as a link's target (a remote one: it came from another process). */
export type LinkTarget = Pick<SpanContext, 'traceId' | 'spanId' | 'traceFlags'>;

/**
 * Runs `work` in a span of its own (a child of the active span, if any) that links to
 * `links()`: the spans of the requests whose work it finishes, when there are many (a batch
 * of visits). Off, it only runs `work`, and `links` is never called. A failure is recorded
 * on the span and thrown on.
 */
export async function inLinkedSpan<T>(
  name: string,
  links: () => readonly LinkTarget[],
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (sdk === undefined) return work();
  const tracer = trace.getTracer(TRACER_NAME);
  const spanLinks: Link[] = links().map((target) => ({
    context: { ...target, isRemote: true },
  }));
  return tracer.startActiveSpan(
    name,
    { kind: SpanKind.INTERNAL, links: spanLinks, attributes },
    async (span) => {
      try {
        return await work();
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
