/**
 * The inspector: reads MessagePack bytes into a tree of nodes, one per
 * value, each with its offset, header, form name, length and value or
 * children. It reads with the decoder's first-byte table
 * (src/format/forms.ts), its timestamp and UTF-8 readers and its error
 * helpers, and makes the decoder's checks in the decoder's order, so the
 * first error it reports is the `DecodeError` (code, offset and message)
 * that `decodeMulti` throws for the same bytes and limits. Where the
 * framing survives an error (invalid UTF-8, a bad timestamp, the reserved
 * byte, a length over a limit, a container that declares more items than
 * bytes left) it reads on, so the tree also shows the rest. With
 * `useRecords` it reads msgpackr's records as the decoder's record reader
 * (src/records/read.ts) does, in the same order of checks.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 * Records: https://github.com/kriszyp/msgpackr#record-structure-extension-definition
 *
 * @module
 */

import { DecodeError, invalidUtf8, overLimit, reservedByte, stackOverflow, tooDeepToDecode, truncated } from "../common/errors.ts";
import { ExtData } from "../format/extensions.ts";
import { FIRST_BYTE, fixedSizeOf, formName, lengthFieldOf, readLength, wireKindOf } from "../format/forms.ts";
import { MAX_U32, type DecodeLimits } from "../common/limits.ts";
import { decodeOptionsOf, type ResolvedDecodeOptions } from "../decode/options.ts";
import { badRecordId, declaredSlot, declaresAt, fieldName, isNamesArray, noFieldNames, RECORD_EXT_TYPE, recordSlot, RecordTable, takesHigh, undefinedRecord, type Structure } from "../records/table.ts";
import { readTimestamp, TIMESTAMP_TYPE } from "../format/timestamp.ts";
import { decodeUtf8 } from "../format/utf8.ts";
import { toBytes, type DecodeInput } from "../common/input.ts";

export type { InspectNode, InspectOptions, InspectResult, InspectType } from "./types.ts";
import type { InspectNode, InspectOptions, InspectResult, InspectType } from "./types.ts";

/**
 * What records carry from one back-to-back value to the next: the
 * structures in force (null without `useRecords`) and where the field
 * names of each were declared.
 */
interface RecordState {
  readonly records: RecordTable | null;
  readonly nameOffsets: Map<Structure, number[]>;
}

/** The record state at the start of an input: the shared `structures` only. */
function recordState(limits: ResolvedDecodeOptions): RecordState {
  const records = limits.useRecords ? new RecordTable(limits.structures ?? null, false) : null;
  records?.begin();
  return { records, nameOffsets: new Map() };
}

/** The name of the form first byte `t` starts. */
export function formOf(t: number): string {
  if (t < 0x80) return "positive fixint";
  if (t < 0x90) return "fixmap";
  if (t < 0xa0) return "fixarray";
  if (t < 0xc0) return "fixstr";
  if (t >= 0xe0) return "negative fixint";
  if (t === 0xc0) return "nil";
  if (t === 0xc1) return "never used";
  if (t === 0xc2) return "false";
  if (t === 0xc3) return "true";
  if (t >= 0xd4 && t <= 0xd8) return `fixext ${fixedSizeOf(FIRST_BYTE[t]!)}`;
  return formName(t);
}

const TYPES: readonly InspectType[] = ["nil", "boolean", "boolean", "int", "int", "float", "str", "bin", "array", "map", "ext", "reserved"];

/** Reads one input; see {@link inspect}. */
class Walk {
  readonly nodes: InspectNode[] = [];
  error: DecodeError | null = null;
  pos = 0;
  private readonly b: Uint8Array;
  private readonly limits: DecodeLimits;
  private readonly end: number;
  private readonly base: number;
  private view: DataView | null = null;
  /** The record structures in force (`useRecords`), else null. */
  private readonly records: RecordTable | null;
  /** How many more nodes this walk keeps: once none, the rest are read and checked but not kept. */
  private room: number;
  /** Where the field names of each structure declared in this input are (the last declaration of those names). */
  private readonly nameOffsets: Map<Structure, number[]>;

  /** @param sequence the record state left by the parts read before this one (see {@link inspectSequence}) */
  constructor(b: Uint8Array, limits: ResolvedDecodeOptions, base: number, sequence: RecordState, maxNodes: number) {
    this.room = maxNodes;
    this.b = b;
    this.limits = limits;
    this.end = b.length;
    this.base = base;
    this.records = sequence.records;
    this.nameOffsets = sequence.nameOffsets;
  }

