// The trace header beside a packed record: the redirect requests' trace contexts.

/**
 * The trace context of the redirect request that made a visit (W3C Trace Context: ids in
 * lowercase hex, flags as a number): the same shape as OpenTelemetry's span context, without
 * depending on it.
 */
export interface VisitTrace {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/**
 * The Kafka header that carries the trace contexts of a record's visits: W3C `traceparent`
 * values, comma-separated, at most VISIT_TRACES_MAX of them (OpenTelemetry's default limit of
 * links per span; visits past it are stored as any other, untraced).
 */
export const VISIT_TRACES_HEADER = 'visit-traces';
export const VISIT_TRACES_MAX = 128;

/** The length of one traceparent: `00-` 32 hex `-` 16 hex `-` 2 hex. */
const TRACEPARENT_LENGTH = 55;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZEROS = /^0+$/;

/** The trace header's value for the traces of one record (the first VISIT_TRACES_MAX). */
export function encodeVisitTraces(traces: readonly VisitTrace[]): string {
  const parents: string[] = [];
  for (const { traceId, spanId, traceFlags } of traces) {
    if (parents.length === VISIT_TRACES_MAX) break;
    parents.push(`00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`);
  }
  return parents.join(',');
}

/**
 * The trace contexts a record's trace header holds. Whatever the header is (absent, repeated,
 * not text, too long, hostile), this never throws: entries that are not a version-00
 * traceparent with non-zero ids are skipped, and no more than VISIT_TRACES_MAX are read.
 */
export function readVisitTraces(header: unknown): VisitTrace[] {
  const values = Array.isArray(header) ? (header as unknown[]) : [header];
  const traces: VisitTrace[] = [];
  // Never more text than the most entries it may hold: a huge header costs no more to read.
  const most = VISIT_TRACES_MAX * (TRACEPARENT_LENGTH + 1);
  for (const value of values) {
    let text: string;
    if (typeof value === 'string') text = value.slice(0, most);
    else if (Buffer.isBuffer(value)) text = value.toString('latin1', 0, most);
    else continue;
    for (const entry of text.split(',', VISIT_TRACES_MAX)) {
      if (traces.length === VISIT_TRACES_MAX) return traces;
      const match = TRACEPARENT.exec(entry.trim());
      if (match === null || ZEROS.test(match[1]!) || ZEROS.test(match[2]!)) continue;
      traces.push({ traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16) });
    }
  }
  return traces;
}
