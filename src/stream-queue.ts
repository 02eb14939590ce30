/**
 * The buffering under the stream decoders: the queue of received bytes
 * and the scanner that finds where a value split across chunks ends.
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

import type { DecodeOptions } from "./decode-options.ts";
import { decodeLimits, type DecodeLimits } from "./limits.ts";
import type { StreamStats } from "./stream-decode.ts";

const EMPTY = new Uint8Array(0);

/** The smallest buffer the queue allocates: values split across tiny chunks then cost no allocation each. */
const MIN_BUFFER = 4096;

/** An empty buffer larger than this is released instead of being kept for reuse, so one huge value does not pin its memory. */
const MAX_IDLE_BUFFER = 16 << 20;

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

/** {@link ValueScanner.scan}: the value is not complete yet. */
export const INCOMPLETE = -1;
/** {@link ValueScanner.scan}: the value breaks a rule or a limit; decoding it says which ({@link ValueScanner.required}). */
export const BAD = -2;

/**
 * Finds where a value split across chunks ends, without decoding it: it
 * walks headers and skips payloads, and resumes where it stopped when more
 * bytes arrive, so each byte is scanned once. The value is then decoded
 * once, as soon as it is complete.
 *
 * The scanner is only a guide: the decoder has the last word. When the
 * scanner finds a value malformed, {@link required} says how many bytes
 * the decoder needs to report the same error as for the whole input (the
 * containers around the bad byte check their item counts first).
 */
export class ValueScanner {
  /** Where the next header starts, relative to the value (past the end while a payload is incomplete). */
  private pos = 0;
  /** Items still to read at the current level, and those of the enclosing levels. */
  private left = 1;
  private readonly stack: number[] = [];
  /** Per open container: the bytes from the value's start that the decoder wants before reading its items. */
  private readonly needs: number[] = [];
  /** After BAD: the end of the bad header. */
  private badEnd = 0;
  private readonly limits: DecodeLimits;

  constructor(options: DecodeOptions<unknown> | undefined) {
    this.limits = decodeLimits(options);
  }

  /** The nesting depth of the value being scanned (1 for an array's items). */
  private depth = 0;

  /** Starts scanning a new value, at nesting depth `depth`. */
  begin(depth = 0): void {
    this.depth = depth;
    this.pos = 0;
    this.left = 1;
    this.stack.length = 0;
    this.needs.length = 0;
    this.badEnd = 0;
  }

  /** After BAD: bytes from the value's start that let the decoder report the error exactly. */
  required(): number {
    let n = this.badEnd;
    for (const need of this.needs) if (need > n) n = need;
    return n;
  }

  /**
   * Scans on over `bytes[start..end)`, the value's bytes so far; returns the
   * value's length once complete, else INCOMPLETE or BAD.
   */
  scan(bytes: Uint8Array, start: number, end: number, stats: StreamStats): number {
    const avail = end - start;
    const before = Math.min(this.pos, avail);
    const r = this.run(bytes, start, avail);
    stats.bytesScanned += Math.min(this.pos, avail) - before;
    return r;
  }

  private run(b: Uint8Array, s: number, avail: number): number {
    for (;;) {
      if (this.pos > avail) return INCOMPLETE; // inside a payload
      while (this.left === 0) {
        if (this.stack.length === 0) return this.pos;
        this.left = this.stack.pop()!;
        this.needs.pop();
      }
      if (this.pos === avail) return INCOMPLETE;
      const r = this.header(b, s, avail);
      if (r !== 0) return r;
    }
  }

