/**
 * Streaming: decode values from a `ReadableStream` or any `AsyncIterable`
 * of byte chunks ({@link decodeAsync}, {@link decodeArrayStream},
 * {@link decodeMultiStream}), WHATWG TransformStreams for both directions
 * ({@link EncoderStream}, {@link DecoderStream}), optional u32 big-endian
 * length-prefixed framing, and an encoder that yields the bytes of one
 * huge value in chunks while it encodes ({@link encodeIterable},
 * {@link encodeToStream}, {@link encodeToReadableStream}).
 *
 * Cost is linear in the bytes: chunks are kept as they arrive and decoded
 * in place; a value split across chunks is copied into one buffer only when
 * enough bytes have arrived for a retry (at least what the last attempt
 * said was missing, and at least twice what it covered), so retries cost
 * O(n) in all. No Node `Buffer`: it runs in Node, Bun, Deno and browsers.
 *
 * This module imports the core; the core never imports it.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { Decoder, type DecodeOptions } from "./decode.ts";
import { Encoder, type EncodeOptions } from "./encode.ts";
import { DecodeError, DecodeErrorCode, EncodeErrorCode, encodeError, overLimit, tooDeepToDecode, tooLong } from "./errors.ts";
import { ExtData } from "./extensions.ts";
import { bytesOf, toBytes } from "./input.ts";
import { DEFAULT_MAX_DEPTH, decodeLimits, type DecodeLimits } from "./limits.ts";

// ---------------------------------------------------------------------------
// Types and options

/** A source of chunks: a WHATWG `ReadableStream` or any `AsyncIterable` (a Node readable, an async generator). */
export type ReadableStreamLike<T> = ReadableStream<T> | AsyncIterable<T>;

/**
 * A chunk of input bytes: a `Uint8Array` (a Node `Buffer` is one), an
 * `ArrayBuffer`, any view, or (as @msgpack/msgpack accepts, at the cost of
 * a copy) an array of byte values.
 */
export type ByteChunk = Uint8Array | ArrayBuffer | ArrayBufferView | ArrayLike<number>;

/**
 * Counters a stream decoder keeps about its buffering, for diagnostics and
 * tests: they show that the work is linear in the bytes and the memory
 * bounded. Create one with {@link createStreamStats} and pass it as the
 * `stats` option, or read {@link DecoderStream.stats}.
 */
export interface StreamStats {
  /** Bytes received from the source. */
  bytesIn: number;
  /** Bytes copied to join a value split across chunks (a value inside one chunk is decoded in place). */
  bytesCopied: number;
  /** Bytes the decoder walked: each decoded value once, plus the first, failed attempt on a value split across chunks. */
  bytesDecoded: number;
  /** Bytes the boundary scanner walked to find where a value split across chunks ends (each byte at most once). */
  bytesScanned: number;
  /** Bytes the decoder holds now: the chunks it still needs and any joining buffer. */
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
  maxValueBytes?: number;
  /**
   * An object whose counters the decoder updates as it goes (see
   * {@link StreamStats}); the counters are not reset.
   * @default none
   */
  stats?: StreamStats;
}

/** Options of {@link decodeMultiStream} and {@link DecoderStream}. */
export interface FramedDecodeOptions<ContextType = undefined> extends StreamDecodeOptions<ContextType> {
  /**
   * Each value is preceded by its length as a u32 big-endian prefix (as
   * `EncoderStream` writes with the same option); each frame must hold
   * exactly one value. Framed values decode with one pass and at most one
   * copy, with no scanning.
   * @default false
   */
  lengthPrefixed?: boolean;
}

/** Options of {@link EncoderStream}. */
export interface StreamEncodeOptions<ContextType = undefined> extends EncodeOptions<ContextType> {
  /**
   * Write each value's length as a u32 big-endian prefix before it, for
   * protocols that frame messages. Values of 2^32 bytes or more throw
   * an `EncodeError` (code `TOO_LONG`).
   * @default false
   */
  lengthPrefixed?: boolean;
}

/** Options of {@link encodeIterable}, {@link encodeToStream} and {@link encodeToReadableStream}. */
export interface EncodeIterableOptions<ContextType = undefined> extends EncodeOptions<ContextType> {
  /**
   * The size of the chunks the encoder fills, in bytes. Containers whose
   * estimated encoding is larger are encoded item by item; binaries of at
   * least this size are yielded as views of the input, without a copy.
   * @default 65536
   */
  chunkSize?: number;
}

/** Options of {@link encodeToStream}. */
export interface EncodeToStreamOptions<ContextType = undefined> extends EncodeIterableOptions<ContextType> {
  /** Leave the writable stream open after the last chunk, as `pipeTo`'s option of that name. @default false */
  preventClose?: boolean;
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

const EMPTY = new Uint8Array(0);

/** Views a chunk as bytes: views and buffers without a copy, arrays of numbers by copying. */
function chunkBytes(chunk: ByteChunk): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (Array.isArray(chunk)) return Uint8Array.from(chunk);
  return toBytes(chunk as ArrayBuffer | ArrayBufferView);
}

/** Pulls byte chunks from a `ReadableStream` or an `AsyncIterable`, one at a time. */
interface ChunkSource {
  /** The next chunk, or null at the end. */
  next(): Promise<Uint8Array | null>;
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
        return r.done ? null : chunkBytes(r.value);
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
        return r.done === true ? null : chunkBytes(r.value);
      },
      async close(cancel) {
        if (cancel && typeof it.return === "function") await it.return();
      },
    };
  }
  throw new TypeError(`Cannot decode a stream of ${stream === null ? "null" : typeof stream}: expected a ReadableStream or an AsyncIterable of Uint8Array`);
}

// ---------------------------------------------------------------------------
// The byte queue: chunks as they arrived, joined only when a value spans them

/**
 * Received bytes not yet decoded: a current contiguous segment (a received
 * chunk, decoded in place, or a buffer that joins several) followed by the
 * chunks received after it.
 */
class ByteQueue {
  /** The current segment; its unread bytes are `buf[start..end)`. */
  buf: Uint8Array = EMPTY;
  start = 0;
  end = 0;
  /** Stream offset of `buf[start]`. */
  offset = 0;
  /** Chunks after the segment, from index `head` on (earlier slots are emptied). */
  readonly pending: Uint8Array[] = [];
  head = 0;
  private pendingBytes = 0;
  readonly stats: StreamStats;

