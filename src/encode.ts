/**
 * The encoder: `encode()`, the reusable {@link Encoder} and its options.
 * Type dispatch writes headers and small values with plain indexed stores
 * into the sink's scratch; long strings and binaries go in bulk.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { badExtPayload, bigintOutOfRange, tooDeepToEncode, tooLong, unsupportedType } from "./errors.ts";
import { checkExtType, ExtData, type ExtensionCodec } from "./extensions.ts";
import { bytesOf } from "./input.ts";
import { DEFAULT_MAX_DEPTH } from "./limits.ts";
import { OptionsCache } from "./options-cache.ts";
import { DEFAULT_SCRATCH_BYTES, MAX_STORE_BYTES, REFERENCE_MIN_BYTES, Sink, type SinkStrategy } from "./sink.ts";
import { encodedSize, estimateStoreSize } from "./size.ts";
import { writeTimestamp } from "./timestamp.ts";
import { ENCODE_JS_MAX_CHARS, encodeUtf8Exact, encodeUtf8Into, startsAscii, writeUtf8 } from "./utf8.ts";

/**
 * A string at least this long, encoded on its own and starting with ASCII,
 * goes straight into its exact-size result (no scratch, no store, no final
 * copy).
 */
const LONE_STRING_MIN_CHARS = 16 * 1024;

