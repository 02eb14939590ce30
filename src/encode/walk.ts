/**
 * The encoder's walk: the type dispatch (the kinds of kind.ts, ordered by
 * frequency), the containers (arrays, plain objects and class instances,
 * `Map`s, `Set`s) and the cold error paths. {@link ValueWriter} writes
 * into the sink its `Encoder` owns; the scalar, string and extension
 * writers live in scalars.ts, strings.ts and
 * ext-writer.ts.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { badCount, changedAt, cycle, EncodeError, outOfStack, tooDeepAt, unreadable, unsupportedAt } from "../shared/errors.ts";
import { encodeExtension, type ExtensionWriter, writeAnyExt } from "./ext-writer.ts";
import type { ResolvedEncodeOptions } from "./options.ts";
import { encodeBigInt64, encodeBinary, encodeDate, encodeFloat, encodeNumber } from "./scalars.ts";
import { encodeKey, encodeString } from "./strings.ts";
import { ExtData, extensionEncoders, type ExtensionEntry } from "../format/extensions.ts";
import { writeContainerHeader } from "../format/forms.ts";
import { KIND_ARRAY, KIND_BINARY, KIND_DATE, KIND_MAP, KIND_RECORD, KIND_SET, objectKind, type ObjectKind } from "../format/kind.ts";
import type { Sink } from "./sink.ts";
import { binaryBytes } from "./size.ts";
import { findPath } from "./value-path.ts";
import { RecordTable, recordOptions, type RecordShape } from "./records.ts";

/**
 * Writes values into a sink: one per `Encoder` (and per re-entrant child),
 * with the options resolved once. The `Encoder` starts and ends each call;
 * this writes the value.
 */
export class ValueWriter implements ExtensionWriter {
  readonly sink: Sink;
  readonly extensions: ExtensionEntry[];
  readonly context: unknown;
  private readonly sortKeys: boolean;
  private readonly forceFloat32: boolean;
  private readonly ignoreUndefined: boolean;
  private readonly useBigInt64: boolean;
  readonly maxDepth: number;
  /** The value of the call under way and the depth it started at, for error paths. */
  root: unknown = undefined;
  rootDepth = 0;
  /** Where this call's output starts in the result (encodeInto's offset), for aligned extensions. */
  base = 0;
  /** The record structures, with `useRecords` (then objects are written by `writeRecord`); else null. */
  readonly records: RecordTable | null = null;

  constructor(sink: Sink, options: ResolvedEncodeOptions) {
    this.sink = sink;
    this.extensions = extensionEncoders(options.extensionCodec);
    this.context = options.context;
    this.sortKeys = options.sortKeys;
    this.forceFloat32 = options.forceFloat32;
    this.ignoreUndefined = options.ignoreUndefined;
    this.useBigInt64 = options.useBigInt64;
    this.maxDepth = options.maxDepth;
    if (options.forceIntegerToFloat) {
      // only these writers carry the override: the default ones keep one shape and an inlinable encodeNumber
      (this as unknown as { encodeNumber: (n: number) => void }).encodeNumber = this.encodeFloat;
    }
    const records = recordOptions(options, sink.counting);
    if (records !== null) {
      // objects and numbers of such writers go through their own methods: the default ones keep their shape
      this.records = new RecordTable(records);
      (this as unknown as { encodeRecord: ValueWriter["writeRecord"] }).encodeRecord = this.writeRecord;
      if (!options.forceIntegerToFloat) (this as unknown as { encodeNumber: (n: number) => void }).encodeNumber = this.encodeNumberBelowRecords;
    }
  }

  // ---- type dispatch, ordered by frequency: kindOf's order, with typeof first ----

  /** Writes `value`, found at `depth`. */
  encodeValue(value: unknown, depth: number): void {
    switch (typeof value) {
      case "string":
        encodeString(this.sink, value);
        return;
      case "number":
        this.encodeNumber(value);
        return;
      case "object":
        if (value === null) this.writeByte(0xc0); // nil
        else this.encodeObject(value, depth);
        return;
      case "boolean":
        this.writeByte(value ? 0xc3 : 0xc2); // true / false
        return;
      case "undefined":
        this.writeByte(0xc0); // nil
        return;
      case "bigint":
        this.encodeBigInt(value, depth);
        return;
      default:
        this.encodeFunctionOrSymbol(value, depth);
    }
  }

  private writeByte(byte: number): void {
    const s = this.sink;
    if (s.pos + 1 > s.bytes.length) s.grow(1);
    s.bytes[s.pos++] = byte;
  }

