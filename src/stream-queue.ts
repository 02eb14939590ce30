/**
 * The buffering under the stream decoders: the queue of received bytes
 * and the scanner that finds where a value split across chunks ends.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import type { DecodeOptions } from "./decode.ts";
import { tooDeepToDecode } from "./errors.ts";
import { decodeLimits, type DecodeLimits } from "./limits.ts";
import type { StreamStats } from "./stream-decode.ts";

const EMPTY = new Uint8Array(0);

// ---------------------------------------------------------------------------
// The byte queue: chunks as they arrived, joined only when a value spans them

/**
 * Received bytes not yet decoded: a current contiguous segment (a received
 * chunk, decoded in place, or a buffer that joins several) followed by the
 * chunks received after it.
 */
export class ByteQueue {
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

/** {@link ValueScanner.scan}: the value is not complete yet. */
export const INCOMPLETE = -1;
/** {@link ValueScanner.scan}: the value breaks a rule or a limit; decoding what is there reports it. */
export const BAD = -2;

/**
 * Finds where a value split across chunks ends, without decoding it or
 * joining the chunks: it walks headers and skips payloads, and resumes
 * where it stopped when more chunks arrive, so each byte is scanned once.
 * The value is then joined and decoded exactly once, as soon as it is
 * complete (no waiting for extra bytes, no repeated attempts).
 */
export class ValueScanner {
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

