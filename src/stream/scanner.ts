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

/**
 * What the scanner needs of a record structure (msgpackr's records): its
 * number of fields, and whether its identifier may take a second byte.
 */
export interface ScannedStructure {
  readonly keys: { readonly length: number };
  readonly twoByte: boolean;
}

/** The record structures a stream has defined so far, by slot (see src/records/): what the scanner frames records by. */
export interface ScannedStructures {
  readonly slots: readonly (ScannedStructure | undefined)[];
}

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
  /** With records: the structures defined before this value (the decoder's, kept as values are read whole); else null. */
  private readonly records: ScannedStructures | null;
  /** With records: the structures this value defines so far, by slot (undone when the next value begins). */
  private readonly defined = new Map<number, ScannedStructure>();

  /**
   * @param limits the decoder's limits
   * @param rawStrings whether the decoder reads string values as binaries
   * @param records with `useRecords`, the stream's record structures
   *   (then the bytes 0x40-0x7f start records, and a fixext 1 or 2 of type
   *   0x72 declares one); null without
   */
  constructor(limits: DecodeLimits, rawStrings: boolean, records: ScannedStructures | null = null) {
    this.limits = limits;
    this.rawStrings = rawStrings;
    this.records = records;
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
    this.defined.clear();
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
    if (this.records !== null) {
      const t = b[s + p]!;
      if (t >= 0x40 && t < 0x80) return this.record(b, s, avail, t);
      if (t === 0xd4 || t === 0xd5) {
        if (p + 2 > avail) return INCOMPLETE;
        if (b[s + p + 1] === 0x72) return this.definition(b, s, avail, t === 0xd5);
      }
    }
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
    this.open(h, units, units, kind === WIRE_MAP);
    return 0;
  }

  /** Opens a container of `units` items whose header ends at `h`; the decoder checks that `need` bytes follow before reading them. */
  private open(h: number, units: number, need: number, inMap: boolean): void {
    this.pos = h;
    if (units > 0) {
      this.stack.push(this.left);
      this.maps.push(this.inMap);
      this.needs.push(h + need); // every item takes a byte at least: the decoder checks that first
      this.left = units;
      this.inMap = inMap;
    }
  }

  /** The structure of `slot`: one this value defined, else one defined before it. */
  private structure(slot: number): ScannedStructure | undefined {
    return this.defined.get(slot) ?? this.records!.slots[slot];
  }

  /**
   * A record whose identifier's first byte `t` is at `pos`: a container of
   * its structure's fields, found as the decoder finds it (a second byte
   * when the structure of the first says so). An identifier with no
   * structure is BAD (the decoder refuses it), or while only framing, an
   * item of its own.
   */
  private record(b: Uint8Array, s: number, avail: number, t: number): number {
    const p = this.pos;
    let slot = t - 0x40;
    let h = p + 1;
    let structure = this.structure(slot);
    if (structure !== undefined && structure.twoByte) {
      if (p + 2 > avail) return INCOMPLETE;
      const high = b[s + p + 1]!;
      h = p + 2;
      if (high !== 0) structure = this.structure((slot += high << 5));
    }
    const n = structure === undefined ? 0 : structure.keys.length;
    if (this.checking && (structure === undefined || this.depth + this.stack.length >= this.limits.maxDepth)) {
      this.badEnd = h + n;
      return BAD;
    }
    this.left--;
    this.open(h, n, n, false);
    return 0;
  }

  /**
   * A structure declaration at `pos` (fixext 1, or `twoByte` fixext 2, of
   * type 0x72): its identifier, the array of its `n` field names, then the
   * `n` values of its first record, scanned as a container of 2n items.
   */
  private definition(b: Uint8Array, s: number, avail: number, twoByte: boolean): number {
    const p = this.pos;
    const at = p + (twoByte ? 4 : 3); // the array of field names
    if (at + 1 > avail) return INCOMPLETE;
    const id = b[s + p + 2]!;
    const form = FIRST_BYTE[b[s + at]!]!;
    if (id > 0x7f || id < (twoByte ? 0x60 : 0x40) || wireKindOf(form) !== WIRE_ARRAY) {
      this.badEnd = at + 1;
      return BAD;
    }
    const field = lengthFieldOf(form);
    const h = at + 1 + field;
    if (h > avail) return INCOMPLETE;
    const n = field === 0 ? fixedSizeOf(form) : readLength(b, s + at + 1, field);
    if (this.checking && (n > this.limits.maxMapLength || this.depth + this.stack.length >= this.limits.maxDepth)) {
      this.badEnd = n > this.limits.maxMapLength ? h : h + n;
      return BAD;
    }
    this.defined.set(id - 0x40 + (twoByte ? b[s + p + 3]! << 5 : 0), { keys: { length: n }, twoByte });
    this.left--;
    this.open(h, 2 * n, n, false);
    return 0;
  }
}
