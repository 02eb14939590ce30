/**
 * A streaming reader of MessagePack structure, for inputs of any size in
 * constant memory: fed chunks, it walks headers on the first-byte table of
 * src/format/forms.ts and skips payloads (checking strings' UTF-8 and
 * timestamps on the way), counting bytes and values per form and per key
 * path, and says where each top-level value ends. Its first error is the
 * one `decodeMulti` throws for the whole input (the same code, offset and
 * message): an error inside a container is held until the input's length
 * is known, since the decoder first checks that each container's items
 * can fit in the input. Only the default limits apply, and `maxDepth`.
 *
 * With `useRecords` it reads msgpackr's records as the decoder's record
 * reader (src/records/read.ts) does, in the same order of checks:
 * a structure's declaration (fixext 1 or 2 of type 0x72, then the array of
 * its field names) and its first record, an identifier byte 0x40-0x7f
 * (and a high byte for a two-byte structure) and the record's fields.
 * Structures carry over from one back-to-back value to the next, as in
 * `decodeMulti`; what it keeps of them is each field name's path segment
 * (cut at 64 bytes, as a map key's). A record's fields are counted as a
 * map's values (`$.name`); records under the form `record` (their
 * identifier bytes), declarations under `record definition` (their
 * extension header).
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 * Records: https://github.com/kriszyp/msgpackr#record-structure-extension-definition
 *
 * @module
 */

import { DecodeError, invalidUtf8, reservedByte, tooDeepToDecode, truncated } from "../common/errors.ts";
import { FIRST_BYTE, fixedSizeOf, formName, lengthFieldOf, readLength, wireKindOf } from "../format/forms.ts";
import { DEFAULT_MAX_DEPTH } from "../common/limits.ts";
import { badFieldName, badRecordId, declaredSlot, declaresAt, isNamesArray, noFieldNames, recordSlot, takesHigh, undefinedRecord } from "../records/table.ts";
import { readTimestamp, TIMESTAMP_TYPE } from "../format/timestamp.ts";
import { decodeUtf8 } from "../format/utf8.ts";
import { formOf } from "./tree.ts";
import { quote } from "./escape.ts";

/** Count and bytes of one form or one key path. */
export interface Tally {
  count: number;
  bytes: number;
}

/** What a {@link Frame} holds. */
const ARRAY = 0;
const MAP = 1;
/** A record's field values. */
const RECORD = 2;
/** The field names of a structure's declaration (a record whose fields follow). */
const NAMES = 3;

/** One open container. */
interface Frame {
  /** Items (array, record, names) or keys and values (map) still to read. */
  left: number;
  /** {@link ARRAY}, {@link MAP}, {@link RECORD} or {@link NAMES}. */
  kind: number;
  /** Its first byte's offset (a record's or a declaration's: the declaration's). */
  start: number;
  /** The offset its items need the input to reach at least (the decoder checks this first). */
  need: number;
  /** The items (array), entries (map) or fields (record, names) it declares. */
  declared: number;
  /** Its path (names: the path of the record they declare). */
  path: string;
  /** The path of its items (arrays), or of the value of the last key read (maps). */
  itemPath: string;
  /** A record's field path segments; the names' segments read so far. */
  segments: string[] | null;
  /** Names: the slot the structure is declared for, and whether its identifier takes a second byte. */
  slot: number;
  twoByte: boolean;
}

/** A record structure: its fields, the path segments of the first of them (see {@link MAX_SHAPE_SEGMENTS}), and whether its identifier takes a second byte. */
interface Shape {
  readonly fields: number;
  readonly segments: readonly string[];
  readonly twoByte: boolean;
}

/** A payload kind beside the wire kinds: a structure declaration's identifier bytes. */
const DECLARATION = 12;

/** Where records and record definitions are counted among the forms (past the 256 first bytes). */
const RECORD_FORM = 256;
const DEFINITION_FORM = 257;

/** Distinct key paths counted; the rest are counted together. */
export const MAX_PATHS = 10_000;
/** Characters of a key path counted on its own; longer ones (and those under them) are counted with the other paths. */
const MAX_PATH_LENGTH = 512;
/** The path memo's entries, over all parents. */
const MAX_MEMO_ENTRIES = 4 * MAX_PATHS;
/** Field path segments kept per record structure; later fields are counted with the other paths. */
const MAX_SHAPE_SEGMENTS = 1024;
/** Field path segments kept over all the structures in force, so that hostile declarations cost at most this much memory. */
const MAX_SEGMENTS = 64 * MAX_SHAPE_SEGMENTS;
/** The path of what {@link MAX_PATHS}, {@link MAX_PATH_LENGTH} and {@link MAX_SHAPE_SEGMENTS} leave out. */
const OTHER_PATHS = "(other paths)";
/** Bytes of a map key kept for its path segment. */
const KEY_BYTES = 64;