/** Options of {@link encode} and {@link Encoder}. */
export interface EncodeOptions<ContextType = undefined> {
  /**
   * Extension types to try on every object before the built-in types.
   * @default no extensions besides the built-in timestamp (-1) for `Date`
   */
  extensionCodec?: ExtensionCodec<ContextType>;
  /** Passed to the extension encoders. @default undefined */
  context?: ContextType;
  /**
   * Write object keys in sorted order (code unit order), for canonical
   * output. Costs a sort per object.
   * @default false
   */
  sortKeys?: boolean;
  /**
   * Write non-integer numbers as float 32 instead of float 64. Loses
   * precision; integers keep their integer forms.
   * @default false
   */
  forceFloat32?: boolean;
  /**
   * Leave out object properties whose value is `undefined` instead of
   * writing them as nil. Costs a counting pass per object.
   * @default false
   */
  ignoreUndefined?: boolean;
  /**
   * Deepest nesting of arrays, maps and extensions. Deeper values,
   * including every cycle, throw an `EncodeError` with code `MAX_DEPTH`.
   * @default 512
   */
  maxDepth?: number;
  /**
   * Size of the reusable scratch buffer in bytes. Outputs that fit are
   * returned with one exact-size copy; larger ones move to a growable store.
   * @default 262144
   */
  initialBufferSize?: number;
  /**
   * Ceiling of the resizable store in bytes. The store's actual ceiling is
   * chosen from the size estimate, up to this; past it, output continues
   * as a list of chunks. Capped at 2^32.
   * @default 4294967296
   */
  maxByteLength?: number;
  /**
   * How output grows past the scratch (for benchmarks and tests):
   * `"auto"`, `"resizable"`, `"doubling"`, `"exact"` or `"chunks"`. See {@link SinkStrategy}.
   * @default "auto"
   */
  sink?: SinkStrategy;
  /**
   * Size the first store from a cheap, bounded estimate of the value
   * ({@link estimateSize}). Only runs once an output outgrows the scratch.
   * @default true
   */
  estimate?: boolean;
  /**
   * Return results of up to 4 KiB as views into a 16 KiB `ArrayBuffer`
   * shared by the encoder's next results (as Node's `Buffer` pool does),
   * instead of each in an `ArrayBuffer` of its own: 2-3x faster for tiny
   * messages on Node and Deno, where allocating an `ArrayBuffer` costs
   * ~0.6 µs. Ignored on Bun, where allocating is cheaper than pooling.
   *
   * The bytes stay independent (never overwritten), but `result.buffer` is
   * the whole slab, with other results' bytes in it:
   * - `structuredClone(result)` and `postMessage(result)` copy all 16 KiB
   *   (on Node 20, 4-8 µs instead of 1-2 µs for a 15-byte message), other
   *   results' bytes included;
   * - transferring it (`postMessage(x, [x.buffer])`) empties every other
   *   result cut from the same slab (their `length` becomes 0);
   * - a kept result keeps its slab alive: keeping 1 result in 64 holds
   *   ~86x their bytes;
   * - code that reads `result.buffer` without `byteOffset` reads the slab.
   *
   * Use it for results consumed at once (written to a socket or a file);
   * copy one with `result.slice()` before keeping, cloning or transferring it.
   * @default false
   */
  poolResults?: boolean;
}

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
  private readonly extensions: ExtensionCodec<ContextType>["encoders"] | null;
  private readonly context: ContextType;
  private readonly sortKeys: boolean;
  private readonly forceFloat32: boolean;
  private readonly ignoreUndefined: boolean;
  private readonly maxDepth: number;
  /** True while a call is under way: a re-entrant call uses a fresh encoder. */
  private busy = false;
  /** The encoder that re-entrant calls use, made on first need. */
  private child: Encoder<ContextType> | null = null;

  /**
   * @param options see {@link EncodeOptions}
   */
  constructor(options?: EncodeOptions<ContextType>) {
    this.options = options;
    const codec = options?.extensionCodec;
    this.extensions = codec && codec.encoders.length > 0 ? codec.encoders : null;
    this.context = options?.context as ContextType;
    this.sortKeys = options?.sortKeys ?? false;
    this.forceFloat32 = options?.forceFloat32 ?? false;
    this.ignoreUndefined = options?.ignoreUndefined ?? false;
    this.maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.sink = new Sink(
      options?.initialBufferSize ?? DEFAULT_SCRATCH_BYTES,
      options?.sink ?? "auto",
      options?.maxByteLength ?? MAX_STORE_BYTES,
      options?.estimate === false ? null : (root) => estimateStoreSize(root, REFERENCE_MIN_BYTES),
      (root) => encodedSize(root, options),
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
    this.start(value);
    try {
      this.encodeValue(value, 0);
      return this.sink.finish();
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
    this.start(value);
    try {
      this.encodeValue(value, 0);
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
    this.start(value);
    try {
      this.encodeValue(value, 0);
      return this.sink.finishInto(target, offset);
    } finally {
      this.stop();
    }
  }

  /** An encoder for calls made while this one is busy (from an extension encoder). */
  private reentrant(): Encoder<ContextType> {
    return this.child ?? (this.child = new Encoder(this.options));
  }

  private start(root: unknown): void {
    this.busy = true;
    this.sink.begin(root);
  }

  private stop(): void {
    this.sink.end();
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
        this.encodeBigInt(value);
        return;
      default:
        throw unsupportedType(value);
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
    } else if (Number.isSafeInteger(n) && (n !== 0 || 1 / n > 0)) {
      // outside int32: uint 32, uint 64 or int 64
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
    const n = encodeUtf8Into(target, at + guess, str);
    if (n > 0xffffffff) throw tooLong("string", n);
    const size = strHeaderSize(n);
    if (size !== guess) target.copyWithin(at + size, at + guess, at + guess + n);
    writeStrHeader(target, at, n, size);
    if (direct) s.commit(target, size + n);
    else s.pos = at + size + n;
  }

  private encodeObject(obj: object, depth: number): void {
    if (depth >= this.maxDepth) {
      throw tooDeepToEncode(depth, this.maxDepth);
    }
    if (this.extensions !== null && this.encodeExtension(obj)) return;
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
    const bytes = bytesOf(obj);
    if (bytes !== undefined) {
      this.encodeBinary(bytes);
    } else if (obj instanceof Map) {
      this.encodeMap(obj, depth);
    } else if (obj instanceof Date) {
      this.encodeDate(obj);
    } else if (obj instanceof Set) {
      this.encodeArray([...obj], depth); // policy: a Set is written as an array
    } else if (obj instanceof ExtData) {
      this.writeExt(obj.type, obj.data);
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
    if (i < n) this.encodeRecordEntries(obj, keys, i, depth);
  }

  /** An object's entries by its key list, sorted or without undefined values as the options say, with the map header. */
  private encodeRecordKeys(obj: Record<string, unknown>, keys: string[], depth: number): void {
    if (this.sortKeys) keys.sort();
    let n = keys.length;
    if (this.ignoreUndefined) {
      for (const key of keys) if (obj[key] === undefined) n--;
    }
    this.writeContainerHeader(n, 0x80, 0xde, "map");
    this.encodeRecordEntries(obj, keys, 0, depth);
  }

  /** The entries of `obj` for `keys` from index `from` on (undefined values left out with ignoreUndefined). */
  private encodeRecordEntries(obj: Record<string, unknown>, keys: string[], from: number, depth: number): void {
    for (let i = from; i < keys.length; i++) {
      const key = keys[i]!;
      const value = obj[key];
      if (value === undefined && this.ignoreUndefined) continue;
      this.encodeString(key);
      this.encodeValue(value, depth + 1);
    }
  }

  private encodeMap(map: Map<unknown, unknown>, depth: number): void {
    this.writeContainerHeader(map.size, 0x80, 0xde, "map");
    for (const [key, value] of map) {
      this.encodeValue(key, depth + 1);
      this.encodeValue(value, depth + 1);
    }
  }

  /** fix / 16 / 32 header of an array (0x90, 0xdc) or map (0x80, 0xde). */
  private writeContainerHeader(n: number, fix: number, code16: number, what: string): void {
    if (n > 0xffffffff) throw tooLong(what, n);
    const s = this.sink;
    if (s.pos + 5 > s.bytes.length) s.grow(5);
    const b = s.bytes;
    let p = s.pos;
    if (n < 16) {
      b[p++] = fix | n; // fixarray / fixmap
    } else if (n < 0x10000) {
      b[p++] = code16; // array 16 / map 16
      b[p++] = n >> 8;
      b[p++] = n;
    } else {
      b[p++] = code16 + 1; // array 32 / map 32
      b[p++] = n >>> 24;
      b[p++] = n >> 16;
      b[p++] = n >> 8;
      b[p++] = n;
    }
    s.pos = p;
  }

  private encodeBinary(bytes: Uint8Array): void {
    const n = bytes.length;
    if (n > 0xffffffff) throw tooLong("binary", n);
    const s = this.sink;
    if (s.pos + 5 > s.bytes.length) s.grow(5);
    const b = s.bytes;
    let p = s.pos;
    if (n < 0x100) {
      b[p++] = 0xc4; // bin 8
      b[p++] = n;
    } else if (n < 0x10000) {
      b[p++] = 0xc5; // bin 16
      b[p++] = n >> 8;
      b[p++] = n;
    } else {
      b[p++] = 0xc6; // bin 32
      b[p++] = n >>> 24;
      b[p++] = n >> 16;
      b[p++] = n >> 8;
      b[p++] = n;
    }
    s.pos = p;
    s.append(bytes);
  }

  private encodeBigInt(n: bigint): void {
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

  private encodeDate(date: Date): void {
    const s = this.sink;
    if (s.pos + 15 > s.bytes.length) s.grow(15);
    s.pos = writeTimestamp(s.view, s.pos, date.getTime());
  }

  private encodeExtension(obj: object): boolean {
    for (const ext of this.extensions!) {
      const data = ext.encode(obj, this.context);
      if (data == null) continue;
      if (!(data instanceof Uint8Array)) {
        throw badExtPayload(ext.type);
      }
      this.writeExt(ext.type, data);
      return true;
    }
    return false;
  }

  private writeExt(type: number, data: Uint8Array): void {
    checkExtType(type);
    const n = data.length;
    if (n > 0xffffffff) throw tooLong("extension", n);
    const s = this.sink;
    if (s.pos + 6 > s.bytes.length) s.grow(6);
    const b = s.bytes;
    let p = s.pos;
    const fix = n === 1 ? 0xd4 : n === 2 ? 0xd5 : n === 4 ? 0xd6 : n === 8 ? 0xd7 : n === 16 ? 0xd8 : 0;
    if (fix !== 0) {
      b[p++] = fix; // fixext 1/2/4/8/16
    } else if (n < 0x100) {
      b[p++] = 0xc7; // ext 8
      b[p++] = n;
    } else if (n < 0x10000) {
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
}

/** A long string as the whole value: its UTF-8 written straight into the result. */
function encodeLoneString(str: string): Uint8Array<ArrayBuffer> {
  const { bytes, at } = encodeUtf8Exact(str, strHeaderSize);
  const n = bytes.length - at;
  if (n > 0xffffffff) throw tooLong("string", n);
  writeStrHeader(bytes, 0, n, at);
  return bytes;
}

/** Header size of a str of `n` UTF-8 bytes: fixstr, str 8, str 16 or str 32. */
function strHeaderSize(n: number): number {
  return n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5;
}

function writeStrHeader(b: Uint8Array, p: number, n: number, size: number): void {
  if (size === 1) {
    b[p] = 0xa0 | n; // fixstr
  } else if (size === 2) {
    b[p] = 0xd9; // str 8
    b[p + 1] = n;
  } else if (size === 3) {
    b[p] = 0xda; // str 16
    b[p + 1] = n >> 8;
    b[p + 2] = n;
  } else {
    b[p] = 0xdb; // str 32
    b[p + 1] = n >>> 24;
    b[p + 2] = n >> 16;
    b[p + 3] = n >> 8;
    b[p + 4] = n;
  }
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
 * @throws {EncodeError} for functions, symbols, cycles (`MAX_DEPTH`),
 *   bigints outside 64 bits, Invalid Date, lengths past 2^32-1
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