  private encodeNumber(n: number): void {
    encodeNumber(this.sink, n, this.forceFloat32, this.useBigInt64);
  }

  /** `encodeNumber` with forceIntegerToFloat. */
  private encodeFloat(n: number): void {
    encodeFloat(this.sink, n, this.forceFloat32);
  }

  private encodeObject(obj: object, depth: number): void {
    if (depth >= this.maxDepth) throw this.depthError(obj, depth);
    if (this.extensions.length !== 0 && encodeExtension(this, obj, depth)) return;
    const kind = objectKind(obj);
    if (kind === KIND_ARRAY) this.encodeArray(obj as unknown[], depth);
    else if (kind === KIND_RECORD) this.encodeRecord(obj as Record<string, unknown>, depth);
    else this.encodeOtherObject(obj, kind, depth);
  }

  /** Cold object kinds: binaries, Map, Set, Date, ExtData (functions and symbols never get here). */
  private encodeOtherObject(obj: object, kind: ObjectKind, depth: number): void {
    switch (kind) {
      case KIND_BINARY:
        encodeBinary(this.sink, binaryBytes(obj)!);
        return;
      case KIND_MAP:
        this.encodeMap(obj as Map<unknown, unknown>, depth);
        return;
      case KIND_DATE:
        encodeDate(this.sink, obj as Date);
        return;
      case KIND_SET:
        this.encodeSet(obj as Set<unknown>, depth);
        return;
      default:
        // KIND_EXT (arrays and records are written by encodeObject)
        writeAnyExt(this, (obj as ExtData).type, (obj as ExtData).data);
    }
  }

  private encodeArray(arr: readonly unknown[], depth: number): void {
    const n = arr.length;
    this.writeContainerHeader(n, 0x90, 0xdc, "array");
    for (let i = 0; i < n; i++) {
      // numbers and strings dispatched here, not through encodeValue: V8
      // stops inlining encodeValue once it has seen every type
      const item = arr[i];
      if (typeof item === "number") this.encodeNumber(item);
      else if (typeof item === "string") encodeString(this.sink, item);
      else this.encodeValue(item, depth + 1);
    }
    const after = arr.length;
    if (after !== n) throw this.changed(arr, depth, "array", n, after);
  }

  /** A Set, written as an array of its values (policy), its size checked after. */
  private encodeSet(set: Set<unknown>, depth: number): void {
    let n: number;
    let items: unknown[];
    try {
      n = set.size;
      items = [...set];
    } catch (e) {
      throw unreadable("Set", this.pathTo(set, depth), e); // a Proxy around a Set, say
    }
    this.encodeArray(items, depth);
    const after = set.size;
    if (after !== n) throw this.changed(set, depth, "Set", n, after);
  }

  private encodeRecord(obj: Record<string, unknown>, depth: number): void {
    const keys = Object.keys(obj);
    if (this.sortKeys || this.ignoreUndefined) {
      this.encodeRecordEntries(recordEntries(obj, keys, this.sortKeys, this.ignoreUndefined), depth);
      return;
    }
    const n = keys.length;
    this.writeContainerHeader(n, 0x80, 0xde, "map");
    // for-in reads values through V8's enum cache, much faster than obj[keys[i]];
    // its first n keys are the own ones, in Object.keys order, unless the object
    // changes under us (a getter): then the rest goes by `keys`. Objects with no
    // enum cache go by `keys` from the start: wide ones (dictionary mode) and
    // ones with elements (integer-like keys, which Object.keys lists first)
    let i = 0;
    if (n <= RECORD_FOR_IN_MAX && !startsWithDigit(keys)) for (const key in obj) {
      if (i === n || key !== keys[i]) break;
      const value = obj[key];
      encodeKey(this.sink, key);
      if (typeof value === "number") this.encodeNumber(value);
      else if (typeof value === "string") encodeString(this.sink, value);
      else this.encodeValue(value, depth + 1);
      i++;
    }
    for (; i < n; i++) {
      const key = keys[i]!;
      const value = obj[key];
      encodeKey(this.sink, key);
      if (typeof value === "number") this.encodeNumber(value);
      else if (typeof value === "string") encodeString(this.sink, value);
      else this.encodeValue(value, depth + 1);
    }
  }

  // ---- records (useRecords): encodeRecord is writeRecord on such writers ----

