/**
 * The decoder of `@resizable/msgpack/mini`: the main decoder's values, its
 * errors (same code, offset and `needed` for every input) and its options,
 * from about a third of the code. Left out for size: `decodeMulti`, the JS
 * UTF-8 decoder for non-ASCII text and the integer and float reads without
 * a `DataView`; in place of the main decoder's map-key cache, one small
 * cache of short ASCII strings.
 *
 * @module
 */

import type { DecodeOptions, Int64Mode } from "../decode/options.ts";
import { badKey, decodeFailure, extraBytes, fromExtension, invalidUtf8, overLimit, reservedByte, tooDeepToDecode, truncated } from "../shared/errors.ts";
import { ExtData, extensionDecoders } from "../format/extensions.ts";
import { FIRST_BYTE, readLength } from "../format/forms.ts";
import { toBytes, type DecodeInput } from "../shared/input.ts";
import { checkDecodeOptions, decodeNesting, DEFAULT_MAX_DEPTH, MAX_U32, type DecodeLimits } from "../shared/limits.ts";
import { TIMESTAMP_TYPE, readTimestamp } from "../format/timestamp.ts";

/** Strict, and keeps a leading U+FEFF: a string is exactly its bytes. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const EMPTY = new Uint8Array(0);

/** Short ASCII strings by a hash of their bytes (see string()). */
const keys: (string | undefined)[] = [];

/** Decodes the one value that fills `bytes`. */
type Reader = (bytes: Uint8Array, options: DecodeOptions<unknown> | undefined) => unknown;

