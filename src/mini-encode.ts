/**
 * The encoder of `@resizable/msgpack/mini`: byte for byte the output of the
 * main `encode()`, from about a third of the code. The output path is the
 * main encoder's fallback: values are written into a plain 16 KiB scratch
 * buffer; a full scratch is kept as a chunk and a new one started, large
 * binaries become chunks as they are, and the chunks are joined once at the
 * end. Left out for size: the resizable store (about 150 B gzip), the size
 * estimate, the JS UTF-8 encoder for non-ASCII text, pooled results and the
 * tuned loops; the main entry is the one for large outputs.
 *
 * State lives in closures (their variables minify to one letter); each
 * re-entrant call (an extension that encodes) takes an idle writer of its own.
 *
 * @module
 */

import { concat } from "./concat.ts";
import type { EncodeOptions } from "./encode-options.ts";
import { badExtPayload, bigintOutOfRange, changedAt, cycle, tooDeepToEncode, tooLong, unsupportedType } from "./errors.ts";
import { checkExtType, ExtData, extensionEncoders, timestampFirst, WHOLE_CODEC } from "./extensions.ts";
import { bytesOf } from "./input.ts";
import { DEFAULT_MAX_DEPTH } from "./limits.ts";
import { writeTimestamp } from "./timestamp.ts";

/** Options of the mini {@link encode}: the main encoder's options that shape the output. */
export type MiniEncodeOptions<ContextType = undefined> = Pick<
  EncodeOptions<ContextType>,
  "extensionCodec" | "context" | "sortKeys" | "forceFloat32" | "ignoreUndefined" | "maxDepth"
>;

/** Size of each writer's scratch buffer, and of each chunk it starts. */
const SCRATCH_BYTES = 16 * 1024;

const utf8 = new TextEncoder();

type Writer = (value: unknown, options: MiniEncodeOptions<unknown> | undefined) => Uint8Array<ArrayBuffer>;

/**
 * The depth at which an `encode` called from inside an extension encoder
 * starts (the extension's payload's), as in the main entry: `maxDepth`
 * bounds nesting through extensions. 0 outside extensions.
 */
let nesting = 0;

