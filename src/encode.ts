/**
 * The encoder: `encode()`, the reusable {@link Encoder} and its options.
 * Type dispatch writes headers and small values with plain indexed stores
 * into the sink's scratch; long strings and binaries go in bulk.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import {
  badExtPayload,
  bigintOutOfRange,
  changedAt,
  cycle,
  EncodeError,
  invalidCount,
  invalidEncodeOption,
  isEngineStackOverflow,
  outOfStack,
  tooDeepAt,
  tooLong,
  unreadable,
  unsupportedAt,
} from "./errors.ts";
import {
  checkExtType,
  ExtData,
  ExtensionCodec,
  extensionEncoders,
  type ExtensionCodecType,
  type ExtensionEntry,
  timestampFirst,
  WHOLE_CODEC,
} from "./extensions.ts";
import { bytesOf } from "./input.ts";
import { checkEncodeOptions, type EncodeOptions } from "./encode-options.ts";
import { strHeaderSize, writeBinHeader, writeContainerHeader, writeStrHeader } from "./format.ts";
import { findPath } from "./value-path.ts";
import { DEFAULT_MAX_DEPTH } from "./limits.ts";
import { OptionsCache } from "./options-cache.ts";
import { DEFAULT_SCRATCH_BYTES, MAX_STORE_BYTES, REFERENCE_MIN_BYTES, Sink } from "./sink.ts";
import { COUNT_PLAN, spillPlanOf } from "./spill.ts";
import { readWithoutFlattening } from "./rope.ts";
import { binaryBytes, estimateStoreSize } from "./size.ts";
import { writeTimestamp } from "./timestamp.ts";
import { ENCODE_JS_MAX_CHARS, encodeUtf8Exact, encodeUtf8Into, startsAscii, utf8Length, writeUtf8 } from "./utf8.ts";

/**
 * A string at least this long, encoded on its own and starting with ASCII,
 * goes straight into its exact-size result (no scratch, no store, no final
 * copy).
 */
const LONE_STRING_MIN_CHARS = 16 * 1024;

export type { EncodeOptions, EncoderOptions } from "./encode-options.ts";

/**
 * The depth at which an `encode` called from inside an extension encoder
 * starts: the depth of that extension's payload; 0 outside extensions.
 * Set around each extension call and restored after it, so any encoder
 * (another `Encoder`, another options object) continues the count.
 */
let extensionDepth = 0;

/**
 * Set while an encoder that only counts bytes (for `encodedSize`) is being
 * made: its sink counts instead of keeping output.
 */
let makingCounter = false;

/** A new encoder for `options`; `counting`: one that only counts the bytes it would write. */
function newEncoder<C>(options: EncodeOptions<C> | undefined, counting: boolean): Encoder<C> {
  makingCounter = counting;
  try {
    return new Encoder(options);
  } finally {
    makingCounter = false;
  }
}

/** How many idle encoders for re-entrant calls an encoder keeps, one per level of re-entry. */
const KEPT_REENTRANT = 4;

/**
 * A reusable encoder. Keep one per options set: it owns a scratch buffer
 * and a growable store that later calls reuse. Safe to re-enter (an
 * extension may call `encode` while encoding).
 *
 * @example Encoding many values with one encoder
 * ```ts
 * import { Encoder } from "@resizable/msgpack";
 * const encoder = new Encoder({ sortKeys: true });
 * const a = encoder.encode({ b: 1, a: 2 });
 * console.assert(a[1] === 0xa1 && a[2] === 0x61); // key "a" first
 * ```
 */