function reader(): Reader {
  let b: Uint8Array = EMPTY;
  let view: DataView | null = null;
  /** Whether `TextDecoder` may read views of the input (not of a shared or resizable buffer). */
  let plain = true;
  let pos = 0;
  let end = 0;
  let options: DecodeOptions<unknown> | undefined;
  let int64: Int64Mode = "auto";
  let maxDepth = DEFAULT_MAX_DEPTH;
  let rawStrings: boolean | undefined = false;

  function dv(): DataView {
    return (view ??= new DataView(b.buffer, b.byteOffset, b.byteLength));
  }

  /** Checks that `n` bytes follow, advances past them and returns where they begin. */
  function need(n: number, start: number, what: string): number {
    const at = pos;
    if (at + n > end) throw truncated(start, at - start + n, end, what);
    pos = at + n;
    return at;
  }

  /** A big-endian unsigned integer of `size` (1, 2, 4) bytes. */
  function uint(size: number, start: number, what: string): number {
    return readLength(b, need(size, start, what), size);
  }

  /** Checks a declared length against the `name` limit. */
  function check(n: number, name: keyof DecodeLimits, start: number, what: string): void {
    const max = options?.[name] ?? MAX_U32;
    if (n > max) throw overLimit(what, start, n, name, max);
  }

  /** Checks a declared payload length against its limit, then the bytes left; returns where it begins. */
  function payload(n: number, name: keyof DecodeLimits, start: number, what: string): number {
    check(n, name, start, what);
    return need(n, start, what);
  }

  /** A binary of `n` bytes (or a string with `rawStrings`): a copy, or a view with `binaryAsView`. */
  function binary(n: number, start: number, what: string): Uint8Array {
    const at = payload(n, "maxBinLength", start, what);
    return options?.binaryAsView ? b.subarray(at, at + n) : b.slice(at, at + n);
  }

  /** The value at `pos`; `raw`: strings as binaries (`rawStrings`, except for map keys). */
  function value(depth: number, raw = rawStrings): unknown {
    const start = pos;
    const t = b[need(1, start, "value")]!;
    if (t < 0x80) return t; // positive fixint
    if (t >= 0xe0) return t - 0x100; // negative fixint
    // kind, length field and fixed size of the first byte, as FIRST_BYTE packs them (literal
    // numbers: the kinds are imported bindings, which V8 cannot turn into a jump table)
    const form = FIRST_BYTE[t]!;
    const kind = form & 0x0f;
    const field = (form >> 4) & 0x07;
    // the length (str, bin, ext, array, map) or a number's size
    const n = field === 0 ? form >> 8 : uint(field, start, "value");
    if (kind < 3) return kind === 0 ? null : kind === 2; // WIRE_NIL, WIRE_FALSE, WIRE_TRUE
    switch (kind) {
      case 3: // WIRE_UINT
      case 4: {
        // WIRE_INT
        if (n === 8) return int(need(8, start, "integer"), kind === 4); // uint 64 / int 64
        const v = uint(n, start, "integer");
        const shift = 32 - 8 * n;
        return kind === 3 ? v : (v << shift) >> shift; // int 8 / 16 / 32 sign-extended
      }
      case 5: {
        // WIRE_FLOAT
        const at = need(n, start, "float");
        return n === 4 ? dv().getFloat32(at) : dv().getFloat64(at);
      }
      case 6: // WIRE_STR
        return string(n, start, raw);
      case 7: // WIRE_BIN
        return binary(n, start, "binary");
      case 8: // WIRE_ARRAY
        return array(n, depth, start);
      case 9: // WIRE_MAP
        return map(n, depth, start);
      case 10: // WIRE_EXT
        return extension(n, start, depth);
    }
    throw reservedByte(start);
  }

  /** A 64-bit integer at `at`, as a number or a bigint by the `int64` option. */
  function int(at: number, signed: boolean): number | bigint {
    const big = signed ? dv().getBigInt64(at) : dv().getBigUint64(at);
    const n = Number(big); // rounded to nearest, as the main decoder's "number" mode
    return int64 === "bigint" || (int64 === "auto" && !Number.isSafeInteger(n)) ? big : n;
  }

  function string(n: number, start: number, raw: boolean | undefined): string | Uint8Array {
    if (raw) return binary(n, start, "string");
    const at = payload(n, "maxStrLength", start, "string");
    if (n < 16) {
      // short ASCII without a TextDecoder call, through a small cache: the
      // same string object for the same bytes makes it a fast property key
      let h = n;
      for (let i = at; i < at + n; i++) h = (h * 31 + b[i]!) | 0;
      const slot = h & 1023;
      const cached = keys[slot];
      if (cached !== undefined && cached.length === n) {
        let i = 0;
        while (i < n && cached.charCodeAt(i) === b[at + i]) i++;
        if (i === n) return cached;
      }
      let s = "";
      for (let i = at; i < at + n; i++) {
        const c = b[i]!;
        if (c > 0x7f) break;
        s += String.fromCharCode(c);
      }
      if (s.length === n) return (keys[slot] = s);
    }
    try {
      return utf8.decode(plain ? b.subarray(at, at + n) : b.slice(at, at + n));
    } catch {
      throw invalidUtf8(at);
    }
  }

  function array(n: number, depth: number, start: number): unknown[] {
    check(n, "maxArrayLength", start, "array");
    if (pos + n > end) throw truncated(start, pos - start + n, end, `array of ${n} items`);
    if (depth >= maxDepth) throw tooDeepToDecode(start, maxDepth);
    const a = new Array<unknown>(n);
    for (let i = 0; i < n; i++) a[i] = value(depth + 1);
    return a;
  }

  function map(n: number, depth: number, start: number): unknown {
    check(n, "maxMapLength", start, "map");
    if (pos + 2 * n > end) throw truncated(start, pos - start + 2 * n, end, `map of ${n} entries`);
    if (depth >= maxDepth) throw tooDeepToDecode(start, maxDepth);
    // a plain object (number keys as property names) until a key of another
    // kind: then a Map in wire order; with useMap a Map of the keys as decoded
    const useMap = options?.useMap;
    const convert = options?.mapKeyConverter;
    let m: Map<unknown, unknown> | null = useMap ? new Map() : null;
    const o: Record<string, unknown> = {};
    const order: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const at = pos;
      let k = value(depth + 1, false);
      if (convert) {
        k = convert(k);
        if (typeof k !== "string" && typeof k !== "number") throw badKey(at, k);
      }
      if (!useMap) {
        if (typeof k === "number" || typeof k === "bigint") k = String(k);
        else if (typeof k !== "string" && !m) {
          m = new Map();
          for (const x of order) m.set(x, o[x as string]);
        }
      }
      const v = value(depth + 1);
      if (m) m.set(k, v);
      else {
        order.push(k);
        // as JSON.parse does: an own property, never the prototype
        if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
        else o[k as string] = v;
      }
    }
    return m ?? o;
  }

  function extension(n: number, start: number, depth: number): unknown {
    check(n, "maxExtLength", start, "extension");
    const type = (b[need(1, start, "extension type")]! << 24) >> 24;
    const at = need(n, start, "extension");
    const data = b.subarray(at, at + n);
    const decodeExt = options?.extensionCodec && extensionDecoders(options.extensionCodec).get(type);
    if (decodeExt) {
      // one more level: a decode called from the extension decoder continues from it
      if (depth >= maxDepth) throw tooDeepToDecode(start, maxDepth);
      const outer = decodeNesting.depth;
      decodeNesting.depth = depth + 1;
      try {
        return decodeExt(data, type, options!.context);
      } catch (e) {
        throw fromExtension(e, b, 0, type, start);
      } finally {
        decodeNesting.depth = outer;
      }
    }
    return type === TIMESTAMP_TYPE ? readTimestamp(data, start) : new ExtData(type, b.slice(at, at + n));
  }

  return (bytes, o) => {
    checkDecodeOptions(o);
    b = bytes;
    const buffer = bytes.buffer as ArrayBuffer;
    plain = buffer instanceof ArrayBuffer && !buffer.resizable;
    pos = 0;
    end = bytes.length;
    options = o;
    maxDepth = o?.maxDepth ?? DEFAULT_MAX_DEPTH;
    int64 = o?.int64 ?? (o?.useBigInt64 ? "bigint" : "auto");
    rawStrings = o?.rawStrings;
    try {
      const v = value(decodeNesting.depth);
      if (pos !== end) throw extraBytes(pos, end - pos);
      return v;
    } catch (e) {
      throw decodeFailure(e, pos, b, decodeNesting.depth > 0);
    } finally {
      // keep no user memory alive between calls
      b = EMPTY;
      view = null;
      options = undefined;
    }
  };
}