const lenient = new TextDecoder();

/** The path segment of a string key: `.name`, or `["a b"]` (with controls escaped, safe to print). */
export function segment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? "." + key : `[${quote(key)}]`;
}

/**
 * Walks a MessagePack stream chunk by chunk; see the module doc. Call
 * {@link push} for each chunk and {@link finish} at the end.
 */
export class StreamWalker {
  /** Per first byte: values, and their bytes (containers: their headers only); after them, records and record definitions. */
  private readonly formCount = new Float64Array(256 + 2);
  private readonly formBytes = new Float64Array(256 + 2);
  /** Paths by parent path and segment, so each path is one string (one hash) however often it is met. */
  private readonly pathMemo = new Map<string, Map<string, string>>();
  /** Entries of {@link pathMemo}, over all parents. */
  private memoEntries = 0;
  /** Path segments by key text. */
  private readonly segments = new Map<string, string>();
  /** Field path segments kept by the structures in force (see {@link MAX_SEGMENTS}). */
  private shapeSegments = 0;
  /** Per key path (`$`, `$.users[].name`): values and their total bytes. */
  readonly paths: Map<string, Tally> = new Map();
  /** Top-level values read. */
  values = 0;
  /** Bytes read. */
  offset = 0;
  /** The first error, once known (after {@link finish} for errors inside containers). */
  error: DecodeError | null = null;
  /** Called with the offset after each complete top-level value. */
  onValue: ((end: number) => void) | null = null;

  private readonly maxDepth: number;
  private readonly frames: Frame[] = [];
  /** An error held until the input's length is known, and the containers open when it was found. */
  private pending: DecodeError | null = null;
  private pendingFrames: Frame[] = [];

  // the item being read
  private head = new Uint8Array(16);
  private headLen = 0;
  private headNeed = 0;
  private itemStart = 0;
  private payloadLeft = 0;
  private payloadSize = 0;
  private payloadKind = 0;
  private extType = 0;
  /** Bytes of the payload kept: a map key's first bytes, or a timestamp's payload. */
  private readonly keep = new Uint8Array(KEY_BYTES);
  private keepLen = 0;
  private keepMax = 0;
  /** A strict UTF-8 decoder for a string split across chunks, else null. */
  private utf8: TextDecoder | null = null;
  private utf8Bad = false;
  /** The path of the declaration being read (the path of its record). */
  private declPath = "";

  /** The record structures in force, by slot (identifier 0x40 + slot, two-byte ones from 32 up), with `useRecords`; else null. */
  private readonly shapes: (Shape | undefined)[] | null;
  /** A declaration whose identifier is read and whose array of field names comes next, else null. */
  private declared: { start: number; path: string; slot: number; twoByte: boolean } | null = null;

  /** Whether key paths are counted (else {@link paths} stays empty, and the walk only frames and checks). */
  private readonly countPaths: boolean;

  /**
   * @param options `maxDepth`, as the decode option; `useRecords`, to read
   *   msgpackr's records as `decodeMulti(bytes, { useRecords: true })` does;
   *   `paths: false` to count no key paths (framing and checking only)
   */
  constructor(options?: { maxDepth?: number; useRecords?: boolean; paths?: boolean }) {
    this.maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.shapes = options?.useRecords ? [] : null;
    this.countPaths = options?.paths ?? true;
  }

  /** Per form name ("fixstr", "uint 16", "fixext 4", "record", "record definition"): values and bytes (containers: their headers only). */
  forms(): Map<string, Tally> {
    const out = new Map<string, Tally>();
    for (let t = 0; t < 256 + 2; t++) {
      if (this.formCount[t] === 0) continue;
      const name = t === RECORD_FORM ? "record" : t === DEFINITION_FORM ? "record definition" : formOf(t);
      const tally = out.get(name) ?? { count: 0, bytes: 0 };
      tally.count += this.formCount[t]!;
      tally.bytes += this.formBytes[t]!;
      out.set(name, tally);
    }
    return out;
  }