export class Encoder<ContextType = undefined> {
  private readonly sink: Sink;
  private readonly options: EncodeOptions<ContextType> | undefined;
  /** The codec's live list of encoders: registrations made later show up here. */
  private readonly extensions: ExtensionEntry[];
  private readonly context: ContextType;
  private readonly sortKeys: boolean;
  private readonly forceFloat32: boolean;
  private readonly ignoreUndefined: boolean;
  private readonly useBigInt64: boolean;
  private readonly maxDepth: number;
  /** True while a call is under way: a re-entrant call uses a fresh encoder. */
  private busy = false;
  /** The encoder that re-entrant calls use, made on first need. */
  private child: Encoder<ContextType> | null = null;
  /** The encoder with the same options that counts bytes for {@link Encoder.encodedSize}, made on first need. */
  private counter: Encoder<ContextType> | null = null;
  /** The value of the call under way and the depth it started at, for error paths. */
  private root: unknown = undefined;
  private rootDepth = 0;
  /** Where this call's output starts in the result (encodeInto's offset), for aligned extensions. */
  private base = 0;

  /**
   * @param options see {@link EncodeOptions}
   * @throws {EncodeError} (code `INVALID_ARGUMENT`) for an invalid option
   */
  constructor(options?: EncodeOptions<ContextType>) {
    if (options != null) {
      if (typeof options !== "object") throw invalidEncodeOption("options", options, "an object");
      checkEncodeOptions(options);
    }
    this.options = options ?? undefined;
    this.extensions = extensionEncoders((options?.extensionCodec ?? ExtensionCodec.defaultCodec) as ExtensionCodecType<unknown>);
    this.context = options?.context as ContextType;
    this.sortKeys = options?.sortKeys ?? false;
    this.forceFloat32 = options?.forceFloat32 ?? false;
    this.ignoreUndefined = options?.ignoreUndefined ?? false;
    this.useBigInt64 = options?.useBigInt64 ?? false;
    this.maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
    if (options?.forceIntegerToFloat) {
      // only these encoders carry the override: the default ones keep one shape and an inlinable encodeNumber
      (this as unknown as { encodeNumber: (n: number) => void }).encodeNumber = this.encodeFloat;
    }
    this.sink = new Sink(
      options?.initialBufferSize ?? DEFAULT_SCRATCH_BYTES,
      makingCounter ? COUNT_PLAN : spillPlanOf(options),
      options?.maxByteLength ?? MAX_STORE_BYTES,
      (root) => estimateStoreSize(root, REFERENCE_MIN_BYTES),
      (root) => this.encodedSize(root),
      options?.poolResults ?? false,
    );
  }

  /**
   * Encodes `value` into independent bytes of exact length.
   *
   * @param value the value to encode
   * @returns the MessagePack bytes
   * @throws {EncodeError} for unencodable values, cycles, lengths past 2^32-1
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const bytes = new Encoder().encode([1, "a"]);
   * console.assert(bytes.length === 4 && bytes[0] === 0x92);
   * ```
   */
  encode(value: unknown): Uint8Array<ArrayBuffer> {
    if (this.busy) return this.reentrant().encode(value);
    if (typeof value === "string" && value.length >= LONE_STRING_MIN_CHARS && value.length <= 0xffffffff && startsAscii(value, this.sink.probe())) {
      return encodeLoneString(value);
    }
    this.run(value, 0);
    try {
      return this.sink.finish();
    } finally {
      this.stop();
    }
  }

  /**
   * Encodes `value` and returns a view of the encoder's own buffer, with
   * no copy when the output fits the scratch buffer (`initialBufferSize`),
   * as @msgpack/msgpack's method of that name does; larger outputs are
   * returned as by {@link Encoder.encode}.
   *
   * Hazard: the bytes are valid only until the next call on this encoder,
   * which overwrites them. Use them at once (write them to a socket or a
   * file, hash them) or copy them (`bytes.slice()`); never keep them,
   * never transfer `bytes.buffer`, and never hand them to code that might
   * encode with the same encoder first.
   *
   * @param value the value to encode
   * @returns the MessagePack bytes, valid until the next call
   * @throws {EncodeError} as {@link Encoder.encode}
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const encoder = new Encoder();
   * const a = encoder.encodeSharedRef([1, 2]);
   * console.assert(a.length === 3 && a[0] === 0x92);
   * const kept = a.slice(); // a copy survives the next call
   * encoder.encodeSharedRef("overwrites");
   * console.assert(kept[0] === 0x92 && a[0] !== 0x92);
   * ```
   */
  encodeSharedRef(value: unknown): Uint8Array<ArrayBuffer> {
    if (this.busy) return this.reentrant().encodeSharedRef(value);
    this.run(value, 0);
    try {
      const s = this.sink;
      return s.offset() === s.pos ? new Uint8Array(s.bytes.buffer, s.bytes.byteOffset, s.pos) : s.finish();
    } finally {
      this.stop();
    }
  }

