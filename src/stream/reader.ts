/**
 * The reader under the stream decoders: it takes byte chunks, reads
 * values (or length-prefixed frames, or an array header) out of a
 * {@link ByteQueue} as they complete, and reports exactly what a
 * whole-input decode of the same bytes would.
 *
 * The core decodes each value with a base offset (`Decoder#readAt`), so errors
 * carry stream offsets from the start.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { CoreDecoder } from "../decode/decoder.ts";
import type { RecordState } from "../decode/record-hook.ts";
import { badArgument, DecodeError, decodeError, extraBytes, overLimit, truncated, withCause, wrongInput } from "../common/errors.ts";
import { FIRST_BYTE, fixedSizeOf, WIRE_ARRAY, wireKindOf, lengthFieldOf, readLength } from "../format/forms.ts";
import { inputBytes } from "../common/input.ts";
import type { DecodeLimits } from "../common/limits.ts";
import { isStreamSettings, readStreamOptions, type StreamDecodeOptions, type StreamSettings } from "./options.ts";
import type { ByteChunk } from "./web.ts";
import { ByteQueue, createStreamStats, type StreamStats } from "./queue.ts";
import { BAD, INCOMPLETE, ValueScanner } from "./scanner.ts";

/**
 * Views a chunk as a plain `Uint8Array` (a Node `Buffer` too, so results
 * never hold `Buffer` views): views and buffers without a copy, arrays of
 * byte values by copying. `offset` is the chunk's stream offset, for errors.
 */
function chunkBytes(chunk: ByteChunk, offset: number): Uint8Array {
  if (chunk instanceof Uint8Array && chunk.constructor === Uint8Array && chunk.length !== 0) return chunk;
  return inputBytes(chunk, `the stream chunk at offset ${offset}`, offset) ?? arrayChunk(chunk, offset);
}

/**
 * The most bytes an array-like chunk is copied into before more of its
 * elements are checked: its copy grows in steps (doubling from this), so a
 * bad element, or a `length` no buffer can have, fails before the chunk's
 * whole declared length is allocated.
 */
const ARRAY_CHUNK_STEP = 65_536;

