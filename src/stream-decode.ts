/**
 * Stream decoding: values from a `ReadableStream` or any `AsyncIterable`
 * of byte chunks ({@link decodeAsync}, {@link decodeArrayStream},
 * {@link decodeMultiStream}), with optional u32 big-endian length-prefixed
 * framing. The `DecoderStream` TransformStream is in
 * src/stream-transform.ts, so that the main entry, which imports this
 * module, never evaluates `extends TransformStream`.
 *
 * Every stream decoder reports what a whole-input decode of the same bytes
 * would (`decode` for one value, `decodeMulti` for back-to-back values):
 * the same values, or the same error code and offset, whatever the
 * chunking. Results own their bytes: binaries are plain `Uint8Array`
 * copies (unless `binaryAsView`), never views of a Node `Buffer` chunk.
 *
 * Cost is linear in the bytes and memory bounded in bytes: a chunk is
 * decoded in place while it is alone; the start of a value split across
 * chunks is copied into one buffer the decoder owns, a scanner finds where
 * the value ends walking each byte once, and the value is then decoded
 * once (src/stream-queue.ts). No Node `Buffer`: it runs in Node, Bun, Deno
 * and browsers.
 *
 * This module imports the core; the core never imports it.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { Decoder, type DecodeOptions } from "./decode.ts";
import { badArgument, DecodeError, DecodeErrorCode, overLimit, tooDeepToDecode, truncated } from "./errors.ts";
import { bytesOf } from "./input.ts";
import { decodeLimits, decodeNesting, type DecodeLimits } from "./limits.ts";
import { BAD, ByteQueue, INCOMPLETE, ValueScanner } from "./stream-queue.ts";

// ---------------------------------------------------------------------------
// Types and options

/** A source of chunks: a WHATWG `ReadableStream` or any `AsyncIterable` (a Node readable, an async generator). */
export type ReadableStreamLike<T> = ReadableStream<T> | AsyncIterable<T>;

/**
 * A chunk of input bytes: a `Uint8Array` (a Node `Buffer` is one), an
 * `ArrayBuffer`, any view, or (as @msgpack/msgpack accepts, at the cost of
 * a copy) an array or array-like of byte values, each an integer 0..255
 * (anything else is a `DecodeError` with code `INVALID_ARGUMENT`).
 */
export type ByteChunk = Uint8Array | ArrayBuffer | ArrayBufferView | ArrayLike<number>;

/**
 * Counters a stream decoder keeps about its buffering, for diagnostics and
 * tests: they show that the work is linear in the bytes and the memory
 * bounded. Create one with {@link createStreamStats} and pass it as the
 * `stats` option, or read `DecoderStream.stats`.
 */
export interface StreamStats {
  /** Bytes received from the source. */
  bytesIn: number;
  /**
   * Bytes copied into the decoder's own buffer: the start of a value split
   * across chunks, the chunks after it, and moves when the buffer grows
   * (at most about 3 per byte in all). A value inside one chunk is decoded
   * in place, without a copy.
   */
  bytesCopied: number;
  /** Bytes the decoder walked: each decoded value once, plus the first, failed attempt on a value split across chunks. */
  bytesDecoded: number;
  /** Bytes the boundary scanner walked to find where a value split across chunks ends (each byte at most once). */
  bytesScanned: number;
  /**
   * Bytes the decoder holds now: its own buffer (at most about twice the
   * bytes waiting in it, kept for reuse up to 16 MiB), and the chunk it is
   * decoding in place.
   */
  bufferedBytes: number;
  /** The high-water mark of {@link StreamStats.bufferedBytes}. */
  maxBufferedBytes: number;
}

/** Options of {@link decodeAsync} and {@link decodeArrayStream}: {@link DecodeOptions} plus `maxValueBytes` and `stats`. */
export interface StreamDecodeOptions<ContextType = undefined> extends DecodeOptions<ContextType> {
  /**
   * The most bytes one value (for {@link decodeArrayStream}, one item; with
   * `lengthPrefixed`, one frame) may take. A value still incomplete past
   * this many buffered bytes, or a frame prefix above it, throws a
   * `DecodeError` (code `MAX_LENGTH`) at once: it bounds the memory the
   * decoder holds for untrusted streams (together with the `max*Length`
   * options, which stop a long string or array at its header).
   * @default Infinity
   */
  maxValueBytes?: number | undefined;
  /**
   * An object whose counters the decoder updates as it goes (see
   * {@link StreamStats}); the counters are not reset.
   * @default none
   */
  stats?: StreamStats | undefined;
}