  /**
   * Encodes `value` into a list of chunks whose concatenation is the
   * encoding, skipping `encode`'s final copy. A value whose encoding is
   * larger than one buffer can hold (2^32 bytes) still encodes.
   *
   * @param value the value to encode
   * @returns the chunks, in order; independent of the encoder
   * @throws {EncodeError} as {@link Encoder.encode}
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const chunks = new Encoder().encodeChunks(new Uint8Array(1 << 20));
   * const total = chunks.reduce((n, c) => n + c.length, 0);
   * console.assert(total === (1 << 20) + 5);
   * ```
   */
  encodeChunks(value: unknown): Uint8Array<ArrayBuffer>[] {
    if (this.busy) return this.reentrant().encodeChunks(value);
    this.run(value, 0);
    try {
      return this.sink.finishChunks();
    } finally {
      this.stop();
    }
  }

  /**
   * Encodes `value` into `target` at `offset` and returns the number of
   * bytes written. A target over a resizable `ArrayBuffer` whose view
   * tracks its length is grown in place when needed; any other target that
   * is too small gets an `EncodeError` (code `OUT_OF_SPACE`) and is left
   * unchanged.
   *
   * @param value the value to encode
   * @param target where to write
   * @param offset where in `target` to start
   * @returns the number of bytes written
   * @throws {EncodeError} as {@link Encoder.encode}, or when the target is too small
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const target = new Uint8Array(new ArrayBuffer(2, { maxByteLength: 1024 }));
   * const written = new Encoder().encodeInto("hello", target, 1);
   * console.assert(written === 6 && target.length === 7);
   * ```
   */
  encodeInto(value: unknown, target: Uint8Array, offset = 0): number {
    if (this.busy) return this.reentrant().encodeInto(value, target, offset);
    this.run(value, offset);
    try {
      return this.sink.finishInto(target, offset);
    } finally {
      this.stop();
    }
  }

  /**
   * The encoder for a call made while this one is busy (an extension
   * encoding with the same options): the first idle one down the chain of
   * kept children, found without recursion, so nested re-entry costs one
   * stack frame per level; past {@link KEPT_REENTRANT} busy levels, a
   * throwaway encoder (not kept, so deep re-entry retains no memory).
   */
  private reentrant(): Encoder<ContextType> {
    let e: Encoder<ContextType> = this;
    for (let i = 0; i < KEPT_REENTRANT; i++) {
      const child = e.child ?? (e.child = newEncoder(this.options, this.sink.counting));
      if (!child.busy) return child;
      e = child;
    }
    return newEncoder(this.options, this.sink.counting);
  }

  /**
   * The exact number of bytes {@link Encoder.encode} writes for `value`,
   * computed by the same code without keeping any output: the same
   * extensions run (functions given as payloads too), and the same values
   * throw the same errors.
   *
   * @param value the value to measure
   * @returns the encoded size in bytes
   * @throws {EncodeError} as {@link Encoder.encode}
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const encoder = new Encoder({ forceFloat32: true });
   * console.assert(encoder.encodedSize([1.5, "abc"]) === encoder.encode([1.5, "abc"]).length);
   * ```
   */
  encodedSize(value: unknown): number {
    if (this.sink.counting) return this.measure(value);
    return (this.counter ??= newEncoder(this.options, true)).measure(value);
  }