  /** `parent` + `seg`, the same string each time. */
  private child(parent: string, seg: string): string {
    if (!this.countPaths) return "";
    if (parent === OTHER_PATHS || parent.length + seg.length > MAX_PATH_LENGTH) return OTHER_PATHS;
    let memo = this.pathMemo.get(parent);
    if (memo === undefined) {
      if (this.memoEntries >= MAX_MEMO_ENTRIES) return this.newPath(parent + seg);
      this.pathMemo.set(parent, (memo = new Map()));
    }
    let path = memo.get(seg);
    if (path === undefined) {
      path = this.newPath(parent + seg);
      if (this.memoEntries < MAX_MEMO_ENTRIES) (memo.set(seg, path), this.memoEntries++);
    }
    return path;
  }

  /** Whether the field names being read (`names`) keep the next name's path segment (see {@link MAX_SEGMENTS}). */
  private keepsSegment(names: Frame): boolean {
    if (!this.countPaths) return false;
    const n = names.segments!.length;
    return n < MAX_SHAPE_SEGMENTS && this.shapeSegments + n < MAX_SEGMENTS;
  }

  /** The path segment of key `text` (`cut`: the first {@link KEY_BYTES} of a longer key), the same string each time for the first {@link MAX_PATHS} keys. */
  private segmentOf(text: string, cut = false): string {
    let seg = this.segments.get(text);
    if (seg === undefined) {
      seg = segment(cut ? text + "..." : text);
      if (this.segments.size < MAX_PATHS) this.segments.set(text, seg);
    }
    return seg;
  }

  /** `path`, or {@link OTHER_PATHS} when it would be one path too many. */
  private newPath(path: string): string {
    return this.paths.size >= MAX_PATHS && !this.paths.has(path) ? OTHER_PATHS : path;
  }

  /** Whether the walk has stopped at an error (later bytes are only counted). */
  get stopped(): boolean {
    return this.error !== null || this.pending !== null;
  }

  /** The offset that the bytes read need the input to reach for the decoder to report the held error (or 0). */
  required(): number {
    let n = 0;
    for (const f of this.pendingFrames) n = Math.max(n, f.need);
    return this.pending ? Math.max(n, this.pending.offset + 1) : n;
  }

