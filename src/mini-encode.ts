/**
 * The encoder of `@resizable/msgpack/mini`: byte for byte the output of the
 * main `encode()`, from about a third of the code. The output path is the
 * main one in miniature: element stores go into a plain scratch buffer;
 * when it fills, its bytes move in bulk into one resizable `ArrayBuffer`
 * grown in place up to a 256 MiB ceiling; past that, or where buffers
 * cannot resize (Node 18), output continues as chunks concatenated once.
 * Left out for size: the size estimate, the JS UTF-8 encoder for non-ASCII
 * text, pooled results, referenced large binaries and the tuned loops.
 *
 * State lives in closures (their variables minify to one letter); each
 * re-entrant call (an extension that encodes) takes an idle writer of its own.
 *
 * @module
 */

import { concat } from "./concat.ts";
import { CAN_RESIZE } from "./engine.ts";
import type { EncodeOptions } from "./encode.ts";
import { badExtPayload, badExtType, bigintOutOfRange, tooDeepToEncode, tooLong, unsupportedType } from "./errors.ts";
import { ExtData } from "./extensions.ts";
import { DEFAULT_MAX_DEPTH } from "./limits.ts";
import { TIMESTAMP_TYPE, timestampLength, writeTimestamp } from "./timestamp.ts";

/** Options of the mini {@link encode}: the main encoder's options that shape the output. */
export type MiniEncodeOptions<ContextType = undefined> = Pick<
  EncodeOptions<ContextType>,
  "extensionCodec" | "context" | "sortKeys" | "forceFloat32" | "ignoreUndefined" | "maxDepth"
>;

/** Size of each writer's scratch buffer. */
const SCRATCH_BYTES = 16 * 1024;

/** `maxByteLength` of the store: a reservation of address space, not memory. Past it, chunks. */
const STORE_CEILING = 256 * 1024 * 1024;

/** A store larger than this is dropped after the call. */
const RETAIN_MAX_BYTES = 16 * 1024 * 1024;

const utf8 = new TextEncoder();

type Writer = (value: unknown, options: MiniEncodeOptions<unknown> | undefined) => Uint8Array<ArrayBuffer>;

