/**
 * The encoder of `@resizable/msgpack/mini`: byte for byte the output of the
 * main `encode()`, built on the same format modules (values classified by
 * kind.ts, written by forms.ts's writers and timestamp.ts). The output
 * path is the main encoder's fallback: values are written into a plain
 * 16 KiB scratch buffer; a full scratch is kept as a chunk and a new one
 * started, large binaries become chunks as they are, and the chunks are
 * joined once at the end. Left out for size: the resizable store, the size
 * estimate, the JS UTF-8 encoder for non-ASCII text, pooled results, the
 * tuned loops, option checks, error paths and aligned (function) extension
 * payloads; the main entry is the one for large outputs.
 *
 * State lives in closures (their variables minify to one letter); each
 * re-entrant call (an extension that encodes) takes an idle writer of its own.
 *
 * @module
 */

import { concat } from "../encode/concat.ts";
import type { EncodeOptions } from "../encode/options.ts";
import {
  badCodecResult,
  badCount,
  bigintOutOfRange,
  changedAt,
  cycle,
  miniExtPayload,
  tooDeepToEncode,
  tooLong,
  unreadable,
  unsupportedType,
} from "../shared/errors.ts";
import { checkExtType, ExtData, extensionEncoders, timestampFirst, WHOLE_CODEC } from "../format/extensions.ts";
import {
  strHeaderSize,
  writeArrayHeader,
  writeBigInt,
  writeBinHeader,
  writeBoolean,
  writeExtHeader,
  writeFloat,
  writeInt,
  writeMapHeader,
  writeNil,
  writeStrHeader,
} from "../format/forms.ts";
import { bytesOf } from "../shared/input.ts";
import { KIND_ARRAY, KIND_BIGINT, KIND_BINARY, KIND_BOOLEAN, KIND_BOXED, KIND_DATE, KIND_MAP, KIND_NIL, KIND_NUMBER, KIND_RECORD, KIND_SET, KIND_STRING, KIND_UNSUPPORTED, kindOf, objectKind, unbox } from "../format/kind.ts";
import { DEFAULT_MAX_DEPTH } from "../shared/limits.ts";
import { binaryBytes } from "../encode/size.ts";
import { writeTimestamp } from "../format/timestamp.ts";

