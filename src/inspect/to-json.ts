/**
 * MessagePack to the lossless JSON form, written as it walks the bytes:
 * no tree of nodes and no decoded value is built, so a value takes the
 * memory of its bytes, its open containers and one piece of output. The
 * bytes must be valid (the inspector or the stream walker checks them
 * first, with the decoder's errors); the walk has a stack of its own, so
 * any nesting the checks let through is written.
 *
 * Plain JSON is written wherever `encode` would give these very bytes;
 * the values JSON lacks and the forms `encode` would not choose are
 * one-key objects whose key starts with `$` (listed in the package's
 * docs/inspect.md, "JSON form"). A map is a JSON object only when its keys can be
 * an object's keys that read back in the same order: strings in their
 * smallest form, none integer-like (`JSON.parse` lists those first), no
 * two alike, and not one key starting with `$`. Which maps are, is found
 * by a first walk over the value's keys (one flag per map), since a map's
 * opening is written before its entries.
 *
 * @module
 */

import { decodeOptionsOf } from "../decode/options.ts";
import { declaredSlot, declaresAt, recordSlot, RecordTable, takesHigh, type Structure } from "../records/table.ts";
import { FIRST_BYTE, fixedSizeOf, lengthFieldOf, readLength, strHeaderSize, WIRE_ARRAY, WIRE_BIN, WIRE_EXT, WIRE_FLOAT, WIRE_INT, WIRE_MAP, WIRE_STR, WIRE_TRUE, WIRE_UINT, wireKindOf, writeArrayHeader, writeBinHeader, writeExtHeader, writeInt, writeMapHeader } from "../format/forms.ts";
import { TIMESTAMP_TYPE } from "../format/timestamp.ts";
import { decodeUtf8 } from "../format/utf8.ts";
import { toBytes, type DecodeInput } from "../common/input.ts";
import { toBase64 } from "./base64.ts";
import { escapeControls, quote } from "./escape.ts";
import { isoTime } from "./time.ts";
import { inspect, type InspectOptions } from "./tree.ts";

/** Characters of output gathered before a piece is handed on. */
const PIECE = 1 << 16;
/** Bytes of a string or binary written at a time (a string is decoded, a binary turned into base64, a slice at a time). */
const SLICE = 3 << 16;

/** How the items of an open container are written. */
const ARRAY = 0;
/** A map as a JSON object: keys and values alternate. */
const OBJECT = 1;
/** A map as `[key, value]` pairs, keys and values alternate. */
const PAIRS = 2;
/** A record as a JSON object: a field name from its structure, then the value. */
const RECORD_OBJECT = 3;
/** A record as `[name, value]` pairs. */
const RECORD_PAIRS = 4;
/** The field names of a record structure's declaration (read, not written): its record follows. */
const NAMES = 5;

/** One open container. */
interface Frame {
  mode: number;
  /** Items (keys and values of maps, fields of records) in all. */
  n: number;
  /** The next item. */
  i: number;
  /** What closes it. */
  close: string;
  /** A record's field names; the names a declaration has read so far. */
  keys: string[] | null;
  /** First walk: whether a map's keys so far can be an object's. */
  plain: boolean;
  /** First walk: where a map's key hashes start in {@link JsonWriter.hashes} (-1 for other containers), and whether its first key starts with "$". */
  hashStart: number;
  dollar: boolean;
  /** A declaration's structure slot and identifier width. */
  slot: number;
  twoByte: boolean;
}

const scratch = new Uint8Array(16);

/** Whether an integer-like key (`JSON.parse` would list it before the others). */
function isIndex(key: string): boolean {
  return /^(0|[1-9]\d{0,9})$/.test(key) && Number(key) < 0xffffffff;
}