function writer(): Writer {
  let buf: Uint8Array = new Uint8Array(SCRATCH_BYTES);
  let view = new DataView(buf.buffer);
  let pos = 0;
  let store: ArrayBuffer | null = null;
  let storeBytes: Uint8Array = new Uint8Array(0);
  let storeLen = 0;
  let chunks: Uint8Array[] | null = null;
  let chunksLen = 0;
  // the options of the call under way
  let options: MiniEncodeOptions<unknown> | undefined;
  let maxDepth = DEFAULT_MAX_DEPTH;

  function use(bytes: Uint8Array): void {
    buf = bytes;
    view = new DataView(bytes.buffer);
  }

  /** Makes room for `n` contiguous bytes at `pos`. */
  function room(n: number): void {
    if (pos + n > buf.length) {
      flush();
      if (n > buf.length) use(new Uint8Array(n));
    }
  }

  /** Moves the bytes written so far to the store, or hands the buffer over as a chunk. */
  function flush(): void {
    if (pos === 0) return;
    const part = buf.subarray(0, pos);
    pos = 0;
    if (!put(part)) use(new Uint8Array(SCRATCH_BYTES));
  }

  /**
   * Appends `part` after the output so far: copied into the store (true),
   * or kept as a chunk (false) once the store reached its ceiling or where
   * there is none.
   */
  function put(part: Uint8Array): boolean {
    if (chunks === null && CAN_RESIZE) {
      const need = storeLen + part.length;
      if (need <= STORE_CEILING) {
        if (store === null) {
          store = new ArrayBuffer(Math.max(need, 4 * SCRATCH_BYTES), { maxByteLength: STORE_CEILING });
          storeBytes = new Uint8Array(store); // length-tracking: follows resize()
        } else if (need > store.byteLength) {
          store.resize(Math.min(STORE_CEILING, Math.max(need, 2 * store.byteLength))); // in place
        }
        storeBytes.set(part, storeLen);
        storeLen = need;
        return true;
      }
      // past the ceiling: the store's bytes become the first chunk
      chunks = [storeBytes.subarray(0, storeLen)];
      chunksLen = storeLen;
      store = null;
      storeLen = 0;
    }
    (chunks ??= []).push(part);
    chunksLen += part.length;
    return false;
  }

  /** The output as one plain, exact-length `Uint8Array`. */
  function result(): Uint8Array<ArrayBuffer> {
    if (storeLen === 0 && chunks === null) return buf.slice(0, pos);
    flush();
    return chunks === null ? storeBytes.slice(0, storeLen) : concat(chunks, chunksLen); // copies into a plain buffer
  }

  /** Writes type byte `t`, then `n` big-endian in `size` (0, 1, 2 or 4) bytes. */
  function head(t: number, n: number, size: number): void {
    room(9);
    buf[pos++] = t;
    if (size === 1) buf[pos] = n;
    else if (size === 2) view.setUint16(pos, n);
    else if (size === 4) view.setUint32(pos, n);
    pos += size;
  }

  /** A length header: fix form below `fixMax`, then the 8 (if any), 16 and 32-bit forms. */
  function sized(n: number, fix: number, fixMax: number, code8: number, code16: number, what: string): void {
    if (n > 0xffffffff) throw tooLong(what, n);
    if (n < fixMax) head(fix | n, 0, 0);
    else if (code8 !== 0 && n < 0x100) head(code8, n, 1);
    else if (n < 0x10000) head(code16, n, 2);
    else head(code16 + 1, n, 4);
  }

  /** Bytes in bulk: into the scratch if they fit, else straight to the store or a chunk. */
  function raw(data: Uint8Array): void {
    if (pos + data.length > buf.length) {
      flush();
      if (data.length > buf.length >>> 1) {
        put(data);
        return;
      }
    }
    buf.set(data, pos);
    pos += data.length;
  }

  function value(v: unknown, depth: number): void {
    switch (typeof v) {
      case "number":
        return number(v);
      case "string":
        return string(v);
      case "boolean":
        return head(v ? 0xc3 : 0xc2, 0, 0);
      case "undefined":
        return head(0xc0, 0, 0);
      case "bigint":
        if (v < -(2n ** 63n) || v >= 2n ** 64n) throw bigintOutOfRange(v);
        head(v < 0n ? 0xd3 : 0xcf, 0, 0); // int 64 / uint 64
        view.setBigUint64(pos, BigInt.asUintN(64, v));
        pos += 8;
        return;
      case "object":
        return v === null ? head(0xc0, 0, 0) : object(v, depth);
      default:
        throw unsupportedType(v);
    }
  }

  function number(n: number): void {
    if (!Number.isSafeInteger(n) || (n === 0 && 1 / n < 0)) {
      // float 32 / float 64 (and -0, which has no integer form)
      const f32 = options?.forceFloat32;
      head(f32 ? 0xca : 0xcb, 0, 0);
      if (f32) view.setFloat32(pos, n);
      else view.setFloat64(pos, n);
      pos += f32 ? 4 : 8;
    } else if (n >= 0 ? n < 0x80 : n >= -0x20) {
      head(n & 0xff, 0, 0); // positive / negative fixint
    } else if (n >= 0 ? n > 0xffffffff : n < -0x80000000) {
      head(n < 0 ? 0xd3 : 0xcf, Math.floor(n / 2 ** 32), 4); // int 64 / uint 64
      view.setUint32(pos, n >>> 0);
      pos += 4;
    } else {
      // uint 8 / 16 / 32 (0xcc..0xce) or int 8 / 16 / 32 (0xd0..0xd2)
      const size = n >= 0 ? (n < 0x100 ? 1 : n < 0x10000 ? 2 : 4) : n >= -0x80 ? 1 : n >= -0x8000 ? 2 : 4;
      head((n >= 0 ? 0xcc : 0xd0) + (size >> 1), n, size);
    }
  }

  function string(s: string): void {
    const len = s.length;
    room(3 * len + 9); // the header's own room(9) cannot move the buffer now
    // the UTF-8 is len..3*len bytes: write it after a header sized for len, move it if wrong
    const guess = len < 32 ? 1 : len < 0x100 ? 2 : len < 0x10000 ? 3 : 5;
    const at = pos + guess;
    let i = 0;
    if (len < 64) {
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        buf[at + i] = c;
      }
    }
    const n = i === len ? len : utf8.encodeInto(s, buf.subarray(at)).written;
    const size = n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5;
    if (size !== guess) buf.copyWithin(pos + size, at, at + n);
    sized(n, 0xa0, 32, 0xd9, 0xda, "string");
    pos += n;
  }

  function object(o: object, depth: number): void {
    if (depth >= maxDepth) throw tooDeepToEncode(depth, maxDepth);
    const exts = options?.extensionCodec?.encoders;
    if (exts !== undefined) {
      for (const ext of exts) {
        const data = ext.encode(o, options!.context);
        if (data == null) continue;
        if (!(data instanceof Uint8Array)) throw badExtPayload(ext.type, data);
        return extension(ext.type, data);
      }
    }
    const proto = Object.getPrototypeOf(o);
    if (proto === Object.prototype || proto === null) record(o as Record<string, unknown>, depth);
    else if (Array.isArray(o)) array(o, depth);
    else if (ArrayBuffer.isView(o)) binary(new Uint8Array(o.buffer, o.byteOffset, o.byteLength));
    else if (o instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && o instanceof SharedArrayBuffer)) binary(new Uint8Array(o));
    else if (o instanceof Map) {
      sized(o.size, 0x80, 16, 0, 0xde, "map");
      for (const [k, v] of o) {
        value(k, depth + 1);
        value(v, depth + 1);
      }
    } else if (o instanceof Date) date(o.getTime());
    else if (o instanceof Set) array([...o], depth);
    else if (o instanceof ExtData) extension(o.type, o.data);
    else record(o as Record<string, unknown>, depth);
  }

  function array(a: readonly unknown[], depth: number): void {
    const n = a.length;
    sized(n, 0x90, 16, 0, 0xdc, "array");
    for (let i = 0; i < n; i++) value(a[i], depth + 1);
  }

  function record(o: Record<string, unknown>, depth: number): void {
    let keys = Object.keys(o);
    if (options?.ignoreUndefined) keys = keys.filter((k) => o[k] !== undefined);
    if (options?.sortKeys) keys.sort();
    sized(keys.length, 0x80, 16, 0, 0xde, "map");
    for (const k of keys) {
      string(k);
      value(o[k], depth + 1);
    }
  }

  function binary(data: Uint8Array): void {
    sized(data.length, 0, 0, 0xc4, 0xc5, "binary");
    raw(data);
  }

  function date(ms: number): void {
    const n = timestampLength(ms);
    room(15);
    if (n === 12) head(0xc7, 12, 1); // ext 8
    else head(n === 4 ? 0xd6 : 0xd7, 0, 0); // fixext 4 / fixext 8
    buf[pos++] = TIMESTAMP_TYPE & 0xff;
    pos = writeTimestamp(buf, view, pos, ms);
  }

  function extension(type: number, data: Uint8Array): void {
    if (!Number.isInteger(type) || type < -128 || type > 127) throw badExtType(type);
    const n = data.length;
    const fix = [1, 2, 4, 8, 16].indexOf(n);
    if (fix >= 0) head(0xd4 + fix, 0, 0); // fixext 1..16
    else sized(n, 0, 0, 0xc7, 0xc8, "extension");
    head(type & 0xff, 0, 0);
    raw(data);
  }

  return (v, o) => {
    options = o;
    maxDepth = o?.maxDepth ?? DEFAULT_MAX_DEPTH;
    try {
      value(v, 0);
      return result();
    } finally {
      options = undefined;
      pos = 0;
      storeLen = 0;
      chunks = null;
      chunksLen = 0;
      if (buf.length !== SCRATCH_BYTES) use(new Uint8Array(SCRATCH_BYTES));
      if (store !== null && store.byteLength > RETAIN_MAX_BYTES) store = null;
    }
  };
}