  constructor(stats: StreamStats) {
    this.stats = stats;
  }

  /** Unread bytes, in all. */
  get available(): number {
    return this.end - this.start + this.pendingBytes;
  }

  push(chunk: Uint8Array): void {
    const n = chunk.length;
    if (n === 0) return;
    this.stats.bytesIn += n;
    if (this.start === this.end && this.head === this.pending.length) this.setSegment(chunk);
    else {
      this.pending.push(chunk);
      this.pendingBytes += n;
    }
    this.noteHeld();
  }

  /**
   * Makes at least `n` unread bytes contiguous (`n <= available`) and
   * returns the segment: they are at `buf[start..]`, and the segment ends
   * at `end` (its length).
   */
  contiguous(n: number): Uint8Array {
    const have = this.end - this.start;
    if (have >= n) return this.buf;
    // join: the unread part of the segment, then as much of the pending chunks as needed
    const joined = new Uint8Array(n);
    joined.set(this.buf.subarray(this.start, this.end), 0);
    let filled = have;
    while (filled < n) {
      const c = this.pending[this.head]!;
      const take = Math.min(c.length, n - filled);
      joined.set(take === c.length ? c : c.subarray(0, take), filled);
      if (take === c.length) this.pending[this.head++] = EMPTY;
      else this.pending[this.head] = c.subarray(take);
      this.pendingBytes -= take;
      filled += take;
    }
    this.stats.bytesCopied += n;
    this.compactPending();
    this.buf = joined;
    this.start = 0;
    this.end = n;
    this.noteHeld();
    return joined;
  }

  /** Marks `n` bytes at `start` as read (`n <= end - start`). */
  consume(n: number): void {
    this.start += n;
    this.offset += n;
    if (this.start < this.end) return;
    // the segment is used up: let go of it, and move on to the next chunk in place
    if (this.head < this.pending.length) {
      const c = this.pending[this.head]!;
      this.pending[this.head++] = EMPTY;
      this.pendingBytes -= c.length;
      this.compactPending();
      this.setSegment(c);
    } else {
      this.setSegment(EMPTY);
    }
    this.noteHeld();
  }

  private setSegment(chunk: Uint8Array): void {
    this.buf = chunk;
    this.start = 0;
    this.end = chunk.length;
  }

  private compactPending(): void {
    if (this.head === this.pending.length) {
      this.pending.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending.splice(0, this.head);
      this.head = 0;
    }
  }

  private noteHeld(): void {
    const held = this.buf.length + this.pendingBytes;
    this.stats.bufferedBytes = held;
    if (held > this.stats.maxBufferedBytes) this.stats.maxBufferedBytes = held;
  }
}

/** Returned by the readers when they need more bytes. */
const NEED_MORE: unique symbol = Symbol("need more bytes");
type NeedMore = typeof NEED_MORE;

/** Reads one item at `offset` of `bytes` and returns it with the offset after it (`Decoder.decodeAt`, `readArrayHeader`). */
type ReadAt = (bytes: Uint8Array, offset: number) => [unknown, number];

/** {@link ValueScanner.scan}: the value is not complete yet. */
const INCOMPLETE = -1;
/** {@link ValueScanner.scan}: the value breaks a rule or a limit; decoding what is there reports it. */
const BAD = -2;

/**
 * Finds where a value split across chunks ends, without decoding it or
 * joining the chunks: it walks headers and skips payloads, and resumes
 * where it stopped when more chunks arrive, so each byte is scanned once.
 * The value is then joined and decoded exactly once, as soon as it is
 * complete (no waiting for extra bytes, no repeated attempts).
 */
class ValueScanner {
  active = false;
  /** Bytes of the value scanned so far. */
  private scanned = 0;
  /** Items still to read at the current level, and those of the enclosing levels. */
  private left = 1;
  private readonly stack: number[] = [];
  /** Payload bytes still to skip. */
  private skip = 0;
  /** Where the next header starts, relative to the value. */
  private headerAt = 0;
  /** Cursor: a segment of the queue, the position in it, and the next pending chunk. */
  private seg: Uint8Array = EMPTY;
  private segPos = 0;
  private segEnd = 0;
  private nextPending = 0;

  private readonly limits: DecodeLimits;

  constructor(options: DecodeOptions<unknown> | undefined) {
    this.limits = decodeLimits(options);
  }

  /** Starts scanning the value at the queue's read position. */
  begin(q: ByteQueue): void {
    this.active = true;
    this.scanned = 0;
    this.left = 1;
    this.stack.length = 0;
    this.skip = 0;
    this.seg = q.buf;
    this.segPos = q.start;
    this.segEnd = q.end;
    this.nextPending = q.head;
  }

  /** A lower bound of the bytes still missing after an INCOMPLETE scan: the payload to skip, and a byte per item to come. */
  missing(): number {
    let n = this.skip + this.left;
    for (const left of this.stack) n += left;
    return Math.max(1, n);
  }

  reset(): void {
    this.active = false;
    this.seg = EMPTY;
    this.stack.length = 0;
  }

  /** Scans on over the bytes that arrived; returns the value's length once complete, else INCOMPLETE or BAD. */
  scan(q: ByteQueue): number {
    const before = this.scanned;
    try {
      return this.run(q);
    } finally {
      q.stats.bytesScanned += this.scanned - before;
    }
  }

  private run(q: ByteQueue): number {
    for (;;) {
      if (this.skip > 0) {
        let s = this.skip;
        while (s > 0) {
          if (this.segPos === this.segEnd && !this.nextSegment(q)) {
            this.skip = s;
            return INCOMPLETE;
          }
          const step = Math.min(s, this.segEnd - this.segPos);
          this.segPos += step;
          this.scanned += step;
          s -= step;
        }
        this.skip = 0;
      }
      while (this.left === 0) {
        if (this.stack.length === 0) return this.scanned;
        this.left = this.stack.pop()!;
      }
      // a header may be cut short: remember where it starts, to read it again later
      const seg = this.seg;
      const segPos = this.segPos;
      const segEnd = this.segEnd;
      const next = this.nextPending;
      this.headerAt = this.scanned;
      const r = this.header(q);
      if (r === INCOMPLETE) {
        this.seg = seg;
        this.segPos = segPos;
        this.segEnd = segEnd;
        this.nextPending = next;
        this.scanned = this.headerAt;
        return INCOMPLETE;
      }
      if (r === BAD) return BAD;
    }
  }