/** Readers not in use; a call takes one, so calls made from inside an extension get their own. */
const idle: Reader[] = [];

/**
 * Decodes exactly one MessagePack value that fills `input`: the same value,
 * or the same `DecodeError` (code, offset, `needed`), as `decode()` from
 * `@resizable/msgpack`, with the same options.
 *
 * @param input the bytes: a `Uint8Array`, `ArrayBuffer`, any view, or an
 *   array of byte values
 * @param options see the main entry's `DecodeOptions`
 * @returns the value
 * @throws {DecodeError} with `offset` and `code`: truncated input, the
 *   reserved byte 0xc1, invalid UTF-8, limits, bad timestamps, extra bytes,
 *   input that is not bytes and invalid options (`INVALID_ARGUMENT`)
 *
 * @example
 * ```ts
 * import { decode, DecodeError } from "@resizable/msgpack/mini";
 * console.assert((decode(new Uint8Array([0x92, 1, 0xa1, 0x78])) as unknown[])[1] === "x");
 * try {
 *   decode(new Uint8Array([0x92, 1]));
 * } catch (e) {
 *   console.assert(e instanceof DecodeError && e.code === "TRUNCATED" && e.offset === 0);
 * }
 * ```
 */
export function decode<ContextType = undefined>(input: DecodeInput, options?: DecodeOptions<ContextType>): unknown {
  const r = idle.pop() ?? reader();
  try {
    return r(toBytes(input), options as DecodeOptions<unknown> | undefined);
  } finally {
    idle.push(r);
  }
}
