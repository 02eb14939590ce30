/**
 * The decoder: `decode()`, `decodeMulti()`, the reusable {@link Decoder}
 * and its options. Recursive descent over fixed-shape state, with one
 * bounds check per item header and `maxDepth` enforced.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { DecodeErrorCode, decodeError, extraBytes, overLimit, reservedByte, tooDeepToDecode, truncated } from "./errors.ts";
import { ExtData, type ExtensionCodec } from "./extensions.ts";
import { toBytes } from "./input.ts";
import { KEY_CACHE_MAX_BYTES, KeyCache } from "./key-cache.ts";
import { decodeLimits, MAX_U32, type DecodeLimits } from "./limits.ts";
import { TIMESTAMP_TYPE, readTimestamp } from "./timestamp.ts";
import { decodeUtf8 } from "./utf8.ts";

/** How 64-bit integers (int 64, uint 64) decode. */
export type Int64Mode = "auto" | "number" | "bigint";

/** Options of {@link decode} and {@link Decoder}. */
export interface DecodeOptions<ContextType = undefined> {
  /**
   * Extension types to decode; unregistered ones decode as `ExtData`
   * (type -1 decodes as `Date` unless registered).
   * @default no extensions besides the built-in timestamp
   */
  extensionCodec?: ExtensionCodec<ContextType>;
  /** Passed to the extension decoders. @default undefined */
  context?: ContextType;
  /**
   * How int 64 and uint 64 decode: `"auto"` gives a number when the value
   * is a safe integer and a bigint otherwise; `"bigint"` always a bigint;
   * `"number"` always a number (values past 2^53 lose precision).
   * @default "auto"
   */
  int64?: Int64Mode;
  /**
   * Decode every 64-bit integer as a bigint (the @msgpack/msgpack name for
   * `int64: "bigint"`).
   * @default false
   */
  useBigInt64?: boolean;
  /**
   * Decode every map as a `Map`. Otherwise maps decode as plain objects,
   * switching to a `Map` only when a key is not a string.
   * @default false
   */
  useMap?: boolean;
  /**
   * Return bin values as views into the input instead of copies. Faster,
   * but the result then shares memory with the input.
   * @default false
   */
  binaryAsView?: boolean;
  /** Deepest nesting of arrays and maps. @default 512 */
  maxDepth?: number;
  /** Longest string, in bytes. @default 4294967295 */
  maxStrLength?: number;
  /** Longest binary, in bytes. @default 4294967295 */
  maxBinLength?: number;
  /** Most items in one array. @default 4294967295 */
  maxArrayLength?: number;
  /** Most entries in one map. @default 4294967295 */
  maxMapLength?: number;
  /** Longest extension payload, in bytes. @default 4294967295 */
  maxExtLength?: number;
}

/** Whether this machine stores numbers little-endian (every engine on x86 and ARM does). */
const LITTLE_ENDIAN: boolean = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Shared empty input, so a fresh decoder holds no user memory. */
const EMPTY = new Uint8Array(0);

/**
 * A reusable decoder. Safe to re-enter (an extension decoder may call
 * `decode`).
 *
 * @example
 * ```ts
 * import { Decoder, encode } from "@resizable/msgpack";
 * const decoder = new Decoder({ useMap: true });
 * const map = decoder.decode(encode({ a: 1 })) as Map<string, number>;
 * console.assert(map.get("a") === 1);
 * ```
 */
export class Decoder<ContextType = undefined> {
  private bytes: Uint8Array = EMPTY;
  /** A DataView of the input, made on first use (most small messages never need one). */
  private view: DataView | null = null;
  private readonly keys = new KeyCache();
  /** 8 bytes for reading floats without creating a DataView per input. */
  private readonly float64 = new Float64Array(1);
  private readonly float32 = new Float32Array(this.float64.buffer, 0, 1);
  private readonly floatBytes = new Uint8Array(this.float64.buffer);
  /** Floats read from this input so far. */
  private floatsRead = 0;
  /** Longest map key read through the key cache: 16 bytes, or less under a smaller maxStrLength. */
  private readonly cachedKeyMax: number;
  private pos = 0;
  private end = 0;
  private busy = false;
  /** The decoder that re-entrant calls use, made on first need. */
  private child: Decoder<ContextType> | null = null;

