/**
 * The encoder's walk: the type dispatch (the kinds of kind.ts, ordered by
 * frequency), the containers (arrays, plain objects and class instances,
 * `Map`s, `Set`s), the extensions (tried on a value, their payloads
 * written) and the cold error paths. {@link ValueWriter} writes into the
 * output its `Encoder` owns; the scalar and string writers live in
 * scalars.ts and strings.ts.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { badCodecResult, badCount, badExtPayload, changed, cycle, EncodeError, encodeError, isEngineStackOverflow, iteratorWithoutNext, outOfStack, placeAt, problemOf, tooDeep, tooLong, unreadable, unsupported } from "../common/errors.ts";
import { setStartDepth } from "./ext-writer.ts";
import type { ResolvedEncodeOptions } from "./options.ts";
import { encodeBigInt64, encodeBinary, encodeDate, encodeNumber } from "./scalars.ts";
import { encodeKey, encodeString, KEY_ROOTS, type KeyStep, KeyTree } from "./strings.ts";
import { checkExtType, ExtData, extensionEncoders, type ExtensionEntry, timestampFirst, WHOLE_CODEC } from "../format/extensions.ts";
import { writeContainerHeader, writeExt32Header, writeExtHeader, writeFloat } from "../format/forms.ts";
import { bytesOf } from "../common/input.ts";
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

/** The records module's encoding side: what makes the records of a writer with these options (`counting`: a writer that only counts bytes, as for `encodedSize`). */
export type RecordEncoding = new (options: ResolvedEncodeOptions, counting: boolean) => RecordWriting;

/**
 * Writes values into an output: one per `Encoder` (and per re-entrant child),
 * with the options resolved once. The `Encoder` starts and ends each call;
 * this writes the value.
 */
export class ValueWriter {
  readonly out: Output;
  /** The options, resolved; those read for every number or object are copied below. */
  readonly options: ResolvedEncodeOptions;
  /** The codec's live list of encoders: registrations made later show up here. */
  readonly extensions: ExtensionEntry[];
  protected readonly forceFloat32: boolean;
  protected readonly useBigInt64: boolean;
  readonly maxDepth: number;
  /**
   * Where a failure sits, noted by each container an error unwinds
   * through, innermost first: a path segment (`[3]`, `.name`), then the
   * container. Read and emptied by {@link ValueWriter.failure}.
   */
  readonly trail: unknown[];
  /** Where this call's output starts in the result (encodeInto's offset), for aligned extensions. */
  base: number;
  /** The records, with `useRecords` (then plain objects are written by them); else null. */
  readonly records: RecordWriting | null;
  /** The key sequences met so far, their keys' bytes prepared. */
  readonly keyTree: KeyTree;