/** {@link isIndex} of the UTF-8 key `b[at..at+n)`. */
function isIndexBytes(b: Uint8Array, at: number, n: number): boolean {
  if (n === 0 || n > 10 || (b[at] === 0x30 && n > 1)) return false;
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = b[i]! - 0x30;
    if (c < 0 || c > 9) return false;
    v = v * 10 + c;
  }
  return v < 0xffffffff;
}

/**
 * A 53-bit hash of the bytes `b[at..at+n)` (two 32-bit FNV-1a hashes with
 * other offsets), exact as a double. Two keys with the same hash are taken
 * as the same key: a map is then written as pairs, which reads back to the
 * same bytes too (for a map of a million keys, the chance is about 1 in
 * 10^4).
 */
function hashBytes(b: Uint8Array, at: number, n: number): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x050c5d1f;
  for (let i = at; i < at + n; i++) {
    const c = b[i]!;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x01000193) ^ (h2 >>> 15);
  }
  return (h1 >>> 0) * 0x200000 + (h2 >>> 11);
}

/** Whether field names can be a JSON object's keys (see the module doc). */
function plainNames(keys: readonly string[]): boolean {
  const seen = new Set<string>();
  for (const k of keys) {
    if (isIndex(k) || seen.has(k)) return false;
    seen.add(k);
  }
  return !(seen.size === 1 && keys[0]!.startsWith("$"));
}

/** The tag of first byte `t`'s 8 / 16 / 32 form: "$str8", "$map16". */
function sizedTag(t: number, name: string): string {
  return `$${name}${8 * lengthFieldOf(FIRST_BYTE[t]!)}`;
}

/**
 * Writes valid MessagePack values as lossless JSON text. With records
 * (`useRecords`), structures declared in one value stay declared for the
 * next, as in `decodeMulti`.
 */
export class JsonWriter {
  /** The record structures in force, or null without records. */
  private readonly records: RecordTable | null;
  /** Per structure: whether its records are written as objects. */
  private readonly plainStructures = new WeakMap<Structure, boolean>();
  /** First walk: per map, in the order of their headers, whether it is written as an object. */
  private plainMaps = new Uint8Array(64);
  private maps = 0;
  /** First walk: the key hashes of the open maps, innermost last (8 bytes per key, outside the JS heap). */
  private hashes = new Float64Array(64);
  private held = 0;

  /**
   * @param records the record structures in force (shared ones loaded),
   *   to read msgpackr's records; null for plain MessagePack
   */
  constructor(records: RecordTable | null = null) {
    this.records = records;
  }

  /**
   * The JSON text of the valid value that starts at `start` of `bytes`,
   * then "\n", in pieces of about 64 K characters, as it walks.
   */
  *write(bytes: Uint8Array, start = 0): Generator<string, number> {
    const records = this.records;
    const t = bytes[start]!;
    const kind = wireKindOf(FIRST_BYTE[t]!);
    if (kind === WIRE_ARRAY || kind === WIRE_MAP || (records !== null && ((t >= 0x40 && t < 0x80) || declaresAt(bytes, start)))) {
      // the first walk: which maps are objects; its record declarations are undone, the second walk makes them again
      this.maps = 0;
      records?.commit();
      for (const _ of this.walk(bytes, start, false));
      records?.rollback();
    }
    this.maps = 0;
    const end = yield* this.walk(bytes, start, true);
    records?.commit();
    return end;
  }