  /** Reads a chunk. */
  push(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.stopped) {
        this.offset += n - i;
        return;
      }
      if (this.payloadLeft > 0) {
        const take = Math.min(this.payloadLeft, n - i);
        this.payload(chunk, i, take);
        i += take;
        this.offset += take;
        this.payloadLeft -= take;
        if (this.payloadLeft === 0) this.endPayload();
        continue;
      }
      if (this.headLen === 0) {
        // a new item: how many header bytes it has
        const t = chunk[i]!;
        if (this.declared !== null && !isNamesArray(t)) {
          // a declaration not followed by an array of field names: how many fields follow is unknown
          this.hold(noFieldNames(this.declared.start, t));
          continue;
        }
        const form = FIRST_BYTE[t]!;
        const kind = wireKindOf(form);
        this.itemStart = this.offset;
        // a record identifier: a second byte when its structure is a two-byte one
        if (this.shapes !== null && t >= 0x40 && t < 0x80) this.headNeed = takesHigh(this.shapes, t) ? 2 : 1;
        else this.headNeed = 1 + lengthFieldOf(form) + (kind === 10 ? 1 : kind >= 3 && kind <= 5 ? fixedSizeOf(form) : 0);
      }
      // header bytes (a header split across chunks is collected over several calls)
      while (this.headLen < this.headNeed && i < n) {
        this.head[this.headLen++] = chunk[i++]!;
        this.offset++;
      }
      if (this.headLen === this.headNeed) this.header();
    }
  }

  /** Ends the input: any value left open is truncated (the decoder's error for it). */
  finish(): DecodeError | null {
    if (this.error) return this.error;
    const end = this.offset;
    const open = this.pending ? this.pendingFrames : this.frames;
    // the decoder checks each container's item count against the input before reading its items
    for (const f of open) {
      if (f.need > end) {
        const n = f.declared;
        const what = f.kind === MAP ? `map of ${n} entries` : f.kind === ARRAY ? `array of ${n} items` : f.kind === RECORD ? `record of ${n} fields` : `record definition of ${n} fields`;
        return (this.error = truncated(f.start, f.need - f.start, end, what));
      }
    }
    if (this.pending) return (this.error = this.pending);
    if (this.headLen > 0) {
      const t = this.head[0]!;
      if (this.shapes !== null && t >= 0x40 && t < 0x80) return (this.error = truncated(this.itemStart, 2, end, "record identifier"));
      const form = FIRST_BYTE[t]!;
      const field = lengthFieldOf(form);
      const kind = wireKindOf(form);
      if (this.headLen < 1 + field || (field === 0 && kind !== 10)) return (this.error = truncated(this.itemStart, kind === 10 ? 1 + field : this.headNeed, end, formName(t)));
      return (this.error = truncated(this.itemStart, 2 + field, end, "extension type"));
    }
    if (this.payloadLeft > 0) {
      const what = this.payloadKind === 6 ? "string" : this.payloadKind === 7 ? "binary" : this.payloadKind === DECLARATION ? "record definition" : "extension";
      return (this.error = truncated(this.itemStart, this.headNeed + this.payloadSize, end, what));
    }
    // a declaration's array of field names has not begun
    if (this.declared !== null) return (this.error = truncated(this.declared.start, end - this.declared.start + 1, end, "record definition"));
    if (this.frames.length > 0) return (this.error = truncated(end, 1, end, "value"));
    return null;
  }

  /** Holds `e` until the input's length is known (see the module doc). */
  private hold(e: DecodeError): void {
    // final at once when every open container's items fit in the bytes read so far
    if (this.frames.every((f) => f.need <= this.offset)) {
      this.error = e;
      return;
    }
    this.pending = e;
    this.pendingFrames = this.frames.slice();
  }

  /** The innermost open container, if any (never `frames[-1]`: a read past an array's end takes V8's slow path, 5x the walk's time on 1-byte values). */
  private top(): Frame | undefined {
    const n = this.frames.length;
    return n === 0 ? undefined : this.frames[n - 1];
  }

  /** The path of the item being read. */
  private path(): string {
    const f = this.top();
    if (f === undefined) return "$";
    if (f.kind === RECORD) {
      const seg = f.segments![f.declared - f.left];
      return seg === undefined ? OTHER_PATHS : this.child(f.path, seg);
    }
    return f.kind === MAP && f.left % 2 === 0 ? this.child(f.path, "{key}") : f.itemPath;
  }

  private countPath(path: string, bytes: number): void {
    if (!this.countPaths) return;
    let tally = this.paths.get(path);
    if (tally === undefined) this.paths.set(path, (tally = { count: 0, bytes: 0 }));
    tally.count++;
    tally.bytes += bytes;
  }

  private countForm(t: number, bytes: number): void {
    this.formCount[t]!++;
    this.formBytes[t]! += bytes;
  }

  /** A complete header in `head`. */
  private header(): void {
    const h = this.head;
    const t = h[0]!;
    const form = FIRST_BYTE[t]!;
    const kind = wireKindOf(form);
    const field = lengthFieldOf(form);
    const n = field === 0 ? fixedSizeOf(form) : readLength(h, 1, field);
    const start = this.itemStart;
    this.headLen = 0;
    if (this.shapes !== null && t >= 0x40 && t < 0x80) return this.record(t, start);
    if (kind === 11) return this.hold(reservedByte(start));
    if (kind === 8 || kind === 9) {
      this.countForm(t, this.headNeed);
      if (this.declared !== null) return this.names(n);
      const need = this.offset + (kind === 9 ? 2 * n : n);
      const path = this.path();
      const frame: Frame = { left: kind === 9 ? 2 * n : n, kind: kind === 9 ? MAP : ARRAY, start, need, declared: n, path, itemPath: kind === 9 ? path : this.child(path, "[]"), segments: null, slot: 0, twoByte: false };
      if (this.frames.length >= this.maxDepth) {
        // the decoder checks the item count first
        this.frames.push(frame);
        this.hold(tooDeepToDecode(start, this.maxDepth));
        this.frames.pop();
        return;
      }
      if (n === 0) return this.done(start, frame.path, "{}");
      this.frames.push(frame);
      return;
    }
    if (kind === 6 || kind === 7 || kind === 10) {
      this.payloadKind = kind;
      this.payloadSize = n;
      this.extType = kind === 10 ? (h[1 + field]! << 24) >> 24 : 0;
      const top = this.top();
      const isKey = top !== undefined && ((top.kind === MAP && top.left % 2 === 0 && this.countPaths) || (top.kind === NAMES && this.keepsSegment(top)));
      this.keepLen = 0;
      this.keepMax = kind === 6 && isKey ? KEY_BYTES : kind === 10 && this.extType === TIMESTAMP_TYPE && n <= 12 ? n : 0;
      if (this.shapes !== null && declaresAt(h, 0)) {
        // a structure declaration: its identifier bytes, kept
        this.payloadKind = DECLARATION;
        this.keepMax = n;
        this.declPath = this.path();
      }
      this.utf8 = null;
      this.utf8Bad = false;
      this.payloadLeft = n;
      if (n === 0) this.endPayload();
      return;
    }
    // nil, booleans, numbers
    this.countForm(t, this.headNeed);
    let key = "";
    const top = this.top();
    if (top !== undefined && top.kind === NAMES) {
      // a field name: a number becomes a string, nil and booleans are refused
      if (kind < 3) return this.hold(badFieldName(start, kind === 0 ? null : false));
      if (this.keepsSegment(top)) key = this.segmentOf(numberAt(h, t, form));
    } else if (kind >= 3 && kind <= 5) {
      if (top !== undefined && top.kind === MAP && top.left % 2 === 0) key = `[${numberAt(h, t, form)}]`;
    } else key = `[${kind === 0 ? "null" : kind === 2}]`;
    this.done(start, this.path(), key);
  }

  /** A record identifier, first byte `t` at `start` (and, for a two-byte structure, its high byte), complete in `head`. */
  private record(t: number, start: number): void {
    const slot = recordSlot(t, this.headNeed === 2 ? this.head[1]! : 0);
    const s = this.shapes![slot];
    // its fields are unknown, so where the next value starts: the walk ends
    if (s === undefined) return this.hold(undefinedRecord(start, t, slot));
    this.formCount[RECORD_FORM]!++;
    this.formBytes[RECORD_FORM]! += this.headNeed;
    this.fields(start, this.path(), s.fields, s.segments);
  }

  /** The fields of a record of `segments` (its identifier or declaration at `start`, its path `path`): a container of one item per field. */
  private fields(start: number, path: string, n: number, segments: readonly string[]): void {
    const frame: Frame = { left: n, kind: RECORD, start, need: this.offset + n, declared: n, path, itemPath: path, segments: segments as string[], slot: 0, twoByte: false };
    if (this.frames.length >= this.maxDepth) {
      // the decoder checks that the fields can fit first
      this.frames.push(frame);
      this.hold(tooDeepToDecode(start, this.maxDepth));
      this.frames.pop();
      return;
    }
    if (n === 0) return this.done(start, path, "{}");
    this.frames.push(frame);
  }

  /** The header of a declaration's array of `n` field names, complete. */
  private names(n: number): void {
    const d = this.declared!;
    this.declared = null;
    const frame: Frame = { left: n, kind: NAMES, start: d.start, need: this.offset + n, declared: n, path: d.path, itemPath: d.path, segments: [], slot: d.slot, twoByte: d.twoByte };
    if (this.frames.length >= this.maxDepth) {
      this.frames.push(frame);
      this.hold(tooDeepToDecode(d.start, this.maxDepth));
      this.frames.pop();
      return;
    }
    if (n === 0) return this.declareStructure(frame);
    this.frames.push(frame);
  }

  /** A declaration's names are read: its structure is in force, and its first record's fields follow. */
  private declareStructure(names: Frame): void {
    const shapes = this.shapes!;
    const shape: Shape = { fields: names.declared, segments: names.segments!, twoByte: names.twoByte };
    this.shapeSegments += shape.segments.length - (shapes[names.slot]?.segments.length ?? 0);
    shapes[names.slot] = shape;
    this.fields(names.start, names.path, shape.fields, shape.segments);
  }

  /** `take` payload bytes at `i` of `chunk`. */
  private payload(chunk: Uint8Array, i: number, take: number): void {
    if (this.keepLen < this.keepMax) {
      const k = Math.min(take, this.keepMax - this.keepLen);
      this.keep.set(chunk.subarray(i, i + k), this.keepLen);
      this.keepLen += k;
    }
    if (this.payloadKind !== 6 || this.utf8Bad) return;
    if (take === this.payloadSize) {
      // the whole string in this chunk: the decoder's own UTF-8 reader
      try {
        decodeUtf8(chunk, i, take);
      } catch {
        this.utf8Bad = true;
      }
      return;
    }
    try {
      (this.utf8 ??= new TextDecoder("utf-8", { fatal: true })).decode(chunk.subarray(i, i + take), { stream: this.payloadLeft > take });
    } catch {
      this.utf8Bad = true;
    }
  }

  private endPayload(): void {
    const start = this.itemStart;
    const kind = this.payloadKind;
    const n = this.payloadSize;
    const t = this.head[0]!;
    if (kind === DECLARATION) return this.declaration(start, n);
    this.countForm(t, this.headNeed + n);
    if (kind === 6 && this.utf8Bad) return this.hold(invalidUtf8(start + this.headNeed));
    if (kind === 10 && this.extType === TIMESTAMP_TYPE) {
      try {
        // a payload of another size fails on its length alone, read before any byte: it is not kept
        readTimestamp(n <= 12 ? this.keep.slice(0, n) : ({ length: n } as Uint8Array), start);
      } catch (e) {
        if (e instanceof DecodeError) return this.hold(e);
        throw e;
      }
    }
    let key = "";
    if (kind === 6 && this.keepMax > 0) {
      // a key cut at KEY_BYTES may end inside a character: that one is decoded leniently
      const text = n > KEY_BYTES ? lenient.decode(this.keep) : decodeUtf8(this.keep, 0, this.keepLen);
      key = this.segmentOf(text, n > KEY_BYTES);
    } else if (kind === 6) key = "";
    else {
      const top = this.top();
      if (top !== undefined && top.kind === NAMES) return this.hold(badFieldName(start, {}));
      key = kind === 7 ? "[<bin>]" : `[<ext ${this.extType}>]`;
    }
    this.done(start, this.path(), key);
  }

  /** A declaration's identifier bytes (`n`: 1, or 2 with a high byte) are read: its array of field names comes next. */
  private declaration(start: number, n: number): void {
    this.formCount[DEFINITION_FORM]!++;
    this.formBytes[DEFINITION_FORM]! += this.headNeed + n;
    // its first record, counted with no bytes of its own
    this.formCount[RECORD_FORM]!++;
    const id = this.keep[0]!;
    const twoByte = n === 2;
    const slot = declaredSlot(id, twoByte ? this.keep[1]! : 0, twoByte);
    if (slot < 0) return this.hold(badRecordId(start, id));
    this.declared = { start, path: this.declPath, slot, twoByte };
  }

  /** An item from `start` to here is complete; `key` is its path segment if it is a map key. */
  private done(start: number, path: string, key: string): void {
    for (;;) {
      const top = this.top();
      if (top === undefined) {
        this.countPath(path, this.offset - start);
        this.values++;
        this.onValue?.(this.offset);
        return;
      }
      if (top.kind === NAMES) {
        // a field name: a string or a number (their segments); a container is refused
        if (key === "{}") return this.hold(badFieldName(start, {}));
        // the first fields' segments, as many as the budget allows (the rest are counted with the other paths)
        if (this.keepsSegment(top)) top.segments!.push(key);
      } else if (top.kind === MAP && top.left % 2 === 0) top.itemPath = this.child(top.path, key);
      else this.countPath(path, this.offset - start);
      if (--top.left > 0) return;
      // the container is complete: it is an item of the one around it (names: their record's fields follow)
      this.frames.pop();
      if (top.kind === NAMES) return this.declareStructure(top);
      start = top.start;
      path = top.path;
      key = "{}";
    }
  }
}

/** A number's value from its header bytes `h` (first byte `t`), for a key path. */
function numberAt(h: Uint8Array, t: number, form: number): string {
  if (t < 0x80) return String(t);
  if (t >= 0xe0) return String(t - 0x100);
  const n = fixedSizeOf(form);
  const view = new DataView(h.buffer, h.byteOffset + 1, n);
  if (t === 0xca) return String(view.getFloat32(0));
  if (t === 0xcb) return String(view.getFloat64(0));
  const signed = t >= 0xd0;
  if (n === 1) return String(signed ? view.getInt8(0) : view.getUint8(0));
  if (n === 2) return String(signed ? view.getInt16(0) : view.getUint16(0));
  if (n === 4) return String(signed ? view.getInt32(0) : view.getUint32(0));
  return String(signed ? view.getBigInt64(0) : view.getBigUint64(0));
}