  private nextSegment(q: ByteQueue): boolean {
    if (this.nextPending >= q.pending.length) return false;
    this.seg = q.pending[this.nextPending++]!;
    this.segPos = 0;
    this.segEnd = this.seg.length;
    return true;
  }

  private byte(q: ByteQueue): number {
    if (this.segPos === this.segEnd && !this.nextSegment(q)) return -1;
    this.scanned++;
    return this.seg[this.segPos++]!;
  }

  /** A big-endian unsigned integer of `k` bytes, or -1 when they are not all there. */
  private uint(q: ByteQueue, k: number): number {
    let n = 0;
    for (let i = 0; i < k; i++) {
      const b = this.byte(q);
      if (b < 0) return -1;
      n = n * 256 + b;
    }
    return n;
  }

  /** Reads one item's header; sets the payload to skip or opens a container. Returns 0, INCOMPLETE or BAD. */
  private header(q: ByteQueue): number {
    const t = this.byte(q);
    if (t < 0) return INCOMPLETE;
    if (t < 0x80 || t >= 0xe0) return this.scalar(0); // fixint
    if (t >= 0xa0 && t < 0xc0) return this.payload(t & 0x1f, this.limits.maxStrLength); // fixstr
    if (t < 0x90) return this.open(t & 0x0f, true, q); // fixmap
    if (t < 0xa0) return this.open(t & 0x0f, false, q); // fixarray
    switch (t) {
      case 0xc0: // nil
      case 0xc2: // false
      case 0xc3: // true
        return this.scalar(0);
      case 0xcc: // uint 8
      case 0xd0: // int 8
        return this.scalar(1);
      case 0xcd: // uint 16
      case 0xd1: // int 16
        return this.scalar(2);
      case 0xca: // float 32
      case 0xce: // uint 32
      case 0xd2: // int 32
        return this.scalar(4);
      case 0xcb: // float 64
      case 0xcf: // uint 64
      case 0xd3: // int 64
        return this.scalar(8);
      case 0xd9: // str 8
      case 0xda: // str 16
      case 0xdb: // str 32
        return this.sized(q, t === 0xd9 ? 1 : t === 0xda ? 2 : 4, this.limits.maxStrLength, 0);
      case 0xc4: // bin 8
      case 0xc5: // bin 16
      case 0xc6: // bin 32
        return this.sized(q, t === 0xc4 ? 1 : t === 0xc5 ? 2 : 4, this.limits.maxBinLength, 0);
      case 0xc7: // ext 8
      case 0xc8: // ext 16
      case 0xc9: // ext 32
        return this.sized(q, t === 0xc7 ? 1 : t === 0xc8 ? 2 : 4, this.limits.maxExtLength, 1);
      case 0xd4: // fixext 1
      case 0xd5: // fixext 2
      case 0xd6: // fixext 4
      case 0xd7: // fixext 8
      case 0xd8: // fixext 16
        return this.ext(1 << (t - 0xd4));
      case 0xdc: // array 16
      case 0xdd: // array 32
      case 0xde: // map 16
      case 0xdf: {
        // map 32
        const n = this.uint(q, t === 0xdc || t === 0xde ? 2 : 4);
        return n < 0 ? INCOMPLETE : this.open(n, t >= 0xde, q);
      }
      default:
        return BAD; // 0xc1
    }
  }

  private scalar(size: number): number {
    this.left--;
    this.skip = size;
    return 0;
  }

  private payload(n: number, max: number): number {
    if (n > max) return BAD;
    this.left--;
    this.skip = n;
    return 0;
  }

  private ext(n: number): number {
    if (n > this.limits.maxExtLength) return BAD;
    this.left--;
    this.skip = n + 1; // the type byte, then the data
    return 0;
  }

  /** A str, bin or ext whose length takes `k` bytes; `extra` payload bytes follow (the ext type). */
  private sized(q: ByteQueue, k: number, max: number, extra: number): number {
    const n = this.uint(q, k);
    if (n < 0) return INCOMPLETE;
    if (extra === 0) return this.payload(n, max);
    return this.ext(n);
  }

  private open(n: number, isMap: boolean, q: ByteQueue): number {
    if (n > (isMap ? this.limits.maxMapLength : this.limits.maxArrayLength)) return BAD;
    const depth = this.stack.length;
    if (depth >= this.limits.maxDepth) {
      const at = q.offset + this.headerAt;
      throw tooDeepToDecode(at, this.limits.maxDepth);
    }
    this.left--;
    if (n > 0) {
      this.stack.push(this.left);
      this.left = isMap ? 2 * n : n;
    }
    return 0;
  }
}

/**
 * Reads items out of a {@link ByteQueue}: unframed values or
 * length-prefixed frames. A value inside the current chunk is decoded in
 * place; one that runs past it is handed to the {@link ValueScanner}, then
 * joined and decoded once when complete.
 */
class StreamReader {
  readonly queue: ByteQueue;
  readonly decoder: Decoder<unknown>;
  private readonly scanner: ValueScanner;
  private readonly readValue: ReadAt;
  private readonly readHeader: ReadAt;
  private readonly framed: boolean;
  private readonly maxValueBytes: number;
  /** For array headers: don't retry before this many bytes are available. */
  private want = 1;
  /** Length of the frame whose prefix was read, or -1. */
  private frameLength = -1;