  /** Reads the header at `pos`: moves past it and its payload, or opens a container. 0, INCOMPLETE (header cut short) or BAD. */
  private header(b: Uint8Array, s: number, avail: number): number {
    const p = this.pos;
    const t = b[s + p]!;
    if (t < 0x80 || t >= 0xe0) return this.item(p + 1, 0, 0); // fixint
    if (t >= 0xa0 && t < 0xc0) return this.item(p + 1, t & 0x1f, this.limits.maxStrLength); // fixstr
    if (t < 0x90) return this.open(p + 1, t & 0x0f, true); // fixmap
    if (t < 0xa0) return this.open(p + 1, t & 0x0f, false); // fixarray
    // the header's length field: k bytes after the type byte
    const k = LENGTH_BYTES[t - 0xc0]!;
    if (p + 1 + k > avail) return INCOMPLETE;
    let n = 0;
    for (let i = 1; i <= k; i++) n = n * 256 + b[s + p + i]!;
    const h = p + 1 + k;
    switch (t) {
      case 0xc0: // nil
      case 0xc2: // false
      case 0xc3: // true
        return this.item(h, 0, 0);
      case 0xcc: // uint 8
      case 0xd0: // int 8
        return this.item(h, 1, 1);
      case 0xcd: // uint 16
      case 0xd1: // int 16
        return this.item(h, 2, 2);
      case 0xca: // float 32
      case 0xce: // uint 32
      case 0xd2: // int 32
        return this.item(h, 4, 4);
      case 0xcb: // float 64
      case 0xcf: // uint 64
      case 0xd3: // int 64
        return this.item(h, 8, 8);
      case 0xd9: // str 8
      case 0xda: // str 16
      case 0xdb: // str 32
        return this.item(h, n, this.limits.maxStrLength);
      case 0xc4: // bin 8
      case 0xc5: // bin 16
      case 0xc6: // bin 32
        return this.item(h, n, this.limits.maxBinLength);
      case 0xc7: // ext 8
      case 0xc8: // ext 16
      case 0xc9: // ext 32
        return n > this.limits.maxExtLength ? this.bad(h) : this.item(h, n + 1, MAX_PAYLOAD); // the type byte, then the data
      case 0xd4: // fixext 1
      case 0xd5: // fixext 2
      case 0xd6: // fixext 4
      case 0xd7: // fixext 8
      case 0xd8: {
        // fixext 16
        const size = 1 << (t - 0xd4);
        return size > this.limits.maxExtLength ? this.bad(h) : this.item(h, size + 1, MAX_PAYLOAD);
      }
      case 0xdc: // array 16
      case 0xdd: // array 32
        return this.open(h, n, false);
      case 0xde: // map 16
      case 0xdf: // map 32
        return this.open(h, n, true);
      default:
        return this.bad(h); // 0xc1
    }
  }

  /** An item whose header ends at `h` and whose payload of `n` bytes (at most `max`) follows. */
  private item(h: number, n: number, max: number): number {
    if (n > max) return this.bad(h);
    this.left--;
    this.pos = h + n;
    return 0;
  }

  /** A container of `n` items (entries, for a map) whose header ends at `h`. */
  private open(h: number, n: number, isMap: boolean): number {
    if (n > (isMap ? this.limits.maxMapLength : this.limits.maxArrayLength)) return this.bad(h);
    const need = h + (isMap ? 2 * n : n); // every item takes a byte at least: the decoder checks that first
    if (this.depth + this.stack.length >= this.limits.maxDepth) return this.bad(Math.max(h, need));
    this.left--;
    this.pos = h;
    if (n > 0) {
      this.stack.push(this.left);
      this.needs.push(need);
      this.left = isMap ? 2 * n : n;
    }
    return 0;
  }

  private bad(end: number): number {
    this.badEnd = end;
    return BAD;
  }
}

/** No limit on an ext payload beyond `maxExtLength`, checked before. */
const MAX_PAYLOAD = Number.POSITIVE_INFINITY;

/**
 * Bytes of the length (or value) field after each type byte 0xc0-0xdf that
 * the scanner reads before deciding: lengths of str/bin/ext/array/map;
 * 0 for fixed-size types, whose payload is skipped as an item.
 */
const LENGTH_BYTES: readonly number[] = [
  0, 0, 0, 0, // c0 nil, c1 reserved, c2 false, c3 true
  1, 2, 4, // c4-c6 bin 8/16/32
  1, 2, 4, // c7-c9 ext 8/16/32
  0, 0, // ca float 32, cb float 64
  0, 0, 0, 0, // cc-cf uint 8/16/32/64
  0, 0, 0, 0, // d0-d3 int 8/16/32/64
  0, 0, 0, 0, 0, // d4-d8 fixext
  1, 2, 4, // d9-db str 8/16/32
  2, 4, // dc-dd array 16/32
  2, 4, // de-df map 16/32
];
