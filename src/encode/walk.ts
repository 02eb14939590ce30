/**
 * The encoder's walk: the type dispatch (the kinds of kind.ts, ordered by
 * frequency), the containers (arrays, plain objects and class instances,
 * `Map`s, `Set`s) and the cold error paths. {@link ValueWriter} writes
 * into the output its `Encoder` owns; the scalar, string and extension
 * writers live in scalars.ts, strings.ts and
 * ext-writer.ts.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { badCount, changed, cycle, EncodeError, isEngineStackOverflow, iteratorWithoutNext, outOfStack, placeAt, problemOf, tooDeep, unreadable, unsupported } from "../common/errors.ts";
import { encodeExtension, type ExtensionWriter, writeAnyExt } from "./ext-writer.ts";
import type { ResolvedEncodeOptions } from "./options.ts";
import { encodeBigInt64, encodeBinary, encodeDate, encodeFloat, encodeNumber } from "./scalars.ts";
import { encodeKey, encodeString } from "./strings.ts";
import { ExtData, extensionEncoders, type ExtensionEntry } from "../format/extensions.ts";
import { writeContainerHeader } from "../format/forms.ts";
import { KIND_ARRAY, KIND_BINARY, KIND_BOXED, KIND_DATE, KIND_MAP, KIND_RECORD, KIND_SET, objectKind, type ObjectKind, unbox } from "../format/kind.ts";
import type { Output } from "./output.ts";
import { binaryBytes } from "./size.ts";
import { modules } from "../common/modules.ts";

/** What a writer with `useRecords` gets from the records module (`@resizable/msgpack/records`, which installs it). */
export interface RecordWriting {
  /** Writes `obj`, a plain object found at `depth`, as a record (or, when a `useRecords` function turns it down, as a map). */
  write(w: ValueWriter, obj: Record<string, unknown>, depth: number): void;
  /** Starts a message. */
  begin(): void;
  /** Ends a message that was written whole. */
  end(): void;
  /** Forgets what a message that failed declared. */
  abort(): void;
}

/** The records module's encoding side: makes the records of one writer. */
export interface RecordEncoding {
  /** The records of a writer with these options (`counting`: a writer that only counts bytes, as for `encodedSize`). */
  writer(options: ResolvedEncodeOptions, counting: boolean): RecordWriting;
}

/**
 * Writes values into an output: one per `Encoder` (and per re-entrant child),
 * with the options resolved once. The `Encoder` starts and ends each call;
 * this writes the value.
 */
export class ValueWriter implements ExtensionWriter {
  readonly out: Output;
  readonly extensions: ExtensionEntry[];
  readonly context: unknown;
  private readonly sortKeys: boolean;
  protected readonly forceFloat32: boolean;
  private readonly ignoreUndefined: boolean;
  protected readonly useBigInt64: boolean;
  /** Write `undefined` as fixext 1, type 0, payload 0 (`d4 00 00`) instead of nil. */
  private readonly undefinedAsExtension: boolean;
  readonly maxDepth: number;
  /**
   * Where a failure sits, noted by each container an error unwinds
   * through, innermost first: a path segment (`[3]`, `.name`), then the
   * container. Emptied when a call starts; read by {@link ValueWriter.failure}.
   */
  readonly trail: unknown[];
  /** Where this call's output starts in the result (encodeInto's offset), for aligned extensions. */
  base: number;
  /** The records, with `useRecords` (then plain objects are written by them); else null. */
  readonly records: RecordWriting | null;

  constructor(out: Output, options: ResolvedEncodeOptions) {
    this.out = out;
    this.extensions = extensionEncoders(options.extensionCodec);
    this.context = options.context;
    this.sortKeys = options.sortKeys;
    this.forceFloat32 = options.forceFloat32;
    this.ignoreUndefined = options.ignoreUndefined;
    this.useBigInt64 = options.useBigInt64;
    this.undefinedAsExtension = options.undefinedAsExtension;
    this.maxDepth = options.maxDepth;
    this.trail = [];
    this.base = 0;
    // the options resolved: with records asked for, the records module is installed
    this.records = options.useRecords !== false ? (modules.records as { readonly encoding: RecordEncoding }).encoding.writer(options, out.counting) : null;
  }

