/**
 * The decoder's reader: how MessagePack bytes become values, by recursive
 * descent over fixed-shape state, with one bounds check per item header
 * and `maxDepth` enforced. The hot readers are methods of one class, so
 * the engine inlines them into each other; the forms off the hot path are
 * in cold.ts. The class is also `decode()`'s decoder, with what is around
 * a read: the input set and let go, re-entrant calls from extension
 * decoders, the record table, the schema's check.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { LITTLE_ENDIAN } from "../common/engine.ts";
import { dropIn } from "../common/modules.ts";
import { badArgument, decodeNeeds, extraBytes, invalidUtf8, reservedByte, stackOverflow, wrongInput } from "../common/errors.ts";
import { type ExtensionDecoderType, extensionDecoders } from "../format/extensions.ts";
import { KEY_CACHE_MAX_BYTES, SHARED_KEY_CACHE } from "./key-cache.ts";
import type { DecodeLimits } from "../common/limits.ts";
import { FIRST_BYTE, formName, readLength } from "../format/forms.ts";
import { decodeOptionsOf, type DecodeOptions, type ResolvedDecodeOptions } from "./options.ts";
import { toBytes, type DecodeInput } from "../common/input.ts";
import type { SchemaCheck } from "./schema-hook.ts";
import { TextWindow } from "./text-window.ts";
import { setOwn } from "../common/objects.ts";
import { recordDecoding, type RecordDecoding, type RecordState } from "./record-hook.ts";
import { badContainer, convertKey, outerOf, readExt, readIntoMap, short, tooLong, toMap } from "./cold.ts";

/** Shared empty input, so a reader holds no user memory between calls. */
export const EMPTY: Uint8Array = /* @__PURE__ */ new Uint8Array(0);

/**
 * What `decode()` runs on: a decoder of one value per call, safe to
 * re-enter (an extension decoder may call `decode`), and the cursor its
 * readers off the hot path read through (see cursor.ts). `CoreDecoder`
 * (decoder.ts) adds `decodeMulti` and the reads of the stream decoders,
 * which a page that imports only `decode` then does not carry.
 */
export class DecoderBase<ContextType = undefined, Output = unknown> {
  // Members marked @internal are the cursor, which the readers off the hot
  // path and the records module read through (see cursor.ts), and what the
  // stream decoders read: not private for them, and left out of the
  // published declarations (stripInternal), and what the decoders set for
  // each call (on a child decoder too: see reentrant). Every
  // field is assigned in the constructor, in this order (one object shape).
  /** @internal */
  bytes: Uint8Array;
  /** A DataView of the input, made on first use (most small messages never need one). @internal */
  view: DataView | null;
  /** 8 bytes for reading float 64s without creating a DataView per input. */
  private readonly float64: Float64Array;
  private readonly floatBytes: Uint8Array;
  /** Float 64s read from this input so far. */
  private floatsRead: number;
  /** Short strings of the input as slices of one string of many of its bytes (see text-window.ts). @internal */
  readonly window: TextWindow;
  /** @internal */
  pos: number;
  /** @internal */
  end: number;
  /**
   * The offset that index 0 of the input has in the user's input, added to
   * every offset an error reports: 0; for the stream decoders, the stream
   * offset of the buffered bytes; for an extension's payload, its offset.
   * @internal
   */
  base: number;
  /** Whether the input ends where a stream ended (set by readAt for a stream decoder's last try): its TRUNCATED errors say so. @internal */
  ended: boolean;
  /**
   * The input as the caller passed it, when a `Uint8Array` subclass (a
   * Node `Buffer`): with `binaryAsView`, binaries are its subarrays, so
   * views of a `Buffer` are `Buffer`s, as with @msgpack/msgpack. Null
   * otherwise, and between calls.
   * @internal
   */
  source: Uint8Array | null;
  /** The record structures in force for the call under way (null without `useRecords`). @internal */
  records: RecordState | null;
  /** The records module's decoding side, with `useRecords` or `structures`; else null. */
  protected readonly recordDecoding: RecordDecoding | null;
  /** Longest map key read through the key cache: 16 bytes, or less under a smaller maxStrLength. */
  private readonly cachedKeyMax: number;
  /** The options, read and resolved once, by the constructor (the stream decoders read theirs here). @internal */
  readonly options: ResolvedDecodeOptions;
  /** The codec's decoders by type (an `ExtensionCodec`'s live map). */
  private readonly codec: { get(type: number): ExtensionDecoderType<unknown> | undefined };
  /** With `invalidUtf8: "replace"`, what decodes invalid UTF-8 with U+FFFD (in {@link invalidText}, a cold path) instead of throwing; else null. */
  private readonly lossyUtf8: ((bytes: Uint8Array, start: number, length: number) => string) | null;
  /** With `buffers`: what makes a binary a Node `Buffer` over the same memory; else null. */
  private readonly toBuffer: ((bytes: Uint8Array) => Uint8Array) | null;
  /** Longest string value decoded as text: `maxStrLength`, or -1 with `rawStrings` (every string value is then a binary). */
  private strMax: number;
  /** @internal */
  readonly limits: DecodeLimits;
  /** Whether a call is reading with this decoder (a call made meanwhile takes {@link reentrant}). @internal */
  busy: boolean;
  /** The decoder that re-entrant calls use, made on first need. */
  private child: DecoderBase<ContextType, Output> | null;
  /** This decoder's own table, for `decode()` calls (null without `useRecords`). @internal */
  readonly messageRecords: RecordState | null;
  /** With `schema`: what checks each value, from the schema module (the stream decoders check theirs with it); else null. @internal */
  readonly check: SchemaCheck | null;