/** Options of {@link decodeMultiStream} and `DecoderStream` (src/stream-transform.ts). */
export interface FramedDecodeOptions<ContextType = undefined> extends StreamDecodeOptions<ContextType> {
  /**
   * Each value is preceded by its length as a u32 big-endian prefix (as
   * `EncoderStream` writes with the same option); each frame must hold
   * exactly one value. Framed values decode with one pass and at most one
   * copy, with no scanning.
   * @default false
   */
  lengthPrefixed?: boolean | undefined;
}

/**
 * Returns a fresh {@link StreamStats} with every counter at zero, to pass
 * as the `stats` option of a stream decoder.
 *
 * @returns the counters
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { createStreamStats, decodeAsync } from "@resizable/msgpack/streams";
 * const stats = createStreamStats();
 * async function* chunks() { yield encode("hello"); }
 * console.assert((await decodeAsync(chunks(), { stats })) === "hello");
 * console.assert(stats.bytesIn === 6 && stats.bytesCopied === 0);
 * ```
 */
export function createStreamStats(): StreamStats {
  return { bytesIn: 0, bytesCopied: 0, bytesDecoded: 0, bytesScanned: 0, bufferedBytes: 0, maxBufferedBytes: 0 };
}

// ---------------------------------------------------------------------------
// Sources

/**
 * Views a chunk as a plain `Uint8Array` (a Node `Buffer` too, so results
 * never hold `Buffer` views): views and buffers without a copy, arrays of
 * byte values by copying. `offset` is the chunk's stream offset, for errors.
 */
function chunkBytes(chunk: ByteChunk, offset: number): Uint8Array {
  if (chunk instanceof Uint8Array && chunk.constructor === Uint8Array) return chunk;
  const bytes = bytesOf(chunk);
  return bytes ?? arrayChunk(chunk, offset);
}

/** Copies an array-like chunk of byte values, checking each: an integer 0..255. */
function arrayChunk(chunk: unknown, offset: number): Uint8Array {
  const n = typeof chunk === "object" && chunk !== null ? (chunk as ArrayLike<unknown>).length : undefined;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
    throw new DecodeError(
      `Cannot decode a stream chunk at offset ${offset}: ${chunk === null ? "null" : typeof chunk} is not bytes (a Uint8Array, ArrayBuffer, view or array of byte values)`,
      offset,
      DecodeErrorCode.INVALID_ARGUMENT,
    );
  }
  const out = new Uint8Array(n);
  const a = chunk as ArrayLike<unknown>;
  for (let i = 0; i < n; i++) {
    const b = a[i];
    if (typeof b !== "number" || !(b >= 0 && b <= 255) || b % 1 !== 0) {
      const shown = typeof b === "string" ? JSON.stringify(b) : String(b);
      throw new DecodeError(
        `Cannot decode a stream chunk at offset ${offset}: element ${i} is ${shown}, not a byte value (an integer 0..255)`,
        offset,
        DecodeErrorCode.INVALID_ARGUMENT,
      );
    }
    out[i] = b;
  }
  return out;
}

/** What {@link ChunkSource.next} returns at the end of the source (a chunk may be null: it is an error). */
const END: unique symbol = Symbol("end of stream");
type End = typeof END;

/** Pulls byte chunks from a `ReadableStream` or an `AsyncIterable`, one at a time. */
interface ChunkSource {
  /** The next chunk, or END. */
  next(): Promise<ByteChunk | End>;
  /** Lets go of the source; `reason` cancels it (when the consumer stops early or decoding failed). */
  close(cancel: boolean, reason?: unknown): Promise<void>;
}