  // ---- type dispatch, ordered by frequency: kindOf's order, with typeof first ----

  /** Writes `value`, found at `depth`. */
  encodeValue(value: unknown, depth: number): void {
    switch (typeof value) {
      case "string":
        encodeString(this.out, value);
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
        if (this.undefinedAsExtension) this.writeUndefinedExtension();
        else this.writeByte(0xc0); // nil
        return;
      case "bigint":
        this.encodeBigInt(value, depth);
        return;
      default:
        this.encodeFunctionOrSymbol(value, depth);
    }
  }

  private writeByte(byte: number): void {
    const s = this.out;
    if (s.pos + 1 > s.bytes.length) s.room(1);
    s.bytes[s.pos++] = byte;
  }

  /** `undefined` as msgpackr writes it: fixext 1 (0xd4), type 0, payload 0. */
  private writeUndefinedExtension(): void {
    const s = this.out;
    if (s.pos + 3 > s.bytes.length) s.room(3);
    s.bytes[s.pos++] = 0xd4;
    s.bytes[s.pos++] = 0;
    s.bytes[s.pos++] = 0;
  }

  /** Writes the number `n` (the number writers below override this). @internal */
  encodeNumber(n: number): void {
    encodeNumber(this.out, n, this.forceFloat32, this.useBigInt64);
  }

  /** An object found at `depth` (the streaming encoder overrides this step to write large containers item by item). */
  protected encodeObject(obj: object, depth: number): void {
    if (this.claimObject(obj, depth)) return;
    const kind = objectKind(obj);
    if (kind === KIND_ARRAY) this.encodeArray(obj as unknown[], depth);
    else if (kind === KIND_RECORD) {
      if (this.records === null) this.encodeRecord(obj as Record<string, unknown>, depth);
      else this.records.write(this, obj as Record<string, unknown>, depth);
    }
    else this.encodeOtherObject(obj, kind, depth);
  }

  /**
   * What happens to an object found at `depth` before its kind is looked
   * at: past `maxDepth` it fails (a cycle, or too deep); else the
   * registered extensions are asked, once. True when one claimed it (its
   * payload is written).
   */
  claimObject(obj: object, depth: number): boolean {
    if (depth >= this.maxDepth) throw tooDeep(obj, depth, this.maxDepth);
    return this.extensions.length !== 0 && encodeExtension(this, obj, depth);
  }

  /** Cold object kinds, no extension claimed: binaries, Map, Set, Date, boxed primitives, ExtData (functions and symbols never get here). */
  encodeOtherObject(obj: object, kind: ObjectKind, depth: number): void {
    switch (kind) {
      case KIND_BINARY:
        encodeBinary(this.out, binaryBytes(obj)!);
        return;
      case KIND_MAP:
        this.encodeMap(obj as Map<unknown, unknown>, depth);
        return;
      case KIND_DATE:
        encodeDate(this.out, obj as Date);
        return;
      case KIND_SET:
        this.encodeSet(obj as Set<unknown>, depth);
        return;
      case KIND_BOXED:
        this.encodeValue(unbox(obj), depth);
        return;
      default:
        // KIND_EXT (arrays and records are written by encodeObject)
        writeAnyExt(this, (obj as ExtData).type, (obj as ExtData).data);
    }
  }

  /** An array (or the values of `owner`, a Set), its length checked after. */
  private encodeArray(arr: readonly unknown[], depth: number, owner: object = arr): void {
    const n = arr.length;
    this.writeContainerHeader(n, 0x90, 0xdc, "array");
    this.writeItems(arr, depth, owner, 0, n);
    checkCount(arr, "array", n, arr.length);
  }

  /** Items `from` to `to` of `arr` (an array, or the values of `owner`, a Set), found at `depth`. @internal */
  writeItems(arr: readonly unknown[], depth: number, owner: object, from: number, to: number): void {
    let i = from;
    try {
      for (; i < to; i++) {
        // numbers and strings dispatched here, not through encodeValue: V8
        // stops inlining encodeValue once it has seen every type
        const item = arr[i];
        if (typeof item === "number") this.encodeNumber(item);
        else if (typeof item === "string") encodeString(this.out, item);
        else this.encodeValue(item, depth + 1);
      }
    } catch (e) {
      throw this.through(e, itemSegment(i), owner);
    }
  }