/** Writers not in use; a call takes one, so calls made from inside an extension get their own. */
const idle: Writer[] = [];

/**
 * Encodes `value` as MessagePack into independent bytes of exact length:
 * the same bytes as `encode()` from `@resizable/msgpack`, with the options
 * that shape the output.
 *
 * @param value null, undefined, boolean, number, bigint, string, binary
 *   (any typed array, `DataView`, `ArrayBuffer`), array, `Set` (as an
 *   array), plain object or `Map` (as a map), `Date` (timestamp), `ExtData`,
 *   or anything the `extensionCodec` handles
 * @param options `extensionCodec`, `context`, `sortKeys`, `forceFloat32`,
 *   `ignoreUndefined`, `maxDepth` (see the main entry's `EncodeOptions`)
 * @returns the MessagePack bytes
 * @throws {EncodeError} for functions, symbols, cycles (`MAX_DEPTH`),
 *   bigints outside 64 bits, Invalid Date, lengths past 2^32-1
 *
 * @example
 * ```ts
 * import { decode, encode } from "@resizable/msgpack/mini";
 * const bytes = encode({ id: 1, at: new Date(0) });
 * console.assert(bytes[0] === 0x82 && (decode(bytes) as { at: Date }).at.getTime() === 0); // a map of 2
 * ```
 */
export function encode<ContextType = undefined>(value: unknown, options?: MiniEncodeOptions<ContextType>): Uint8Array<ArrayBuffer> {
  const w = idle.pop() ?? writer();
  try {
    return w(value, options as MiniEncodeOptions<unknown> | undefined);
  } finally {
    idle.push(w);
  }
}