  private readonly options: DecodeOptions<ContextType> | undefined;
  private readonly extensions: ExtensionCodec<ContextType>["decoders"] | null;
  private readonly context: ContextType;
  private readonly int64: Int64Mode;
  private readonly useMap: boolean;
  private readonly binaryAsView: boolean;
  private readonly limits: DecodeLimits;

  /**
   * @param options see {@link DecodeOptions}
   */
  constructor(options?: DecodeOptions<ContextType>) {
    this.options = options;
    const codec = options?.extensionCodec;
    this.extensions = codec && codec.decoders.size > 0 ? codec.decoders : null;
    this.context = options?.context as ContextType;
    this.int64 = options?.int64 ?? (options?.useBigInt64 ? "bigint" : "auto");
    this.useMap = options?.useMap ?? false;
    this.binaryAsView = options?.binaryAsView ?? false;
    this.limits = decodeLimits(options);
    this.cachedKeyMax = Math.min(KEY_CACHE_MAX_BYTES, this.limits.maxStrLength);
  }

  /**
   * Decodes exactly one value that fills `input`.
   *
   * @param input the MessagePack bytes
   * @returns the value
   * @throws {DecodeError} for malformed, truncated or over-limit input, and
   *   for bytes after the value (code `EXTRA_BYTES`; use `decodeMulti`)
   *
   * @example
   * ```ts
   * import { Decoder } from "@resizable/msgpack";
   * console.assert(String(new Decoder().decode(new Uint8Array([0x93, 1, 2, 3]))) === "1,2,3");
   * ```
   */
  decode(input: Uint8Array | ArrayBuffer | ArrayBufferView): unknown {
    if (this.busy) return this.reentrant().decode(input);
    const bytes = toBytes(input);
    this.busy = true;
    try {
      this.setInput(bytes, 0);
      const value = this.readValue(0);
      if (this.pos !== this.end) {
        throw extraBytes(this.pos, this.end - this.pos);
      }
      return value;
    } finally {
      this.release();
    }
  }

  /**
   * Decodes back-to-back values in `input`, one at a time.
   *
   * @param input the MessagePack bytes
   * @returns a generator of the values
   * @throws {DecodeError} when a value is malformed or truncated
   *
   * @example
   * ```ts
   * import { Decoder } from "@resizable/msgpack";
   * const values = [...new Decoder().decodeMulti(new Uint8Array([1, 2, 0xc3]))];
   * console.assert(values.length === 3 && values[2] === true);
   * ```
   */
  *decodeMulti(input: Uint8Array | ArrayBuffer | ArrayBufferView): Generator<unknown, void, unknown> {
    const bytes = toBytes(input);
    let offset = 0;
    while (offset < bytes.length) {
      const [value, next] = this.decodeAt(bytes, offset);
      offset = next;
      yield value;
    }
  }

  /**
   * Decodes one value starting at `offset` and returns it with the offset
   * after it; the building block of the stream decoders. A value that runs
   * past the end throws a `DecodeError` with code `TRUNCATED`, and `needed`
   * saying how many more bytes it needs at least.
   *
   * @param bytes the input
   * @param offset where the value starts
   * @returns the value and the offset after it
   * @throws {DecodeError} for malformed or truncated input
   *
   * @example
   * ```ts
   * import { Decoder } from "@resizable/msgpack";
   * const [value, end] = new Decoder().decodeAt(new Uint8Array([0xc0, 0x05]), 1);
   * console.assert(value === 5 && end === 2);
   * ```
   */
  decodeAt(bytes: Uint8Array, offset: number): [unknown, number] {
    if (this.busy) return this.reentrant().decodeAt(bytes, offset);
    this.busy = true;
    try {
      this.setInput(bytes, offset);
      const value = this.readValue(0);
      return [value, this.pos];
    } finally {
      this.release();
    }
  }