function openSource(stream: ReadableStreamLike<ByteChunk>): ChunkSource {
  const s = stream as Partial<ReadableStream<ByteChunk>> & Partial<AsyncIterable<ByteChunk>>;
  if (s !== null && typeof s === "object" && typeof s.getReader === "function") {
    const reader = s.getReader();
    return {
      async next() {
        const r = await reader.read();
        return r.done ? END : r.value;
      },
      async close(cancel, reason) {
        if (cancel) await reader.cancel(reason).catch(() => undefined);
        reader.releaseLock();
      },
    };
  }
  const iterate = s !== null && typeof s === "object" ? s[Symbol.asyncIterator] : undefined;
  if (typeof iterate === "function") {
    const it = iterate.call(s);
    return {
      async next() {
        const r = await it.next();
        return r.done === true ? END : r.value;
      },
      async close(cancel) {
        if (cancel && typeof it.return === "function") await it.return();
      },
    };
  }
  throw new TypeError(`Cannot decode a stream of ${stream === null ? "null" : typeof stream}: expected a ReadableStream or an AsyncIterable of Uint8Array`);
}

/** Returned by the readers when they need more bytes. */
export const NEED_MORE: unique symbol = Symbol("need more bytes");
type NeedMore = typeof NEED_MORE;

/** Reads one item at `offset` of `bytes` and returns it with the offset after it (`Decoder.decodeAt`, `readArrayHeader`). */
type ReadAt = (bytes: Uint8Array, offset: number) => [unknown, number];

/** Where the reader is with the value at the read position. */
const FRESH = 0; // not tried yet
const SCANNING = 1; // tried once: the scanner says when it is complete
const RETRYING = 2; // the scanner found it malformed: retried when the decoder's `needed` bytes are there

/**
 * Reads items out of a {@link ByteQueue}: unframed values or
 * length-prefixed frames.
 *
 * A value is decoded with the bytes at hand; when they end inside it, the
 * {@link ValueScanner} finds where it ends as bytes arrive, and it is
 * decoded again once complete. The decoder has the last word, and a
 * decode with more bytes only ever gets further: so the reader reports
 * exactly what a whole-input decode of the same bytes would (the same
 * value, or the same error code and offset), whatever the chunking.
 */
export class StreamReader {
  readonly queue: ByteQueue;
  readonly decoder: Decoder<unknown>;
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

  constructor(options: FramedDecodeOptions<unknown> | undefined, decoder?: Decoder<unknown>) {
    this.queue = new ByteQueue(options?.stats ?? createStreamStats(), options?.binaryAsView ?? false);
    const d = decoder ?? new Decoder<unknown>(options);
    this.decoder = d;
    this.limits = decodeLimits(options);
    checkStreamOptions(options);
    this.scanner = new ValueScanner(options);
    this.readValue = (bytes, offset) => {
      if (this.depth === 0) return d.decodeAt(bytes, offset);
      // an array's items: one level down, as decode() reads them
      const outer = decodeNesting.depth;
      decodeNesting.depth = outer + this.depth;
      try {
        return d.decodeAt(bytes, offset);
      } finally {
        decodeNesting.depth = outer;
      }
    };
    this.readHeader = (bytes, offset) => d.readArrayHeader(bytes, offset);
    this.framed = options?.lengthPrefixed ?? false;
    this.maxValueBytes = options?.maxValueBytes ?? Number.POSITIVE_INFINITY;
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
          this.state = RETRYING;
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
      [item, stop] = readAt(bytes, start);
    } catch (e) {
      if (!(e instanceof DecodeError)) {
        this.reset();
        throw e;
      }
      q.stats.bytesDecoded += available;
      const base = q.offset - start;
      if (e.code !== DecodeErrorCode.TRUNCATED || final) {
        this.reset();
        throw e.code === DecodeErrorCode.TRUNCATED ? endedInside(relocate(e, base), q.offset + available) : relocate(e, base);
      }
      // the item runs past the bytes at hand: try again once the decoder has what it asked for
      this.want = available + e.needed;
      if (this.state === FRESH && scan) {
        this.state = SCANNING;
        this.scanner.begin(this.depth);
        return this.read(readAt, final, what, scan);
      }
      if (this.state === SCANNING) this.state = RETRYING; // the scanner said complete, the decoder disagrees
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
    return new DecodeError(`Cannot decode ${what} at offset ${at}: it takes ${size}, over maxValueBytes (${this.maxValueBytes})`, at, DecodeErrorCode.MAX_LENGTH);
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
    const s = q.start;
    let value: unknown;
    try {
      value = this.decoder.decode(q.bytes.subarray(s + 4, s + total));
    } catch (e) {
      if (e instanceof DecodeError) throw relocate(e, q.offset + 4);
      throw e;
    }
    q.stats.bytesDecoded += total;
    q.consume(total);
    this.frameLength = -1;
    return value;
  }
}