  /** Pushes `node` on `into` while there is room for it; the walk keeps no node after the first it drops. */
  private keep(into: InspectNode[] | undefined, node: InspectNode): void {
    if (into === undefined || this.room <= 0) return;
    this.room--;
    into.push(node);
  }

  /** Before the name or key at `i` of a map or record: drops the pair unless both fit (a key is never kept without its value). */
  private pair(i: number): void {
    if (i % 2 === 0 && this.room < 2) this.room = 0;
  }

  /** After a container's items were all read: how many of `n` (pairs when `step` is 2) were dropped. */
  private omitted(node: InspectNode, n: number, step: number): void {
    const kept = node.children!.length / step;
    if (kept < n) node.omitted = n - Math.floor(kept);
  }

  /** Records `e` on `node` (and as the first error, if it is); returns the node. */
  private fail(node: InspectNode, e: DecodeError): InspectNode {
    if (node.error === undefined) node.error = e;
    if (this.error === null) this.error = e;
    return node;
  }

  /** Records `e` on `node` and ends the walk: `e` is thrown, and {@link run} stops there (no item after it can be framed). */
  private stop(node: InspectNode, e: DecodeError): never {
    this.fail(node, e);
    throw e;
  }

  /** A TRUNCATED error at `start` for an item that needs `need` bytes from it; the walk ends. */
  private short(node: InspectNode, start: number, need: number, what: string): never {
    node.length = this.end - start;
    this.pos = this.end;
    return this.stop(node, truncated(this.base + start, need, this.base + this.end, what));
  }

  private dv(): DataView {
    return this.view ?? (this.view = new DataView(this.b.buffer, this.b.byteOffset, this.b.byteLength));
  }

  /** Reads the back-to-back values of the whole input. */
  run(): void {
    try {
      while (this.pos < this.end) {
        this.value(0, this.nodes);
      }
    } catch (e) {
      // an error that ended the walk (on its node already), or the call stack's end
      const err = stackOverflow(e, this.base + this.pos);
      if (!(err instanceof DecodeError)) throw err;
      if (this.error === null) this.error = err;
    }
  }

  /** Reads the value at `pos` at nesting `depth`, pushing it on `into` before its items (so a walk that stops keeps it). */
  value(depth: number, into?: InspectNode[]): InspectNode {
    const b = this.b;
    const start = this.pos;
    const t = b[start]!;
    const form = FIRST_BYTE[t]!;
    const kind = wireKindOf(form);
    const field = lengthFieldOf(form);
    if (this.records !== null) {
      // as the decoder's record reader: identifiers, then declarations, then the rest
      if (t >= 0x40 && t < 0x80) return this.record(t, depth, start, into);
      if (declaresAt(b, start)) return this.definition(t === 0xd5, depth, start, into);
    }
    const node: InspectNode = { offset: this.base + start, headerLength: 1, length: 1, form: formOf(t), type: TYPES[kind]! };
    this.keep(into, node);
    this.pos = start + 1;
    if (t < 0x80) return ((node.value = t), node);
    if (t >= 0xe0) return ((node.value = t - 0x100), node);
    if (field > 0) {
      if (start + 1 + field > this.end) this.short(node, start, 1 + field, formName(t));
      this.pos = start + 1 + field;
    }
    const n = field === 0 ? fixedSizeOf(form) : readLength(b, start + 1, field);
    node.headerLength = 1 + field;
    switch (kind) {
      case 0: // nil
        node.value = null;
        return node;
      case 1: // false
      case 2: // true
        node.value = kind === 2;
        return node;
      case 3: // uint
      case 4: // int
      case 5: {
        // float
        const at = this.pos;
        if (at + n > this.end) this.short(node, start, 1 + n, formName(t));
        this.pos = at + n;
        node.length = 1 + n;
        node.value = kind === 5 ? (n === 4 ? this.dv().getFloat32(at) : this.dv().getFloat64(at)) : this.int(at, n, kind === 4);
        return node;
      }
      case 6: // str
        return this.str(node, n, start);
      case 7: // bin
        return this.bin(node, n, start);
      case 8: // array
        return this.array(node, n, start, depth);
      case 9: // map
        return this.map(node, n, start, depth);
      case 10: // ext
        return this.ext(node, n, start);
      default: // 0xc1
        this.fail(node, reservedByte(this.base + start));
        return node;
    }
  }

  private int(at: number, n: number, signed: boolean): number | bigint {
    const b = this.b;
    if (n === 1) return signed ? (b[at]! << 24) >> 24 : b[at]!;
    if (n === 2) return signed ? (((b[at]! << 8) | b[at + 1]!) << 16) >> 16 : (b[at]! << 8) | b[at + 1]!;
    if (n === 4) return signed ? this.dv().getInt32(at) : this.dv().getUint32(at);
    // 64 bits: a number when safe, else a bigint, as decode's default int64 mode "auto"
    const big = signed ? this.dv().getBigInt64(at) : this.dv().getBigUint64(at);
    return Number.isSafeInteger(Number(big)) ? Number(big) : big;
  }