  /**
   * A plain object as a record: its structure's identifier (declared
   * first when new to the message), then its values in key order. With a
   * `useRecords` function that says no, as a map.
   */
  private writeRecord(obj: Record<string, unknown>, depth: number): void {
    const table = this.records!;
    if (table.filter !== null && !table.filter(obj)) {
      PLAIN_RECORD.call(this, obj, depth);
      return;
    }
    let entries: unknown[] | null = null;
    // the shape last written at this depth, if the object's keys (walked by for-in, no array made) are its keys
    let shape = table.recentAt(depth);
    let keys: readonly string[];
    if (shape !== null && !this.sortKeys && !this.ignoreUndefined && Object.getPrototypeOf(obj) === Object.prototype && hasKeys(obj, shape.keys)) {
      keys = shape.keys;
    } else {
      let own = Object.keys(obj);
      if (this.sortKeys || this.ignoreUndefined) {
        entries = recordEntries(obj, own, this.sortKeys, this.ignoreUndefined);
        own = [];
        for (let i = 0; i < entries.length; i += 2) own.push(entries[i] as string);
      }
      keys = own;
      shape = table.find(own, depth);
    }
    if (shape.index < 0 && table.assign(shape)) this.declareShape(shape);
    else this.writeRecordId(shape.index);
    if (entries !== null) {
      for (let i = 1; i < entries.length; i += 2) this.encodeValue(entries[i], depth + 1);
      return;
    }
    // exactly one value per key, read as encodeRecord reads them (for-in while it agrees with `keys`)
    const n = keys.length;
    let i = 0;
    if (n <= RECORD_FOR_IN_MAX && !startsWithDigit(keys)) for (const key in obj) {
      if (i === n || key !== keys[i]) break;
      const value = obj[key];
      if (typeof value === "number") this.encodeNumber(value);
      else if (typeof value === "string") encodeString(this.sink, value);
      else this.encodeValue(value, depth + 1);
      i++;
    }
    for (; i < n; i++) {
      const value = obj[keys[i]!];
      if (typeof value === "number") this.encodeNumber(value);
      else if (typeof value === "string") encodeString(this.sink, value);
      else this.encodeValue(value, depth + 1);
    }
  }

  /** A record identifier: one byte 0x40 + index, or from index 32 with two-byte identifiers, 0x60 + (index & 31) and (index - 32) >> 5. */
  private writeRecordId(index: number): void {
    const s = this.sink;
    if (s.pos + 2 > s.bytes.length) s.grow(2);
    if (index < 32 || !this.records!.twoByte) {
      s.bytes[s.pos++] = 0x40 + index;
    } else {
      s.bytes[s.pos++] = 0x60 + (index & 31);
      s.bytes[s.pos++] = (index - 32) >> 5;
    }
  }

  /** Declares a structure: fixext 1 (or fixext 2, two-byte identifiers) of type 0x72 with its identifier, then the array of its field names. */
  private declareShape(shape: RecordShape): void {
    const s = this.sink;
    if (s.pos + 4 > s.bytes.length) s.grow(4);
    s.bytes[s.pos++] = shape.index < 32 || !this.records!.twoByte ? 0xd4 : 0xd5;
    s.bytes[s.pos++] = 0x72;
    this.writeRecordId(shape.index);
    const keys = shape.keys;
    this.writeContainerHeader(keys.length, 0x90, 0xdc, "array");
    for (let i = 0; i < keys.length; i++) encodeKey(s, keys[i]!);
  }

  /** `encodeNumber` with records: 64-127 as uint 8, since their fixint bytes start records. */
  private encodeNumberBelowRecords(n: number): void {
    if (n >= 64 && n < 128 && (n | 0) === n) {
      const s = this.sink;
      if (s.pos + 2 > s.bytes.length) s.grow(2);
      s.bytes[s.pos++] = 0xcc; // uint 8
      s.bytes[s.pos++] = n;
      return;
    }
    encodeNumber(this.sink, n, this.forceFloat32, this.useBigInt64);
  }

  /** A map of `entries` (key, value, key, value...), read before the header. */
  private encodeRecordEntries(entries: unknown[], depth: number): void {
    const n = entries.length;
    this.writeContainerHeader(n / 2, 0x80, 0xde, "map");
    for (let i = 0; i < n; i += 2) {
      encodeKey(this.sink, entries[i] as string);
      this.encodeValue(entries[i + 1], depth + 1);
    }
  }

