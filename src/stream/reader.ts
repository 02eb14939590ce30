/**
 * The reader under the stream decoders: it takes byte chunks and reads
 * values (or length-prefixed frames) out of a {@link ByteQueue} as they
 * complete, each decoded by the decoder itself with the stream offset of
 * the buffered bytes as its base, so it reports exactly what a
 * whole-input decode of the same bytes would, with stream offsets.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { CoreDecoder } from "../decode/decoder.ts";
import type { RecordState } from "../decode/record-hook.ts";
import { badArgument, DecodeError, decodeError, extraBytes, overLimit, truncated, withCause, wrongInput } from "../common/errors.ts";
import { FIRST_BYTE, fixedSizeOf, lengthFieldOf, readLength, WIRE_ARRAY, wireKindOf } from "../format/forms.ts";
import { inputBytes } from "../common/input.ts";
import { isStreamSettings, readStreamOptions, type StreamDecodeOptions, type StreamSettings } from "./options.ts";
import type { ByteChunk } from "./web.ts";
import { ByteQueue, createStreamStats } from "./queue.ts";
import { ItemCounter } from "./scanner.ts";

/**
 * Views a chunk as a plain `Uint8Array` (a Node `Buffer` too, so results
 * never hold `Buffer` views); an array of byte values is copied, each
 * checked (an integer 0..255). `offset` is the chunk's stream offset.
 */
function chunkBytes(chunk: ByteChunk, offset: number): Uint8Array {
  if (chunk instanceof Uint8Array && chunk.constructor === Uint8Array && chunk.length !== 0) return chunk;
  const bytes = inputBytes(chunk, `the stream chunk at offset ${offset}`, offset);
  if (bytes !== undefined) return bytes;
  const n = typeof chunk === "object" && chunk !== null ? (chunk as ArrayLike<unknown>).length : undefined;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw notBytes(offset, `${chunk === null ? "null" : typeof chunk} is not bytes (a Uint8Array, ArrayBuffer, view or array of byte values)`);
  }
  // copied in steps that double from 64 KiB: a bad element, or a length no buffer can have, fails before its whole length is allocated
  let out: Uint8Array = new Uint8Array(Math.min(n, 65_536));
  for (let i = 0; i < n; i++) {
    if (i === out.length) out = grown(out, Math.min(n, 2 * i), offset, n);
    const b = (chunk as ArrayLike<unknown>)[i];
    if (typeof b !== "number" || !(b >= 0 && b <= 255) || b % 1 !== 0) throw notBytes(offset, `element ${i} is ${typeof b === "string" ? JSON.stringify(b) : String(b)}, not a byte value (an integer 0..255)`);
    out[i] = b;
  }
  return out;
}

/** `bytes` copied into a buffer of `size` bytes: INVALID_ARGUMENT when no buffer can be that large (a chunk of `n` elements). */
function grown(bytes: Uint8Array, size: number, offset: number, n: number): Uint8Array {
  let next: Uint8Array;
  try {
    next = new Uint8Array(size);
  } catch {
    throw notBytes(offset, `an array of ${n} byte values is longer than a buffer can be`);
  }
  next.set(bytes);
  return next;
}

function notBytes(offset: number, why: string): DecodeError {
  return decodeError(`Cannot decode a stream chunk at offset ${offset}: ${why}`, offset, "INVALID_ARGUMENT");
}

/** Returned by the readers when they need more bytes. */
export const NEED_MORE: unique symbol = Symbol("need more bytes");

/**
 * Reads values out of a {@link ByteQueue}: unframed values, the items of
 * an array, or length-prefixed frames.
 *
 * A value is decoded with the bytes at hand; when they end inside it, an
 * {@link ItemCounter} finds where it ends as bytes arrive, and it is
 * decoded again once complete, or when the counter meets a header the
 * decoder may refuse before the rest arrives (a length past twice the
 * bytes at hand, deep nesting), at most each time the bytes have doubled.
 * The decoder has the last word, and a decode with more bytes only ever
 * gets further, so the work is linear in the bytes whatever the chunking.
 */
export class StreamReader {
  readonly queue: ByteQueue;
  readonly decoder: CoreDecoder<unknown>;
  /** The nesting depth values are read at: 0, or 1 for the items of an array (decodeArrayStream). */
  depth: number;
  private readonly counter: ItemCounter;
  /** With records, the structures of this stream: those a value declares stay declared for the next. */
  private readonly records: RecordState | null;
  private readonly framed: boolean;
  private readonly maxValueBytes: number;
  /** The bytes the value at hand was last tried with; 0: not tried yet. */
  private tried: number;
  /** Length of the frame whose prefix was read, or -1. */
  private frameLength: number;
  /** The stream offset of the value {@link next} returned last (after a frame's prefix). */
  at: number;