  /** Counts the bytes of `value` (this encoder's sink counts). */
  private measure(value: unknown): number {
    if (this.busy) return this.reentrant().measure(value);
    this.run(value, 0);
    try {
      return this.sink.count();
    } finally {
      this.stop();
    }
  }

  /** Starts a call and writes `value`; on failure ends the call and throws. `base`: where the output starts in the result. */
  private run(value: unknown, base: number): void {
    this.busy = true;
    this.root = value;
    this.base = base;
    const depth = (this.rootDepth = extensionDepth);
    try {
      this.sink.begin(value);
    } catch (e) {
      // the call never started (a spill plan that measures first threw): the sink holds nothing to end
      this.root = undefined;
      this.busy = false;
      throw e;
    }
    try {
      this.encodeValue(value, depth);
    } catch (e) {
      const error = !(e instanceof EncodeError) && isEngineStackOverflow(e) ? this.depthError(undefined, Infinity) : e;
      this.stop();
      throw error;
    }
  }

  private stop(): void {
    this.sink.end();
    this.root = undefined;
    this.busy = false;
  }

  // ---- type dispatch, ordered by frequency ----

  private encodeValue(value: unknown, depth: number): void {
    switch (typeof value) {
      case "string":
        this.encodeString(value);
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
    const s = this.sink;
    if (s.pos + 9 > s.bytes.length) s.grow(9);
    const b = s.bytes;
    let p = s.pos;
    if ((n | 0) === n && (n !== 0 || 1 / n > 0)) {
      if (n >= 0) {
        if (n < 0x80) {
          b[p++] = n; // positive fixint
        } else if (n < 0x100) {
          b[p++] = 0xcc; // uint 8
          b[p++] = n;
        } else if (n < 0x10000) {
          b[p++] = 0xcd; // uint 16
          b[p++] = n >> 8;
          b[p++] = n;
        } else {
          b[p++] = 0xce; // uint 32
          b[p++] = n >>> 24;
          b[p++] = n >> 16;
          b[p++] = n >> 8;
          b[p++] = n;
        }
      } else if (n >= -0x20) {
        b[p++] = n & 0xff; // negative fixint
      } else if (n >= -0x80) {
        b[p++] = 0xd0; // int 8
        b[p++] = n;
      } else if (n >= -0x8000) {
        b[p++] = 0xd1; // int 16
        b[p++] = n >> 8;
        b[p++] = n;
      } else {
        b[p++] = 0xd2; // int 32
        b[p++] = n >> 24;
        b[p++] = n >> 16;
        b[p++] = n >> 8;
        b[p++] = n;
      }
    } else if (Number.isSafeInteger(n) && n !== 0 && (!this.useBigInt64 || (n > 0 && n <= 0xffffffff))) {
      // outside int32 (and not -0): uint 32, uint 64 or int 64 (with useBigInt64, float 64 past 32 bits)
      if (n > 0 && n <= 0xffffffff) {
        b[p++] = 0xce; // uint 32
        b[p++] = n >>> 24;
        b[p++] = n >> 16;
        b[p++] = n >> 8;
        b[p++] = n;
      } else {
        b[p] = n > 0 ? 0xcf : 0xd3; // uint 64 / int 64
        const hi = Math.floor(n / 0x100000000);
        const lo = n >>> 0;
        b[p + 1] = hi >> 24;
        b[p + 2] = hi >> 16;
        b[p + 3] = hi >> 8;
        b[p + 4] = hi;
        b[p + 5] = lo >>> 24;
        b[p + 6] = lo >> 16;
        b[p + 7] = lo >> 8;
        b[p + 8] = lo;
        p += 9;
      }
    } else if (this.forceFloat32) {
      b[p] = 0xca; // float 32
      s.view.setFloat32(p + 1, n);
      p += 5;
    } else {
      b[p] = 0xcb; // float 64
      s.view.setFloat64(p + 1, n);
      p += 9;
    }
    s.pos = p;
  }

  /** Every number as float 64 (float 32 with forceFloat32): `encodeNumber` with forceIntegerToFloat. */
  private encodeFloat(n: number): void {
    const s = this.sink;
    if (s.pos + 9 > s.bytes.length) s.grow(9);
    const p = s.pos;
    if (this.forceFloat32) {
      s.bytes[p] = 0xca; // float 32
      s.view.setFloat32(p + 1, n);
      s.pos = p + 5;
    } else {
      s.bytes[p] = 0xcb; // float 64
      s.view.setFloat64(p + 1, n);
      s.pos = p + 9;
    }
  }

  private encodeString(str: string): void {
    const len = str.length;
    const s = this.sink;
    if (len < ENCODE_JS_MAX_CHARS) {
      const max = 3 * len + 2;
      if (s.pos + max > s.bytes.length) s.grow(max);
      const b = s.bytes;
      const p = s.pos;
      if (len < 32) {
        // guess fixstr; if the UTF-8 is 32 bytes or more, shift by one for str 8
        const n = writeUtf8(b, p + 1, str) - p - 1;
        if (n < 32) {
          b[p] = 0xa0 | n; // fixstr
          s.pos = p + 1 + n;
        } else {
          b.copyWithin(p + 2, p + 1, p + 1 + n);
          b[p] = 0xd9; // str 8
          b[p + 1] = n;
          s.pos = p + 2 + n;
        }
      } else {
        // 32..63 units are 32..189 bytes: always str 8
        const n = writeUtf8(b, p + 2, str) - p - 2;
        b[p] = 0xd9; // str 8
        b[p + 1] = n;
        s.pos = p + 2 + n;
      }
      return;
    }
    this.encodeLongString(str);
  }

  /** Strings of 64 units or more: `TextEncoder.encodeInto`, in the scratch or straight into the store. */
  private encodeLongString(str: string): void {
    const len = str.length;
    if (len > 0xffffffff) throw tooLong("string", len);
    const s = this.sink;
    const max = 3 * len + 5;
    let target: Uint8Array;
    let at: number;
    const direct = max > s.bytes.length >>> 1;
    if (direct) {
      if (s.counting) {
        this.countLongString(str);
        return;
      }
      const r = s.reserveDirect(max);
      target = r.target;
      at = r.offset;
    } else {
      if (s.pos + max > s.bytes.length) s.grow(max);
      target = s.bytes;
      at = s.pos;
    }
    // the UTF-8 length is len..3*len bytes: guess the header from len
    const guess = strHeaderSize(len);
    const n = encodeUtf8Into(target, at + guess, readWithoutFlattening(str, s.offset())); // rope.ts: a rope is not flattened in place
    if (n > 0xffffffff) throw tooLong("string", n);
    const size = strHeaderSize(n);
    if (size !== guess) target.copyWithin(at + size, at + guess, at + guess + n);
    writeStrHeader(target, at, n, size);
    if (direct) s.commit(target, size + n);
    else s.pos = at + size + n;
  }

  /** A long string in count mode: its size, without encoding it. */
  private countLongString(str: string): void {
    const n = utf8Length(str);
    if (n > 0xffffffff) throw tooLong("string", n);
    this.sink.skip(strHeaderSize(n) + n);
  }

  private encodeObject(obj: object, depth: number): void {
    if (depth >= this.maxDepth) throw this.depthError(obj, depth);
    if (this.extensions.length !== 0 && this.encodeExtension(obj, depth)) return;
    if (Array.isArray(obj)) {
      this.encodeArray(obj, depth);
      return;
    }
    const proto = Object.getPrototypeOf(obj);
    if (proto === Object.prototype || proto === null) {
      this.encodeRecord(obj as Record<string, unknown>, depth);
      return;
    }
    this.encodeOtherObject(obj, depth);
  }

  /** Cold object types: binaries, Map, Set, Date, ExtData, class instances (functions and symbols never get here). */
  private encodeOtherObject(obj: object, depth: number): void {
    const bytes = binaryBytes(obj);
    if (bytes !== undefined) {
      this.encodeBinary(bytes);
    } else if (obj instanceof Map) {
      this.encodeMap(obj, depth);
    } else if (obj instanceof Date) {
      this.encodeDate(obj);
    } else if (obj instanceof Set) {
      // policy: a Set is written as an array
      let n: number;
      let items: unknown[];
      try {
        n = obj.size;
        items = [...obj];
      } catch (e) {
        throw unreadable("Set", this.pathTo(obj, depth), e); // a Proxy around a Set, say
      }
      this.encodeArray(items, depth);
      const after = obj.size;
      if (after !== n) throw this.changed(obj, depth, "Set", n, after);
    } else if (obj instanceof ExtData) {
      this.writeAnyExt(obj.type, obj.data);
    } else {
      // any other object: its own enumerable string-keyed properties, as a map
      this.encodeRecord(obj as Record<string, unknown>, depth);
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
      else if (typeof item === "string") this.encodeString(item);
      else this.encodeValue(item, depth + 1);
    }
    const after = arr.length;
    if (after !== n) throw this.changed(arr, depth, "array", n, after);
  }

  private encodeRecord(obj: Record<string, unknown>, depth: number): void {
    const keys = Object.keys(obj);
    if (this.sortKeys || this.ignoreUndefined) {
      this.encodeRecordKeys(obj, keys, depth);
      return;
    }
    const n = keys.length;
    this.writeContainerHeader(n, 0x80, 0xde, "map");
    // for-in reads values through V8's enum cache, much faster than obj[keys[i]];
    // its first n keys are the own ones, in Object.keys order, unless the object
    // changes under us (a getter): then the rest goes by `keys`
    let i = 0;
    for (const key in obj) {
      if (i === n || key !== keys[i]) break;
      const value = obj[key];
      this.encodeString(key);
      if (typeof value === "number") this.encodeNumber(value);
      else if (typeof value === "string") this.encodeString(value);
      else this.encodeValue(value, depth + 1);
      i++;
    }
    for (; i < n; i++) {
      const key = keys[i]!;
      this.encodeString(key);
      this.encodeValue(obj[key], depth + 1);
    }
  }

  /**
   * An object's entries with sortKeys or ignoreUndefined: every value is
   * read once, before the header, so the count written is the count of
   * entries that follow even when a getter answers differently each time.
   */
  private encodeRecordKeys(obj: Record<string, unknown>, keys: string[], depth: number): void {
    if (this.sortKeys) keys.sort();
    const values: unknown[] = [];
    let n = 0;
    for (let i = 0; i < keys.length; i++) {
      const value = obj[keys[i]!];
      if (value === undefined && this.ignoreUndefined) continue;
      keys[n] = keys[i]!;
      values[n++] = value;
    }
    this.writeContainerHeader(n, 0x80, 0xde, "map");
    for (let i = 0; i < n; i++) {
      this.encodeString(keys[i]!);
      this.encodeValue(values[i], depth + 1);
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

  /** fix / 16 / 32 header of an array (0x90, 0xdc) or map (0x80, 0xde). */
  private writeContainerHeader(n: number, fix: number, code16: number, what: string): void {
    if (n >>> 0 !== n) throw this.badCount(n, what);
    const s = this.sink;
    if (s.pos + 5 > s.bytes.length) s.grow(5);
    s.pos = writeContainerHeader(s.bytes, s.pos, n, fix, code16);
  }

  private encodeBinary(bytes: Uint8Array): void {
    const n = bytes.length;
    if (n > 0xffffffff) throw tooLong("binary", n);
    const s = this.sink;
    if (s.pos + 5 > s.bytes.length) s.grow(5);
    s.pos = writeBinHeader(s.bytes, s.pos, n);
    s.append(bytes);
  }

  private encodeBigInt(n: bigint, depth: number): void {
    if (!this.useBigInt64 && this.extensions.length !== 0 && this.encodeExtension(n, depth)) return;
    const s = this.sink;
    if (n < -0x8000000000000000n || n > 0xffffffffffffffffn) {
      throw bigintOutOfRange(n);
    }
    if (s.pos + 9 > s.bytes.length) s.grow(9);
    const p = s.pos;
    if (n >= 0n) {
      s.bytes[p] = 0xcf; // uint 64
      s.view.setBigUint64(p + 1, n);
    } else {
      s.bytes[p] = 0xd3; // int 64
      s.view.setBigInt64(p + 1, n);
    }
    s.pos = p + 9;
  }

  /** A function or symbol: an extension may claim it (as in @msgpack/msgpack), else it cannot be encoded. */
  private encodeFunctionOrSymbol(value: unknown, depth: number): void {
    if (depth >= this.maxDepth) throw this.depthError(value, depth);
    if (this.extensions.length !== 0 && this.encodeExtension(value, depth)) return;
    throw unsupportedAt(value, this.pathTo(value, depth));
  }

  private encodeDate(date: Date): void {
    const s = this.sink;
    if (s.pos + 15 > s.bytes.length) s.grow(15);
    s.pos = writeTimestamp(s.view, s.pos, date.getTime());
  }

  /**
   * Tries the registered extensions on `value` (at `depth`) and writes the
   * first one's payload. An `encode` they call continues at `depth + 1`.
   */
  private encodeExtension(value: unknown, depth: number): boolean {
    if (timestampFirst(this.extensions, value)) return false; // the built-in timestamp (-1) comes first
    const saved = extensionDepth;
    extensionDepth = depth + 1;
    try {
      for (const ext of this.extensions) {
        const data = ext.encode(value, this.context);
        if (data == null) continue;
        if (ext.type === WHOLE_CODEC) {
          // a codec of another kind: its tryToEncode gave an ExtData
          if (!(data instanceof ExtData)) throw badExtPayload(NaN);
          this.writeAnyExt(data.type, data.data);
        } else {
          this.writeAnyExt(ext.type, data);
        }
        return true;
      }
      return false;
    } finally {
      extensionDepth = saved;
    }
  }

  /**
   * An extension payload as an extension may give it: a `Uint8Array`, any
   * other view (its bytes, `byteLength` of them), or a function of the
   * output position where the payload will start (written as ext 32).
   */
  private writeAnyExt(type: number, data: unknown): void {
    if (data instanceof Uint8Array) {
      this.writeExt(type, data);
      return;
    }
    if (typeof data === "function") {
      checkExtType(type);
      // ext 32: 1 + 4 + 1 header bytes, then the payload
      const payload = bytesOf((data as (dataPos: number) => unknown)(this.base + this.sink.offset() + 6));
      if (payload === undefined) throw badExtPayload(type);
      this.writeExt(type, payload, true);
      return;
    }
    const bytes = bytesOf(data);
    if (bytes === undefined) throw badExtPayload(type);
    this.writeExt(type, bytes);
  }

  private writeExt(type: number, data: Uint8Array, ext32 = false): void {
    checkExtType(type);
    const n = data.length;
    if (n > 0xffffffff) throw tooLong("extension", n);
    const s = this.sink;
    if (s.pos + 6 > s.bytes.length) s.grow(6);
    const b = s.bytes;
    let p = s.pos;
    const fix = ext32 ? 0 : n === 1 ? 0xd4 : n === 2 ? 0xd5 : n === 4 ? 0xd6 : n === 8 ? 0xd7 : n === 16 ? 0xd8 : 0;
    if (fix !== 0) {
      b[p++] = fix; // fixext 1/2/4/8/16
    } else if (n < 0x100 && !ext32) {
      b[p++] = 0xc7; // ext 8
      b[p++] = n;
    } else if (n < 0x10000 && !ext32) {
      b[p++] = 0xc8; // ext 16
      b[p++] = n >> 8;
      b[p++] = n;
    } else {
      b[p++] = 0xc9; // ext 32
      b[p++] = n >>> 24;
      b[p++] = n >> 16;
      b[p++] = n >> 8;
      b[p++] = n;
    }
    b[p++] = type & 0xff;
    s.pos = p;
    s.append(data);
  }

  // ---- errors: cold, with the path of the value found by walking again from the root ----

  /** `value` at `depth` is past maxDepth (`depth` Infinity: the call stack ran out): a cycle, or too deep. */
  private depthError(value: unknown, depth: number): EncodeError {
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

  /** A count that is no length: past 2^32-1 (TOO_LONG), or not an integer (a Proxy or subclass that lies). */
  private badCount(n: number, what: string): EncodeError {
    if (Number.isInteger(n) && n > 0) return tooLong(what, n);
    return invalidCount(what, n);
  }
}

/** A long string as the whole value: its UTF-8 written straight into the result. */
function encodeLoneString(str: string): Uint8Array<ArrayBuffer> {
  const { bytes, at } = encodeUtf8Exact(str, strHeaderSize);
  const n = bytes.length - at;
  if (n > 0xffffffff) throw tooLong("string", n);
  writeStrHeader(bytes, 0, n, at);
  return bytes;
}

const defaultEncoder = new Encoder();
/** Encoders by options object, then by options contents (an inline options literal finds the same encoder). */
const encoders = new OptionsCache<Encoder<unknown>>((options) => new Encoder(options));

/** The encoder for an options object: reused while the same object, or one with the same contents, is passed. */
function encoderFor<C>(options: EncodeOptions<C> | undefined): Encoder<C> {
  if (options == null) return defaultEncoder as unknown as Encoder<C>;
  return encoders.get(options) as unknown as Encoder<C>;
}

/**
 * Encodes `value` as MessagePack into independent bytes of exact length.
 * Calls that pass the same options object share one {@link Encoder}.
 *
 * @param value null, undefined, boolean, number, bigint, string, binary
 *   (any typed array, `DataView`, `ArrayBuffer`), array, `Set` (as an
 *   array), plain object or `Map` (as a map), `Date` (timestamp), `ExtData`,
 *   or anything the `extensionCodec` handles
 * @param options see {@link EncodeOptions}
 * @returns the MessagePack bytes
 * @throws {EncodeError} for functions and symbols (`UNSUPPORTED_TYPE`,
 *   with the path of the value), cycles (`CYCLE`), nesting past `maxDepth`
 *   (`MAX_DEPTH`), bigints outside 64 bits, Invalid Date, lengths past
 *   2^32-1, a Map, Set or array that changed while being encoded
 *   (`CHANGED`), and invalid options (`INVALID_ARGUMENT`)
 *
 * @example
 * ```ts
 * import { decode, encode } from "@resizable/msgpack";
 * const bytes = encode({ id: 1, tags: ["a", "b"] });
 * console.assert(JSON.stringify(decode(bytes)) === '{"id":1,"tags":["a","b"]}');
 * ```
 */
export function encode<ContextType = undefined>(value: unknown, options?: EncodeOptions<ContextType>): Uint8Array<ArrayBuffer> {
  return encoderFor(options).encode(value);
}

/** Options of {@link encodedSize}: the encode options (those about buffers and sinks change nothing). */
export type SizeOptions<ContextType = undefined> = EncodeOptions<ContextType>;

/**
 * The exact number of bytes `encode(value, options)` writes, computed by
 * the encoder's own code without keeping any output: extension encoders
 * still run, and every value `encode` rejects throws the same
 * `EncodeError` (same code, same message).
 *
 * @param value any value `encode` accepts
 * @param options the encode options
 * @returns the encoded size in bytes
 * @throws {EncodeError} as {@link encode}
 *
 * @example
 * ```ts
 * import { encode, encodedSize } from "@resizable/msgpack";
 * const value = { name: "ünïcödé", list: [1, 300, 70000, 1.5] };
 * console.assert(encodedSize(value) === encode(value).length);
 * ```
 */
export function encodedSize<ContextType = undefined>(value: unknown, options?: SizeOptions<ContextType>): number {
  return encoderFor(options).encodedSize(value);
}