  /** Checks a payload of `n` bytes against `max` and the bytes left; returns where it starts. */
  private payload(node: InspectNode, n: number, max: number, start: number, what: string, limitName: string): number {
    if (n > max) this.fail(node, overLimit(what, this.base + start, n, limitName, max));
    const at = this.pos;
    if (at + n > this.end) this.short(node, start, at - start + n, what);
    this.pos = at + n;
    node.length = at + n - start;
    return at;
  }

  private str(node: InspectNode, n: number, start: number): InspectNode {
    node.count = n;
    const at = this.payload(node, n, this.limits.maxStrLength, start, "string", "maxStrLength");
    try {
      node.value = decodeUtf8(this.b, at, n);
    } catch {
      // shown with U+FFFD in place of the bad bytes
      node.value = new TextDecoder().decode(this.b.subarray(at, at + n));
      this.fail(node, invalidUtf8(this.base + at));
    }
    return node;
  }

  private bin(node: InspectNode, n: number, start: number): InspectNode {
    node.count = n;
    const at = this.payload(node, n, this.limits.maxBinLength, start, "binary", "maxBinLength");
    node.value = this.b.subarray(at, at + n);
    return node;
  }

  private array(node: InspectNode, n: number, start: number, depth: number): InspectNode {
    node.count = n;
    node.length = this.pos - start;
    const children: InspectNode[] = (node.children = []);
    if (n > this.limits.maxArrayLength) this.fail(node, overLimit("array", this.base + start, n, "maxArrayLength", this.limits.maxArrayLength));
    else if (this.pos + n > this.end) this.fail(node, truncated(this.base + start, this.pos - start + n, this.base + this.end, `array of ${n} items`));
    this.deeper(node, start, depth);
    try {
      for (let i = 0; i < n; i++) {
        if (this.pos >= this.end) this.short(node, this.pos, 1, "value");
        this.value(depth + 1, children);
      }
    } finally {
      node.length = this.pos - start;
    }
    this.omitted(node, n, 1);
    return node;
  }

  private map(node: InspectNode, n: number, start: number, depth: number): InspectNode {
    node.count = n;
    node.length = this.pos - start;
    const children: InspectNode[] = (node.children = []);
    if (n > this.limits.maxMapLength) this.fail(node, overLimit("map", this.base + start, n, "maxMapLength", this.limits.maxMapLength));
    else if (this.pos + 2 * n > this.end) this.fail(node, truncated(this.base + start, this.pos - start + 2 * n, this.base + this.end, `map of ${n} entries`));
    this.deeper(node, start, depth);
    try {
      for (let i = 0; i < 2 * n; i++) {
        if (this.pos >= this.end) this.short(node, this.pos, 1, "value");
        this.pair(i);
        this.value(depth + 1, children);
      }
    } finally {
      node.length = this.pos - start;
    }
    this.omitted(node, n, 2);
    return node;
  }

  /** The depth check of a container at `depth`: past `maxDepth`, the walk ends (its items are not read). */
  private deeper(node: InspectNode, start: number, depth: number): void {
    if (depth < this.limits.maxDepth) return;
    this.stop(node, tooDeepToDecode(this.base + start, this.limits.maxDepth));
  }

  /** A record whose identifier's first byte `t` is at `start` (see src/records/read.ts). */
  private record(t: number, depth: number, start: number, into?: InspectNode[]): InspectNode {
    const node: InspectNode = { offset: this.base + start, headerLength: 1, length: 1, form: `record 0x${t.toString(16)}`, type: "record", recordId: [t] };
    this.keep(into, node);
    this.pos = start + 1;
    let high = 0;
    const slots = this.records!.slots;
    if (takesHigh(slots, t)) {
      if (start + 2 > this.end) this.short(node, start, 2, "record identifier");
      high = this.b[this.pos++]!;
      node.headerLength = node.length = 2;
      node.recordId!.push(high);
      node.form += ` ${high}`;
    }
    const s = slots[recordSlot(t, high)];
    if (s === undefined) {
      // its fields are unknown, so where the next value starts: the walk ends
      node.form += " (no structure)";
      this.stop(node, undefinedRecord(this.base + start, t, recordSlot(t, high)));
    }
    return this.fields(node, s, depth, start);
  }