  /** Walks the value at `start`: writing it (`emit`), or else finding which maps are objects. Returns where the value ends. */
  private *walk(b: Uint8Array, start: number, emit: boolean): Generator<string, number> {
    const stack: Frame[] = [];
    const records = this.records;
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    let out = "";
    let p = start;
    for (;;) {
      let top = stack.length === 0 ? undefined : stack[stack.length - 1]!;
      // a declaration's field names are read, not written
      const w = emit && (top === undefined || top.mode !== NAMES);
      // the text of this item is wanted when it is a field name
      const wantKey = top !== undefined && top.mode === NAMES;
      // first walk: a map's key
      const mapKey = top !== undefined && top.hashStart >= 0 && (top.i & 1) === 0;
      if (w && top !== undefined) {
        // what comes before the item
        const i = top.i;
        const mode = top.mode;
        if (mode === ARRAY) {
          if (i > 0) out += ",";
        } else if (mode === OBJECT) {
          if (i > 0) out += (i & 1) === 0 ? "," : ":";
        } else if (mode === PAIRS) out += i === 0 ? "[" : (i & 1) === 0 ? "],[" : ",";
        else if (mode === RECORD_OBJECT) out += (i > 0 ? "," : "") + quote(top.keys![i]!) + ":";
        else out += (i > 0 ? "],[" : "[") + quote(top.keys![i]!) + ","; // RECORD_PAIRS
      }
      const t = b[p]!;
      const form = FIRST_BYTE[t]!;
      const kind = wireKindOf(form);
      const field = lengthFieldOf(form);
      let key: string | null = null;
      let opened: Frame | null = null;
      if (records !== null && t >= 0x40 && t < 0x80) {
        // a record: its identifier names its structure
        const high = takesHigh(records.slots, t) ? b[++p]! : 0;
        p++;
        opened = this.record(records.slots[recordSlot(t, high)]!);
        if (w) out += opening(opened);
      } else if (records !== null && declaresAt(b, p)) {
        // a declaration: identifier bytes, then the array of field names, then its first record's fields
        const twoByte = t === 0xd5;
        const id = b[p + 2]!;
        const slot = declaredSlot(id, twoByte ? b[p + 3]! : 0, twoByte);
        p += twoByte ? 4 : 3;
        const h = b[p]!;
        const hf = lengthFieldOf(FIRST_BYTE[h]!);
        const n = hf === 0 ? h & 0x0f : readLength(b, p + 1, hf);
        p += 1 + hf;
        opened = { mode: NAMES, n, i: 0, close: "", keys: [], plain: true, hashStart: -1, dollar: false, slot, twoByte };
        if (n === 0) {
          opened = this.declareStructure(opened);
          if (w) out += opening(opened);
        }
      } else if (t < 0x80 || t >= 0xe0) {
        // fixints
        const v = t < 0x80 ? t : t - 0x100;
        if (w) out += v;
        if (wantKey) key = String(v);
        p++;
      } else if (kind <= WIRE_TRUE) {
        if (w) out += kind === 0 ? "null" : kind === WIRE_TRUE ? "true" : "false";
        p++;
      } else if (kind <= WIRE_FLOAT) {
        const n = fixedSizeOf(form);
        if (w || wantKey) {
          const json = numberJson(view, b, p, t, n, kind);
          if (w) out += json;
          key = numberKey;
        }
        p += 1 + n;
      } else if (kind === WIRE_STR) {
        const n = field === 0 ? fixedSizeOf(form) : readLength(b, p + 1, field);
        const at = p + 1 + field;
        const canonical = 1 + field === strHeaderSize(n);
        if (wantKey) key = decodeUtf8(b, at, n);
        else if (mapKey) this.mapKey(top!, b, at, n, canonical);
        if (w) {
          if (!canonical) out += `{"${t < 0xc0 ? "$fixstr" : sizedTag(t, "str")}":`;
          if (n <= SLICE) out += quote(key ?? decodeUtf8(b, at, n));
          else {
            // a long string a slice at a time, each ending before a character's first byte
            out += '"';
            for (let from = at; from < at + n; ) {
              let to = Math.min(at + n, from + SLICE);
              while (to < at + n && (b[to]! & 0xc0) === 0x80) to--;
              out += escapeControls(JSON.stringify(decodeUtf8(b, from, to - from)).slice(1, -1));
              from = to;
              if (out.length >= PIECE) (yield out, (out = ""));
            }
            out += '"';
          }
          if (!canonical) out += "}";
        }
        p = at + n;
      } else if (kind === WIRE_BIN) {
        const n = readLength(b, p + 1, field);
        const at = p + 1 + field;
        if (w) {
          writeBinHeader(scratch, 0, n);
          out += `{"${scratch[0] === t ? "$bin" : sizedTag(t, "bin")}":"`;
          for (let from = at; from < at + n; from += SLICE) {
            out += toBase64(b.subarray(from, Math.min(at + n, from + SLICE)));
            if (out.length >= PIECE) (yield out, (out = ""));
          }
          out += '"}';
        }
        p = at + n;
      } else if (kind === WIRE_EXT) {
        const n = field === 0 ? fixedSizeOf(form) : readLength(b, p + 1, field);
        const type = (b[p + 1 + field]! << 24) >> 24;
        const at = p + 2 + field;
        if (w) {
          writeExtHeader(scratch, 0, type, n);
          const canonical = scratch[0] === t;
          if (type === TIMESTAMP_TYPE && canonical) {
            const first = view.getUint32(at);
            const sec = n === 4 ? first : n === 8 ? (first & 3) * 0x100000000 + view.getUint32(at + 4) : Number(view.getBigInt64(at + 4));
            const nsec = n === 4 ? 0 : n === 8 ? first >>> 2 : first;
            const shortest = sec >= 0 && sec <= 0x3ffffffff ? (nsec === 0 && sec <= 0xffffffff ? 4 : 8) : 12;
            out += `{"${shortest === n ? "$timestamp" : `$timestamp${n * 8}`}":"${isoTime(sec, nsec)}"}`;
          } else {
            out += `{"${canonical ? "$ext" : t >= 0xd4 ? `$fixext${n}` : sizedTag(t, "ext")}":[${type},"`;
            for (let from = at; from < at + n; from += SLICE) {
              out += toBase64(b.subarray(from, Math.min(at + n, from + SLICE)));
              if (out.length >= PIECE) (yield out, (out = ""));
            }
            out += '"]}';
          }
        }
        p = at + n;
      } else {
        // an array or a map
        const n = field === 0 ? fixedSizeOf(form) : readLength(b, p + 1, field);
        p += 1 + field;
        if (kind === WIRE_ARRAY) {
          writeArrayHeader(scratch, 0, n);
          const tag = scratch[0] === t ? "" : sizedTag(t, "array");
          if (w) out += tag === "" ? "[" : `{"${tag}":[`;
          opened = { mode: ARRAY, n, i: 0, close: tag === "" ? "]" : "]}", keys: null, plain: true, hashStart: -1, dollar: false, slot: 0, twoByte: false };
        } else {
          writeMapHeader(scratch, 0, n);
          const canonical = scratch[0] === t;
          const index = this.maps++;
          if (!emit) {
            if (index >= this.plainMaps.length) {
              const grown = new Uint8Array(this.plainMaps.length * 2);
              grown.set(this.plainMaps);
              this.plainMaps = grown;
            }
            opened = { mode: PAIRS, n: 2 * n, i: 0, close: "", keys: null, plain: canonical, hashStart: this.held, dollar: false, slot: index, twoByte: false };
          } else if (canonical && this.plainMaps[index] === 1) {
            if (w) out += "{";
            opened = { mode: OBJECT, n: 2 * n, i: 0, close: "}", keys: null, plain: true, hashStart: -1, dollar: false, slot: 0, twoByte: false };
          } else {
            if (w) out += `{"${canonical ? "$map" : t < 0x90 ? "$fixmap" : sizedTag(t, "map")}":[`;
            opened = { mode: PAIRS, n: 2 * n, i: 0, close: n === 0 ? "]}" : "]]}", keys: null, plain: false, hashStart: -1, dollar: false, slot: 0, twoByte: false };
          }
        }
      }
      if (opened !== null) {
        if (opened.n > 0) {
          stack.push(opened);
          continue;
        }
        // a container without items is complete at once
        this.close(opened, emit);
        if (w) out += opened.close;
      }
      // the item is complete: it completes the containers whose last item it is
      for (;;) {
        if (top === undefined) {
          if (emit) yield out + "\n";
          return p;
        }
        if (top.mode === NAMES) top.keys!.push(key!);
        // first walk: a map key that is not a string (a string was looked at where it was read)
        else if (top.hashStart >= 0 && (top.i & 1) === 0 && (opened !== null || kind !== WIRE_STR)) top.plain = false;
        if (++top.i < top.n) break;
        stack.pop();
        let done = top;
        top = stack.length === 0 ? undefined : stack[stack.length - 1]!;
        const wDone = emit && (top === undefined || top.mode !== NAMES);
        if (done.mode === NAMES) {
          // the names are read: the structure is in force, and its first record's fields follow
          done = this.declareStructure(done);
          if (wDone) out += opening(done);
          if (done.n > 0) {
            stack.push(done);
            break;
          }
        }
        this.close(done, emit);
        if (wDone) out += done.close;
        if (out.length >= PIECE) (yield out, (out = ""));
        key = null;
        opened = done;
      }
      if (out.length >= PIECE) (yield out, (out = ""));
    }
  }