  /**
   * Reads an array header at `offset`: its item count and the offset of the
   * first item. For decoding one array's items as they arrive.
   *
   * @param bytes the input
   * @param offset where the header starts
   * @returns the item count and the offset after the header
   * @throws {DecodeError} when there is no array header at `offset`, or it is truncated
   *
   * @example
   * ```ts
   * import { Decoder } from "@resizable/msgpack";
   * const [count, first] = new Decoder().readArrayHeader(new Uint8Array([0xdc, 0, 20]), 0);
   * console.assert(count === 20 && first === 3);
   * ```
   */
  readArrayHeader(bytes: Uint8Array, offset: number): [number, number] {
    const t = bytes[offset];
    const end = bytes.length;
    if (t === undefined) throw truncated(offset, 1, end, "array header");
    if (t >= 0x90 && t <= 0x9f) return [t & 0x0f, offset + 1];
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (t === 0xdc) {
      if (offset + 3 > end) throw truncated(offset, 3, end, "array 16 header");
      return [view.getUint16(offset + 1), offset + 3];
    }
    if (t === 0xdd) {
      if (offset + 5 > end) throw truncated(offset, 5, end, "array 32 header");
      return [view.getUint32(offset + 1), offset + 5];
    }
    throw decodeError(`Cannot decode array at offset ${offset}: type byte 0x${t.toString(16)} is not an array`, offset, DecodeErrorCode.INVALID_BYTE);
  }

  /** A decoder for calls made while this one is busy (from an extension decoder). */
  private reentrant(): Decoder<ContextType> {
    return this.child ?? (this.child = new Decoder(this.options));
  }

  private setInput(bytes: Uint8Array, offset: number): void {
    this.bytes = bytes;
    this.view = null;
    this.floatsRead = 0;
    this.pos = offset;
    this.end = bytes.length;
  }

  /** Lets go of the input, so the decoder keeps no user memory alive between calls. */
  private release(): void {
    this.bytes = EMPTY;
    this.view = null;
    this.busy = false;
  }

  /** Big-endian uint 16 at `at` (bounds already checked). */
  private u16(at: number): number {
    const b = this.bytes;
    return (b[at]! << 8) | b[at + 1]!;
  }

  /** Big-endian uint 32 at `at` (bounds already checked). */
  private u32(at: number): number {
    const b = this.bytes;
    return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
  }

  /**
   * Big-endian float 64 at `at` (bounds already checked). The first few of
   * an input are read through an 8-byte scratch, sparing small messages a
   * DataView (~100 ns to create on Node); inputs with more floats get one.
   */
  private readFloat64(at: number): number {
    if (this.view !== null || !LITTLE_ENDIAN || ++this.floatsRead > 4) return this.dv().getFloat64(at);
    const f = this.floatBytes;
    const b = this.bytes;
    f[0] = b[at + 7]!;
    f[1] = b[at + 6]!;
    f[2] = b[at + 5]!;
    f[3] = b[at + 4]!;
    f[4] = b[at + 3]!;
    f[5] = b[at + 2]!;
    f[6] = b[at + 1]!;
    f[7] = b[at]!;
    return this.float64[0]!;
  }

  /** Big-endian float 32 at `at` (bounds already checked). */
  private readFloat32(at: number): number {
    if (this.view !== null || !LITTLE_ENDIAN || ++this.floatsRead > 4) return this.dv().getFloat32(at);
    const f = this.floatBytes;
    const b = this.bytes;
    f[0] = b[at + 3]!;
    f[1] = b[at + 2]!;
    f[2] = b[at + 1]!;
    f[3] = b[at]!;
    return this.float32[0]!;
  }