  /** A Set, written as an array of its values (policy), its size checked after. */
  private encodeSet(set: Set<unknown>, depth: number): void {
    const n = sizeOf(set, "Set", depth);
    this.encodeArray(valuesOf(set, depth), depth, set);
    checkCount(set, "Set", n, set.size);
  }

  /** A plain object as a map. @internal */
  encodeRecord(obj: Record<string, unknown>, depth: number): void {
    const keys = Object.keys(obj);
    if (this.sortKeys || this.ignoreUndefined) {
      const entries = recordEntries(obj, keys, this.sortKeys, this.ignoreUndefined);
      this.writeContainerHeader(entries.length / 2, 0x80, 0xde, "map");
      this.writeEntries(entries, depth, obj, true);
      return;
    }
    this.writeContainerHeader(keys.length, 0x80, 0xde, "map");
    this.writeFields(obj, keys, depth, true);
  }

  /**
   * The values of `obj` (found at `depth`) in the order of `keys` (those
   * from `from` to `to`), each read once and after its key when `withKeys`
   * (a map's entries; without keys, a record's fields). @internal
   */
  writeFields(obj: Record<string, unknown>, keys: readonly string[], depth: number, withKeys: boolean, from = 0, to: number = keys.length): void {
    const n = to;
    // for-in reads values through V8's enum cache, much faster than obj[keys[i]];
    // its first n keys are the own ones, in Object.keys order, unless the object
    // changes under us (a getter): then the rest goes by `keys`. Objects with no
    // enum cache go by `keys` from the start: wide ones (dictionary mode) and
    // ones with elements (integer-like keys, which Object.keys lists first)
    let i = from;
    try {
      if (i === 0 && n === keys.length && n <= RECORD_FOR_IN_MAX && !startsWithDigit(keys)) for (const key in obj) {
        if (i === n || key !== keys[i]) break;
        const value = obj[key];
        if (withKeys) encodeKey(this.out, key);
        if (typeof value === "number") this.encodeNumber(value);
        else if (typeof value === "string") encodeString(this.out, value);
        else this.encodeValue(value, depth + 1);
        i++;
      }
      for (; i < n; i++) {
        const key = keys[i]!;
        const value = obj[key];
        if (withKeys) encodeKey(this.out, key);
        if (typeof value === "number") this.encodeNumber(value);
        else if (typeof value === "string") encodeString(this.out, value);
        else this.encodeValue(value, depth + 1);
      }
    } catch (e) {
      throw this.through(e, propertySegment(keys[i]!), obj);
    }
  }

  /**
   * The values of `entries` (key, value, key, value..., read before the
   * header; those from index `from` to `to`) of `owner`, each after its key
   * when `withKeys`. @internal
   */
  writeEntries(entries: readonly unknown[], depth: number, owner: object, withKeys: boolean, from = 0, to: number = entries.length): void {
    const n = to;
    let i = from;
    try {
      for (; i < n; i += 2) {
        if (withKeys) encodeKey(this.out, entries[i] as string);
        this.encodeValue(entries[i + 1], depth + 1);
      }
    } catch (e) {
      throw this.through(e, propertySegment(entries[i] as string), owner);
    }
  }

  private encodeMap(map: Map<unknown, unknown>, depth: number): void {
    // a subclass or a Proxy may answer anything: the header checks the size, the loop the count
    const n = sizeOf(map, "Map", depth);
    const entries = entriesOf(map, depth);
    this.writeContainerHeader(n, 0x80, 0xde, "map");
    let i = 0;
    let key: unknown = undefined;
    let inValue = false;
    try {
      for (let entry = nextEntry(map, entries, n, i); entry !== null; entry = nextEntry(map, entries, n, i)) {
        key = entry[0];
        inValue = false;
        this.encodeValue(key, depth + 1);
        inValue = true;
        this.encodeValue(entry[1], depth + 1);
        i++;
      }
    } catch (e) {
      throw this.throughEntry(e, map, i, key, inValue);
    }
    checkCount(map, "Map", n, i);
  }