  /** First walk: a string key of map `frame`, its UTF-8 at `b[at..at+n)`. */
  private mapKey(frame: Frame, b: Uint8Array, at: number, n: number, canonical: boolean): void {
    if (!frame.plain) return;
    if (!canonical || isIndexBytes(b, at, n)) {
      frame.plain = false;
      return;
    }
    if (frame.i === 0) frame.dollar = n > 0 && b[at] === 0x24;
    if (this.held === this.hashes.length) {
      const grown = new Float64Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[this.held++] = hashBytes(b, at, n);
  }

  /** A container is complete; in the first walk, a map's verdict is kept: no two keys alike, and not one key starting with "$". */
  private close(frame: Frame, emit: boolean): void {
    if (emit || frame.hashStart < 0) return;
    let plain = frame.plain && !(frame.n === 2 && frame.dollar);
    const from = frame.hashStart;
    const n = this.held - from;
    if (plain && n > 1) {
      const h = this.hashes;
      if (n <= 16) {
        // few keys: each pair compared
        for (let i = from + 1; i < from + n && plain; i++) for (let j = from; j < i; j++) if (h[i] === h[j]) plain = false;
      } else {
        const keys = h.subarray(from, from + n).sort();
        for (let i = 1; i < n; i++) if (keys[i] === keys[i - 1]) plain = false;
      }
    }
    this.held = frame.hashStart;
    this.plainMaps[frame.slot] = plain ? 1 : 0;
  }

  /** The frame of a record of structure `s` (its fields follow). */
  private record(s: Structure): Frame {
    let plain = this.plainStructures.get(s);
    if (plain === undefined) this.plainStructures.set(s, (plain = plainNames(s.keys)));
    const n = s.keys.length;
    return { mode: plain ? RECORD_OBJECT : RECORD_PAIRS, n, i: 0, close: plain ? "}" : n === 0 ? "]}" : "]]}", keys: s.keys as string[], plain, hashStart: -1, dollar: false, slot: 0, twoByte: false };
  }

  /** A declaration's names are read: defines its structure; returns the frame of its first record. */
  private declareStructure(names: Frame): Frame {
    const records = this.records!;
    const s = records.structure(names.keys!, names.twoByte);
    records.define(names.slot, s);
    return this.record(s);
  }
}

/** The opening of a record's JSON. */
function opening(record: Frame): string {
  return record.mode === RECORD_OBJECT ? "{" : '{"$map":[';
}

/** The text of the last number {@link numberJson} read, as a map key or field name (`String` of the decoded value). */
let numberKey = "";

/** A number's JSON: plain where `encode` gives these bytes, else a tag. Sets {@link numberKey}. */
function numberJson(view: DataView, b: Uint8Array, p: number, t: number, n: number, kind: number): string {
  const at = p + 1;
  if (kind === WIRE_FLOAT) {
    const x = n === 4 ? view.getFloat32(at) : view.getFloat64(at);
    const text = (numberKey = String(x));
    if (n === 8 && Number.isFinite(x) && !Number.isSafeInteger(x)) return text;
    let special: string;
    if (x !== x) {
      let hex = "";
      for (let i = 0; i < n; i++) hex += (b[at + i]! < 16 ? "0" : "") + b[at + i]!.toString(16);
      special = hex === (n === 4 ? "7fc00000" : "7ff8000000000000") ? '"NaN"' : `"0x${hex}"`;
    } else special = x === Infinity ? '"Infinity"' : x === -Infinity ? '"-Infinity"' : Object.is(x, -0) ? '"-0"' : text;
    return `{"${n === 4 ? "$float32" : "$float64"}":${special}}`;
  }
  const signed = kind === WIRE_INT;
  let v: number | bigint;
  if (n === 1) v = signed ? view.getInt8(at) : b[at]!;
  else if (n === 2) v = signed ? view.getInt16(at) : view.getUint16(at);
  else if (n === 4) v = signed ? view.getInt32(at) : view.getUint32(at);
  else {
    // 64 bits: a number when safe, else a bigint, as decode's default int64 mode "auto"
    const big = signed ? view.getBigInt64(at) : view.getBigUint64(at);
    v = Number.isSafeInteger(Number(big)) ? Number(big) : big;
  }
  const text = (numberKey = String(v));
  if (typeof v === "number") {
    writeInt(scratch, 0, v);
    if (scratch[0] === t) return text;
  }
  return `{"${kind === WIRE_UINT ? "$uint" : "$int"}${8 * n}":${typeof v === "bigint" ? `"${text}"` : text}}`;
}

/**
 * MessagePack to JSON: each of the back-to-back values in `input` as one
 * line of JSON, in the lossless form described in docs/inspect.md ("JSON
 * form"), so that {@link fromJson} gives back the same bytes. With
 * `useRecords`, a record is written as a map of its field names would be
 * (so {@link fromJson} gives back a map that decodes to the same object).
 *
 * @param input the MessagePack bytes
 * @param options the decoder's limits and `useRecords` (as `inspect` takes them)
 * @returns one line of JSON per value, each ending in "\n"
 * @throws {DecodeError} for malformed input, as `decodeMulti` throws it
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { fromJson, toJson } from "@resizable/msgpack/inspect";
 * const bytes = encode({ id: 2n ** 64n - 1n, at: new Date(0), raw: new Uint8Array([1, 2]), ratio: -0 });
 * const json = toJson(bytes);
 * console.assert(json === '{"id":{"$uint64":"18446744073709551615"},"at":{"$timestamp":"1970-01-01T00:00:00Z"},"raw":{"$bin":"AQI="},"ratio":{"$float64":"-0"}}\n');
 * console.assert(fromJson(json).join() === bytes.join());
 * ```
 */
export function toJson(input: DecodeInput, options?: InspectOptions): string {
  // the checks (and their errors) are the inspector's, as decodeMulti's; the text is written from the bytes
  const result = inspect(input, options);
  if (result.error) throw result.error;
  const limits = decodeOptionsOf(options);
  const records = limits.useRecords ? new RecordTable(limits.structures ?? null, false) : null;
  records?.begin();
  const writer = new JsonWriter(records);
  const bytes = toBytes(input);
  let out = "";
  for (let p = 0; p < bytes.length; ) {
    const pieces = writer.write(bytes, p);
    for (let r = pieces.next(); ; r = pieces.next()) {
      if (r.done) {
        p = r.value;
        break;
      }
      out += r.value;
    }
  }
  return out;
}