  /** @param options see {@link DecodeOptions}; each is read once, here */
  constructor(options?: DecodeOptions<ContextType, Output> | null) {
    const o = decodeOptionsOf(options);
    this.bytes = EMPTY;
    this.view = null;
    this.float64 = new Float64Array(1);
    this.floatBytes = new Uint8Array(this.float64.buffer);
    this.floatsRead = 0;
    this.window = new TextWindow();
    this.pos = 0;
    this.end = 0;
    this.base = 0;
    this.ended = false;
    this.source = null;
    this.records = null;
    this.recordDecoding = o.useRecords || o.structures !== undefined ? recordDecoding(o.useRecords ? "useRecords" : "structures") : null;
    this.cachedKeyMax = Math.min(KEY_CACHE_MAX_BYTES, o.maxStrLength);
    this.options = o;
    this.codec = extensionDecoders(o.extensionCodec ?? null);
    this.lossyUtf8 = o.invalidUtf8 === "replace" ? dropIn("invalidUtf8", decodeNeeds) : null;
    this.toBuffer = o.buffers ? dropIn("buffers", decodeNeeds)() : null;
    if (o.buffers && this.toBuffer === null) throw badArgument("option buffers", true, "false: this runtime has no Buffer class on globalThis");
    this.strMax = o.rawStrings ? -1 : o.maxStrLength;
    this.limits = o;
    this.busy = false;
    this.child = null;
    this.messageRecords = o.useRecords ? this.recordDecoding!.table(o.structures ?? null, o.compileRecordReaders) : null;
    this.check = o.schema === undefined ? null : dropIn("schema", decodeNeeds)(o.schema);
  }

