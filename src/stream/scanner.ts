/**
 * The scanner under the stream decoders: it finds where a value split
 * across chunks ends, from the first-byte table of src/format/forms.ts, so that
 * the value is decoded once, when complete.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import type { DecodeOptions } from "../decode/options.ts";
import { FIRST_BYTE, fixedSizeOf, WIRE_ARRAY, WIRE_BIN, WIRE_EXT, WIRE_MAP, WIRE_RESERVED, WIRE_STR, wireKindOf, lengthFieldOf, readLength } from "../format/forms.ts";
import { decodeLimits, type DecodeLimits } from "../shared/limits.ts";
import type { StreamStats } from "./queue.ts";

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
    const form = FIRST_BYTE[t]!;
    const field = lengthFieldOf(form);
    if (p + 1 + field > avail) return INCOMPLETE;
    // the length (str, bin, ext, array, map) or a number's size
    const n = field === 0 ? fixedSizeOf(form) : readLength(b, s + p + 1, field);
    const h = p + 1 + field;
    switch (wireKindOf(form)) {
      case WIRE_STR:
        return this.item(h, n, this.limits.maxStrLength);
      case WIRE_BIN:
        return this.item(h, n, this.limits.maxBinLength);
      case WIRE_EXT:
        return n > this.limits.maxExtLength ? this.bad(h) : this.item(h, n + 1, MAX_PAYLOAD); // the type byte, then the data
      case WIRE_ARRAY:
        return this.open(h, n, false);
      case WIRE_MAP:
        return this.open(h, n, true);
      case WIRE_RESERVED:
        return this.bad(h);
      default:
        return this.item(h, n, n); // nil, booleans, numbers: n bytes after the first
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