  constructor(out: Output, options: ResolvedEncodeOptions) {
    this.out = out;
    this.options = options;
    this.extensions = extensionEncoders(options.extensionCodec);
    this.forceFloat32 = options.forceFloat32;
    this.useBigInt64 = options.useBigInt64;
    this.maxDepth = options.maxDepth;
    this.trail = [];
    this.base = 0;
    this.keyTree = new KeyTree();
    // the options resolved: with records asked for, the records module is installed
    this.records = options.useRecords !== false ? new (modules.records as { readonly encoding: RecordEncoding }).encoding(options, out.counting) : null;
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
        if (this.options.undefinedAsExtension) this.writeAnyExt(0, UNDEFINED_PAYLOAD); // d4 00 00, as msgpackr writes it
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

  /** Writes the number `n` (the number writers below override this). @internal */
  encodeNumber(n: number): void {
    encodeNumber(this.out, n, this.forceFloat32, this.useBigInt64);
  }

  /** An object found at `depth`. */
  private encodeObject(obj: object, depth: number): void {
    // past maxDepth it fails (a cycle, or too deep); else the registered extensions are asked, once
    if (depth >= this.maxDepth) throw tooDeep(obj, depth, this.maxDepth);
    if (this.extensions.length !== 0 && this.encodeExtension(obj, depth)) return;
    const kind = objectKind(obj);
    if (kind === KIND_ARRAY) this.encodeArray(obj as unknown[], depth);
    else if (kind === KIND_RECORD) {
      if (this.records === null) this.encodeRecord(obj as Record<string, unknown>, depth);
      else this.records.write(this, obj as Record<string, unknown>, depth);
    }
    else this.encodeOtherObject(obj, kind, depth);
  }

  /** Cold object kinds, no extension claimed: binaries, Map, Set, Date, boxed primitives, ExtData (functions and symbols never get here). */
  private encodeOtherObject(obj: object, kind: ObjectKind, depth: number): void {
    switch (kind) {
      case KIND_BINARY:
        encodeBinary(this.out, binaryBytes(obj)!);
        return;
      case KIND_MAP:
      case KIND_SET:
        this.encodeCollection(obj as Map<unknown, unknown>, kind === KIND_MAP, depth);
        return;
      case KIND_DATE:
        encodeDate(this.out, obj as Date);
        return;
      case KIND_BOXED:
        this.encodeValue(unbox(obj), depth);
        return;
      default:
        // KIND_EXT (arrays and records are written by encodeObject)
        this.writeAnyExt((obj as ExtData).type, (obj as ExtData).data);
    }
  }

  private encodeArray(arr: readonly unknown[], depth: number): void {
    const n = arr.length; // read once here and once after the items: a Proxy may answer differently
    this.writeContainerHeader(n, 0x90, 0xdc, "array");
    this.writeBody(arr, arr, null, depth, n);
  }

  /** A Map (key, value, key, value...) or a Set (as an array of its values, policy), its items read when it is opened. */
  private encodeCollection(c: Map<unknown, unknown> | Set<unknown>, isMap: boolean, depth: number): void {
    const list = itemsOf(c, isMap, depth);
    this.writeContainerHeader(isMap ? list.length / 2 : list.length, isMap ? 0x80 : 0x90, isMap ? 0xde : 0xdc, isMap ? "map" : "array");
    this.writeBody(c, list, null, depth, list.length);
  }

  /** A plain object as a map. @internal */
  encodeRecord(obj: Record<string, unknown>, depth: number): void {
    const keys = Object.keys(obj);
    const values = this.options.sortKeys || this.options.ignoreUndefined ? this.valuesOf(obj, keys) : null;
    this.writeContainerHeader(keys.length, 0x80, 0xde, "map");
    this.writeBody(obj, values, keys, depth, keys.length);
  }

  /**
   * With sortKeys (keys sorted) or ignoreUndefined (keys of undefined
   * values left out), `keys`, the keys of `obj`, made the keys written, in
   * place, and their values returned: every value read once, so a map's
   * count is the count of entries that follow even when a getter answers
   * differently each time. Called only with one of those options: without
   * them the values are read as they are written (and this call, never
   * reached, takes no room where the engine inlines the walk). @internal
   */
  valuesOf(obj: Record<string, unknown>, keys: string[]): unknown[] {
    const { sortKeys, ignoreUndefined } = this.options;
    if (sortKeys) keys.sort();
    const values: unknown[] = [];
    let n = 0;
    for (let i = 0; i < keys.length; i++) {
      const value = obj[keys[i]!];
      if (value === undefined && ignoreUndefined) continue;
      keys[n++] = keys[i]!;
      values.push(value);
    }
    keys.length = n;
    return values;
  }

  /**
   * The body of a container found at `depth` whose header is written: its
   * `n` parts, then the check that its count did not change meanwhile.
   * The parts are the items of `list` (an array's, a Set's values, a
   * Map's keys and values) or, with `keys`, the fields of `owner` (a map's
   * entries: each key, then its value, from `list` when it was read before
   * the header, else read from `owner`). The one container step of the
   * walk: the streaming encoder overrides it to write a large body part by
   * part ({@link writePart}, then {@link endBody}).
   */
  protected writeBody(owner: object, list: readonly unknown[] | null, keys: readonly string[] | null, depth: number, n: number): void {
    // writePart's dispatch written out here: through writePart, a nested object took 7% more instructions
    if (keys === null) {
      this.writeItems(list!, depth, owner, 0, n);
      this.endBody(owner, list, keys, n);
    } else if (list === null) this.writeObject(owner as Record<string, unknown>, keys, depth, true);
    else this.writeFields(owner, keys, list, depth, true, 0, n);
  }

  /** Parts `from` to `to` of a body (see {@link writeBody}). @internal */
  writePart(owner: object, list: readonly unknown[] | null, keys: readonly string[] | null, depth: number, from: number, to: number): void {
    if (keys === null) this.writeItems(list!, depth, owner, from, to);
    else this.writeFields(owner, keys, list, depth, true, from, to);
  }

  /**
   * Throws `CHANGED` (at the container's path) when the count of
   * `owner`, an array, Set or Map whose `n` parts are written, is no
   * longer what its header declared: the header would be wrong. @internal
   */
  endBody(owner: object, list: readonly unknown[] | null, keys: readonly string[] | null, n: number): void {
    if (keys !== null) return; // an object's keys are read once: its header is its count
    if (owner === list) {
      const after = (owner as unknown[]).length;
      if (after !== n) throw changed(owner, "array", n, after);
      return;
    }
    const isMap = objectKind(owner) === KIND_MAP;
    const count = isMap ? n / 2 : n;
    const after = (owner as Set<unknown>).size;
    if (after !== count) throw changed(owner, isMap ? "Map" : "Set", count, isMap && after > count ? "more" : after);
  }

  /** Items `from` to `to` of `list` (the items of `owner`, an array, a Set or a Map: see {@link writeBody}), found at `depth`. @internal */
  writeItems(list: readonly unknown[], depth: number, owner: object, from: number, to: number): void {
    // bounds as unsigned 32-bit integers (they are counts): V8 then knows the index's range, and
    // an array of 1e5 small integers took 8% fewer instructions than with the bounds as given
    let i = from >>> 0;
    const n = to >>> 0;
    try {
      for (; i < n; i++) {
        // numbers and strings dispatched here, not through encodeValue: V8
        // stops inlining encodeValue once it has seen every type
        const item = list[i];
        if (typeof item === "number") this.encodeNumber(item);
        else if (typeof item === "string") encodeString(this.out, item);
        else this.encodeValue(item, depth + 1);
      }
    } catch (e) {
      throw this.throughPart(e, owner, list, null, i);
    }
  }

  /**
   * Every field of `obj` (found at `depth`, its header written), each
   * value read once and after its key when `withKeys` (a map's entries;
   * without keys, a record's fields). For-in reads values through V8's
   * enum cache, much faster than obj[keys[i]]; its first keys are the own
   * ones, in Object.keys order, unless the object changes under us (a
   * getter): then the rest goes by `keys` ({@link writeFields}), as do
   * objects with no enum cache from the start: wide ones (dictionary
   * mode) and ones with elements (integer-like keys, which Object.keys
   * lists first). A loop of its own, not writeFields' bounded one: this is
   * the commonest body there is, and through the bounds Bun encoded small
   * messages 10-22% slower (rpc, events, nested). @internal
   */
  writeObject(obj: Record<string, unknown>, keys: readonly string[], depth: number, withKeys: boolean): void {
    const n = keys.length;
    let i = 0;
    if (n <= RECORD_FOR_IN_MAX && !startsWithDigit(keys)) {
      const tree = this.keyTree;
      let step: KeyStep | null = tree.roots[depth & (KEY_ROOTS - 1)]!;
      try {
        for (const key in obj) {
          if (i === n || key !== keys[i]) break;
          const value = obj[key];
          if (withKeys) {
            // the key's bytes, prepared once for the keys before it (strings.ts), copied here: Node 26 does not inline a writer called here
            if (step !== null) step = step.next !== null && step.next.key === key ? step.next : tree.after(step, key);
            if (step === null) encodeKey(this.out, key);
            else {
              const s = this.out;
              const last = step.last;
              if (s.pos + 4 * (last - step.first) > s.bytes.length) s.room(4 * (last - step.first));
              const v = s.view;
              const words = tree.words;
              let p = s.pos;
              for (let j = step.first; j < last; j++, p += 4) v.setUint32(p, words[j]!, true);
              s.pos += step.size;
            }
          }
          if (typeof value === "number") this.encodeNumber(value);
          else if (typeof value === "string") encodeString(this.out, value);
          else this.encodeValue(value, depth + 1);
          i++;
        }
      } catch (e) {
        throw this.throughPart(e, obj, null, keys, i);
      }
    }
    if (i < n) this.writeFields(obj, keys, null, depth, withKeys, i, n);
  }

  /**
   * The fields `keys` of `obj` (found at `depth`), those from `from` to
   * `to`, each value after its key when `withKeys`: from `values` when
   * they were read before the header ({@link valuesOf}), else read once
   * from `obj`. The rest of {@link writeObject}, and the streaming
   * encoder's parts. @internal
   */
  writeFields(obj: object, keys: readonly string[], values: readonly unknown[] | null, depth: number, withKeys: boolean, from: number, to: number): void {
    let i = from;
    try {
      for (; i < to; i++) {
        const key = keys[i]!;
        const value = values === null ? (obj as Record<string, unknown>)[key] : values[i];
        if (withKeys) encodeKey(this.out, key);
        if (typeof value === "number") this.encodeNumber(value);
        else if (typeof value === "string") encodeString(this.out, value);
        else this.encodeValue(value, depth + 1);
      }
    } catch (e) {
      throw this.throughPart(e, obj, values, keys, i);
    }
  }

  /** fix / 16 / 32 header of an array (0x90, 0xdc) or map (0x80, 0xde), its count checked. */
  writeContainerHeader(n: number, fix: number, code16: number, what: string): void {
    if (n >>> 0 !== n) throw badCount(what, n);
    const s = this.out;
    if (s.pos + 5 > s.bytes.length) s.room(5);
    s.pos = writeContainerHeader(s.bytes, s.pos, n, fix, code16);
  }

  private encodeBigInt(n: bigint, depth: number): void {
    if (!this.useBigInt64 && this.extensions.length !== 0 && this.encodeExtension(n, depth)) return;
    encodeBigInt64(this.out, n);
  }

  /** A function or symbol: an extension may claim it (as in @msgpack/msgpack), else it cannot be encoded. */
  private encodeFunctionOrSymbol(value: unknown, depth: number): void {
    if (depth >= this.maxDepth) throw tooDeep(value, depth, this.maxDepth);
    if (this.extensions.length !== 0 && this.encodeExtension(value, depth)) return;
    throw unsupported(value, depth);
  }

  /**
   * Tries the registered extensions on `value` (at `depth`) and writes the
   * first one's payload; false when none claims it. An `encode` they call
   * continues at `depth + 1`.
   */
  private encodeExtension(value: unknown, depth: number): boolean {
    if (timestampFirst(this.extensions, value)) return false; // the built-in timestamp (-1) comes first
    const saved = setStartDepth(depth + 1);
    try {
      for (const ext of this.extensions) {
        const data = ext.encode(value, this.options.context);
        if (data == null) continue;
        if (ext.type !== WHOLE_CODEC) this.writeAnyExt(ext.type, data);
        else if (data instanceof ExtData) this.writeAnyExt(data.type, data.data); // a codec of another kind: its tryToEncode gave an ExtData
        else throw badCodecResult(data);
        return true;
      }
      return false;
    } finally {
      setStartDepth(saved);
    }
  }

  /**
   * An extension payload as an extension may give it: a `Uint8Array`, any
   * other view (its bytes, `byteLength` of them), or a function of the
   * output position where the payload will start (written as ext 32,
   * whatever its size); its header, then the payload.
   */
  private writeAnyExt(type: number, data: unknown): void {
    if (type === RECORD_EXT_TYPE && this.records !== null) {
      throw encodeError("Cannot encode extension type 114 (0x72) with useRecords: msgpackr's records declare their structures with it (use another type)", "INVALID_EXT");
    }
    checkExtType(type); // before a function payload runs
    const s = this.out;
    const ext32 = typeof data === "function";
    // ext 32: 1 + 4 + 1 header bytes, then the payload
    if (ext32) data = (data as (dataPos: number) => unknown)(this.base + s.offset() + 6);
    const bytes = data instanceof Uint8Array ? data : bytesOf(data);
    if (bytes === undefined) throw badExtPayload(type);
    const n = bytes.length;
    if (n > 0xffffffff) throw tooLong("extension", n);
    if (s.pos + 6 > s.bytes.length) s.room(6);
    s.pos = ext32 ? writeExt32Header(s.bytes, s.pos, type, n) : writeExtHeader(s.bytes, s.pos, type, n);
    s.put(bytes);
  }

  // ---- errors: cold, with the path the walk noted while the error unwound ----

  /** Notes that an error unwinds through part `i` of a body (see {@link writeBody}); returns the error. @internal */
  throughPart(e: unknown, owner: object, list: readonly unknown[] | null, keys: readonly string[] | null, i: number): unknown {
    this.trail.push(segmentOf(owner, list, keys, i), owner);
    return e;
  }

  /**
   * What a call throws for `e`, which ended its walk: an error of the walk
   * gets the path the walk noted (a value found again on its own path is a
   * cycle, `CYCLE`); an engine stack overflow becomes `CYCLE` when the path
   * repeats, else `MAX_DEPTH`; anything else is thrown as it is.
   */
  failure(e: unknown): unknown {
    const trail = this.trail.splice(0).reverse(); // outermost first: each container, then the segment that leads from it
    const problem = problemOf(e);
    const overflow = problem === undefined && !(e instanceof EncodeError) && isEngineStackOverflow(e);
    if (problem === undefined && !overflow) return e;
    const segs = trail.filter((_, i) => (i & 1) === 1) as string[];
    const path = pathOf(segs, segs.length);
    if (problem !== undefined && (e as EncodeError).code !== "MAX_DEPTH") return placeAt(e as EncodeError, path);
    // containers[k] is at depth k of this call; a value found again on its own path is a cycle
    const containers = trail.filter((_, i) => (i & 1) === 0);
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
 * The writer whose numbers an option changes: every number as a float
 * (`forceIntegerToFloat`), or with records the integers 64-127 as uint 8,
 * since their fixint bytes start records. A class of its own, so that the
 * default writer's `encodeNumber` stays one method that the engine
 * inlines in the walk's loops. @internal
 */
export class NumberOptionWriter extends ValueWriter {
  override encodeNumber(n: number): void {
    const s = this.out;
    if (this.options.forceIntegerToFloat) {
      if (s.pos + 9 > s.bytes.length) s.room(9);
      s.pos = writeFloat(s.view, s.pos, n, this.forceFloat32); // float 64 (float 32 with forceFloat32)
    } else if (this.records !== null && n >= 64 && n < 128 && (n | 0) === n) {
      if (s.pos + 2 > s.bytes.length) s.room(2);
      s.bytes[s.pos++] = 0xcc; // uint 8
      s.bytes[s.pos++] = n;
    } else encodeNumber(s, n, this.forceFloat32, this.useBigInt64);
  }
}

/** The writer for `options`: the default one unless an option changes how numbers are written. */
export function valueWriter(out: Output, options: ResolvedEncodeOptions): ValueWriter {
  return options.forceIntegerToFloat || options.useRecords !== false ? new NumberOptionWriter(out, options) : new ValueWriter(out, options);
}

/**
 * The items of a Map or a Set `c` found at `depth`, read when it is
 * opened: its size, then its items through its own iterator, in that
 * order (a subclass or a Proxy may answer anything: they must agree). A
 * Set's are its values; a Map's its keys and values (key, value, key,
 * value...), each entry read as `entry[0]`, `entry[1]` (an array, or any
 * object with those properties). One that cannot be read (a Proxy around
 * a Map, a throwing `size` getter, an iterator without `next`) is
 * `UNSUPPORTED_TYPE` at its path; items more or fewer than its size, or
 * an entry that is no object (the string "ab" is not key "a" and value
 * "b"), `CHANGED`.
 */
function itemsOf(c: Map<unknown, unknown> | Set<unknown>, isMap: boolean, depth: number): unknown[] {
  let n: number;
  let values: unknown[] | null = null;
  let entries: Iterator<unknown> | null = null;
  try {
    n = c.size;
    if (!isMap) values = [...c];
    else if (typeof (entries = c[Symbol.iterator]())?.next !== "function") throw iteratorWithoutNext();
  } catch (e) {
    throw unreadable(c, isMap ? "Map" : "Set", depth, e);
  }
  if (values !== null) {
    if (values.length !== n) throw changed(c, "Set", n, values.length);
    return values;
  }
  const it = entries!;
  if (n >>> 0 !== n) throw badCount("map", n); // as its header would
  // made at its size, up to a bound (a size may lie), and filled
  const list: unknown[] = new Array(Math.min(2 * n, MAP_PREALLOCATED));
  let k = 0;
  for (let r = it.next(); r?.done !== true; r = it.next()) {
    const entry = r?.value as Record<0 | 1, unknown> | null;
    if (k === 2 * n || entry === null || typeof entry !== "object") throw changed(c, "Map", n, k === 2 * n ? "more" : "a non-entry");
    list[k++] = entry[0];
    list[k++] = entry[1];
  }
  if (k !== 2 * n) throw changed(c, "Map", n, k / 2);
  return list;
}

/** `$` and the first `n` segments of `segs`; a long path is shortened in the middle. */
function pathOf(segs: string[], n: number): string {
  const s = segs.slice(0, n);
  return "$" + (s.length <= 12 ? s.join("") : `${s.slice(0, 4).join("")}...(${s.length - 10} more)...${s.slice(-6).join("")}`);
}

/**
 * The path segment of part `i` of a body (see {@link ValueWriter.writeBody}):
 * a property (`.name`, or `["a b"]` for a key that is no identifier), an
 * item (`[3]`), or a Map's key (`.keys()[i]`) or value (`.get("k")` for a
 * simple key, else `.values()[i]`).
 */
function segmentOf(owner: object, list: readonly unknown[] | null, keys: readonly string[] | null, i: number): string {
  if (keys !== null) return isIdentifier(keys[i]!) ? "." + keys[i] : `[${JSON.stringify(keys[i])}]`;
  if (owner === list || objectKind(owner) !== KIND_MAP) return `[${i}]`;
  const entry = i >> 1;
  if ((i & 1) === 0) return `.keys()[${entry}]`;
  const key = list![i - 1];
  const simple = typeof key === "string" ? JSON.stringify(key) : typeof key === "number" || typeof key === "boolean" || key == null ? String(key) : null;
  return simple === null ? `.values()[${entry}]` : `.get(${simple})`;
}

/**
 * Whether `key` is an identifier (`[A-Za-z_$][\w$]*`). A loop, not a
 * regular expression: it runs while a stack overflow unwinds, where V8
 * may fail to compile one and abort the process.
 */
function isIdentifier(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i) | 0x20; // ASCII letters in lower case
    if (!((c >= 0x61 && c <= 0x7a) || key[i] === "_" || key[i] === "$" || (i > 0 && c >= 0x30 && c <= 0x39))) return false;
  }
  return key.length > 0;
}

/** The extension type msgpackr's records declare structures with ("r"), reserved while records are written. */
const RECORD_EXT_TYPE = 0x72;

/** The payload of `undefined` with `undefinedAsExtension`: fixext 1 (0xd4), type 0, payload 0. */
const UNDEFINED_PAYLOAD = /* @__PURE__ */ new Uint8Array(1);

/** The most keys and values a Map's list is made for before its entries are read (more grow it). */
const MAP_PREALLOCATED = 1 << 16;

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