/** Options of the mini {@link encode}: the main encoder's options that shape the output. */
export type MiniEncodeOptions<ContextType = undefined> = Pick<
  EncodeOptions<ContextType>,
  "extensionCodec" | "context" | "sortKeys" | "forceFloat32" | "ignoreUndefined" | "maxDepth" | "undefinedAsExtension"
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

  /**
   * The bytes of a binary or extension (`what`) in bulk, after their
   * header: into the scratch if they fit, else as a chunk of their own
   * (not copied until the end).
   */
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

  /** Checks that `n` (an array's length, a Map's size) is a count MessagePack can declare. */
  function count(n: number, what: string): number {
    if (n >>> 0 !== n) throw badCount(what, n);
    return n;
  }

  /** Writes `v`, found at `depth`: objects by {@link object}, the rest by their kind. */
  function value(v: unknown, depth: number): void {
    if (typeof v === "object" && v !== null) return object(v, depth);
    const kind = kindOf(v);
    if (kind === KIND_STRING) return string(v as string);
    if (kind === KIND_BIGINT || kind === KIND_UNSUPPORTED) {
      // an extension may claim a bigint, a function or a symbol
      if (kind === KIND_UNSUPPORTED && depth >= maxDepth) throw tooDeepToEncode(depth, maxDepth);
      if (claimed(v, depth)) return;
      if (kind === KIND_UNSUPPORTED) throw unsupportedType(v);
      if ((v as bigint) < -(2n ** 63n) || (v as bigint) >= 2n ** 64n) throw bigintOutOfRange(v as bigint);
    }
    room(9);
    if (kind === KIND_NUMBER) {
      const n = v as number;
      // -0 has no int form
      pos = Number.isSafeInteger(n) && !Object.is(n, -0) ? writeInt(buf, pos, n) : writeFloat(view, pos, n, !!options?.forceFloat32);
    } else if (kind === KIND_BOOLEAN) pos = writeBoolean(buf, pos, v as boolean);
    else if (kind === KIND_NIL) {
      if (v === undefined && options?.undefinedAsExtension) {
        buf[pos++] = 0xd4; // msgpackr's undefined: fixext 1, type 0, payload 0
        buf[pos++] = 0;
        buf[pos++] = 0;
      } else pos = writeNil(buf, pos);
    }
    else pos = writeBigInt(view, pos, v as bigint);
  }

  function string(s: string): void {
    const len = s.length;
    room(3 * len + 5);
    // the UTF-8 is len..3*len bytes: write it after a header sized for len, move it if wrong
    const guess = strHeaderSize(len);
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
    const size = strHeaderSize(n);
    if (size !== guess) buf.copyWithin(pos + size, at, at + n);
    writeStrHeader(buf, pos, n, size);
    pos += size + n;
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
        const data: unknown = ext.encode(v, options!.context);
        if (data == null) continue;
        if (ext.type !== WHOLE_CODEC) extension(ext.type, data);
        // a codec of another kind gives a whole ExtData
        else if (data instanceof ExtData) extension(data.type, data.data);
        else throw badCodecResult(data);
        return true;
      }
      return false;
    } finally {
      nesting = outer;
    }
  }

  /** Writes object `o`: an extension's if one claims it, else by its kind. */
  function object(o: object, depth: number): void {
    if (depth >= maxDepth) throw contains(o) ? cycle() : tooDeepToEncode(depth, maxDepth);
    if (claimed(o, depth)) return;
    const kind = objectKind(o);
    if (kind === KIND_ARRAY) array(o as unknown[], depth);
    else if (kind === KIND_RECORD) record(o as Record<string, unknown>, depth);
    else if (kind === KIND_BINARY) {
      const data = binaryBytes(o)!;
      room(5);
      pos = writeBinHeader(buf, pos, data.length);
      raw(data, "binary");
    } else if (kind === KIND_MAP || kind === KIND_SET) {
      // a subclass or a Proxy may answer anything: read as the main encoder reads them
      const what = kind === KIND_MAP ? "Map" : "Set";
      const m = o as Map<unknown, unknown>;
      let n: number;
      let items: unknown[] = [];
      let next!: () => IteratorResult<unknown> | undefined;
      try {
        n = m.size;
        if (kind === KIND_SET) items = [...m];
        else {
          const entries = m[Symbol.iterator]();
          next = entries.next.bind(entries); // a TypeError here if it has no next()
        }
      } catch (e) {
        throw unreadable(what, "?", e); // a Proxy around a Map, say
      }
      if (kind === KIND_SET) {
        array(items, depth);
        if (m.size !== n) throw changedAt(what, "", n, m.size);
        return;
      }
      room(5);
      pos = writeMapHeader(buf, pos, count(n, what));
      let i = 0;
      for (let r; (r = next())?.done !== true; i++) {
        const entry: unknown = r?.value;
        if (i === n || typeof entry !== "object" || entry === null) throw changedAt(what, "", n, i === n ? "more" : "a non-entry");
        value((entry as unknown[])[0], depth + 1);
        value((entry as unknown[])[1], depth + 1);
      }
      if (i !== n) throw changedAt(what, "", n, i);
    } else if (kind === KIND_DATE) {
      room(15);
      pos = writeTimestamp(view, pos, (o as Date).getTime());
    } else if (kind === KIND_BOXED) value(unbox(o), depth);
    else extension((o as ExtData).type, (o as ExtData).data);
  }

  function array(a: readonly unknown[], depth: number): void {
    const n = count(a.length, "array");
    room(5);
    pos = writeArrayHeader(buf, pos, n);
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
    room(5);
    pos = writeMapHeader(buf, pos, keys.length);
    keys.forEach((k, i) => {
      string(k);
      value(values[i], depth + 1);
    });
  }

  /** `data`: the payload as any view or `ArrayBuffer` (an aligned payload, a function, is the main entry's). */
  function extension(type: number, data: unknown): void {
    const b = bytesOf(data);
    if (!b) throw miniExtPayload(type, data);
    checkExtType(type);
    room(6);
    pos = writeExtHeader(buf, pos, type, b.length);
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
