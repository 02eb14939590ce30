/**
 * The buffering under the stream decoders: the queue of received bytes
 * (the counter that finds where a value split across chunks ends is in
 * src/stream/scanner.ts).
 *
 * Memory is bounded in bytes, whatever the chunking: a chunk is decoded in
 * place while it is the only one, and whatever of it is left when the
 * decoder waits for more (the start of a value) is copied into one buffer
 * that the queue owns, which later chunks are appended to. So the queue
 * never holds a source's chunks while it waits (a producer may reuse its
 * buffer), a million 1-byte chunks cost a million bytes, not a million
 * objects, and the buffer is at most about twice the bytes it holds.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

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
  /** Bytes the decoder was given: each decoded value once, plus the tries of a value split across chunks before it was complete. */
  bytesDecoded: number;
  /** Bytes the item counter walked to find where a value split across chunks ends (each byte at most once). */
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

const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/** The smallest buffer the queue allocates: values split across tiny chunks then cost no allocation each. */
const MIN_BUFFER = 4096;

/** An empty buffer larger than this is released instead of being kept for reuse, so one huge value does not pin its memory. */
const MAX_IDLE_BUFFER = 16_777_216; // 16 MiB

/**
 * Received bytes not yet decoded, at `bytes[start..end)`: either the last
 * chunk received, read in place, or the queue's own buffer.
 */
export class ByteQueue {
  /** Where the unread bytes are: a received chunk (read in place) or `own`. */
  bytes: Uint8Array = EMPTY;
  start = 0;
  end = 0;
  /** Stream offset of `bytes[start]`. */
  offset = 0;
  /** The queue's own buffer. */
  private own: Uint8Array = EMPTY;
  /** Where the written part of `own` ends: with `keepWritten`, appending continues there. */
  private ownEnd = 0;
  /** Never overwrite bytes of `own` once written (results may be views into it: `binaryAsView`). */
  private readonly keepWritten: boolean;
  readonly stats: StreamStats;

  constructor(stats: StreamStats, keepWritten: boolean) {
    this.stats = stats;
    this.keepWritten = keepWritten;
  }

  /** Unread bytes, in all. */
  get available(): number {
    return this.end - this.start;
  }

  /**
   * Adds a chunk. The queue reads it in place when it holds nothing else;
   * otherwise its bytes are appended to the queue's buffer.
   */
  push(chunk: Uint8Array): void {
    const n = chunk.length;
    if (n === 0) return;
    this.stats.bytesIn += n;
    if (this.start === this.end) {
      if (this.own.length > MAX_IDLE_BUFFER) {
        this.own = EMPTY;
        this.ownEnd = 0;
      }
      this.bytes = chunk;
      this.start = 0;
      this.end = n;
    } else {
      if (this.bytes !== this.own) this.settle(); // the readers settle before waiting: this is a safety net
      this.append(chunk);
    }
    this.noteHeld();
  }

  /**
   * Called before waiting for more bytes: the unread part of a chunk read in
   * place is copied into the queue's buffer, so no chunk of the source is
   * held while the source makes the next one.
   */
  settle(): void {
    if (this.bytes === this.own) return;
    const rest = this.bytes.subarray(this.start, this.end);
    this.bytes = this.own;
    this.start = this.end = this.keepWritten ? this.ownEnd : 0;
    if (rest.length > 0) this.append(rest);
    this.noteHeld();
  }

  /** Marks `n` unread bytes as read (`n <= available`). */
  consume(n: number): void {
    this.start += n;
    this.offset += n;
    if (this.start < this.end) return;
    if (this.bytes !== this.own) {
      // a chunk read in place is used up: let go of it
      this.bytes = this.own;
      this.start = this.end = this.keepWritten ? this.ownEnd : 0;
    } else if (!this.keepWritten) {
      this.start = this.end = this.ownEnd = 0;
      if (this.own.length > MAX_IDLE_BUFFER) this.bytes = this.own = EMPTY;
    }
    this.noteHeld();
  }

  /** Appends bytes to `own`, which holds the unread bytes (`bytes === own`). */
  private append(data: Uint8Array): void {
    const n = data.length;
    if (this.end + n > this.own.length) this.makeRoom(n);
    this.own.set(data, this.end);
    this.end += n;
    this.ownEnd = this.end;
    this.stats.bytesCopied += n;
  }

  /**
   * Makes room for `n` more bytes after the unread ones: moves them to the
   * front when that frees enough (at least half the buffer), else moves
   * them to a buffer twice the size needed. Each move is paid for by at
   * least as many bytes appended since the last one, so the work stays
   * linear in the bytes.
   */
  private makeRoom(n: number): void {
    const unread = this.end - this.start;
    const cap = this.own.length;
    if (!this.keepWritten && unread + n <= cap >>> 1) {
      this.own.copyWithin(0, this.start, this.end);
    } else {
      const next = new Uint8Array(Math.max(MIN_BUFFER, 2 * (unread + n)));
      next.set(this.own.subarray(this.start, this.end));
      this.own = next;
      this.bytes = next;
    }
    this.stats.bytesCopied += unread;
    this.start = 0;
    this.end = unread;
  }

  private noteHeld(): void {
    const held = this.own.length + (this.bytes === this.own ? 0 : this.bytes.length);
    this.stats.bufferedBytes = held;
    if (held > this.stats.maxBufferedBytes) this.stats.maxBufferedBytes = held;
  }
}