  /**
   * @param options the stream decode options
   * @param framing whether the caller reads back-to-back values, where `lengthPrefixed` applies (else it is `INVALID_ARGUMENT`)
   * @param decoder the decoder to use, else one made from `options`
   */
  constructor(options: StreamDecodeOptions<unknown> | StreamSettings | undefined, framing: boolean, decoder?: CoreDecoder<unknown>) {
    const settings = isStreamSettings(options) ? options : readStreamOptions(options);
    if (settings.lengthPrefixed && !framing) {
      throw badArgument("option lengthPrefixed", true, "false here: length-prefixed frames are read by decodeMultiStream, DecoderStream and Decoder#decodeStream");
    }
    const d = decoder ?? new CoreDecoder<unknown>(options as StreamDecodeOptions<unknown> | undefined);
    this.queue = new ByteQueue(settings.stats ?? createStreamStats(), d.options.binaryAsView);
    this.decoder = d;
    this.depth = 0;
    this.records = d.newRecords();
    this.counter = new ItemCounter(this.records);
    this.framed = settings.lengthPrefixed;
    this.maxValueBytes = settings.maxValueBytes;
    this.tried = 0;
    this.frameLength = -1;
    this.at = 0;
  }

  /** Checks a chunk and views it as bytes (see {@link chunkBytes}). */
  bytes(chunk: ByteChunk): Uint8Array {
    return chunkBytes(chunk, this.queue.offset + this.queue.available);
  }

  /** The next value, or NEED_MORE; with `final` (the source has ended), a value cut short is `TRUNCATED`. */
  next(final: boolean): unknown {
    return this.framed ? this.nextFrame(final) : this.read(final);
  }

  /**
   * `value`, the value {@link next} returned last, as the decoder's
   * `schema` gives it: the schema's output, or a Promise of it (an
   * asynchronous schema); `value` itself without a schema.
   *
   * @throws {DecodeError} `SCHEMA_MISMATCH` at the value's stream offset (or the Promise rejects with it)
   */
  checked(value: unknown): unknown {
    const check = this.decoder.check;
    return check === null ? value : check(value, this.at, true);
  }

  private read(final: boolean): unknown {
    const q = this.queue;
    const available = q.available;
    if (available === 0) {
      if (final) throw endedEmpty(q.offset, "value");
      return this.needMore(0);
    }
    if (!final && this.tried > 0) {
      const n = this.counter.scan(q.bytes, q.start, q.end, q.stats);
      if (n > this.maxValueBytes) throw this.tooLarge(`${n} bytes`);
      // decoded when complete (unless already tried with its bytes), or at an alarm once the bytes have doubled
      if (!(n >= 0 && n > this.tried) && !(this.counter.alarm && available >= 2 * this.tried)) return this.needMore(available);
    }
    const bytes = q.end === q.bytes.length ? q.bytes : q.bytes.subarray(0, q.end);
    let item: unknown;
    let stop: number;
    try {
      [item, stop] = this.decoder.readAt(bytes, q.start, q.offset - q.start, this.depth, this.records);
    } catch (e) {
      if (e instanceof DecodeError) q.stats.bytesDecoded += available;
      if (!(e instanceof DecodeError) || e.code !== "TRUNCATED" || final) {
        this.tried = 0;
        throw e instanceof DecodeError && e.code === "TRUNCATED" ? endedInside(e, q.offset + available) : e;
      }
      // the value runs past the bytes at hand: count its items as they arrive (the counter said complete and
      // the decoder disagrees: never the case, but should it be, it is tried again once the bytes have doubled)
      if (this.tried === 0) this.counter.begin();
      this.counter.mark((this.tried = available));
      if (this.counter.scan(q.bytes, q.start, q.end, q.stats) >= 0) this.counter.alarm = true;
      return this.needMore(available);
    }
    const n = stop - q.start;
    this.tried = 0;
    if (n > this.maxValueBytes) throw this.tooLarge(`${n} bytes`);
    q.stats.bytesDecoded += n;
    this.at = q.offset;
    q.consume(n);
    return item;
  }

  /** NEED_MORE, unless the incomplete value already has more than `maxValueBytes`; lets go of the source's chunk. */
  private needMore(available: number): typeof NEED_MORE {
    if (available > this.maxValueBytes) throw this.tooLarge(`more than ${available} bytes`);
    this.queue.settle();
    return NEED_MORE;
  }