/**
 * Throws a `DecodeError` (`INVALID_ARGUMENT`) for an invalid stream option:
 * `maxValueBytes` that is not a non-negative integer (or Infinity),
 * `lengthPrefixed` that is not a boolean, `stats` that is not an object.
 * The decode options are checked by the decoder.
 */
export function checkStreamOptions(o: FramedDecodeOptions<unknown> | undefined): void {
  const max: unknown = o?.maxValueBytes;
  if (max !== undefined && !(typeof max === "number" && max >= 0 && (max % 1 === 0 || max === Infinity))) {
    throw badArgument("option maxValueBytes", max, "a non-negative integer");
  }
  const framed: unknown = o?.lengthPrefixed;
  if (framed !== undefined && typeof framed !== "boolean") throw badArgument("option lengthPrefixed", framed, "a boolean");
  const stats: unknown = o?.stats;
  if (stats !== undefined && (typeof stats !== "object" || stats === null)) throw badArgument("option stats", stats, "a StreamStats object");
}

/** A TRUNCATED error at the end of a stream. */
function streamTruncated(message: string, offset: number, missing: number): DecodeError {
  return new DecodeError(message, offset, DecodeErrorCode.TRUNCATED, missing);
}

function endedEmpty(offset: number, what: string): DecodeError {
  return streamTruncated(`Cannot decode ${what} at offset ${offset}: the stream ended before it began (at least 1 byte missing)`, offset, 1);
}

/** The decoder's TRUNCATED error for the whole stream (offsets already counted from its start), saying where the stream ended. */
function endedInside(e: DecodeError, end: number): DecodeError {
  return withCause(streamTruncated(`${e.message} (the stream ended at offset ${end})`, e.offset, e.needed), e);
}

/** The same error with offsets counted from the start of the stream (`base` is the stream offset of index 0). */
function relocate(e: DecodeError, base: number): DecodeError {
  if (base === 0) return e;
  const message = e.message.replace(/\boffset (\d+)/g, (_, n: string) => `offset ${Number(n) + base}`);
  return withCause(new DecodeError(message, e.offset + base, e.code, e.needed), e);
}

function withCause(err: DecodeError, cause: unknown): DecodeError {
  Object.defineProperty(err, "cause", { value: cause, writable: true, configurable: true, enumerable: false });
  return err;
}

function extraBytes(offset: number, what: string): DecodeError {
  return new DecodeError(
    `Cannot decode: extra bytes at offset ${offset} after the ${what}; use decodeMultiStream for back-to-back values`,
    offset,
    DecodeErrorCode.EXTRA_BYTES,
  );
}

// ---------------------------------------------------------------------------
// Decoding streams

/**
 * Decodes exactly one MessagePack value from a stream of byte chunks. The
 * value may be split across chunks at any byte.
 *
 * @param stream a `ReadableStream` (e.g. a `fetch` body) or any `AsyncIterable` of chunks (e.g. a Node stream)
 * @param options see {@link DecodeOptions}; `stats` to observe buffering
 * @returns a promise of the value, settled once the stream has ended
 * @throws {DecodeError} (the promise rejects) with the code and offset `decode` gives for the
 *   same bytes, whatever the chunking: `TRUNCATED` (with `needed`) when the stream ends inside
 *   the value or before it, `EXTRA_BYTES` when bytes follow the value, and every error of
 *   {@link decode}, with `offset` counted from the start of the stream; `MAX_LENGTH` for a value
 *   over `maxValueBytes`; `INVALID_ARGUMENT` for a chunk that is not bytes (an array element
 *   that is not an integer 0..255), with the chunk's stream offset
 * @throws {TypeError} when `stream` is neither a ReadableStream nor an AsyncIterable
 *
 * @example Decoding a ReadableStream (a `fetch` body is one)
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { decodeAsync } from "@resizable/msgpack/streams";
 * const bytes = encode({ id: 7, tags: ["a"] });
 * const body = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(bytes.subarray(0, 3)); c.enqueue(bytes.subarray(3)); c.close(); } });
 * const value = (await decodeAsync(body)) as { id: number };
 * console.assert(value.id === 7);
 * ```
 */