  private dv(): DataView {
    return this.view ?? (this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength));
  }

  // ---- recursive descent ----

  private readValue(depth: number): unknown {
    const pos = this.pos;
    const end = this.end;
    if (pos >= end) throw truncated(pos, 1, end, "value");
    const b = this.bytes;
    const t = b[pos]!;
    this.pos = pos + 1;
    if (t < 0x80) return t; // positive fixint
    if (t >= 0xe0) return t - 0x100; // negative fixint
    if (t >= 0xa0) {
      if (t < 0xc0) return this.readString(t & 0x1f, pos); // fixstr
    } else {
      return t < 0x90 ? this.readMap(t & 0x0f, depth, pos) : this.readArray(t & 0x0f, depth, pos); // fixmap / fixarray
    }
    // the commonest fixed-size forms inline, the rest through the switch
    if (t === 0xcb && pos + 9 <= end) {
      this.pos = pos + 9;
      return this.readFloat64(pos + 1); // float 64
    }
    if (t === 0xcc && pos + 2 <= end) {
      this.pos = pos + 2;
      return b[pos + 1]; // uint 8
    }
    if (t === 0xcd && pos + 3 <= end) {
      this.pos = pos + 3;
      return (b[pos + 1]! << 8) | b[pos + 2]!; // uint 16
    }
    if (t === 0xd0 && pos + 2 <= end) {
      this.pos = pos + 2;
      return (b[pos + 1]! << 24) >> 24; // int 8
    }
    switch (t) {
      case 0xc0:
        return null; // nil
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xca:
        return this.readFloat32(this.need(4, pos, "float 32")); // float 32
      case 0xcb:
        return this.readFloat64(this.need(8, pos, "float 64")); // float 64
      case 0xcc:
        return this.bytes[this.need(1, pos, "uint 8")]; // uint 8
      case 0xcd:
        return this.u16(this.need(2, pos, "uint 16")); // uint 16
      case 0xce:
        return this.u32(this.need(4, pos, "uint 32")); // uint 32
      case 0xcf:
        return this.readUint64(this.need(8, pos, "uint 64")); // uint 64
      case 0xd0:
        return (this.bytes[this.need(1, pos, "int 8")]! << 24) >> 24; // int 8
      case 0xd1:
        return (this.u16(this.need(2, pos, "int 16")) << 16) >> 16; // int 16
      case 0xd2:
        return this.u32(this.need(4, pos, "int 32")) | 0; // int 32
      case 0xd3:
        return this.readInt64(this.need(8, pos, "int 64")); // int 64
      case 0xd9:
        return this.readString(this.bytes[this.need(1, pos, "str 8")]!, pos); // str 8
      case 0xda:
        return this.readString(this.u16(this.need(2, pos, "str 16")), pos); // str 16
      case 0xdb:
        return this.readString(this.u32(this.need(4, pos, "str 32")), pos); // str 32
      case 0xdc:
        return this.readArray(this.u16(this.need(2, pos, "array 16")), depth, pos); // array 16
      case 0xdd:
        return this.readArray(this.u32(this.need(4, pos, "array 32")), depth, pos); // array 32
      case 0xde:
        return this.readMap(this.u16(this.need(2, pos, "map 16")), depth, pos); // map 16
      case 0xdf:
        return this.readMap(this.u32(this.need(4, pos, "map 32")), depth, pos); // map 32
      case 0xc4:
        return this.readBinary(this.bytes[this.need(1, pos, "bin 8")]!, pos); // bin 8
      case 0xc5:
        return this.readBinary(this.u16(this.need(2, pos, "bin 16")), pos); // bin 16
      case 0xc6:
        return this.readBinary(this.u32(this.need(4, pos, "bin 32")), pos); // bin 32
      case 0xd4:
        return this.readExt(1, pos); // fixext 1
      case 0xd5:
        return this.readExt(2, pos); // fixext 2
      case 0xd6:
        return this.readExt(4, pos); // fixext 4
      case 0xd7:
        return this.readExt(8, pos); // fixext 8
      case 0xd8:
        return this.readExt(16, pos); // fixext 16
      case 0xc7:
        return this.readExt(this.bytes[this.need(1, pos, "ext 8")]!, pos); // ext 8
      case 0xc8:
        return this.readExt(this.u16(this.need(2, pos, "ext 16")), pos); // ext 16
      case 0xc9:
        return this.readExt(this.u32(this.need(4, pos, "ext 32")), pos); // ext 32
      default:
        throw reservedByte(pos);
    }
  }

  /**
   * Checks that `n` bytes follow the type byte at `start`, advances past
   * them and returns where they begin.
   */
  private need(n: number, start: number, what: string): number {
    const at = this.pos;
    if (at + n > this.end) throw truncated(start, at - start + n, this.end, what);
    this.pos = at + n;
    return at;
  }

  /** Checks a declared payload length against its limit and the bytes left; returns where the payload begins. */
  private payload(n: number, max: number, start: number, what: string, limitName: string): number {
    if (n > max) {
      throw overLimit(what, start, n, limitName, max);
    }
    const at = this.pos;
    if (at + n > this.end) throw truncated(start, at - start + n, this.end, what);
    this.pos = at + n;
    return at;
  }

  private readString(n: number, start: number): string {
    const at = this.payload(n, this.limits.maxStrLength, start, "string", "maxStrLength");
    return decodeUtf8(this.bytes, at, n);
  }

  private readBinary(n: number, start: number): Uint8Array {
    const at = this.payload(n, this.limits.maxBinLength, start, "binary", "maxBinLength");
    return this.binaryAsView ? this.bytes.subarray(at, at + n) : this.bytes.slice(at, at + n);
  }

  private readArray(n: number, depth: number, start: number): unknown[] {
    if (n > this.limits.maxArrayLength) {
      throw overLimit("array", start, n, "maxArrayLength", this.limits.maxArrayLength);
    }
    // every item takes at least one byte: refuse before allocating
    if (this.pos + n > this.end) throw truncated(start, this.pos - start + n, this.end, `array of ${n} items`);
    if (depth >= this.limits.maxDepth) throw tooDeepToDecode(start, this.limits.maxDepth);
    const arr = new Array<unknown>(n);
    for (let i = 0; i < n; i++) arr[i] = this.readValue(depth + 1);
    return arr;
  }

  private readMap(n: number, depth: number, start: number): unknown {
    if (n > this.limits.maxMapLength) {
      throw overLimit("map", start, n, "maxMapLength", this.limits.maxMapLength);
    }
    // every entry takes at least two bytes: refuse before allocating
    if (this.pos + 2 * n > this.end) throw truncated(start, this.pos - start + 2 * n, this.end, `map of ${n} entries`);
    if (depth >= this.limits.maxDepth) throw tooDeepToDecode(start, this.limits.maxDepth);
    if (this.useMap) return this.readMapEntries(new Map(), n, depth);
    const obj: Record<string, unknown> = {};
    const bytes = this.bytes;
    for (let i = 0; i < n; i++) {
      // a short fixstr key comes from the key cache
      const p = this.pos;
      const t = p < this.end ? bytes[p]! : 0;
      let key: unknown;
      if (t >= 0xa0 && t <= 0xa0 + this.cachedKeyMax) {
        const len = t - 0xa0;
        if (p + 1 + len > this.end) throw truncated(p, 1 + len, this.end, "string");
        this.pos = p + 1 + len;
        key = this.keys.get(bytes, p + 1, len);
      } else {
        key = this.readValue(depth + 1);
      }
      if (typeof key !== "string") {
        // a key that is not a string: continue as a Map, keeping the order so far
        const map = new Map<unknown, unknown>(Object.entries(obj));
        map.set(key, this.readValue(depth + 1));
        return this.readMapEntries(map, n - i - 1, depth);
      }
      const value = this.readValue(depth + 1);
      if (key === "__proto__") {
        // policy: an own property, as JSON.parse makes it; the prototype never changes
        Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
      } else {
        obj[key] = value;
      }
    }
    return obj;
  }

  private readMapEntries(map: Map<unknown, unknown>, n: number, depth: number): Map<unknown, unknown> {
    for (let i = 0; i < n; i++) {
      const key = this.readValue(depth + 1);
      map.set(key, this.readValue(depth + 1));
    }
    return map;
  }

  private readExt(n: number, start: number): unknown {
    if (n > this.limits.maxExtLength) {
      throw overLimit("extension", start, n, "maxExtLength", this.limits.maxExtLength);
    }
    const type = (this.bytes[this.need(1, start, "extension type")]! << 24) >> 24;
    const at = this.payload(n, MAX_U32, start, "extension", "maxExtLength");
    const data = this.bytes.slice(at, at + n);
    const decodeExt = this.extensions?.get(type);
    if (decodeExt !== undefined) return decodeExt(data, type, this.context);
    if (type === TIMESTAMP_TYPE) return readTimestamp(data, start);
    return new ExtData(type, data);
  }

  private readUint64(at: number): number | bigint {
    const hi = this.u32(at);
    if (this.int64 === "bigint") return this.dv().getBigUint64(at);
    if (this.int64 === "number" || hi < 0x200000) return hi * 0x100000000 + this.u32(at + 4);
    return this.dv().getBigUint64(at);
  }

  private readInt64(at: number): number | bigint {
    const hi = this.u32(at) | 0;
    if (this.int64 === "bigint") return this.dv().getBigInt64(at);
    if (this.int64 === "number" || (hi >= -0x200000 && hi < 0x200000)) {
      const value = hi * 0x100000000 + this.u32(at + 4);
      if (this.int64 === "number" || Number.isSafeInteger(value)) return value;
    }
    return this.dv().getBigInt64(at);
  }
}