  /**
   * Decodes exactly one value that fills `input`.
   *
   * @param input the MessagePack bytes: a `Uint8Array`, `ArrayBuffer`, any
   *   view, or an array of byte values
   * @returns the value (with `schema`, the schema's output)
   * @throws {DecodeError} for malformed, truncated or over-limit input, for
   *   bytes after the value (code `EXTRA_BYTES`; use `decodeMulti`), for
   *   input that is not bytes (`INVALID_ARGUMENT`), and with `schema` for a
   *   value it refuses (`SCHEMA_MISMATCH`)
   *
   * @example
   * ```ts
   * import { Decoder } from "@resizable/msgpack";
   * console.assert(String(new Decoder().decode(new Uint8Array([0x93, 1, 2, 3]))) === "1,2,3");
   * ```
   */
  decode(input: DecodeInput): Output {
    // a busy decoder (called from an extension decoder) hands over to an idle
    // one without a frame of its own: nesting through extensions is stack-bound
    const d = this.busy ? this.reentrant() : this;
    const bytes = toBytes(input);
    // an extension's payload continues the decode that found it (see cold.ts)
    const outer = outerOf(bytes);
    let value: unknown;
    d.busy = true;
    try {
      d.setInput(bytes, 0, outer.base);
      if (bytes !== input && input instanceof Uint8Array) d.source = input; // a Buffer: binaries with binaryAsView are its views
      // this decoder's own record table, begun: the message's structures only (no locals: this frame is on every level of nested extensions)
      d.records = d.messageRecords;
      if (d.records !== null) d.records.begin();
      value = d.readValue(outer.depth);
      if (d.pos !== d.end) {
        throw extraBytes(d.base + d.pos, d.end - d.pos, wrongInput(d.bytes, d.pos));
      }
    } catch (e) {
      throw stackOverflow(e, d.base + d.pos);
    } finally {
      // let go of the input (no user memory kept between calls); inline, as this may run near the stack limit
      d.bytes = EMPTY;
      d.view = null;
      d.window.reset();
      d.source = null;
      // the message's own structures are let go (only the shared ones stay)
      if (d.records !== null) d.records.rollback();
      d.records = null;
      d.busy = false;
    }
    // the schema's verdict, once the input is let go (its errors are its own)
    return (this.check === null ? value : this.check(value, outer.base)) as Output;
  }

  /**
   * A free decoder for calls made while this one is busy (from an extension
   * decoder): the first idle one down the chain of children, made on first
   * need. Found in a loop, not by recursion through the busy ones: decode()
   * with equal options finds this same busy decoder at every level of nested
   * extensions, and a call at level k must not cost k stack frames.
   * @internal
   */
  reentrant(): DecoderBase<ContextType, Output> {
    let d: DecoderBase<ContextType, Output> = this;
    while (d.busy) d = d.child ?? (d.child = new DecoderBase(this.options as DecodeOptions<ContextType, Output>));
    return d;
  }

  /** Starts reading `bytes` at `offset`, `base` being the offset of its byte 0 in the user's input. @internal */
  setInput(bytes: Uint8Array, offset: number, base: number): void {
    this.bytes = bytes;
    this.base = base;
    this.view = null;
    this.floatsRead = 0;
    this.pos = offset;
    this.end = bytes.length;
  }

  /**
   * Big-endian float 64 at `at` (bounds already checked). The first few of
   * an input are read through an 8-byte scratch, sparing small messages a
   * DataView (~100 ns to create on Node); inputs with more floats get one.
   * The view is read into a local and called directly: through `dv()` on
   * every float, Bun (JSC) decoded an array of 1e5 doubles 2-3x slower.
   */
  private readFloat64(at: number): number {
    const view = this.view;
    if (view !== null) return view.getFloat64(at);
    if (!LITTLE_ENDIAN || ++this.floatsRead > 4) return this.dv().getFloat64(at);
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

  private dv(): DataView {
    return this.view ?? (this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength));
  }

  // ---- recursive descent ----

