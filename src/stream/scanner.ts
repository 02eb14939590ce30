/**
 * The scanner under the stream decoders: it finds where a value split
 * across chunks ends, from the first-byte table of src/format/forms.ts, so that
 * the value is decoded once, when complete.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { headerError } from "../decode/limits.ts";
import { FIRST_BYTE, fixedSizeOf, WIRE_ARRAY, WIRE_BIN, WIRE_EXT, WIRE_MAP, WIRE_RESERVED, WIRE_STR, wireKindOf, lengthFieldOf, readLength } from "../format/forms.ts";
import type { DecodeLimits } from "../common/limits.ts";
import type { StreamStats } from "./queue.ts";

/** {@link ValueScanner.scan}: the value is not complete yet. */
export const INCOMPLETE = -1;
/** {@link ValueScanner.scan}: the decoder refuses a header of the value; decoding it says how ({@link ValueScanner.required}). */
export const BAD = -2;

/**
 * Finds where a value split across chunks ends, without decoding it: it
 * walks headers and skips payloads, and resumes where it stopped when more
 * bytes arrive, so each byte is scanned once. The value is then decoded
 * once, as soon as it is complete.
 *
 * The scanner frames; it has no limits of its own. At each header it asks
 * the decoder's rule ({@link headerError}) whether the decoder would refuse
 * it, so that a value over a limit fails before the rest of it arrives. The
 * decoder still has the last word: when the scanner stops at a refused
 * header, {@link required} says how many bytes the decoder needs to report
 * the error as for the whole input (the containers around the header check
 * their item counts first), and the reader decodes then.
 */
export class ValueScanner {
  /** Where the next header starts, relative to the value (past the end while a payload is incomplete). */
  private pos = 0;
  /** Items still to read at the current level, and those of the enclosing levels. */
  private left = 1;
  /** Whether the current level is a map (its items alternate key, value), and those of the enclosing levels. */
  private inMap = false;
  private readonly stack: number[] = [];
  private readonly maps: boolean[] = [];
  /** Per open container: the bytes from the value's start that the decoder wants before reading its items. */
  private readonly needs: number[] = [];
  /** After BAD: the end of the bad header. */
  private badEnd = 0;
  /** The nesting depth of the value being scanned (1 for an array's items). */
  private depth = 0;
  /** Whether headers are checked; off, the scanner only frames. */
  private checking = true;

  private readonly limits: DecodeLimits;
  private readonly rawStrings: boolean;

  /**
   * @param limits the decoder's limits
   * @param rawStrings whether the decoder reads string values as binaries
   */
  constructor(limits: DecodeLimits, rawStrings: boolean) {
    this.limits = limits;
    this.rawStrings = rawStrings;
  }

  /** Starts scanning a new value, at nesting depth `depth`. */
  begin(depth = 0): void {
    this.depth = depth;
    this.pos = 0;
    this.left = 1;
    this.inMap = false;
    this.stack.length = 0;
    this.maps.length = 0;
    this.needs.length = 0;
    this.badEnd = 0;
    this.checking = true;
  }

  /** After BAD: bytes from the value's start that let the decoder report the error exactly. */
  required(): number {
    let n = this.badEnd;
    for (const need of this.needs) if (need > n) n = need;
    return n;
  }

  /**
   * After BAD that the decoder did not confirm: scans on from the refused
   * header, framing only, so the value is decoded once more, when complete.
   */
  frameOnly(): void {
    this.checking = false;
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
        this.inMap = this.maps.pop()!;
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
    const form = FIRST_BYTE[b[s + p]!]!;
    const field = lengthFieldOf(form);
    if (p + 1 + field > avail) return INCOMPLETE;
    // the length (str, bin, ext, array, map) or a number's size
    const n = field === 0 ? fixedSizeOf(form) : readLength(b, s + p + 1, field);
    const h = p + 1 + field;
    const kind = wireKindOf(form);
    const isContainer = kind === WIRE_ARRAY || kind === WIRE_MAP;
    const units = kind === WIRE_MAP ? 2 * n : n; // items (a map's keys and values), or payload bytes
    if (this.checking && (kind === WIRE_STR || kind === WIRE_BIN || kind === WIRE_EXT || isContainer || kind === WIRE_RESERVED)) {
      // a map key is read as text even with rawStrings (keys are the even items left in a map)
      const binary = this.rawStrings && !(this.inMap && (this.left & 1) === 0);
      const refused = headerError(this.limits, kind, n, this.depth + this.stack.length, binary, 0);
      if (refused !== null) {
        // a container's depth is reported once its items have a byte each (the decoder checks that first)
        this.badEnd = refused.code === "MAX_DEPTH" ? h + units : h;
        return BAD;
      }
    }
    this.left--;
    if (!isContainer) {
      this.pos = h + (kind === WIRE_EXT ? n + 1 : n); // an ext's type byte, then its data
      return 0;
    }
    this.pos = h;
    if (n > 0) {
      this.stack.push(this.left);
      this.maps.push(this.inMap);
      this.needs.push(h + units); // every item takes a byte at least: the decoder checks that first
      this.left = units;
      this.inMap = kind === WIRE_MAP;
    }
    return 0;
  }
}