function writer(): Writer {
  let buf: Uint8Array = new Uint8Array(SCRATCH_BYTES);
  let view = new DataView(buf.buffer);
  let pos = 0;
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

  /** Keeps the bytes written so far as a chunk and starts a new scratch. */
  function flush(): void {
    if (pos === 0) return;
    put(buf.subarray(0, pos));
    pos = 0;
    use(new Uint8Array(SCRATCH_BYTES));
  }

  /** Appends `part` to the output as a chunk of its own. */
  function put(part: Uint8Array): void {
    (chunks ??= []).push(part);
    chunksLen += part.length;
  }

  /** The output as one plain, exact-length `Uint8Array`. */
  function result(): Uint8Array<ArrayBuffer> {
    if (chunks === null) return buf.slice(0, pos);
    flush();
    return concat(chunks, chunksLen);
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

  /**
   * A length header: fix form below `fixMax`, then the 8 (if any), 16 and
   * 32-bit forms. Only binaries and extensions can be longer than 2^32-1
   * (a string's UTF-8 is at most 3 GiB, arrays and maps hold fewer than
   * 2^32 items): raw() checks those.
   */
  function sized(n: number, fix: number, fixMax: number, code8: number, code16: number): void {
    if (n < fixMax) head(fix | n, 0, 0);
    else if (code8 !== 0 && n < 0x100) head(code8, n, 1);
    else if (n < 0x10000) head(code16, n, 2);
    else head(code16 + 1, n, 4);
  }

  /** Bytes in bulk: into the scratch if they fit, else as a chunk of their own (not copied until the end). */
  function raw(data: Uint8Array, what: string): void {
    if (data.length > 0xffffffff) throw tooLong(what, data.length);
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
        if (claimed(v, depth)) return;
        if (v < -(2n ** 63n) || v >= 2n ** 64n) throw bigintOutOfRange(v);
        head(v < 0n ? 0xd3 : 0xcf, 0, 0); // int 64 / uint 64
        view.setBigUint64(pos, BigInt.asUintN(64, v));
        pos += 8;
        return;
      case "object":
        return v === null ? head(0xc0, 0, 0) : object(v, depth);
      default:
        // a function or symbol: an extension may claim it
        if (depth >= maxDepth) throw tooDeepToEncode(depth, maxDepth);
        if (claimed(v, depth)) return;
        throw unsupportedType(v);
    }
  }

  function number(n: number): void {
    if (!Number.isSafeInteger(n) || Object.is(n, -0)) {
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
    sized(n, 0xa0, 32, 0xd9, 0xda);
    pos += n;
  }

  /** Tries the extensions on `v` (at `depth`; an encode they call continues below it) and writes the first payload. */
  function claimed(v: unknown, depth: number): boolean {
    const codec = options?.extensionCodec;
    const exts = codec && extensionEncoders(codec as never);
    if (!exts || timestampFirst(exts, v)) return false;
    const outer = nesting;
    nesting = depth + 1;
    try {
      for (const ext of exts) {
        const data = ext.encode(v, options!.context);
        // a codec of another kind gives a whole ExtData
        if (data != null) return ext.type === WHOLE_CODEC ? extension((data as unknown as ExtData).type, (data as unknown as ExtData).data) : extension(ext.type, data), true;
      }
      return false;
    } finally {
      nesting = outer;
    }
  }

  function object(o: object, depth: number): void {
    if (depth >= maxDepth) throw contains(o) ? cycle() : tooDeepToEncode(depth, maxDepth);
    if (claimed(o, depth)) return;
    const proto = Object.getPrototypeOf(o);
    let bytes: Uint8Array | undefined;
    if (proto === Object.prototype || proto === null) record(o as Record<string, unknown>, depth);
    else if (Array.isArray(o)) array(o, depth);
    else if ((bytes = bytesOf(o)) !== undefined) binary(bytes);
    else if (o instanceof Map) {
      const n = o.size;
      let i = 0;
      sized(n, 0x80, 16, 0, 0xde);
      for (const [k, v] of o) {
        if (i++ === n) throw changedAt("Map", "", n, "more");
        value(k, depth + 1);
        value(v, depth + 1);
      }
      if (i !== n) throw changedAt("Map", "", n, i);
    } else if (o instanceof Date) {
      room(15);
      pos = writeTimestamp(view, pos, o.getTime());
    } else if (o instanceof Set) {
      const n = o.size;
      array([...o], depth);
      if (o.size !== n) throw changedAt("Set", "", n, o.size);
    }
    else if (o instanceof ExtData) extension(o.type, o.data);
    else record(o as Record<string, unknown>, depth);
  }

  function array(a: readonly unknown[], depth: number): void {
    const n = a.length;
    sized(n, 0x90, 16, 0, 0xdc);
    for (let i = 0; i < n; i++) value(a[i], depth + 1);
    if (a.length !== n) throw changedAt("array", "", n, a.length);
  }

  function record(o: Record<string, unknown>, depth: number): void {
    let keys = Object.keys(o);
    if (options?.sortKeys) keys.sort();
    // every value read once, before the header
    let values = keys.map((k) => o[k]);
    if (options?.ignoreUndefined) {
      keys = keys.filter((_, i) => values[i] !== undefined);
      values = values.filter((v) => v !== undefined);
    }
    sized(keys.length, 0x80, 16, 0, 0xde);
    keys.forEach((k, i) => {
      string(k);
      value(values[i], depth + 1);
    });
  }

  function binary(data: Uint8Array): void {
    sized(data.length, 0, 0, 0xc4, 0xc5);
    raw(data, "binary");
  }

  /** `data`: the payload as any view or `ArrayBuffer` (an aligned payload, a function, is the main entry's). */
  function extension(type: number, data: unknown): void {
    checkExtType(type);
    const b = bytesOf(data);
    if (!b) throw badExtPayload(type);
    const n = b.length;
    const fix = [1, 2, 4, 8, 16].indexOf(n);
    if (fix >= 0) head(0xd4 + fix, 0, 0); // fixext 1..16
    else sized(n, 0, 0, 0xc7, 0xc8);
    head(type & 0xff, 0, 0);
    raw(b, "extension");
  }

  return (v, o) => {
    options = o;
    maxDepth = o?.maxDepth ?? DEFAULT_MAX_DEPTH;
    try {
      value(v, nesting);
      return result();
    } finally {
      options = undefined;
      pos = 0;
      chunks = null;
      chunksLen = 0;
      if (buf.length !== SCRATCH_BYTES) use(new Uint8Array(SCRATCH_BYTES));
    }
  };
}

/** Whether `o` contains itself: the cold check that tells a cycle from deep nesting. */
function contains(o: object): boolean {
  const seen = new Set<unknown>();
  const todo: unknown[] = [o];
  for (let x; (x = todo.pop()); ) {
    for (const v of x instanceof Map ? [...x].flat() : x instanceof Set ? [...x] : ArrayBuffer.isView(x) ? [] : Object.values(x as object)) {
      if (v === o) return true;
      if (v && typeof v == "object" && !seen.has(v)) seen.add(v), todo.push(v);
    }
  }
  return false;
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
 *   bigints outside 64 bits, Invalid Date, lengths past 2^32-1, and an
 *   output past 4 GiB (`OUT_OF_SPACE`)
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
