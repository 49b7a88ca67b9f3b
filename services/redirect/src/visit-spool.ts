import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writevSync,
} from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import {
  decodeVisits,
  encodedVisitEnd,
  visitRecordOf,
  type EncodedVisits,
} from '@shortener/contracts';

/**
 * The visits answered but not yet acknowledged by Kafka, written to numbered segment files
 * before their 302s leave, so the next process on the folder publishes what a killed one
 * left (docs/operations/visit-spool.md). A run of the queue belongs to one segment.
 */

const SEGMENT_BYTES = 4 * 1024 * 1024;
const SEGMENT = /^visits-(\d{12})\.spool$/;
const LOCK = 'owner.pid';

interface VisitSpoolOptions {
  maxBytes: number;
  /** Visits a recovered run holds at most (the queue's batch). */
  runMax: number;
  logger: Logger;
  /** Told of visits whose segment was deleted before Kafka had them all (the size limit). */
  onEvicted?: (visits: number) => void;
  onError?: () => void;
}

interface Segment {
  seq: number;
  file: string;
  bytes: number;
  /** Visits written, and acknowledged by Kafka. */
  written: number;
  acknowledged: number;
  closed: boolean;
}

/** A run of visits read back from a segment left by an earlier process. */
export interface RecoveredRun extends EncodedVisits {
  segment: number;
}

/** Splits a segment's bytes into runs of at most `runMax` whole, valid visits. */
export function readSegment(
  bytes: Buffer,
  runMax: number,
): { runs: EncodedVisits[]; problem?: string } {
  const runs: EncodedVisits[] = [];
  let start = 0;
  let at = 0;
  let count = 0;
  let problem: string | undefined;
  const close = (): boolean => {
    if (count === 0) return true;
    const run = { bytes: bytes.subarray(start, at), count };
    // Read as any consumer reads a record (events that fail the schema are the consumer's to
    // dead-letter): a run that is not a record is not published.
    const read = decodeVisits(visitRecordOf(run));
    if (!read.ok) {
      problem = `unreadable visits: ${read.reason}`;
      return false;
    }
    runs.push(run);
    start = at;
    count = 0;
    return true;
  };
  while (at < bytes.length) {
    const next = encodedVisitEnd(bytes, at, bytes.length);
    if (next === -1) {
      problem = `a torn visit at byte ${at} of ${bytes.length}`;
      break;
    }
    at = next;
    count++;
    if (count === runMax && !close()) return { runs, problem };
  }
  if (!close()) return { runs, problem };
  return problem === undefined ? { runs } : { runs, problem };
}

export class VisitSpool {
  private readonly segments = new Map<number, Segment>();
  private current: Segment;
  private fd: number;
  private total = 0;
  private failing = false;

  private constructor(
    private readonly dir: string,
    private readonly options: VisitSpoolOptions,
    nextSeq: number,
  ) {
    this.current = this.segmentAt(nextSeq);
    this.segments.set(nextSeq, this.current);
    this.fd = openSync(this.current.file, 'a');
  }