  /** A structure declaration at `start` (fixext 1, or fixext 2 with `twoByte`, of type 0x72), its field names, then its first record. */
  private definition(twoByte: boolean, depth: number, start: number, into?: InspectNode[]): InspectNode {
    const size = twoByte ? 2 : 1;
    const node: InspectNode = { offset: this.base + start, headerLength: 2 + size, length: 1, form: "record", type: "record" };
    const def: InspectNode = { offset: this.base + start, headerLength: 2 + size, length: 1, form: "record definition", type: "ext", count: size, extType: RECORD_EXT_TYPE };
    node.definition = def;
    this.keep(into, node);
    try {
      if (start + 2 + size > this.end) this.short(def, start, 2 + size, "record definition");
      const id = this.b[start + 2]!;
      const high = twoByte ? this.b[start + 3]! : 0;
      node.recordId = twoByte ? [id, high] : [id];
      node.form = `record 0x${id.toString(16)}${twoByte ? ` ${high}` : ""}`;
      def.form = `record definition 0x${id.toString(16)}${twoByte ? ` ${high}` : ""}`;
      def.value = new ExtData(RECORD_EXT_TYPE, this.b.subarray(start + 2, start + 2 + size));
      const slot = declaredSlot(id, high, twoByte);
      if (slot < 0) this.fail(def, badRecordId(this.base + start, id));
      const p = (this.pos = def.length = start + 2 + size);
      if (p >= this.end) this.short(def, start, p - start + 1, "record definition");
      const t = this.b[p]!;
      if (!isNamesArray(t)) {
        // not an array of names: how many fields follow is unknown, the walk ends
        this.stop(def, noFieldNames(this.base + start, t));
      }
      const field = t <= 0x9f ? 0 : t === 0xdc ? 2 : 4;
      const names: InspectNode = { offset: this.base + p, headerLength: 1 + field, length: 1 + field, form: formOf(t), type: "array", children: [] };
      def.children = [names];
      this.pos = p + 1;
      if (field > 0) {
        if (p + 1 + field > this.end) this.short(names, p, 1 + field, formName(t));
        this.pos = p + 1 + field;
      }
      const n = field === 0 ? t & 0x0f : readLength(this.b, p + 1, field);
      names.count = n;
      if (n > this.limits.maxMapLength) this.fail(def, overLimit("record", this.base + start, n, "maxMapLength", this.limits.maxMapLength));
      else if (this.pos + n > this.end) this.fail(def, truncated(this.base + start, this.pos - start + n, this.base + this.end, `record definition of ${n} fields`));
      this.deeper(def, start, depth);
      const keys: string[] = [];
      try {
        for (let i = 0; i < n; i++) {
          if (this.pos >= this.end) this.short(names, this.pos, 1, "value");
          const name = this.value(depth + 1, names.children);
          keys.push(this.fieldName(name));
        }
      } finally {
        names.length = this.pos - p;
        def.length = this.pos - start;
      }
      this.omitted(names, n, 1);
      const s = this.records!.structure(keys, twoByte);
      this.nameOffsets.set(s, names.children!.map((c) => c.offset));
      if (slot >= 0) this.records!.define(slot, s);
      return this.fields(node, s, depth, start);
    } finally {
      node.length = this.pos - start;
    }
  }

  /** A field name as records take it ({@link fieldName}); any other value is an error, and is named by `String` to read on. */
  private fieldName(name: InspectNode): string {
    const type = name.type;
    try {
      return fieldName(type === "str" || type === "int" || type === "float" || type === "nil" || type === "boolean" ? name.value : {}, name.offset);
    } catch (e) {
      this.fail(name, e as DecodeError);
      return type === "nil" || type === "boolean" ? String(name.value) : `(${type} at ${name.offset})`;
    }
  }

  /** The fields of a record of structure `s` (its identifier or declaration at `start`), read into `node`. */
  private fields(node: InspectNode, s: Structure, depth: number, start: number): InspectNode {
    const keys = s.keys;
    const n = keys.length;
    const named = this.nameOffsets.get(s);
    node.count = n;
    node.form += ` (${n} ${n === 1 ? "field" : "fields"})`;
    const children: InspectNode[] = (node.children = []);
    if (this.pos + n > this.end) this.fail(node, truncated(this.base + start, this.pos - start + n, this.base + this.end, `record of ${n} fields`));
    this.deeper(node, start, depth);
    try {
      for (let i = 0; i < n; i++) {
        if (this.pos >= this.end) this.short(node, this.pos, 1, "value");
        // the name: where the declaration read it, if it is in this input
        this.pair(0);
        this.keep(children, { offset: named?.[i] ?? node.offset, headerLength: 0, length: 0, form: "field", type: "str", value: keys[i]! });
        this.value(depth + 1, children);
      }
    } finally {
      node.length = this.pos - start;
    }
    this.omitted(node, n, 2);
    return node;
  }

