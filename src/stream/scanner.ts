/**
 * Where a value split across chunks ends: a resumable count of the items
 * still to come, so that the stream decoders decode the value once, when
 * it is complete, whatever the chunking. Header lengths come from the
 * format's first-byte table; with records, the structures in force say how
 * many values an identifier carries. It has no limits or errors of its
 * own: the decoder reports those, on the whole value.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import type { RecordState } from "../decode/record-hook.ts";
import { FIRST_BYTE, fixedSizeOf, lengthFieldOf, readLength, WIRE_ARRAY, WIRE_EXT, WIRE_MAP, wireKindOf } from "../format/forms.ts";
import type { StreamStats } from "./queue.ts";

/** What the counter needs of a structure: how many values a record of it carries, and whether its identifier takes a second byte. */
type RecordShape = { readonly keys: { readonly length: number }; readonly twoByte: boolean };

/** Nesting past which (and past twice the depth of the last try) the counter asks for a try: the decoder may refuse it (`maxDepth`). */
const DEEP = 16;

/**
 * Counts the items still to come in a value, from its first byte on, and
 * resumes where it stopped when more bytes arrive: each byte is counted
 * once. `alarm` is set when a header read since {@link mark} declares more
 * than twice the bytes at hand, or nests past {@link DEEP} and twice the
 * depth at the mark: a value the decoder may refuse before the rest of it
 * arrives, which the reader then tries to decode.
 */
export class ItemCounter {
  /** Where the next header starts, relative to the value (past the bytes at hand inside a payload). */
  private pos: number;
  /** Items still to come at the current level; those of the enclosing levels. */
  private left: number;
  private readonly levels: number[];
  /** With records, the structures this value declares so far (the decoder has not read them yet): their field counts by slot. */
  private readonly declared: Map<number, RecordShape>;
  /** Where the headers that may set `alarm` start (the bytes of the last try end), and the depth a nesting alarm needs. */
  private from: number;
  private deepMark: number;
  alarm: boolean;

  private readonly records: RecordState | null;

  /** @param records with records, the structures in force before the value (else null) */
  constructor(records: RecordState | null) {
    this.records = records;
    this.pos = 0;
    this.left = 1;
    this.levels = [];
    this.declared = new Map();
    this.from = this.deepMark = 0;
    this.alarm = false;
  }

  /** The value was tried with its first `tried` bytes (`first`: its first try, so counting starts at its first byte): alarms come from the headers after them. */
  mark(tried: number, first: boolean): void {
    if (first) {
      this.pos = this.levels.length = 0;
      this.left = 1;
      this.declared.clear();
    }
    this.from = tried;
    this.deepMark = Math.max(this.levels.length, DEEP / 2);
    this.alarm = false;
  }

  /** Counts on over `bytes[start..end)`, the value's bytes so far: its length once complete, else -1. */
  scan(bytes: Uint8Array, start: number, end: number, stats: StreamStats): number {
    const before = this.pos;
    const n = this.count(bytes, start, end - start);
    stats.bytesScanned += Math.min(this.pos, end - start) - Math.min(before, end - start);
    return n;
  }

  private count(b: Uint8Array, s: number, avail: number): number {
    for (;;) {
      if (this.pos > avail) return -1; // inside a payload
      while (this.left === 0) {
        if (this.levels.length === 0) return this.pos;
        this.left = this.levels.pop()!;
      }
      const p = this.pos;
      if (p >= avail) return -1;
      const t = b[s + p]!;
      let h = p + 1; // where the header ends
      let items = -1; // the items it opens, or -1: a payload of `size` bytes follows
      let size = 0;
      let q = p; // where the header read from the format table starts
      let slot = -1;
      if (this.records !== null && (t === 0xd4 || t === 0xd5) && (p + 2 > avail || b[s + p + 1] === 0x72)) {
        // a structure declaration: its identifier, then the array of its field names (then its first record's values)
        q = p + (t === 0xd5 ? 4 : 3);
        if (q + 1 > avail) return -1;
        slot = b[s + p + 2]! - 0x40 + (t === 0xd5 ? b[s + p + 3]! << 5 : 0);
      }
      if (this.records !== null && t >= 0x40 && t < 0x80) {
        // a record: as many field values as its structure has (none for an undefined one: the decoder refuses it)
        let st = this.structure(t - 0x40);
        if (st?.twoByte === true) {
          if (p + 2 > avail) return -1;
          h = p + 2;
          if (b[s + p + 1] !== 0) st = this.structure(t - 0x40 + (b[s + p + 1]! << 5));
        }
        items = st === undefined ? 0 : st.keys.length;
      } else {
        const form = FIRST_BYTE[b[s + q]!]!;
        const field = lengthFieldOf(form);
        h = q + 1 + field;
        if (h > avail) return -1;
        const n = field === 0 ? fixedSizeOf(form) : readLength(b, s + q + 1, field);
        const kind = wireKindOf(form);
        if (slot >= 0) {
          const fields = kind === WIRE_ARRAY ? n : 0; // no array: the decoder refuses it
          this.declared.set(slot, { keys: { length: fields }, twoByte: t === 0xd5 });
          items = 2 * fields;
        } else if (kind === WIRE_ARRAY || kind === WIRE_MAP) items = kind === WIRE_MAP ? 2 * n : n;
        else size = kind === WIRE_EXT ? n + 1 : n; // an extension's type byte, then its data
      }
      if (p >= this.from && (h + (items < 0 ? size : items) > 2 * avail || (items > 0 && this.levels.length + 1 >= DEEP && this.levels.length + 1 >= 2 * this.deepMark))) this.alarm = true;
      this.left--;
      this.pos = h + (items < 0 ? size : 0);
      if (items > 0) {
        this.levels.push(this.left);
        this.left = items;
      }
    }
  }

  /** The structure of `slot`, as the records state has it: one this value declares, else the one in force before it. */
  private structure(slot: number): RecordShape | undefined {
    return this.declared.get(slot) ?? this.records!.slots[slot];
  }
}