const decoders = new WeakMap<object, Decoder<unknown>>();
const defaultDecoder = new Decoder();

/** The decoder for an options object: reused while the same object is passed. */
function decoderFor<C>(options: DecodeOptions<C> | undefined): Decoder<C> {
  if (options === undefined) return defaultDecoder as unknown as Decoder<C>;
  let decoder = decoders.get(options) as Decoder<C> | undefined;
  if (decoder === undefined) {
    decoder = new Decoder(options);
    decoders.set(options, decoder as Decoder<unknown>);
  }
  return decoder;
}

/**
 * Decodes exactly one MessagePack value that fills `input`.
 *
 * Maps decode as plain objects (a `__proto__` key becomes an own property,
 * as with `JSON.parse`), or as `Map` with `useMap` or when a key is not a
 * string. 64-bit integers decode as numbers when safe, else as bigints.
 *
 * @param input the bytes: a `Uint8Array`, `ArrayBuffer` or any view
 * @param options see {@link DecodeOptions}
 * @returns the value
 * @throws {DecodeError} with `offset` and `code`: truncated input, the
 *   reserved byte 0xc1, invalid UTF-8, limits, bad timestamps, extra bytes
 *
 * @example
 * ```ts
 * import { decode, encode } from "@resizable/msgpack";
 * const value = decode(encode({ when: new Date(0), big: 2n ** 60n })) as { when: Date; big: bigint };
 * console.assert(value.when.getTime() === 0 && value.big === 2n ** 60n);
 * ```
 */
export function decode<ContextType = undefined>(input: Uint8Array | ArrayBuffer | ArrayBufferView, options?: DecodeOptions<ContextType>): unknown {
  return decoderFor(options).decode(input);
}

/**
 * Decodes back-to-back MessagePack values in `input`, one at a time.
 *
 * @param input the bytes
 * @param options see {@link DecodeOptions}
 * @returns a generator of the values
 * @throws {DecodeError} when a value is malformed or truncated
 *
 * @example
 * ```ts
 * import { decodeMulti, encode } from "@resizable/msgpack";
 * const bytes = new Uint8Array([...encode("a"), ...encode(2)]);
 * console.assert([...decodeMulti(bytes)].join() === "a,2");
 * ```
 */
export function decodeMulti<ContextType = undefined>(
  input: Uint8Array | ArrayBuffer | ArrayBufferView,
  options?: DecodeOptions<ContextType>,
): Generator<unknown, void, unknown> {
  return decoderFor(options).decodeMulti(input);
}