  /**
   * Opens the folder (made 0700 if missing), takes it for this process, and reads what an
   * earlier process left: those visits come back as runs to publish first, each tied to its
   * segment, which is deleted once they are acknowledged.
   */
  static open(
    dir: string,
    options: VisitSpoolOptions,
  ): { spool: VisitSpool; recovered: RecoveredRun[] } {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    takeFolder(dir);
    const found = readdirSync(dir)
      .map((name) => SEGMENT.exec(name))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => ({ seq: Number(match[1]), file: path.join(dir, match[0]) }))
      .sort((a, b) => a.seq - b.seq);
    const nextSeq = (found.at(-1)?.seq ?? 0) + 1;
    const spool = new VisitSpool(dir, options, nextSeq);
    const recovered: RecoveredRun[] = [];
    for (const { seq, file } of found) {
      const bytes = readFileSync(file);
      const { runs, problem } = readSegment(bytes, options.runMax);
      if (problem) options.logger.warn({ file, problem }, 'spooled visits partly unreadable');
      const count = runs.reduce((sum, run) => sum + run.count, 0);
      if (count === 0) {
        unlinkSync(file);
        continue;
      }
      spool.segments.set(seq, {
        seq,
        file,
        bytes: bytes.length,
        written: count,
        acknowledged: 0,
        closed: true,
      });
      spool.total += bytes.length;
      for (const run of runs) recovered.push({ ...run, segment: seq });
    }
    if (recovered.length > 0) {
      options.logger.warn(
        { visits: recovered.reduce((sum, run) => sum + run.count, 0), segments: found.length },
        'visits spooled by an earlier process: publishing them again',
      );
    }
    return { spool, recovered };
  }

  /** The segment visits written now go to. */
  get segment(): number {
    return this.current.seq;
  }

  /** Bytes held on disk. */
  get bytes(): number {
    return this.total;
  }

  /**
   * Writes runs of visit bytes to the current segment, all in one system call; `visits` is
   * how many whole visits they hold. A failing disk is logged and counted once, and the
   * visits go on through memory only (a redirect never fails for the spool).
   */
  write(parts: readonly Buffer[], visits: number): void {
    let length = 0;
    for (const part of parts) length += part.length;
    try {
      let done = writevSync(this.fd, parts);
      // A regular file takes the whole write unless the disk is full; finish it if not.
      while (done < length) {
        const rest = Buffer.concat(parts).subarray(done);
        done += writevSync(this.fd, [rest]);
      }
      this.failing = false;
    } catch (error) {
      this.failed(error, this.current.file);
      return;
    }
    this.current.bytes += length;
    this.current.written += visits;
    this.total += length;
    if (this.total > this.options.maxBytes) this.evictOldest();
  }

  /**
   * Called as the queue sets a run aside: past SEGMENT_BYTES the current segment is closed
   * and the next one begins, so a run is never split between two.
   */
  runSealed(): void {
    if (this.current.bytes < SEGMENT_BYTES) return;
    const next = this.segmentAt(this.current.seq + 1);
    let fd: number;
    try {
      fd = openSync(next.file, 'a');
    } catch (error) {
      // Writing on into the current segment is better than into none.
      this.failed(error, next.file);
      return;
    }
    closeSync(this.fd);
    const done = this.current;
    done.closed = true;
    this.segments.set(next.seq, next);
    this.current = next;
    this.fd = fd;
    this.deleteIfDone(done);
  }

  /** Kafka has acknowledged `visits` visits of `segment`. */
  acknowledge(segment: number, visits: number): void {
    const entry = this.segments.get(segment);
    if (!entry) return; // evicted meanwhile
    entry.acknowledged += visits;
    this.deleteIfDone(entry);
  }

  /** Stops writing; what is not acknowledged stays for the next process. */
  close(): void {
    closeSync(this.fd);
    this.current.closed = true;
    this.deleteIfDone(this.current);
    rmSync(path.join(this.dir, LOCK), { force: true });
  }

  private segmentAt(seq: number): Segment {
    return {
      seq,
      file: path.join(this.dir, `visits-${String(seq).padStart(12, '0')}.spool`),
      bytes: 0,
      written: 0,
      acknowledged: 0,
      closed: false,
    };
  }

  /** Logged once until a write succeeds again, counted every time. */
  private failed(error: unknown, file: string): void {
    if (!this.failing) {
      this.options.logger.error(
        { err: (error as Error).message, file },
        'visits not spooled: a crash now would lose them',
      );
    }
    this.failing = true;
    this.options.onError?.();
  }

  private deleteIfDone(segment: Segment): void {
    if (segment.closed && segment.acknowledged >= segment.written) this.delete(segment);
  }

  private delete(segment: Segment): void {
    this.segments.delete(segment.seq);
    this.total -= segment.bytes;
    try {
      unlinkSync(segment.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.failed(error, segment.file);
    }
  }

  private evictOldest(): void {
    for (const segment of this.segments.values()) {
      if (this.total <= this.options.maxBytes) return;
      if (segment === this.current) continue;
      this.options.onEvicted?.(segment.written - segment.acknowledged);
      this.options.logger.error(
        { file: segment.file, visits: segment.written - segment.acknowledged },
        'visit spool full: oldest segment deleted (its visits still wait in memory)',
      );
      this.delete(segment);
    }
  }
}

/**
 * One process per folder: the owner's pid is written in it. A pid that is no longer running,
 * or is this process's own (a container restarted in the same pod gets the same one), is
 * a crashed owner's, and the folder is taken over.
 */
function takeFolder(dir: string): void {
  const lock = path.join(dir, LOCK);
  let owner: number | undefined;
  try {
    owner = Number(readFileSync(lock, 'utf8').trim());
  } catch {
    owner = undefined;
  }
  if (owner && owner !== process.pid && isRunning(owner)) {
    throw new Error(
      `VISIT_SPOOL_DIR ${dir} belongs to a running process (pid ${owner}): give each redirect instance its own`,
    );
  }
  writeFileSync(lock, `${process.pid}\n`, { mode: 0o600 });
  // Not a symlink planted by someone else: the folder must be ours.
  if (!statSync(dir).isDirectory()) throw new Error(`VISIT_SPOOL_DIR ${dir} is not a folder`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