  private encodeMap(map: Map<unknown, unknown>, depth: number): void {
    // a subclass or a Proxy may answer anything: the header checks the size, the loop the count
    let n: number;
    let entries: Iterator<unknown>;
    try {
      n = map.size;
      entries = map[Symbol.iterator]();
      if (typeof entries?.next !== "function") throw new TypeError("its iterator has no next()");
    } catch (e) {
      throw unreadable("Map", this.pathTo(map, depth), e); // a Proxy around a Map, say
    }
    this.writeContainerHeader(n, 0x80, 0xde, "map");
    let i = 0;
    for (let r = entries.next(); r?.done !== true; r = entries.next()) {
      const entry = r?.value;
      if (i === n || entry === null || typeof entry !== "object") throw this.changed(map, depth, "Map", n, i === n ? "more" : "a non-entry");
      this.encodeValue((entry as unknown[])[0], depth + 1);
      this.encodeValue((entry as unknown[])[1], depth + 1);
      i++;
    }
    if (i !== n) throw this.changed(map, depth, "Map", n, i);
  }

  /** fix / 16 / 32 header of an array (0x90, 0xdc) or map (0x80, 0xde), its count checked. */
  writeContainerHeader(n: number, fix: number, code16: number, what: string): void {
    if (n >>> 0 !== n) throw badCount(what, n);
    const s = this.sink;
    if (s.pos + 5 > s.bytes.length) s.grow(5);
    s.pos = writeContainerHeader(s.bytes, s.pos, n, fix, code16);
  }

  private encodeBigInt(n: bigint, depth: number): void {
    if (!this.useBigInt64 && this.extensions.length !== 0 && encodeExtension(this, n, depth)) return;
    encodeBigInt64(this.sink, n);
  }

  /** A function or symbol: an extension may claim it (as in @msgpack/msgpack), else it cannot be encoded. */
  private encodeFunctionOrSymbol(value: unknown, depth: number): void {
    if (depth >= this.maxDepth) throw this.depthError(value, depth);
    if (this.extensions.length !== 0 && encodeExtension(this, value, depth)) return;
    throw unsupportedAt(value, this.pathTo(value, depth));
  }

  // ---- errors: cold, with the path of the value found by walking again from the root ----

  /** `value` at `depth` is past maxDepth (`depth` Infinity: the call stack ran out): a cycle, or too deep. */
  depthError(value: unknown, depth: number): EncodeError {
    const found = findPath(this.root, this.rootDepth, this.sortKeys, value, depth);
    if (found?.cycleTo !== undefined) return cycle(` at ${found.path} (the object at ${found.cycleTo})`);
    if (depth === Infinity) return outOfStack(this.maxDepth);
    return tooDeepAt(found?.path ?? "?", depth + 1, this.maxDepth);
  }

  /** The path of `value` at `depth` (the first in encoding order), or "?" when the walk cannot find it. */
  private pathTo(value: unknown, depth: number): string {
    return findPath(this.root, this.rootDepth, this.sortKeys, value, depth)?.path ?? "?";
  }

  /** A Map, Set or array at `depth` whose count changed while it was being encoded. */
  private changed(obj: object, depth: number, what: string, before: unknown, after: unknown): EncodeError {
    return changedAt(what, this.pathTo(obj, depth), before, after);
  }
}

/** The default object writer, which writeRecord falls back to for objects a `useRecords` function turns down. */
const PLAIN_RECORD = (ValueWriter.prototype as unknown as { encodeRecord: (this: ValueWriter, obj: Record<string, unknown>, depth: number) => void }).encodeRecord;

/** The widest object walked with for-in: past it, V8 keeps objects in dictionary mode, indexed faster by their keys. */
const RECORD_FOR_IN_MAX = 64;

/** Whether for-in walks exactly `keys`, in order, over `obj`. */
function hasKeys(obj: object, keys: readonly string[]): boolean {
  const n = keys.length;
  let i = 0;
  for (const key in obj) {
    if (i === n || key !== keys[i]) return false;
    i++;
  }
  return i === n;
}

/** Whether the first key starts with a digit: an object with elements (integer-like keys come first). */
function startsWithDigit(keys: readonly string[]): boolean {
  if (keys.length === 0) return false;
  const c = keys[0]!.charCodeAt(0);
  return c >= 0x30 && c <= 0x39;
}

/**
 * An object's entries as key, value, key, value... with sortKeys (keys
 * sorted) or ignoreUndefined (undefined values left out): every value read
 * once, so a map's count is the count of entries that follow even when a
 * getter answers differently each time.
 */
export function recordEntries(obj: Record<string, unknown>, keys: string[], sortKeys: boolean, ignoreUndefined: boolean): unknown[] {
  if (sortKeys) keys.sort();
  const entries: unknown[] = [];
  for (let i = 0; i < keys.length; i++) {
    const value = obj[keys[i]!];
    if (value === undefined && ignoreUndefined) continue;
    entries.push(keys[i], value);
  }
  return entries;
}