  /** fix / 16 / 32 header of an array (0x90, 0xdc) or map (0x80, 0xde), its count checked. */
  writeContainerHeader(n: number, fix: number, code16: number, what: string): void {
    if (n >>> 0 !== n) throw badCount(what, n);
    const s = this.out;
    if (s.pos + 5 > s.bytes.length) s.room(5);
    s.pos = writeContainerHeader(s.bytes, s.pos, n, fix, code16);
  }

  private encodeBigInt(n: bigint, depth: number): void {
    if (!this.useBigInt64 && this.extensions.length !== 0 && encodeExtension(this, n, depth)) return;
    encodeBigInt64(this.out, n);
  }

  /** A function or symbol: an extension may claim it (as in @msgpack/msgpack), else it cannot be encoded. */
  private encodeFunctionOrSymbol(value: unknown, depth: number): void {
    if (depth >= this.maxDepth) throw tooDeep(value, depth, this.maxDepth);
    if (this.extensions.length !== 0 && encodeExtension(this, value, depth)) return;
    throw unsupported(value, depth);
  }

  // ---- errors: cold, with the path the walk noted while the error unwound ----

  /** Notes that an error unwinds through `container` at the segment `seg`; returns the error. @internal */
  through(e: unknown, seg: string, container: object): unknown {
    this.trail.push(seg, container);
    return e;
  }

  /**
   * Notes that an error unwinds through entry `i` of `map` (its key, or its
   * value when `inValue`); returns the error. A failure of the Map itself
   * (its entries outnumber its size, or one is no entry) is placed at the
   * Map, not at an entry.
   */
  throughEntry(e: unknown, map: object, i: number, key: unknown, inValue: boolean): unknown {
    const problem = problemOf(e);
    return problem !== undefined && problem.value === map && (e as EncodeError).code !== "MAX_DEPTH" ? e : this.through(e, mapSegment(i, key, inValue), map);
  }

  /**
   * What a call throws for `e`, which ended its walk: an error of the walk
   * gets the path the walk noted (a value found again on its own path is a
   * cycle, `CYCLE`); an engine stack overflow becomes `CYCLE` when the path
   * repeats, else `MAX_DEPTH`; anything else is thrown as it is.
   */
  failure(e: unknown): unknown {
    const problem = problemOf(e);
    const overflow = problem === undefined && !(e instanceof EncodeError) && isEngineStackOverflow(e);
    if (problem === undefined && !overflow) return e;
    const trail = this.trail;
    // outermost first: containers[k] is at depth k of this call, segs[k] leads from it to the next
    const segs: string[] = [];
    const containers: unknown[] = [];
    for (let i = trail.length - 2; i >= 0; i -= 2) {
      segs.push(trail[i] as string);
      containers.push(trail[i + 1]);
    }
    const path = pathOf(segs, segs.length);
    if (problem !== undefined && (e as EncodeError).code !== "MAX_DEPTH") return placeAt(e as EncodeError, path);
    if (problem !== undefined) containers.push(problem.value);
    const seen = new Map<unknown, number>();
    for (let j = 0; j < containers.length; j++) {
      const k = seen.get(containers[j]);
      if (k !== undefined) return cycle(` at ${pathOf(segs, j)} (the object at ${pathOf(segs, k)})`);
      seen.set(containers[j], j);
    }
    return overflow ? outOfStack(this.maxDepth) : placeAt(e as EncodeError, path);
  }
}

/**
 * The writer with `forceIntegerToFloat`: every number as a float. A class
 * of its own, so that the default writer's `encodeNumber` stays one
 * method that the engine inlines in the walk's loops.
 */
class FloatWriter extends ValueWriter {
  override encodeNumber(n: number): void {
    encodeFloat(this.out, n, this.forceFloat32);
  }
}

/** The writer with records: integers 64-127 as uint 8, since their fixint bytes start records. */
class RecordNumberWriter extends ValueWriter {
  override encodeNumber(n: number): void {
    if (n >= 64 && n < 128 && (n | 0) === n) {
      const s = this.out;
      if (s.pos + 2 > s.bytes.length) s.room(2);
      s.bytes[s.pos++] = 0xcc; // uint 8
      s.bytes[s.pos++] = n;
      return;
    }
    encodeNumber(this.out, n, this.forceFloat32, this.useBigInt64);
  }
}