  constructor(options: FramedDecodeOptions<unknown> | undefined) {
    this.queue = new ByteQueue(options?.stats ?? createStreamStats());
    const decoder = new Decoder<unknown>(options);
    this.decoder = decoder;
    this.scanner = new ValueScanner(options);
    this.readValue = (bytes, offset) => decoder.decodeAt(bytes, offset);
    this.readHeader = (bytes, offset) => decoder.readArrayHeader(bytes, offset);
    this.framed = options?.lengthPrefixed ?? false;
    this.maxValueBytes = options?.maxValueBytes ?? Number.POSITIVE_INFINITY;
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

  private read(readAt: ReadAt, final: boolean, what: string, scan: boolean): unknown {
    const q = this.queue;
    const available = q.available;
    if (available === 0) {
      if (final) throw endedEmpty(q.offset, what);
      return NEED_MORE;
    }
    let n: number; // bytes to have contiguous for this attempt
    if (this.scanner.active) {
      const r = this.scanner.scan(q);
      if (r === INCOMPLETE && !final) return this.needMore(available, what);
      n = r > 0 ? r : available; // complete: the value; malformed or at the end: all there is
      if (r > this.maxValueBytes) throw this.tooLarge(r, true, what);
    } else {
      if (!final && available < this.want) return this.needMore(available, what);
      n = final ? available : this.want; // the current segment, at least
    }
    const bytes = q.contiguous(n);
    const start = q.start;
    const covered = q.end - start;
    const view = q.end === bytes.length ? bytes : bytes.subarray(0, q.end);
    let item: unknown;
    let stop: number;
    try {
      [item, stop] = readAt(view, start);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      const base = q.offset - start;
      if (e.code !== DecodeErrorCode.TRUNCATED) {
        this.scanner.reset();
        throw relocate(e, base);
      }
      q.stats.bytesDecoded += covered;
      if (final) {
        const missing = this.scanner.active ? Math.max(e.needed, this.scanner.missing()) : e.needed;
        this.scanner.reset();
        throw endedInside(e, q.offset, covered, base, what, missing);
      }
      if (!scan) {
        this.want = covered + e.needed;
        return NEED_MORE;
      }
      if (this.scanner.active) throw relocate(e, base); // the scanner said complete: cannot happen
      // the value runs past the bytes at hand: find its end as chunks arrive
      this.scanner.begin(q);
      return this.read(readAt, final, what, scan);
    }
    this.scanner.reset();
    if (stop - start > this.maxValueBytes) throw this.tooLarge(stop - start, true, what);
    q.stats.bytesDecoded += stop - start;
    q.consume(stop - start);
    this.want = 1;
    return item;
  }

  /** NEED_MORE, unless the incomplete value already has more than `maxValueBytes`. */
  private needMore(available: number, what: string): NeedMore {
    if (available > this.maxValueBytes) throw this.tooLarge(available, false, what);
    return NEED_MORE;
  }

  /** A MAX_LENGTH error for a value of `n` bytes (`exact`) or of more than `n` bytes. */
  private tooLarge(n: number, exact: boolean, what: string): DecodeError {
    const at = this.queue.offset;
    this.scanner.reset();
    const size = exact ? `${n} bytes` : `more than ${n} bytes`;
    return new DecodeError(`Cannot decode ${what} at offset ${at}: it takes ${size}, over maxValueBytes (${this.maxValueBytes})`, at, DecodeErrorCode.MAX_LENGTH);
  }

  private nextFrame(final: boolean): unknown {
    const q = this.queue;
    const available = q.available;
    if (this.frameLength < 0) {
      if (available < 4) {
        if (!final) return NEED_MORE;
        if (available === 0) throw endedEmpty(q.offset, "frame");
        throw streamTruncated(`Cannot decode frame at offset ${q.offset}: the stream ended inside its 4-byte length prefix (${4 - available} bytes missing)`, q.offset, 4 - available);
      }
      const b = q.contiguous(4);
      const s = q.start;
      const length = ((b[s]! << 24) | (b[s + 1]! << 16) | (b[s + 2]! << 8) | b[s + 3]!) >>> 0;
      if (length > this.maxValueBytes) {
        throw overLimit("frame", q.offset, length, "maxValueBytes", this.maxValueBytes);
      }
      this.frameLength = length;
    }
    const total = 4 + this.frameLength;
    if (available < total) {
      if (!final) return NEED_MORE;
      const missing = total - available;
      throw streamTruncated(
        `Cannot decode frame at offset ${q.offset}: the stream ended after ${available} of its ${total} bytes (${missing} missing)`,
        q.offset,
        missing,
      );
    }
    const bytes = q.contiguous(total);
    const s = q.start;
    let value: unknown;
    try {
      value = this.decoder.decode(bytes.subarray(s + 4, s + total));
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

/** A TRUNCATED error at the end of a stream. */
function streamTruncated(message: string, offset: number, missing: number): DecodeError {
  return new DecodeError(message, offset, DecodeErrorCode.TRUNCATED, missing);
}

function endedEmpty(offset: number, what: string): DecodeError {
  return streamTruncated(`Cannot decode ${what} at offset ${offset}: the stream ended before it began (at least 1 byte missing)`, offset, 1);
}

function endedInside(e: DecodeError, offset: number, got: number, base: number, what: string, missing: number): DecodeError {
  const inner = relocate(e, base);
  const err = streamTruncated(
    `Cannot decode ${what} at offset ${offset}: the stream ended after ${got} of its bytes, at least ${missing} bytes missing (${inner.message})`,
    offset,
    missing,
  );
  return withCause(err, inner);
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
 * @throws {DecodeError} (the promise rejects) with code `TRUNCATED` and `needed` (bytes missing)
 *   when the stream ends inside the value or before it; `EXTRA_BYTES` when bytes follow the value;
 *   and every error of {@link decode}, with `offset` counted from the start of the stream
 * @throws {TypeError} when `stream` is neither a ReadableStream nor an AsyncIterable, or a chunk is not bytes
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
  const reader = new StreamReader(options as StreamDecodeOptions<unknown> | undefined);
  const q = reader.queue;
  const source = openSource(stream);
  let done = false;
  let value: unknown;
  try {
    for (;;) {
      const chunk = await source.next();
      if (chunk === null) break;
      if (done && chunk.length > 0) throw extraBytes(q.offset, "value");
      q.push(chunk);
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
 *   follow the array; and every error of {@link decode}
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
  const reader = new StreamReader(options as StreamDecodeOptions<unknown> | undefined);
  const q = reader.queue;
  const source = openSource(stream);
  let left = -1; // items still to come, or -1 before the header
  let ok = false;
  try {
    for (;;) {
      const chunk = await source.next();
      const final = chunk === null;
      if (chunk !== null) {
        if (left === 0 && chunk.length > 0) throw extraBytes(q.offset, "array");
        q.push(chunk);
      }
      if (left < 0) {
        const count = reader.arrayHeader(final);
        if (count !== NEED_MORE) left = count;
      }
      while (left > 0) {
        const item = reader.next(final);
        if (item === NEED_MORE) break;
        left--;
        yield item;
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

/**
 * Decodes back-to-back MessagePack values from a stream of byte chunks and
 * yields each as soon as it is complete (a stream of messages on a socket,
 * a file of records). Values may be split across chunks at any byte.
 *
 * @param stream a `ReadableStream` or any `AsyncIterable` of chunks
 * @param options see {@link DecodeOptions}; `lengthPrefixed` for u32-framed values; `stats`
 * @returns an async generator of the values
 * @throws {DecodeError} (from the generator) with code `TRUNCATED` and `needed` when the stream
 *   ends inside a value or frame, `MAX_LENGTH` for a value over `maxValueBytes`, and every
 *   error of {@link decode}, with `offset` counted from the start of the stream
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
  const reader = new StreamReader(options as FramedDecodeOptions<unknown> | undefined);
  const q = reader.queue;
  const source = openSource(stream);
  let ok = false;
  try {
    for (;;) {
      const chunk = await source.next();
      if (chunk === null) break;
      q.push(chunk);
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

/**
 * A WHATWG `TransformStream` from bytes to values: write byte chunks
 * (split anywhere), read the back-to-back MessagePack values in them. Use
 * with `pipeThrough` in Node, Bun, Deno and browsers. It honours
 * backpressure: a chunk is decoded only when the reader wants values, and
 * the values of one chunk are queued together.
 *
 * @example Decoding a fetch body value by value
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { DecoderStream } from "@resizable/msgpack/streams";
 * const body = new Response(new Uint8Array([...encode(1), ...encode("two")])).body!;
 * const reader = body.pipeThrough(new DecoderStream()).getReader();
 * const values: unknown[] = [];
 * for (let r = await reader.read(); !r.done; r = await reader.read()) values.push(r.value);
 * console.assert(values[0] === 1 && values[1] === "two");
 * ```
 */
export class DecoderStream<ContextType = undefined> extends TransformStream<ByteChunk, unknown> {
  /** Buffering counters of this stream (or the `stats` object passed in the options). */
  readonly stats: StreamStats;

  /**
   * @param options see {@link DecodeOptions}; `lengthPrefixed` for u32-framed values; `stats`
   * @throws {DecodeError} (erroring the stream) as {@link decodeMultiStream}
   */
  constructor(options?: FramedDecodeOptions<ContextType>) {
    const reader = new StreamReader(options as FramedDecodeOptions<unknown> | undefined);
    super({
      transform(chunk, controller): void {
        reader.queue.push(chunkBytes(chunk));
        for (;;) {
          const value = reader.next(false);
          if (value === NEED_MORE) return;
          controller.enqueue(value);
        }
      },
      flush(controller): void {
        while (reader.queue.available > 0) controller.enqueue(reader.next(true));
      },
    });
    this.stats = reader.queue.stats;
  }
}

/**
 * A WHATWG `TransformStream` from values to bytes: write values, read their
 * MessagePack encodings (each value's bytes as one or more chunks,
 * optionally after a u32 big-endian length prefix). Use with `pipeThrough`
 * in Node, Bun, Deno and browsers; it honours backpressure, encoding a
 * value only when the reader wants bytes.
 *
 * @example Length-prefixed round trip
 * ```ts
 * import { DecoderStream, EncoderStream } from "@resizable/msgpack/streams";
 * const values = new ReadableStream({ start(c) { c.enqueue({ a: 1 }); c.enqueue([2]); c.close(); } });
 * const bytes = values.pipeThrough(new EncoderStream({ lengthPrefixed: true }));
 * const reader = bytes.pipeThrough(new DecoderStream({ lengthPrefixed: true })).getReader();
 * const out: unknown[] = [];
 * for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
 * console.assert(JSON.stringify(out) === '[{"a":1},[2]]');
 * ```
 */
export class EncoderStream<ContextType = undefined> extends TransformStream<unknown, Uint8Array> {
  /**
   * @param options see {@link EncodeOptions}; `lengthPrefixed` to frame each value
   * @throws {EncodeError} (erroring the stream) for a value `encode` rejects
   */
  constructor(options?: StreamEncodeOptions<ContextType>) {
    const encoder = new Encoder<ContextType>(options);
    const framed = options?.lengthPrefixed ?? false;
    super({
      transform(value, controller): void {
        const chunks = encoder.encodeChunks(value);
        if (!framed) {
          for (const c of chunks) controller.enqueue(c);
          return;
        }
        let total = 0;
        for (const c of chunks) total += c.length;
        if (total > 0xffffffff) {
          throw encodeError(`Cannot frame a value of ${total} bytes: a u32 length prefix allows at most 4294967295`, EncodeErrorCode.TOO_LONG);
        }
        if (total <= SMALL_FRAME_BYTES) {
          // one chunk per frame: the prefix and the value in one buffer
          const out = new Uint8Array(4 + total);
          writeU32(out, 0, total);
          let at = 4;
          for (const c of chunks) {
            out.set(c, at);
            at += c.length;
          }
          controller.enqueue(out);
          return;
        }
        const prefix = new Uint8Array(4);
        writeU32(prefix, 0, total);
        controller.enqueue(prefix);
        for (const c of chunks) controller.enqueue(c);
      },
    });
  }
}

/** Frames up to this size are sent as one chunk (prefix copied in front); larger ones as a prefix chunk and the value's own chunks. */
const SMALL_FRAME_BYTES = 64 * 1024;

function writeU32(b: Uint8Array, at: number, n: number): void {
  b[at] = n >>> 24;
  b[at + 1] = n >>> 16;
  b[at + 2] = n >>> 8;
  b[at + 3] = n;
}

// ---------------------------------------------------------------------------
// Encoding one huge value in chunks

/** Default chunk size of {@link encodeIterable}: the size of a Node stream's buffer. */
const DEFAULT_CHUNK_BYTES = 64 * 1024;

/**
 * Walks a value, writing small parts with the core `Encoder` and large
 * containers item by item (the header written here), and hands out sealed
 * chunks as they fill.
 */
class ChunkedEncoder {
  private readonly chunkSize: number;
  private readonly options: EncodeOptions<unknown> | undefined;
  private readonly encoders = new Map<number, Encoder<unknown>>();
  private readonly hasExtensions: boolean;
  private readonly sortKeys: boolean;
  private readonly ignoreUndefined: boolean;
  private readonly maxDepth: number;
  /** The chunk being filled, and how much of it is. */
  private out: Uint8Array = EMPTY;
  private pos = 0;
  /** Sealed chunks not yet handed out. */
  private ready: Uint8Array[] = [];

  constructor(options: EncodeIterableOptions<unknown> | undefined) {
    const size = options?.chunkSize ?? DEFAULT_CHUNK_BYTES;
    if (!(size >= 1 && size <= 2 ** 31)) throw new RangeError(`Cannot encode with chunkSize ${size}: it must be between 1 and 2^31`);
    this.chunkSize = Math.floor(size);
    this.options = options;
    this.hasExtensions = (options?.extensionCodec?.encoders.length ?? 0) > 0;
    this.sortKeys = options?.sortKeys ?? false;
    this.ignoreUndefined = options?.ignoreUndefined ?? false;
    this.maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  *run(value: unknown): Generator<Uint8Array, void, undefined> {
    yield* this.walk(value, 0);
    this.seal();
    yield* this.drain();
  }

  /** An encoder for a value at `depth`: its `maxDepth` counts from there. */
  private encoderAt(depth: number): Encoder<unknown> {
    let e = this.encoders.get(depth);
    if (e === undefined) {
      const initial = Math.min(Math.max(2 * this.chunkSize, 1024), 1 << 20);
      e = new Encoder<unknown>({ ...this.options, maxDepth: this.maxDepth - depth, initialBufferSize: initial });
      this.encoders.set(depth, e);
    }
    return e;
  }

  /** Encodes `value` at `depth`, splitting it when it is large. */
  private *walk(value: unknown, depth: number): Generator<Uint8Array, void, undefined> {
    if (typeof value !== "object" || value === null || depth >= this.maxDepth || (this.hasExtensions && this.claimedByExtension(value))) {
      this.write(this.encoderAt(depth).encode(value));
      yield* this.drain();
      return;
    }
    // the same type order as Encoder.encodeObject
    if (Array.isArray(value)) {
      yield* this.walkArray(value, depth);
      return;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) {
      yield* this.walkRecord(value as Record<string, unknown>, depth);
      return;
    }
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && value instanceof SharedArrayBuffer)) {
      yield* this.walkBinary(value as ArrayBufferView | ArrayBufferLike, depth);
      return;
    }
    if (value instanceof Map) {
      yield* this.walkMap(value, depth);
      return;
    }
    if (value instanceof Date || value instanceof ExtData) {
      this.write(this.encoderAt(depth).encode(value));
      yield* this.drain();
      return;
    }
    if (value instanceof Set) {
      yield* this.walkArray([...value], depth);
      return;
    }
    yield* this.walkRecord(value as Record<string, unknown>, depth);
  }

  private claimedByExtension(value: object): boolean {
    const ctx = this.options?.context;
    for (const ext of this.options!.extensionCodec!.encoders) if (ext.encode(value, ctx) != null) return true;
    return false;
  }

  /**
   * An upper bound of the encoded size of `value`, walking it only until the
   * bound reaches `chunkSize`: what decides between encoding a part whole
   * (the bound is under `chunkSize`) and splitting it. Costs at most about
   * `chunkSize` steps, and never more than the part has nodes.
   */
  private sizeOf(value: unknown): number {
    switch (typeof value) {
      case "string":
        return 3 * value.length + 5; // up to 3 bytes per UTF-16 unit
      case "object":
        return value === null ? 1 : this.objectSize(value, this.chunkSize, 0);
      default:
        return 9;
    }
  }

  /** {@link sizeOf} for an object; returns at least `limit` as soon as the bound reaches it. */
  private objectSize(obj: object, limit: number, depth: number): number {
    if (depth > this.maxDepth) return limit; // deeper than allowed (a cycle): split it, and let the walk report it
    if (ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) return obj.byteLength + 5;
    if (obj instanceof Date) return 15;
    if (obj instanceof ExtData) return obj.data.length + 6;
    let size = 5;
    const add = (v: unknown): boolean => {
      size += typeof v === "string" ? 3 * v.length + 5 : typeof v === "object" && v !== null ? this.objectSize(v, limit - size, depth + 1) : 9;
      return size >= limit;
    };
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) if (add(obj[i])) return size;
    } else if (obj instanceof Map || obj instanceof Set) {
      for (const entry of obj) {
        if (obj instanceof Map ? add((entry as [unknown, unknown])[0]) || add((entry as [unknown, unknown])[1]) : add(entry)) return size;
      }
    } else {
      for (const key in obj) {
        if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
        if (add(key) || add((obj as Record<string, unknown>)[key])) return size;
      }
    }
    return size;
  }

  /** Whether a container is encoded whole: an upper bound of its size is under `chunkSize`. */
  private small(container: object): boolean {
    return this.sizeOf(container) < this.chunkSize;
  }

  private *walkArray(arr: readonly unknown[], depth: number): Generator<Uint8Array, void, undefined> {
    if (this.small(arr)) {
      this.write(this.encoderAt(depth).encode(arr));
      yield* this.drain();
      return;
    }
    const n = arr.length;
    this.writeHeader(n, 0x90, 0xdc, "array");
    const big = this.chunkSize;
    let from = 0;
    let batch = 0;
    for (let i = 0; i < n; i++) {
      const item = arr[i];
      const size = this.sizeOf(item);
      if (size >= big) {
        yield* this.arrayBatch(arr, from, i, depth);
        yield* this.walk(item, depth + 1);
        from = i + 1;
        batch = 0;
      } else if ((batch += size) >= big) {
        yield* this.arrayBatch(arr, from, i + 1, depth);
        from = i + 1;
        batch = 0;
      }
    }
    yield* this.arrayBatch(arr, from, n, depth);
  }

  /** Items `from..to` of an array at `depth`, encoded together as an array whose header is then dropped. */
  private *arrayBatch(arr: readonly unknown[], from: number, to: number, depth: number): Generator<Uint8Array, void, undefined> {
    if (to <= from) return;
    if (this.hasExtensions) {
      // an extension could claim the batch array itself: encode item by item
      const e = this.encoderAt(depth + 1);
      for (let i = from; i < to; i++) this.write(e.encode(arr[i]));
    } else {
      const bytes = this.encoderAt(depth).encode(arr.slice(from, to));
      this.write(bytes.subarray(headerSize(to - from)));
    }
    yield* this.drain();
  }

  private *walkRecord(obj: Record<string, unknown>, depth: number): Generator<Uint8Array, void, undefined> {
    let keys = Object.keys(obj);
    if (this.small(obj)) {
      this.write(this.encoderAt(depth).encode(obj));
      yield* this.drain();
      return;
    }
    if (this.sortKeys) keys.sort();
    if (this.ignoreUndefined) keys = keys.filter((k) => obj[k] !== undefined);
    yield* this.walkEntries(
      keys.length,
      keys.map((k) => [k, obj[k]] as [unknown, unknown]),
      depth,
    );
  }

  private *walkMap(map: Map<unknown, unknown>, depth: number): Generator<Uint8Array, void, undefined> {
    if (this.small(map)) {
      this.write(this.encoderAt(depth).encode(map));
      yield* this.drain();
      return;
    }
    yield* this.walkEntries(map.size, map, depth);
  }

  /** A map of `n` entries at `depth`: header, then batches of small entries, large ones split further. */
  private *walkEntries(n: number, entries: Iterable<[unknown, unknown]>, depth: number): Generator<Uint8Array, void, undefined> {
    this.writeHeader(n, 0x80, 0xde, "map");
    const big = this.chunkSize;
    let batch: [unknown, unknown][] = [];
    let batchSize = 0;
    for (const entry of entries) {
      const size = this.sizeOf(entry[0]) + this.sizeOf(entry[1]);
      if (size >= big) {
        yield* this.mapBatch(batch, depth);
        batch = [];
        batchSize = 0;
        yield* this.walk(entry[0], depth + 1);
        yield* this.walk(entry[1], depth + 1);
        continue;
      }
      batch.push(entry);
      if ((batchSize += size) >= big) {
        yield* this.mapBatch(batch, depth);
        batch = [];
        batchSize = 0;
      }
    }
    yield* this.mapBatch(batch, depth);
  }

  /** Entries of a map at `depth`, encoded together as a `Map` whose header is then dropped. */
  private *mapBatch(entries: [unknown, unknown][], depth: number): Generator<Uint8Array, void, undefined> {
    if (entries.length === 0) return;
    if (this.hasExtensions) {
      const e = this.encoderAt(depth + 1);
      for (const [k, v] of entries) {
        this.write(e.encode(k));
        this.write(e.encode(v));
      }
    } else {
      const bytes = this.encoderAt(depth).encode(new Map(entries));
      this.write(bytes.subarray(headerSize(entries.length)));
    }
    yield* this.drain();
  }

  private *walkBinary(value: ArrayBufferView | ArrayBufferLike, depth: number): Generator<Uint8Array, void, undefined> {
    const bytes = bytesOf(value)!; // a view or a buffer: never undefined
    const n = bytes.length;
    if (n < this.chunkSize) {
      this.write(this.encoderAt(depth).encode(bytes));
      yield* this.drain();
      return;
    }
    if (n > 0xffffffff) throw tooLong("binary", n);
    const h = new Uint8Array(5);
    let len: number;
    if (n < 0x100) {
      h[0] = 0xc4; // bin 8
      h[1] = n;
      len = 2;
    } else if (n < 0x10000) {
      h[0] = 0xc5; // bin 16
      h[1] = n >>> 8;
      h[2] = n;
      len = 3;
    } else {
      h[0] = 0xc6; // bin 32
      writeU32(h, 1, n);
      len = 5;
    }
    this.write(h.subarray(0, len));
    // fill the current chunk from the payload, then hand the rest over as a view, without copying
    const room = this.pos > 0 ? this.out.length - this.pos : 0;
    this.write(bytes.subarray(0, room));
    this.seal();
    const rest = bytes.subarray(room);
    if (rest.length >= this.chunkSize) this.ready.push(rest);
    else this.write(rest);
    yield* this.drain();
  }

  /** Writes an array (0x90, 0xdc) or map (0x80, 0xde) header for `n` items. */
  private writeHeader(n: number, fix: number, code16: number, what: string): void {
    if (n > 0xffffffff) throw tooLong(what, n);
    const h = new Uint8Array(5);
    if (n < 16) {
      h[0] = fix | n; // fixarray / fixmap
    } else if (n < 0x10000) {
      h[0] = code16; // array 16 / map 16
      h[1] = n >>> 8;
      h[2] = n;
    } else {
      h[0] = code16 + 1; // array 32 / map 32
      writeU32(h, 1, n);
    }
    this.write(h.subarray(0, headerSize(n)));
  }

  /**
   * Appends bytes. Bytes the encoder returned that fill a chunk on their own
   * become a chunk as they are (they are independent of the encoder);
   * smaller ones are copied into the current chunk.
   */
  private write(bytes: Uint8Array): void {
    let n = bytes.length;
    if (n === 0) return;
    if (n >= this.chunkSize && this.pos === 0) {
      this.ready.push(bytes);
      return;
    }
    let at = 0;
    while (n > 0) {
      if (this.out.length === 0) {
        this.out = new Uint8Array(this.chunkSize);
        this.pos = 0;
      }
      const take = Math.min(n, this.out.length - this.pos);
      this.out.set(take === bytes.length ? bytes : bytes.subarray(at, at + take), this.pos);
      this.pos += take;
      at += take;
      n -= take;
      if (this.pos === this.out.length) this.seal();
      if (n >= this.chunkSize && this.pos === 0) {
        this.ready.push(bytes.subarray(at));
        return;
      }
    }
  }

  /** The current chunk, if it holds anything, is done: it joins the ready list and is never written again. */
  private seal(): void {
    if (this.pos === 0) return;
    this.ready.push(this.pos === this.out.length ? this.out : this.out.subarray(0, this.pos));
    this.out = EMPTY;
    this.pos = 0;
  }

  private *drain(): Generator<Uint8Array, void, undefined> {
    const ready = this.ready;
    if (ready.length === 0) return;
    this.ready = [];
    for (const c of ready) yield c;
  }
}

/** Size of an array or map header for `n` items. */
function headerSize(n: number): number {
  return n < 16 ? 1 : n < 0x10000 ? 3 : 5;
}

/**
 * Encodes `value` lazily, yielding its MessagePack bytes in chunks while it
 * encodes, so a value whose encoding is larger than memory comfortably
 * allows (or than one buffer can hold, 2^32 bytes) can go to a file or a
 * socket. The chunks, concatenated, are exactly `encode(value, options)`.
 *
 * Memory: besides the value itself, about two chunks, plus the encoding of
 * the largest part it does not split. Arrays, plain objects, `Map`s and
 * `Set`s that may take `chunkSize` bytes or more (an upper bound walked
 * only that far) are written item by item, in batches of about
 * `chunkSize`; smaller containers are encoded whole, as are strings, dates
 * and extensions, whatever their size. Binaries of `chunkSize` bytes or
 * more are yielded as views of your data, without a copy.
 *
 * The value is read as you iterate: don't modify it, or the binaries in
 * it, until the chunks have been consumed. Each chunk is sealed: the
 * encoder never writes to it after yielding it.
 *
 * @param value the value to encode, as for `encode`
 * @param options see {@link EncodeOptions}; `chunkSize` (default 65536)
 * @returns a generator of chunks
 * @throws {EncodeError} (from the generator) as `encode`, after the chunks before the bad part
 * @throws {RangeError} for a `chunkSize` below 1 or above 2^31
 *
 * @example
 * ```ts
 * import { decode, encode } from "@resizable/msgpack";
 * import { encodeIterable } from "@resizable/msgpack/streams";
 * const value = { rows: Array.from({ length: 10_000 }, (_, i) => ({ i, name: `row ${i}` })) };
 * const chunks = [...encodeIterable(value, { chunkSize: 4096 })];
 * const total = chunks.reduce((n, c) => n + c.length, 0);
 * console.assert(chunks.length > 10 && total === encode(value).length);
 * const joined = new Uint8Array(total);
 * chunks.reduce((at, c) => (joined.set(c, at), at + c.length), 0);
 * console.assert((decode(joined) as typeof value).rows[9999]!.name === "row 9999");
 * ```
 */
export function* encodeIterable<ContextType = undefined>(value: unknown, options?: EncodeIterableOptions<ContextType>): Generator<Uint8Array, void, undefined> {
  yield* new ChunkedEncoder(options as EncodeIterableOptions<unknown> | undefined).run(value);
}

/**
 * Encodes `value` into a WHATWG `WritableStream` chunk by chunk, waiting
 * for the stream to be ready before each chunk (backpressure), so memory
 * stays bounded as for {@link encodeIterable}. Closes the stream at the end
 * unless `preventClose`; aborts it if encoding fails.
 *
 * @param value the value to encode
 * @param writable where the bytes go (e.g. a file's `writable`, `Writable.toWeb(socket)`)
 * @param options see {@link EncodeIterableOptions}; `preventClose` to keep the stream open
 * @returns a promise settled once every chunk is written (and the stream closed)
 * @throws {EncodeError} (the promise rejects) as `encode`; the stream is aborted with it
 * @throws {TypeError} (the promise rejects) when the stream is locked or errors
 *
 * @example
 * ```ts
 * import { decode } from "@resizable/msgpack";
 * import { encodeToStream } from "@resizable/msgpack/streams";
 * const parts: Uint8Array[] = [];
 * await encodeToStream([1, "two", new Uint8Array(100_000)], new WritableStream({ write(c) { parts.push(c.slice()); } }), { chunkSize: 8192 });
 * const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
 * parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
 * console.assert((decode(bytes) as unknown[])[1] === "two" && parts.length > 1);
 * ```
 */
export async function encodeToStream<ContextType = undefined>(
  value: unknown,
  writable: WritableStream<Uint8Array>,
  options?: EncodeToStreamOptions<ContextType>,
): Promise<void> {
  const writer = writable.getWriter();
  try {
    let last: Promise<void> = Promise.resolve();
    for (const chunk of encodeIterable(value, options)) {
      await writer.ready;
      last = writer.write(chunk);
      last.catch(() => undefined); // a failed write also rejects `ready` or `close`
    }
    if (options?.preventClose === true) await last;
    else await writer.close();
  } catch (e) {
    await writer.abort(e).catch(() => undefined);
    throw e;
  } finally {
    writer.releaseLock();
  }
}

/**
 * Encodes `value` as a WHATWG `ReadableStream` of chunks, produced only as
 * the reader pulls them (backpressure), e.g. a `fetch` request body or a
 * `Response`. Memory is bounded as for {@link encodeIterable}.
 *
 * @param value the value to encode
 * @param options see {@link EncodeIterableOptions}
 * @returns a stream of the chunks; cancelling it stops the encoding
 * @throws {EncodeError} (erroring the stream) as `encode`
 *
 * @example
 * ```ts
 * import { decode } from "@resizable/msgpack";
 * import { encodeToReadableStream } from "@resizable/msgpack/streams";
 * const response = new Response(encodeToReadableStream({ big: "x".repeat(100_000) }));
 * const value = decode(new Uint8Array(await response.arrayBuffer())) as { big: string };
 * console.assert(value.big.length === 100_000);
 * ```
 */
export function encodeToReadableStream<ContextType = undefined>(value: unknown, options?: EncodeIterableOptions<ContextType>): ReadableStream<Uint8Array> {
  let chunks: Generator<Uint8Array, void, undefined> | null = null;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller): void {
        chunks ??= encodeIterable(value, options);
        const r = chunks.next();
        if (r.done === true) controller.close();
        else controller.enqueue(r.value);
      },
      cancel(): void {
        chunks?.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