  private ext(node: InspectNode, n: number, start: number): InspectNode {
    node.count = n;
    if (n > this.limits.maxExtLength) this.fail(node, overLimit("extension", this.base + start, n, "maxExtLength", this.limits.maxExtLength));
    if (this.pos + 1 > this.end) this.short(node, start, this.pos - start + 1, "extension type");
    const type = (this.b[this.pos++]! << 24) >> 24;
    node.headerLength++;
    node.extType = type;
    node.form += ` (type ${type})`;
    const at = this.payload(node, n, MAX_U32, start, "extension", "maxExtLength");
    const data = this.b.subarray(at, at + n);
    if (type !== TIMESTAMP_TYPE) {
      node.value = new ExtData(type, data);
      return node;
    }
    node.form = node.form.slice(0, -1) + `, timestamp ${n * 8})`;
    try {
      node.value = readTimestamp(data, this.base + start);
      const view = new DataView(data.buffer, data.byteOffset, n);
      const first = view.getUint32(0);
      node.time = n === 4 ? { sec: first, nsec: 0 } : n === 8 ? { sec: (first & 3) * 0x100000000 + view.getUint32(4), nsec: first >>> 2 } : { sec: Number(view.getBigInt64(4)), nsec: first };
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      node.value = new ExtData(type, data);
      node.form = node.form.replace(/, timestamp \d+\)$/, ", not a timestamp)");
      this.fail(node, e);
    }
    return node;
  }
}

/**
 * Reads MessagePack bytes into a tree: one node per back-to-back value,
 * each with its offset, header, form, length, and its value or its
 * children. Never throws for malformed bytes: the first error is in
 * `error`, exactly as `decodeMulti` throws it for the same bytes (the same
 * code, offset and message), and on the node where it was found; the
 * nodes read before it are kept, and where the framing survives the
 * error, those after it too.
 *
 * @param input the bytes: a `Uint8Array`, `ArrayBuffer`, any view, or an
 *   array of byte values
 * @param options the decoder's limits, the offset of the first byte, and
 *   `useRecords` (with `structures`) to read msgpackr's records
 * @returns the nodes, the first error (or null) and where reading stopped
 * @throws {DecodeError} `INVALID_ARGUMENT` for input that is not bytes or
 *   an invalid option
 *
 * @example A map, and a truncated input
 * ```ts
 * import { inspect } from "@resizable/msgpack/inspect";
 * const { nodes, error } = inspect(new Uint8Array([0x81, 0xa1, 0x61, 0xcd, 0x01, 0x00]));
 * console.assert(nodes[0]!.form === "fixmap" && nodes[0]!.children!.length === 2);
 * console.assert(nodes[0]!.children![1]!.form === "uint 16" && nodes[0]!.children![1]!.value === 256);
 * console.assert(error === null);
 * const cut = inspect(new Uint8Array([0x92, 0x01]));
 * console.assert(cut.error!.code === "TRUNCATED" && cut.error!.offset === 0);
 * console.assert(cut.nodes[0]!.children![0]!.value === 1);
 * ```
 */
export function inspect(input: DecodeInput, options?: InspectOptions): InspectResult {
  return inspectSequence(options)(input, options?.offset ?? 0);
}

/**
 * {@link inspect} for the parts of one input read apart, in order (each
 * top-level value of a stream, with its offset in the stream as
 * `offset`): with `useRecords`, the structures declared in one part stay
 * declared for the next, so the parts give the nodes that `inspect` gives
 * for the whole input. Internal: the command line reads its input this
 * way, one value at a time.
 *
 * @param options as for `inspect` (its `offset` is not read: each part gives its own)
 * @param maxNodes the nodes kept per part: past them, the part is read and
 *   checked to its end, its containers say how many items they leave out
 *   (`omitted`), and no more nodes are kept (the command line's window)
 * @returns a function that inspects the next part, starting at `offset`
 */
export function inspectSequence(options?: InspectOptions, maxNodes: number = Infinity): (input: DecodeInput, offset: number) => InspectResult {
  const limits = decodeOptionsOf(options);
  const sequence = recordState(limits);
  return (input, offset) => {
    const bytes = toBytes(input);
    const walk = new Walk(bytes, limits, offset, sequence, maxNodes);
    walk.run();
    return { bytes, start: offset, nodes: walk.nodes, error: walk.error, end: offset + walk.pos };
  };
}