export async function decodeAsync<ContextType = undefined>(
  stream: ReadableStreamLike<ByteChunk>,
  options?: StreamDecodeOptions<ContextType>,
): Promise<unknown> {
  return readOne(new StreamReader(options as StreamDecodeOptions<unknown> | undefined), stream);
}

/** {@link decodeAsync} with a given reader. */
export async function readOne(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): Promise<unknown> {
  const q = reader.queue;
  const source = openSource(stream);
  let done = false;
  let value: unknown;
  try {
    for (;;) {
      const raw = await source.next();
      if (raw === END) break;
      const chunk = reader.bytes(raw);
      if (done && chunk.length > 0) throw extraBytes(q.offset, "value");
      reader.push(chunk);
      if (!done) {
        const v = reader.next(false);
        if (v !== NEED_MORE) {
          value = v;
          done = true;
        }
      }
      if (done && q.available > 0) throw extraBytes(q.offset, "value");
    }
    if (!done) {
      value = reader.next(true);
      if (q.available > 0) throw extraBytes(q.offset, "value");
    }
  } catch (e) {
    await source.close(true, e);
    throw e;
  }
  await source.close(false);
  return value;
}

/**
 * Decodes a stream holding one MessagePack array and yields its items as
 * each one completes, so a long array never has to be in memory at once.
 * Items may be split across chunks at any byte.
 *
 * @param stream a `ReadableStream` or any `AsyncIterable` of chunks
 * @param options see {@link DecodeOptions}; `stats` to observe buffering
 * @returns an async generator of the array's items
 * @throws {DecodeError} (from the generator) with code `INVALID_BYTE` when the stream does not
 *   start with an array; `TRUNCATED` with `needed` when it ends early; `EXTRA_BYTES` when bytes
 *   follow the array; `INVALID_ARGUMENT` for a chunk that is not bytes; and every error of
 *   {@link decode}, reported when the item holding it is reached (a whole-input `decode` of a
 *   truncated array reports the array first)
 * @throws {TypeError} when `stream` is neither a ReadableStream nor an AsyncIterable
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { decodeArrayStream } from "@resizable/msgpack/streams";
 * const bytes = encode([{ id: 1 }, { id: 2 }, { id: 3 }]);
 * async function* chunks() { for (let i = 0; i < bytes.length; i += 4) yield bytes.subarray(i, i + 4); }
 * const ids: number[] = [];
 * for await (const item of decodeArrayStream(chunks())) ids.push((item as { id: number }).id);
 * console.assert(ids.join() === "1,2,3");
 * ```
 */
export async function* decodeArrayStream<ContextType = undefined>(
  stream: ReadableStreamLike<ByteChunk>,
  options?: StreamDecodeOptions<ContextType>,
): AsyncGenerator<unknown, void, unknown> {
  yield* readArray(new StreamReader(options as StreamDecodeOptions<unknown> | undefined), stream);
}