/**
 * The writer for `options`, its number writer chosen once: floats only
 * (`forceIntegerToFloat`), records' (`useRecords`), or the default.
 */
export function valueWriter(out: Output, options: ResolvedEncodeOptions): ValueWriter {
  if (options.forceIntegerToFloat) return new FloatWriter(out, options);
  return options.useRecords !== false ? new RecordNumberWriter(out, options) : new ValueWriter(out, options);
}

/**
 * Throws `CHANGED` (at the container's path) when `container` (an array,
 * Set or Map, `what`) counted `before` items when its header was written
 * and `after` once they were: its header would be wrong.
 */
export function checkCount(container: object, what: string, before: number, after: number): void {
  if (after !== before) throw changed(container, what, before, after);
}

/*
 * Opening a Map or a Set (found at `depth`) for writing: its size, then
 * its items through its own iterator, in that order. One that cannot be
 * read (a Proxy around a Map, a throwing `size` getter, an iterator
 * without `next`) is `UNSUPPORTED_TYPE` at its path. Each read is its own
 * function, so that opening allocates nothing.
 */

/** The size of a Map or Set `c` (`what`), read first when it is opened. */
export function sizeOf(c: Map<unknown, unknown> | Set<unknown>, what: "Map" | "Set", depth: number): number {
  try {
    return c.size;
  } catch (e) {
    throw unreadable(c, what, depth, e);
  }
}

/** A Set's values, read (after its size) when it is opened. */
export function valuesOf(set: Set<unknown>, depth: number): unknown[] {
  try {
    return [...set];
  } catch (e) {
    throw unreadable(set, "Set", depth, e);
  }
}

/** A Map's own iterator, read (after its size) when it is opened. */
export function entriesOf(map: Map<unknown, unknown>, depth: number): Iterator<unknown> {
  try {
    const entries = map[Symbol.iterator]();
    if (typeof entries?.next !== "function") throw iteratorWithoutNext();
    return entries;
  } catch (e) {
    throw unreadable(map, "Map", depth, e);
  }
}


/**
 * The next entry of `map` from its iterator (read as `entry[0]`,
 * `entry[1]`: an array, or any object with those properties), `i` entries
 * having been written of the `n` its header declared; null when the
 * iterator is done. Throws `CHANGED` for an entry past `n` or one that is
 * no object (the string "ab" is not key "a" and value "b").
 */
export function nextEntry(map: object, entries: Iterator<unknown>, n: number, i: number): Record<0 | 1, unknown> | null {
  const r = entries.next();
  if (r?.done === true) return null;
  const entry = r?.value;
  if (i === n || entry === null || typeof entry !== "object") throw changed(map, "Map", n, i === n ? "more" : "a non-entry");
  return entry as Record<0 | 1, unknown>;
}

/** `$` and the first `n` segments of `segs`; a long path is shortened in the middle. */
function pathOf(segs: string[], n: number): string {
  const s = segs.slice(0, n);
  return "$" + (s.length <= 12 ? s.join("") : `${s.slice(0, 4).join("")}...(${s.length - 10} more)...${s.slice(-6).join("")}`);
}

/** The path segment of item `i` of an array (or of a Set's values). */
export function itemSegment(i: number): string {
  return `[${i}]`;
}

/** The path segment of a property: `.name`, or `["a b"]` for a key that is no identifier. */
export function propertySegment(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? "." + key : `[${JSON.stringify(key)}]`;
}

/** The path segment of entry `i` of a Map: its key (`.keys()[i]`), or its value (`.get("k")` for a simple key, else `.values()[i]`). */
function mapSegment(i: number, key: unknown, inValue: boolean): string {
  if (!inValue) return `.keys()[${i}]`;
  const simple = typeof key === "string" ? JSON.stringify(key) : typeof key === "number" || typeof key === "boolean" || key == null ? String(key) : null;
  return simple === null ? `.values()[${i}]` : `.get(${simple})`;
}

/** The widest object walked with for-in: past it, V8 keeps objects in dictionary mode, indexed faster by their keys. */
const RECORD_FOR_IN_MAX = 64;

/** Whether for-in walks exactly `keys`, in order, over `obj`. */
export function hasKeys(obj: object, keys: readonly string[]): boolean {
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