/** Copies an array-like chunk of byte values, checking each: an integer 0..255. */
function arrayChunk(chunk: unknown, offset: number): Uint8Array {
  const n = typeof chunk === "object" && chunk !== null ? (chunk as ArrayLike<unknown>).length : undefined;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw notBytes(offset, `${chunk === null ? "null" : typeof chunk} is not bytes (a Uint8Array, ArrayBuffer, view or array of byte values)`);
  }
  const a = chunk as ArrayLike<unknown>;
  let out: Uint8Array = new Uint8Array(Math.min(n, ARRAY_CHUNK_STEP));
  for (let i = 0; i < n; i++) {
    if (i === out.length) out = grown(out, Math.min(n, 2 * i), offset, n);
    const b = a[i];
    if (typeof b !== "number" || !(b >= 0 && b <= 255) || b % 1 !== 0) {
      const shown = typeof b === "string" ? JSON.stringify(b) : String(b);
      throw notBytes(offset, `element ${i} is ${shown}, not a byte value (an integer 0..255)`);
    }
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
type NeedMore = typeof NEED_MORE;

/**
 * Reads one item at `offset` of `bytes`, whose index 0 has the stream
 * offset `base`, and returns it with the offset after it ({@link Decoder.readAt},
 * {@link readArrayHeader}).
 */
type ReadAt = (bytes: Uint8Array, offset: number, base: number) => [unknown, number];

/** Where the reader is with the value at the read position. */
const FRESH = 0; // not tried yet
const SCANNING = 1; // tried once: the scanner says when it is complete
const CHECKING = 2; // the scanner stopped at a header the decoder refuses: decoded once the decoder can say so
const RETRYING = 3; // the decoder wants more than the scanner said: retried each time the bytes have doubled

/**
 * Reads items out of a {@link ByteQueue}: unframed values or
 * length-prefixed frames.
 *
 * A value is decoded with the bytes at hand; when they end inside it, the
 * {@link ValueScanner} finds where it ends as bytes arrive, and it is
 * decoded again once complete (or once the decoder can report a header it
 * refuses, before the rest arrives). The decoder has the last word, and a
 * decode with more bytes only ever gets further: so the reader reports
 * exactly what a whole-input decode of the same bytes would (the same
 * value, or the same error code and offset), whatever the chunking.
 *
 * The work is linear in the bytes: a value is decoded at most three times
 * (with the first bytes, at a refused header, when complete), and should
 * the decoder ever want more than the scanner said, it is retried only
 * each time the bytes at hand have doubled.
 */
export class StreamReader {
  readonly queue: ByteQueue;
  readonly decoder: CoreDecoder<unknown>;
  readonly limits: DecodeLimits;
  /** The nesting depth values are read at: 0, or 1 for the items of {@link decodeArrayStream}'s array. */
  private depth = 0;
  private readonly scanner: ValueScanner;
  private readonly readValue: ReadAt;
  private readonly readHeader: ReadAt;
  private readonly framed: boolean;
  private readonly maxValueBytes: number;
  /** Don't try again before this many bytes of the item are available. */
  private want = 1;
  private state = FRESH;
  /** Length of the frame whose prefix was read, or -1. */
  private frameLength = -1;
  /**
   * With `useRecords`, the record structures of this stream: those a value
   * declares stay declared for the next (msgpackr's `sequential`); else null.
   */
  private readonly records: RecordState | null;

  /**
   * @param options the stream decode options
   * @param framing whether the caller reads back-to-back values, where
   *   `lengthPrefixed` framing applies (else it is `INVALID_ARGUMENT`)
   * @param decoder the decoder to use, else one made from `options`
   */
  constructor(options: StreamDecodeOptions<unknown> | StreamSettings | undefined, framing: boolean, decoder?: CoreDecoder<unknown>) {
    // the stream options read once (a Decoder read them when it was made), the decode options by the decoder
    const settings = isStreamSettings(options) ? options : readStreamOptions(options);
    if (settings.lengthPrefixed && !framing) {
      throw badArgument("option lengthPrefixed", true, "false here: length-prefixed frames are read by decodeMultiStream, DecoderStream and Decoder#decodeStream");
    }
    const d = decoder ?? new CoreDecoder<unknown>(options as StreamDecodeOptions<unknown> | undefined);
    const resolved = d.options;
    this.queue = new ByteQueue(settings.stats ?? createStreamStats(), resolved.binaryAsView);
    this.decoder = d;
    this.limits = d.limits;
    const records = (this.records = d.newRecords());
    this.scanner = new ValueScanner(d.limits, resolved.rawStrings, records);
    // an array's items (decodeArrayStream) one level down, as decode() reads them
    this.readValue = (bytes, offset, base) => d.readAt(bytes, offset, base, this.depth, records);
    this.readHeader = readArrayHeader;
    this.framed = settings.lengthPrefixed;
    this.maxValueBytes = settings.maxValueBytes;
  }

  /** Checks a chunk and views it as bytes (see {@link chunkBytes}). */
  bytes(chunk: ByteChunk): Uint8Array {
    return chunkBytes(chunk, this.queue.offset + this.queue.available);
  }

  /** Adds a chunk. */
  push(chunk: Uint8Array): void {
    this.queue.push(chunk);
  }

  /**
   * The next value, or NEED_MORE. With `final` (the source has ended), an
   * incomplete value throws a `TRUNCATED` DecodeError instead.
   */
  next(final: boolean): unknown {
    return this.framed ? this.nextFrame(final) : this.read(this.readValue, final, "value", true);
  }

  /** The item count of an array header, or NEED_MORE. */
  arrayHeader(final: boolean): number | NeedMore {
    return this.read(this.readHeader, final, "array header", false) as number | NeedMore;
  }

  /** Reads the values that follow as the items of an array (one level deeper). */
  enterArray(): void {
    this.depth = 1;
  }

  private read(readAt: ReadAt, final: boolean, what: string, scan: boolean): unknown {
    const q = this.queue;
    const available = q.available;
    if (available === 0) {
      if (final) throw endedEmpty(q.offset, what);
      return this.needMore(available, what);
    }
    if (!final) {
      if (available < this.want) return this.needMore(available, what);
      if (this.state === SCANNING) {
        const r = this.scanner.scan(q.bytes, q.start, q.end, q.stats);
        if (r === INCOMPLETE) return this.needMore(available, what);
        if (r === BAD) {
          // the decoder reports it once the containers around it have the bytes they check for
          this.state = CHECKING;
          this.want = this.scanner.required();
          if (available < this.want) return this.needMore(available, what);
        } else if (r > this.maxValueBytes) {
          throw this.tooLarge(r, true, what);
        }
      }
    }
    const bytes = q.end === q.bytes.length ? q.bytes : q.bytes.subarray(0, q.end);
    const start = q.start;
    let item: unknown;
    let stop: number;
    try {
      [item, stop] = readAt(bytes, start, q.offset - start);
    } catch (e) {
      if (!(e instanceof DecodeError)) {
        this.reset();
        throw e;
      }
      q.stats.bytesDecoded += available;
      if (e.code !== "TRUNCATED" || final) {
        this.reset();
        throw e.code === "TRUNCATED" ? endedInside(e, q.offset + available) : e;
      }
      // the item runs past the bytes at hand: try again once the decoder has what it asked for
      this.want = available + e.needed;
      if (this.state === FRESH && scan) {
        this.state = SCANNING;
        this.scanner.begin(this.depth);
        return this.read(readAt, final, what, scan);
      }
      if (this.state === CHECKING) {
        // the decoder reads on past the header the scanner stopped at: frame the rest, decode when complete
        this.state = SCANNING;
        this.scanner.frameOnly();
      } else if (this.state !== FRESH) {
        // the scanner said complete and the decoder disagrees: never the case, but should it be, the
        // retries stay linear in the bytes
        this.state = RETRYING;
        this.want = Math.max(this.want, 2 * available);
      }
      return this.needMore(available, what);
    }
    const n = stop - start;
    this.reset();
    if (n > this.maxValueBytes) throw this.tooLarge(n, true, what);
    q.stats.bytesDecoded += n;
    q.consume(n);
    return item;
  }

  private reset(): void {
    this.state = FRESH;
    this.want = 1;
  }

  /** NEED_MORE, unless the incomplete value already has more than `maxValueBytes`; lets go of the source's chunk. */
  private needMore(available: number, what: string): NeedMore {
    if (available > this.maxValueBytes) throw this.tooLarge(available, false, what);
    this.queue.settle();
    return NEED_MORE;
  }

  /** A MAX_LENGTH error for a value of `n` bytes (`exact`) or of more than `n` bytes. */
  private tooLarge(n: number, exact: boolean, what: string): DecodeError {
    const at = this.queue.offset;
    this.reset();
    const size = exact ? `${n} bytes` : `more than ${n} bytes`;
    return decodeError(`Cannot decode ${what} at offset ${at}: max length exceeded, it takes ${size}, over maxValueBytes (${this.maxValueBytes})`, at, "MAX_LENGTH");
  }

  private nextFrame(final: boolean): unknown {
    const q = this.queue;
    const available = q.available;
    if (this.frameLength < 0) {
      if (available < 4) {
        if (!final) {
          q.settle();
          return NEED_MORE;
        }
        if (available === 0) throw endedEmpty(q.offset, "frame");
        throw streamTruncated(`Cannot decode frame at offset ${q.offset}: the stream ended inside its 4-byte length prefix (${4 - available} bytes missing)`, q.offset, 4 - available);
      }
      const b = q.bytes;
      const s = q.start;
      const length = ((b[s]! << 24) | (b[s + 1]! << 16) | (b[s + 2]! << 8) | b[s + 3]!) >>> 0;
      if (length > this.maxValueBytes) {
        throw overLimit("frame", q.offset, length, "maxValueBytes", this.maxValueBytes);
      }
      this.frameLength = length;
    }
    const total = 4 + this.frameLength;
    if (available < total) {
      if (!final) {
        q.settle();
        return NEED_MORE;
      }
      const missing = total - available;
      throw streamTruncated(
        `Cannot decode frame at offset ${q.offset}: the stream ended after ${available} of its ${total} bytes (${missing} missing)`,
        q.offset,
        missing,
      );
    }
    // the frame's value, as decode() reads it, with offsets from the start of the stream
    const frame = q.bytes.subarray(q.start + 4, q.start + total);
    const base = q.offset + 4;
    const [value, stop] = this.decoder.readAt(frame, 0, base, 0, this.records);
    if (stop !== frame.length) throw extraBytes(base + stop, frame.length - stop);
    q.stats.bytesDecoded += total;
    q.consume(total);
    this.frameLength = -1;
    return value;
  }
}

/** A TRUNCATED error at the end of a stream. */
function streamTruncated(message: string, offset: number, missing: number): DecodeError {
  return decodeError(message, offset, "TRUNCATED", missing);
}

function endedEmpty(offset: number, what: string): DecodeError {
  return streamTruncated(`Cannot decode ${what} at offset ${offset}: the stream ended before it began (at least 1 byte missing)`, offset, 1);
}

/** The decoder's TRUNCATED error for the whole stream (offsets already counted from its start), saying where the stream ended. */
function endedInside(e: DecodeError, end: number): DecodeError {
  return withCause(streamTruncated(`${e.message} (the stream ended at offset ${end})`, e.offset, e.needed), e);
}


/**
 * Bytes after the value (`what`: "value") or array that a stream holds one
 * of; `head`, the stream's first chunk, names a stream that is no
 * MessagePack at all (JSON text, an HTML page, gzip data: see `wrongInput`).
 */
export function extraAfter(offset: number, what: string, head?: Uint8Array | null): DecodeError {
  const looks = head == null ? null : wrongInput(head);
  const hint = looks === null ? "use decodeMultiStream for back-to-back values" : `the stream looks like ${looks}, not MessagePack`;
  return decodeError(
    `Cannot decode: extra bytes at offset ${offset} after the ${what}; ${hint}`,
    offset,
    "EXTRA_BYTES",
  );
}

/** decode()'s TRUNCATED error for an array of `count` items at `arrayAt` whose items need the stream to reach `itemsEnd`, where it ended at `end`. */
export function arrayTruncated(arrayAt: number, count: number, itemsEnd: number, end: number): DecodeError {
  return endedInside(truncated(arrayAt, itemsEnd - arrayAt, end, `array of ${count} items`), end);
}

/**
 * Reads an array header at `offset` of `bytes` (whose index 0 has the
 * stream offset `base`): the item count and the offset of the first item,
 * for {@link decodeArrayStream} to decode the items as they arrive.
 *
 * @throws {DecodeError} `INVALID_BYTE` when no array starts at `offset`,
 *   `TRUNCATED` when its header is cut short
 */
export function readArrayHeader(bytes: Uint8Array, offset: number, base: number): [number, number] {
  const t = bytes[offset];
  const end = bytes.length;
  if (t === undefined) throw truncated(base + offset, 1, base + end, "array header");
  const form = FIRST_BYTE[t]!;
  if (wireKindOf(form) !== WIRE_ARRAY) {
    throw decodeError(`Cannot decode array at offset ${base + offset}: Unrecognized array type byte: 0x${t.toString(16)} (the stream does not start with an array)`, base + offset, "INVALID_BYTE");
  }
  const field = lengthFieldOf(form);
  if (offset + 1 + field > end) throw truncated(base + offset, 1 + field, base + end, "array header");
  return [field === 0 ? fixedSizeOf(form) : readLength(bytes, offset + 1, field), offset + 1 + field];
}