/** {@link decodeArrayStream} with a given reader. */
export async function* readArray(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): AsyncGenerator<unknown, void, unknown> {
  const q = reader.queue;
  const source = openSource(stream);
  let left = -1; // items still to come, or -1 before the header
  // decode() checks an array's item count against the bytes (each item takes one at least) before
  // its depth and its items: an error is held until the stream has reached `itemsEnd` (then thrown)
  // or has ended short of it (then the array is truncated, as decode() says)
  let arrayAt = 0;
  let count = 0;
  let itemsEnd = 0;
  let held: DecodeError | null = null;
  let ok = false;
  try {
    for (;;) {
      const raw = await source.next();
      const final = raw === END;
      if (raw !== END) {
        const chunk = reader.bytes(raw);
        if (left === 0 && chunk.length > 0) throw extraBytes(q.offset, "array");
        reader.push(chunk);
      }
      if (left < 0) {
        arrayAt = q.offset;
        const n = reader.arrayHeader(final);
        if (n !== NEED_MORE) {
          if (n > reader.limits.maxArrayLength) throw overLimit("array", arrayAt, n, "maxArrayLength", reader.limits.maxArrayLength);
          left = count = n;
          itemsEnd = q.offset + n;
          reader.enterArray();
          if (decodeNesting.depth >= reader.limits.maxDepth) held = tooDeepToDecode(arrayAt, reader.limits.maxDepth);
        }
      }
      while (left > 0 && held === null) {
        let item: unknown;
        try {
          item = reader.next(final);
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e;
          held = e;
          break;
        }
        if (item === NEED_MORE) break;
        left--;
        yield item;
      }
      if (held !== null) {
        const received = q.offset + q.available;
        if (received >= itemsEnd) throw held;
        if (final) throw arrayTruncated(arrayAt, count, itemsEnd, received);
        q.consume(q.available); // only the count of the bytes still matters
        q.settle();
        continue;
      }
      if (left === 0 && q.available > 0) throw extraBytes(q.offset, "array");
      if (final) break;
    }
    ok = true;
  } finally {
    if (ok) await source.close(false);
    else await source.close(true);
  }
}

/** decode()'s TRUNCATED error for an array of `count` items at `arrayAt` whose items need the stream to reach `itemsEnd`, where it ended at `end`. */
function arrayTruncated(arrayAt: number, count: number, itemsEnd: number, end: number): DecodeError {
  return endedInside(truncated(arrayAt, itemsEnd - arrayAt, end, `array of ${count} items`), end);
}

/**
 * Decodes back-to-back MessagePack values from a stream of byte chunks and
 * yields each as soon as it is complete (a stream of messages on a socket,
 * a file of records). Values may be split across chunks at any byte.
 *
 * @param stream a `ReadableStream` or any `AsyncIterable` of chunks
 * @param options see {@link DecodeOptions}; `lengthPrefixed` for u32-framed values; `stats`
 * @returns an async generator of the values
 * @throws {DecodeError} (from the generator) with code `TRUNCATED` and `needed` when the stream
 *   ends inside a value or frame, `MAX_LENGTH` for a value over `maxValueBytes`,
 *   `INVALID_ARGUMENT` for a chunk that is not bytes, and every error of {@link decode}; without
 *   `lengthPrefixed`, the values and then the error code and offset that {@link decodeMulti} gives
 *   for the same bytes, whatever the chunking
 * @throws {TypeError} when `stream` is neither a ReadableStream nor an AsyncIterable
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { decodeMultiStream } from "@resizable/msgpack/streams";
 * const stream = new ReadableStream<Uint8Array>({
 *   start(c) { c.enqueue(encode("a")); c.enqueue(encode(2).subarray(0, 1)); c.enqueue(encode(null)); c.close(); },
 * });
 * const values: unknown[] = [];
 * for await (const v of decodeMultiStream(stream)) values.push(v);
 * console.assert(values.length === 3 && values[0] === "a" && values[2] === null);
 * ```
 */
export async function* decodeMultiStream<ContextType = undefined>(
  stream: ReadableStreamLike<ByteChunk>,
  options?: FramedDecodeOptions<ContextType>,
): AsyncGenerator<unknown, void, unknown> {
  yield* readMany(new StreamReader(options as FramedDecodeOptions<unknown> | undefined), stream);
}

/** {@link decodeMultiStream} with a given reader. */
export async function* readMany(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): AsyncGenerator<unknown, void, unknown> {
  const q = reader.queue;
  const source = openSource(stream);
  let ok = false;
  try {
    for (;;) {
      const raw = await source.next();
      if (raw === END) break;
      reader.push(reader.bytes(raw));
      for (;;) {
        const value = reader.next(false);
        if (value === NEED_MORE) break;
        yield value;
      }
    }
    while (q.available > 0) yield reader.next(true);
    ok = true;
  } finally {
    if (ok) await source.close(false);
    else await source.close(true);
  }
}