  /**
   * The value at `pos`, at nesting depth `depth`. With records on for the
   * call (`records` is set), the bytes 0x40-0x7f start records and a fixext
   * 1 or 2 of type 0x72 declares a structure: the records module reads them.
   * @internal
   */
  readValue(depth: number): unknown {
    const pos = this.pos;
    const end = this.end;
    if (pos >= end) throw short(this, pos, 1, "value");
    const b = this.bytes;
    const t = b[pos]!;
    this.pos = pos + 1;
    if (t < 0x40) return t; // positive fixint
    if (t < 0x80) return this.records === null ? t : this.recordDecoding!.record(this, this.records, t, depth, pos); // positive fixint, or a record
    if (t >= 0xe0) return t - 0x100; // negative fixint
    if (t >= 0xa0) {
      if (t < 0xc0) return this.readString(t & 0x1f, pos); // fixstr
    } else {
      if (t < 0x90) return this.readMap(t & 0x0f, depth, pos); // fixmap
      // a fixarray (up to 15 items), read here rather than by a method: V8 inlines
      // a method by its inlining budget for readValue, which the string and record
      // readers spend first once they have run, and called, the 2-item arrays of a
      // time series decoded 0.4-0.7x as fast
      const n = t & 0x0f;
      if (pos + 1 + n > end || n > this.limits.maxArrayLength || depth >= this.limits.maxDepth) throw badContainer(this, 8 /* WIRE_ARRAY */, n, depth, pos);
      const arr = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        // a float 64 item is read here: in V8 readValue would return it as a new heap number,
        // and on Bun 1e6 doubles decoded 3x as fast here as through readValue
        const p = this.pos;
        if (b[p] === 0xcb && p + 9 <= end) {
          this.pos = p + 9;
          arr[i] = this.readFloat64(p + 1);
        } else {
          arr[i] = this.readValue(depth + 1);
        }
      }
      return arr;
    }
    // the commonest fixed-size forms inline
    if (t === 0xcb && pos + 9 <= end) {
      this.pos = pos + 9;
      return this.readFloat64(pos + 1); // float 64
    }
    if (t === 0xcc && pos + 2 <= end) {
      this.pos = pos + 2;
      return b[pos + 1]; // uint 8
    }
    if (t === 0xcf && pos + 9 <= end && b[pos + 1] === 0 && b[pos + 2]! < 0x20 && this.options.int64 !== "bigint") {
      // uint 64 below 2^53 (millisecond timestamps and the like): a number in every int64 mode but "bigint";
      // its bytes read here, not by u32(), which V8 left out of readValue once records had run
      this.pos = pos + 9;
      const high = (b[pos + 2]! << 16) | (b[pos + 3]! << 8) | b[pos + 4]!;
      return high * 0x100000000 + (((b[pos + 5]! << 24) | (b[pos + 6]! << 16) | (b[pos + 7]! << 8) | b[pos + 8]!) >>> 0);
    }
    if (t === 0xcd && pos + 3 <= end) {
      this.pos = pos + 3;
      return (b[pos + 1]! << 8) | b[pos + 2]!; // uint 16
    }
    if (t === 0xd0 && pos + 2 <= end) {
      this.pos = pos + 2;
      return (b[pos + 1]! << 24) >> 24; // int 8
    }
    if (t === 0xd1 && pos + 3 <= end) {
      this.pos = pos + 3;
      return (((b[pos + 1]! << 8) | b[pos + 2]!) << 16) >> 16; // int 16
    }
    // the rest by the first-byte table (literal kinds: imported constants would cost V8 its jump table)
    const form = FIRST_BYTE[t]!;
    const field = (form >> 4) & 0x07;
    const n = field === 0 ? form >> 8 : this.lengthField(field, pos);
    switch (form & 0x0f) {
      case 6: // WIRE_STR: str 8 / 16 / 32
        return this.readString(n, pos);
      case 9: // WIRE_MAP: map 16 / 32
        return this.readMap(n, depth, pos);
      case 8: // WIRE_ARRAY: array 16 / 32
        return this.readLongArray(n, depth, pos);
      // the numbers: those read above come here only when the input ends inside them, and need() throws
      case 5: // WIRE_FLOAT: float 32 (float 64 above)
        return this.dv().getFloat32(this.need(n, pos)); // rare enough not to spare a DataView
      case 3: // WIRE_UINT: uint 32 / 64 (uint 8 / 16 / 64 above)
        return n === 4 ? readLength(b, this.need(4, pos), 4) : this.read64(this.need(n, pos), false);
      case 4: // WIRE_INT: int 32 / 64 (int 8 / 16 above)
        return n === 4 ? readLength(b, this.need(4, pos), 4) | 0 : this.read64(this.need(n, pos), true);
      case 0: // WIRE_NIL
        return null;
      case 1: // WIRE_FALSE
        return false;
      case 2: // WIRE_TRUE
        return true;
      case 7: // WIRE_BIN: bin 8 / 16 / 32
        return this.readBinary(n, pos, false);
      case 10: // WIRE_EXT: fixext 1-16, ext 8 / 16 / 32
        // a fixext 1 / 2 of type 0x72 declares a structure (in an ext 8 / 16 / 32 of 2 bytes or less, the byte after the first is 0-2)
        if (n < 3 && b[pos + 1] === 0x72 && this.records !== null) return this.recordDecoding!.definition(this, this.records, n === 2, depth, pos);
        return readExt(this, this.codec, n, pos, depth);
      default: // WIRE_RESERVED: 0xc1
        throw reservedByte(this.base + pos);
    }
  }

  /**
   * The big-endian length field of `field` (1, 2 or 4) bytes after the
   * header's first byte at `start`, each size read its own way: through
   * readLength's loop, Bun decoded the wide map 0.76x as fast.
   */
  private lengthField(field: number, start: number): number {
    const at = this.need(field, start);
    const b = this.bytes;
    return field === 1 ? b[at]! : field === 2 ? (b[at]! << 8) | b[at + 1]! : readLength(b, at, 4);
  }

  /**
   * Checks that `n` bytes follow the header at `start` (the cursor after
   * it), advances past them and returns where they begin; else a TRUNCATED
   * error about `what` (by default, the form of the header's first byte).
   */
  private need(n: number, start: number, what?: string): number {
    const at = this.pos;
    if (at + n > this.end) throw short(this, start, at - start + n, what ?? formName(this.bytes[start]!));
    this.pos = at + n;
    return at;
  }

  /** A string of `n` bytes whose header is at `start` (the cursor after it). @internal */
  readString(n: number, start: number): string | Uint8Array {
    // over maxStrLength, or any string value with rawStrings (then a binary)
    if (n > this.strMax) return this.readBinary(n, start, true);
    const at = this.need(n, start, "string");
    return this.window.text(this.bytes, at, n) ?? this.invalidText(at, n);
  }

  /** The `n` bytes at `at`, which are not UTF-8: decoded with U+FFFD with `invalidUtf8: "replace"`, else an `INVALID_UTF8` error at `at`. */
  private invalidText(at: number, n: number): string {
    if (this.lossyUtf8 !== null) return this.lossyUtf8(this.bytes, at, n);
    throw invalidUtf8(this.base + at);
  }

  /**
   * A map key (or a record's field name): a short fixstr from the key
   * cache, any other string as text (even with `rawStrings`), or any other
   * value. @internal
   */
  readKey(depth: number): unknown {
    const p = this.pos;
    const t = p < this.end ? this.bytes[p]! : 0;
    if (t >= 0xa0 && t <= 0xa0 + this.cachedKeyMax) {
      // the bounds checked here, not by need(): the key cache's lookup is inlined into readMap within its budget
      const len = t - 0xa0;
      if (p + 1 + len > this.end) throw short(this, p, 1 + len, "string");
      this.pos = p + 1 + len;
      return SHARED_KEY_CACHE.get(this.bytes, p + 1, len) ?? this.invalidText(p + 1, len);
    }
    if (this.strMax >= 0 || !((t >= 0xa0 && t < 0xc0) || (t >= 0xd9 && t <= 0xdb))) return this.readValue(depth);
    this.strMax = this.limits.maxStrLength; // with rawStrings, this one string as text
    try {
      return this.readValue(depth);
    } finally {
      this.strMax = -1;
    }
  }

  /** A binary of `n` bytes whose header is at `start`, or (`str`) a string over `maxStrLength` or read as a binary (`rawStrings`). */
  private readBinary(n: number, start: number, str: boolean): Uint8Array {
    // a string under maxStrLength is refused as such; read as a binary, under maxBinLength
    if (str && this.strMax >= 0) throw tooLong(this, "string", n, start, "maxStrLength");
    if (n > this.limits.maxBinLength) throw tooLong(this, str ? "string" : "binary", n, start, "maxBinLength");
    const at = this.need(n, start, str ? "string" : "binary");
    // a view (of the caller's input when it is a Buffer: see `source`) or a copy, as a Buffer with `buffers`
    const bin = this.options.binaryAsView ? (this.source ?? this.bytes).subarray(at, at + n) : this.bytes.slice(at, at + n);
    return this.toBuffer === null ? bin : this.toBuffer(bin);
  }

  /**
   * An array 16 / 32 (16 items or more), where the call per item counts
   * more than the size of this loop: positive fixints and 16-bit integers
   * are read here too, without a call to readValue (too big to inline).
   * With records, 0x40-0x7f are record identifiers: those bytes take
   * readValue (the record reader). A byte past the end (undefined) takes
   * readValue, which throws.
   */
  private readLongArray(n: number, depth: number, start: number): unknown[] {
    if (this.pos + n > this.end || n > this.limits.maxArrayLength || depth >= this.limits.maxDepth) throw badContainer(this, 8 /* WIRE_ARRAY */, n, depth, start);
    const arr = new Array<unknown>(n);
    const b = this.bytes;
    const fixintEnd = this.records === null ? 0x80 : 0x40;
    for (let i = 0; i < n; i++) {
      const p = this.pos;
      const t = b[p]!;
      // float 64 first: tested after the integers, 1e6 doubles decoded 0.90-0.93x as fast as
      // through the loop that tested only it (Node 20); the integers kept 1.2x their old speed
      if (t === 0xcb && p + 9 <= this.end) {
        this.pos = p + 9;
        arr[i] = this.readFloat64(p + 1);
      } else if (t < fixintEnd) {
        this.pos = p + 1;
        arr[i] = t; // positive fixint
      } else if ((t === 0xcd || t === 0xd1) && p + 3 <= this.end) {
        this.pos = p + 3;
        const u = (b[p + 1]! << 8) | b[p + 2]!;
        arr[i] = t === 0xcd ? u : (u << 16) >> 16; // uint 16 / int 16
      } else {
        arr[i] = this.readValue(depth + 1);
      }
    }
    return arr;
  }

  private readMap(n: number, depth: number, start: number): unknown {
    // every entry takes at least two bytes: refuse before allocating
    if (this.pos + 2 * n > this.end || n > this.limits.maxMapLength || depth >= this.limits.maxDepth) throw badContainer(this, 9 /* WIRE_MAP */, n, depth, start);
    if (this.options.useMap) return readIntoMap(this, new Map(), n, depth, true);
    const obj: Record<string, unknown> = {};
    // the keys in wire order, kept from the first key that may be an array
    // index (objects list those first), for a switch to Map
    let order: string[] | null = null;
    const convert = this.options.mapKeyConverter !== undefined;
    for (let i = 0; i < n; i++) {
      let key = convert ? convertKey(this, depth + 1) : this.readKey(depth + 1);
      if (typeof key !== "string") {
        // numbers and bigints become property names; at any other key (a binary, boolean, nil, array, map or extension) the map goes on as a Map
        if (typeof key !== "number" && typeof key !== "bigint") return toMap(this, obj, order, key, n - i - 1, depth);
        key = String(key);
      }
      if (order !== null) order.push(key as string);
      else {
        const c = (key as string).charCodeAt(0);
        if (c <= 0x39 && c >= 0x30) (order = Object.keys(obj)).push(key as string);
      }
      const value = this.readValue(depth + 1);
      if (key === "__proto__") setOwn(obj, key, value);
      else obj[key as string] = value;
    }
    return obj;
  }

  /**
   * The int 64 (`signed`) or uint 64 at `at`, by the `int64` mode: a
   * number, unless the mode is "bigint" or (in "auto") the value is past
   * 2^53 (computed in doubles, a value past it stays past it).
   */
  private read64(at: number, signed: boolean): number | bigint {
    if (this.options.int64 !== "bigint") {
      const b = this.bytes;
      const high = readLength(b, at, 4);
      const value = (signed ? high | 0 : high) * 0x100000000 + readLength(b, at + 4, 4);
      if (this.options.int64 === "number" || Number.isSafeInteger(value)) return value;
    }
    return signed ? this.dv().getBigInt64(at) : this.dv().getBigUint64(at);
  }
}