  /** A MAX_LENGTH error for a value of `size`. */
  private tooLarge(size: string): DecodeError {
    const at = this.queue.offset;
    this.tried = 0;
    return decodeError(`Cannot decode value at offset ${at}: max length exceeded, it takes ${size}, over maxValueBytes (${this.maxValueBytes})`, at, "MAX_LENGTH");
  }

  private nextFrame(final: boolean): unknown {
    const q = this.queue;
    const available = q.available;
    if (this.frameLength < 0) {
      if (available < 4) {
        if (!final) return this.needMore(0);
        if (available === 0) throw endedEmpty(q.offset, "frame");
        throw decodeError(`Cannot decode frame at offset ${q.offset}: the stream ended inside its 4-byte length prefix (${4 - available} bytes missing)`, q.offset, "TRUNCATED", 4 - available);
      }
      const length = readLength(q.bytes, q.start, 4);
      if (length > this.maxValueBytes) throw overLimit("frame", q.offset, length, "maxValueBytes", this.maxValueBytes);
      this.frameLength = length;
    }
    const total = 4 + this.frameLength;
    if (available < total) {
      if (!final) return this.needMore(0);
      const missing = total - available;
      throw decodeError(`Cannot decode frame at offset ${q.offset}: the stream ended after ${available} of its ${total} bytes (${missing} missing)`, q.offset, "TRUNCATED", missing);
    }
    // the frame's value, as decode() reads it, with offsets from the start of the stream
    const frame = q.bytes.subarray(q.start + 4, q.start + total);
    const base = q.offset + 4;
    const [value, stop] = this.decoder.readAt(frame, 0, base, 0, this.records);
    if (stop !== frame.length) throw extraBytes(base + stop, frame.length - stop);
    q.stats.bytesDecoded += total;
    q.consume(total);
    this.frameLength = -1;
    this.at = base;
    return value;
  }
}

/**
 * The item count and header length of the array header at the start of
 * `bytes[start..end)` (stream offset `offset`); while it is cut short, -1
 * and the header length: what decodeArrayStream reads before its items.
 *
 * @throws {DecodeError} `INVALID_BYTE` when no array starts there
 */
export function arrayHeader(bytes: Uint8Array, start: number, end: number, offset: number): [number, number] {
  const t = bytes[start]!;
  const form = FIRST_BYTE[t]!;
  if (wireKindOf(form) !== WIRE_ARRAY) {
    throw decodeError(`Cannot decode array at offset ${offset}: Unrecognized array type byte: 0x${t.toString(16)} (the stream does not start with an array)`, offset, "INVALID_BYTE");
  }
  const field = lengthFieldOf(form);
  if (start + 1 + field > end) return [-1, 1 + field];
  return [field === 0 ? fixedSizeOf(form) : readLength(bytes, start + 1, field), 1 + field];
}

export function endedEmpty(offset: number, what: string): DecodeError {
  return decodeError(`Cannot decode ${what} at offset ${offset}: the stream ended before it began (at least 1 byte missing)`, offset, "TRUNCATED", 1);
}

/** The decoder's TRUNCATED error for the whole stream (offsets already counted from its start), saying where the stream ended. */
export function endedInside(e: DecodeError, end: number): DecodeError {
  return withCause(decodeError(`${e.message} (the stream ended at offset ${end})`, e.offset, "TRUNCATED", e.needed), e);
}

/**
 * Bytes after the value (`what`: "value") or array that a stream holds one
 * of; `head`, the stream's first chunk, names a stream that is no
 * MessagePack at all (JSON text, an HTML page, gzip data: see `wrongInput`).
 */
export function extraAfter(offset: number, what: string, head?: Uint8Array | null): DecodeError {
  const looks = head == null ? null : wrongInput(head);
  const hint = looks === null ? "use decodeMultiStream for back-to-back values" : `the stream looks like ${looks}, not MessagePack`;
  return decodeError(`Cannot decode: extra bytes at offset ${offset} after the ${what}; ${hint}`, offset, "EXTRA_BYTES");
}

/** decode()'s TRUNCATED error for an array of `count` items at `arrayAt` whose items need the stream to reach `itemsEnd`, where it ended at `end`. */
export function arrayTruncated(arrayAt: number, count: number, itemsEnd: number, end: number): DecodeError {
  return endedInside(truncated(arrayAt, itemsEnd - arrayAt, end, `array of ${count} items`), end);
}
