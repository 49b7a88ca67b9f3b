import { writeUuid } from '@shortener/contracts';

/**
 * Arrays in PostgreSQL's binary format (array_recv), sent as Buffer parameters so neither side
 * escapes and parses the text form; the element type must match the statement's cast.
 * Layout (big-endian): i32 dimensions, i32 has-NULLs, u32 element type; i32 length and lower
 * bound per dimension; each element as i32 byte length (-1: NULL) and its bytes.
 */
export const ELEMENT_TYPE = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int4: 23,
  text: 25,
  varchar: 1043,
  timestamptz: 1184,
  uuid: 2950,
} as const;
type ElementType = (typeof ELEMENT_TYPE)[keyof typeof ELEMENT_TYPE];

const HEADER_BYTES = 20;
/** PostgreSQL's timestamps count microseconds from 2000-01-01T00:00:00Z. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);
/** Below this many milliseconds from that epoch, the microseconds are exact in a double. */
const EXACT_MS = 2 ** 53 / 1000;
const TWO_32 = 2 ** 32;

/** A buffer that grows as elements are written into it. */
class ArrayWriter {
  private buffer: Buffer;
  private at: number;

  constructor(count: number, type: ElementType, hasNull: boolean, elementBytes: number) {
    this.buffer = Buffer.allocUnsafe(HEADER_BYTES + count * (4 + elementBytes));
    this.buffer.writeInt32BE(count === 0 ? 0 : 1, 0);
    this.buffer.writeInt32BE(hasNull ? 1 : 0, 4);
    this.buffer.writeUInt32BE(type, 8);
    if (count === 0) {
      this.at = 12;
      return;
    }
    this.buffer.writeInt32BE(count, 12);
    this.buffer.writeInt32BE(1, 16);
    this.at = HEADER_BYTES;
  }

  /** Room for `bytes` more, the buffer doubled (at least) when they do not fit. */
  private room(bytes: number): Buffer {
    if (this.at + bytes > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
      this.buffer.copy(grown, 0, 0, this.at);
      this.buffer = grown;
    }
    return this.buffer;
  }

  /** What is written so far, and the room made for the element in hand. */
  get bytes(): Buffer {
    return this.buffer;
  }

  /** An element's length, then room for its bytes; answers where they go. */
  element(length: number): number {
    const buffer = this.room(4 + length);
    buffer.writeInt32BE(length, this.at);
    const start = this.at + 4;
    this.at = start + length;
    return start;
  }

  null(): void {
    this.at = this.room(4).writeInt32BE(-1, this.at);
  }

  text(value: string): void {
    const buffer = this.room(4 + value.length * 3);
    const length = buffer.write(value, this.at + 4, 'utf8');
    buffer.writeInt32BE(length, this.at);
    this.at += 4 + length;
  }

  done(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}

/** Text elements (`text` or `varchar`), each as its UTF-8 bytes; null is NULL. */
export function textArray<T>(
  items: readonly T[],
  value: (item: T) => string | null,
  type: typeof ELEMENT_TYPE.text | typeof ELEMENT_TYPE.varchar = ELEMENT_TYPE.text,
): Buffer {
  let hasNull = false;
  for (const item of items) if (value(item) === null) hasNull = true;
  const writer = new ArrayWriter(items.length, type, hasNull, 16);
  for (const item of items) {
    const text = value(item);
    if (text === null) writer.null();
    else writer.text(text);
  }
  return writer.done();
}

/** UUIDs in any case, as their 16 bytes. */
export function uuidArray<T>(items: readonly T[], value: (item: T) => string): Buffer {
  const writer = new ArrayWriter(items.length, ELEMENT_TYPE.uuid, false, 16);
  for (const item of items) {
    const uuid = value(item);
    const at = writer.element(16);
    if (!writeUuid(writer.bytes, at, uuid)) throw new TypeError(`not a UUID: ${uuid}`);
  }
  return writer.done();
}

/** Instants given in milliseconds since the Unix epoch, as `timestamptz` (microseconds). */
export function timestamptzArray<T>(items: readonly T[], value: (item: T) => number): Buffer {
  const writer = new ArrayWriter(items.length, ELEMENT_TYPE.timestamptz, false, 8);
  for (const item of items) {
    const ms = value(item) - POSTGRES_EPOCH_MS;
    const at = writer.element(8);
    const buffer = writer.bytes;
    if (Math.abs(ms) < EXACT_MS) {
      const micros = ms * 1000;
      const high = Math.floor(micros / TWO_32);
      buffer.writeInt32BE(high, at);
      buffer.writeUInt32BE(micros - high * TWO_32, at + 4);
    } else {
      buffer.writeBigInt64BE(BigInt(ms) * 1000n, at);
    }
  }
  return writer.done();
}

/** Whole numbers as `int8`. */
export function int8Array<T>(items: readonly T[], value: (item: T) => number): Buffer {
  const writer = new ArrayWriter(items.length, ELEMENT_TYPE.int8, false, 8);
  for (const item of items) {
    const number = value(item);
    if (!Number.isSafeInteger(number)) throw new RangeError(`not a safe integer: ${number}`);
    const at = writer.element(8);
    const high = Math.floor(number / TWO_32);
    const buffer = writer.bytes;
    buffer.writeInt32BE(high, at);
    buffer.writeUInt32BE(number - high * TWO_32, at + 4);
  }
  return writer.done();
}

/** Whole numbers as `int4`. */
export function int4Array<T>(items: readonly T[], value: (item: T) => number): Buffer {
  const writer = new ArrayWriter(items.length, ELEMENT_TYPE.int4, false, 4);
  for (const item of items) {
    const at = writer.element(4);
    writer.bytes.writeInt32BE(value(item), at);
  }
  return writer.done();
}

export function boolArray<T>(items: readonly T[], value: (item: T) => boolean): Buffer {
  const writer = new ArrayWriter(items.length, ELEMENT_TYPE.bool, false, 1);
  for (const item of items) {
    const at = writer.element(1);
    writer.bytes[at] = value(item) ? 1 : 0;
  }
  return writer.done();
}

export function byteaArray<T>(items: readonly T[], value: (item: T) => Buffer): Buffer {
  const writer = new ArrayWriter(items.length, ELEMENT_TYPE.bytea, false, 16);
  for (const item of items) {
    const bytes = value(item);
    const at = writer.element(bytes.length);
    bytes.copy(writer.bytes, at);
  }
  return writer.done();
}
