/**
 * The decoder: `decode()`, `decodeMulti()`, the reusable {@link Decoder}
 * and its options. Recursive descent over fixed-shape state, with one
 * bounds check per item header and `maxDepth` enforced.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { LITTLE_ENDIAN } from "../common/engine.ts";
import { dropIn } from "../common/modules.ts";
import { badArgument, wrongInput, DecodeError, extraBytes, invalidUtf8, reservedByte, stackOverflow, truncated } from "../common/errors.ts";
import { type ExtensionCodecType, type ExtensionDecoderType, extensionDecoders } from "../format/extensions.ts";
import { toBytes, type DecodeInput } from "../common/input.ts";
import { KEY_CACHE_MAX_BYTES, type KeyCache, SHARED_KEY_CACHE } from "./key-cache.ts";
import { MAX_U32, type DecodeLimits } from "../common/limits.ts";
import { FIRST_BYTE, formName } from "../format/forms.ts";
import { decodeOptionsOf, decoderArguments, type DecodeOptions, type Int64Mode, type ResolvedDecodeOptions } from "./options.ts";
import { decodeUtf8 } from "../format/utf8.ts";
import { TextWindow } from "./text-window.ts";
import { setOwn } from "../common/objects.ts";
import { recordDecoding, type RecordDecoding, type RecordState } from "./record-hook.ts";
import { headerError } from "./limits.ts";
import { baseOf, builtInExtension, callExtension, nesting } from "./extension-reader.ts";
import { continueAsMap, readMapWith } from "./map-forms.ts";
import type { SchemaCheck } from "./schema-hook.ts";

export type { DecodeOptions, DecoderOptions, Int64Mode } from "./options.ts";

/** Shared empty input, so a fresh decoder holds no user memory. */
const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/**
 * A reusable decoder. Safe to re-enter (an extension decoder may call
 * `decode`). The core of the main entry's `Decoder`, which adds the stream
 * methods (and is what users make; one class of each name, so each keeps
 * its own `name` in a bundle).
 *
 * @example
 * ```ts
 * import { Decoder, encode } from "@resizable/msgpack";
 * const decoder = new Decoder({ useMap: true });
 * const map = decoder.decode(encode({ a: 1 })) as Map<string, number>;
 * console.assert(map.get("a") === 1);
 * ```
 */
export class CoreDecoder<ContextType = undefined, Output = unknown> {
  /**
   * The class's name in every build, as it is exported (a minifier renames the class itself).
   * @internal
   */
  // @ts-ignore: a static accessor defines `name` (TypeScript assumes an assignment; Deno's checker does not)
  static get name(): string {
    return "Decoder";
  }
  // Members marked @internal are the state and readers the record reader
  // works with (a DecodeCursor) and those the stream decoders call: not
  // private for them, and left out of the published declarations (stripInternal).
  // The class does not declare `implements DecodeCursor`, which the published
  // declarations could not keep: each call that hands the decoder to the
  // records module checks it against the interface. Every field is assigned
  // in the constructor, in this order (one object shape).
  /** @internal */
  bytes: Uint8Array;
  /** A DataView of the input, made on first use (most small messages never need one). */
  private view: DataView | null;
  /** The map-key cache, shared by every decoder. */
  private readonly keys: KeyCache;
  /** 8 bytes for reading floats without creating a DataView per input. */
  private readonly float64: Float64Array;
  private readonly float32: Float32Array;
  private readonly floatBytes: Uint8Array;
  /** Floats read from this input so far. */
  private floatsRead: number;
  /** Short strings of the input as slices of one string of many of its bytes (see text-window.ts). @internal */
  readonly window: TextWindow;
  /** @internal */
  pos: number;
  /** @internal */
  end: number;
  /**
   * The offset that index 0 of the input has in the user's input, added to
   * every offset an error reports: 0, or for the stream decoders, the
   * stream offset of the buffered bytes.
   * @internal
   */
  base: number;
  /**
   * Strings are decoded straight (no base to add to error offsets, no
   * replacing of invalid UTF-8), else through {@link textAt}: set with the
   * input.
   * @internal
   */
  direct: boolean;
  /**
   * With `binaryAsView`, the input as the caller passed it when it is a
   * `Uint8Array` subclass (a Node `Buffer`): binaries are its subarrays,
   * so views of a `Buffer` are `Buffer`s, as with @msgpack/msgpack. Null
   * otherwise, and between calls.
   */
  private source: Uint8Array | null;
  private busy: boolean;
  /** The decoder that re-entrant calls use, made on first need. */
  private child: CoreDecoder<ContextType, Output> | null;
  /** The record structures in force for the call under way (null without `useRecords`). @internal */
  records: RecordState | null;
  /** This decoder's own table, for `decode()` calls (null without `useRecords`). */
  private readonly messageRecords: RecordState | null;
  /** The records module's decoding side, with `useRecords` or `structures`; else null. */
  private readonly recordDecoding: RecordDecoding | null;
  /** Longest map key read through the key cache: 16 bytes, or less under a smaller maxStrLength. */
  private readonly cachedKeyMax: number;
  /** The options, read and resolved once, by the constructor (the stream decoders read theirs here). @internal */
  readonly options: ResolvedDecodeOptions;
  /** With `schema`: what checks each value, from the schema module (the stream decoders check theirs with it); else null. @internal */
  readonly check: SchemaCheck | null;
  /** The codec's decoders by type (an `ExtensionCodec`'s live map). */
  private readonly codec: { get(type: number): ExtensionDecoderType<ContextType> | undefined };
  private readonly context: ContextType;
  private readonly int64: Int64Mode;
  private readonly useMap: boolean;
  private readonly binaryAsView: boolean;
  private readonly rawStrings: boolean;
  /** With `invalidUtf8: "replace"`, what decodes invalid UTF-8 with U+FFFD (in {@link textAt}, a cold path) instead of throwing; else null. */
  private readonly lossyUtf8: ((bytes: Uint8Array, start: number, length: number) => string) | null;
  /** With `buffers`: what makes a binary a Node `Buffer` over the same memory; else null. */
  private readonly toBuffer: ((bytes: Uint8Array) => Uint8Array) | null;
  /** `undefinedAsExtension`: an extension of type 0 with a 1-byte payload is `undefined`. */
  private readonly undefinedAsExtension: boolean;
  private readonly keyConverter: ((key: unknown) => unknown) | null;
  /** Maps take the cold path (`readMapWith`): with `useMap` or a `mapKeyConverter`. */
  private readonly coldMaps: boolean;
  /** Longest string value decoded as text: `maxStrLength`, or -1 with `rawStrings` (every string value takes the cold path). @internal */
  strMax: number;
  /** @internal */
  readonly limits: DecodeLimits;

  /**
   * @param options see {@link DecodeOptions}; each is read once, here
   *   (with `schema`, the decoder's values are typed as the schema's output)
   * @throws {DecodeError} `INVALID_ARGUMENT` for an invalid or misspelled option
   */
  constructor(options?: DecodeOptions<ContextType, Output> | null);
  /**
   * @msgpack/msgpack 2.x's positional form, for programs written for it,
   * once `@resizable/msgpack/compat/msgpack` is imported (else an
   * `INVALID_ARGUMENT` naming that import): each argument is the option of
   * that name (see {@link DecodeOptions}), `undefined` for its default.
   *
   * @example
   * ```ts
   * import { Decoder, encode, ExtensionCodec } from "@resizable/msgpack/compat/msgpack";
   * const codec = new ExtensionCodec<{ scale: number }>();
   * codec.register({ type: 1, encode: () => null, decode: (d, _type, ctx) => d[0]! * ctx.scale });
   * console.assert(new Decoder(codec, { scale: 10 }).decode(Uint8Array.of(0xd4, 1, 2)) === 20);
   * const limited = new Decoder(undefined, undefined, 2);
   * try {
   *   limited.decode(encode("abc"));
   *   console.assert(false);
   * } catch (e) {
   *   console.assert((e as { code?: string }).code === "MAX_LENGTH"); // maxStrLength 2
   * }
   * ```
   */
  constructor(
    extensionCodec?: ExtensionCodecType<ContextType>,
    context?: ContextType,
    maxStrLength?: number,
    maxBinLength?: number,
    maxArrayLength?: number,
    maxMapLength?: number,
    maxExtLength?: number,
  );
  constructor(first?: DecodeOptions<ContextType, Output> | ExtensionCodecType<ContextType> | null, ...rest: unknown[]) {
    const o = decodeOptionsOf(decoderArguments(first ?? undefined, rest));
    this.bytes = EMPTY;
    this.view = null;
    this.keys = SHARED_KEY_CACHE;
    this.float64 = new Float64Array(1);
    this.float32 = new Float32Array(this.float64.buffer, 0, 1);
    this.floatBytes = new Uint8Array(this.float64.buffer);
    this.floatsRead = 0;
    this.window = new TextWindow();
    this.pos = 0;
    this.end = 0;
    this.base = 0;
    this.direct = true;
    this.source = null;
    this.busy = false;
    this.child = null;
    this.records = null;
    const records = o.useRecords || o.structures !== null ? recordDecoding(o.useRecords ? "useRecords" : "structures") : null;
    this.messageRecords = records !== null && o.useRecords ? records.table(o.structures, o.compileRecordReaders) : null;
    this.recordDecoding = records;
    this.cachedKeyMax = Math.min(KEY_CACHE_MAX_BYTES, o.maxStrLength);
    this.options = o;
    this.check = o.schema === null ? null : dropIn("schema", "decode")(o.schema);
    this.codec = extensionDecoders(o.extensionCodec as ExtensionCodecType<ContextType>);
    this.context = o.context as ContextType;
    this.int64 = o.int64;
    this.useMap = o.useMap;
    this.binaryAsView = o.binaryAsView;
    this.rawStrings = o.rawStrings;
    this.lossyUtf8 = o.replaceInvalidUtf8 ? dropIn("invalidUtf8", "decode") : null;
    this.toBuffer = o.buffers ? dropIn("buffers", "decode")() : null;
    if (o.buffers && this.toBuffer === null) throw badArgument("option buffers", true, "false: this runtime has no Buffer class on globalThis");
    this.undefinedAsExtension = o.undefinedAsExtension;
    this.keyConverter = o.mapKeyConverter;
    this.coldMaps = this.useMap || this.keyConverter !== null;
    this.strMax = this.rawStrings ? -1 : o.maxStrLength;
    // a small object of its own: the limits are read for every array and map, and
    // read from the resolved options (a larger object) they cost rpc and time-series
    // decode 7-13% on Node
    this.limits = {
      maxDepth: o.maxDepth,
      maxStrLength: o.maxStrLength,
      maxBinLength: o.maxBinLength,
      maxArrayLength: o.maxArrayLength,
      maxMapLength: o.maxMapLength,
      maxExtLength: o.maxExtLength,
    };
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
    const base = nesting === 0 ? 0 : baseOf(bytes);
    let value: unknown;
    d.busy = true;
    try {
      d.setInput(bytes, 0, base);
      if (bytes !== input && this.binaryAsView && input instanceof Uint8Array) d.source = input;
      if (d.messageRecords !== null) d.beginRecords(); // a call, not locals: this frame is on every level of nested extensions
      value = d.readValue(nesting);
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
      if (d.records !== null) d.endRecords();
      d.busy = false;
    }
    // the schema's verdict, once the input is let go (its errors are its own)
    return (this.check === null ? value : this.check(value, base)) as Output;
  }

  /**
   * Decodes back-to-back values in `input`, one at a time.
   *
   * @param input the MessagePack bytes (as for `decode`)
   * @returns a generator of the values (with `schema`, each value's output)
   * @throws {DecodeError} when a value is malformed or truncated, or with
   *   `schema` refused (`SCHEMA_MISMATCH`, at its offset), as the generator
   *   runs; at once for input that is not bytes
   *
   * @example
   * ```ts
   * import { Decoder } from "@resizable/msgpack";
   * const values = [...new Decoder().decodeMulti(new Uint8Array([1, 2, 0xc3]))];
   * console.assert(values.length === 3 && values[2] === true);
   * ```
   */
  decodeMulti(input: DecodeInput): Generator<Output, void, unknown> {
    const bytes = toBytes(input);
    return this.values(bytes, nesting === 0 ? 0 : baseOf(bytes), bytes !== input && this.binaryAsView && input instanceof Uint8Array ? input : null);
  }

  private *values(bytes: Uint8Array, base: number, source: Uint8Array | null): Generator<Output, void, unknown> {
    let offset = 0;
    // the values of one input are a sequence: record structures carry over from one to the next
    const records = this.newRecords();
    while (offset < bytes.length) {
      const [value, next] = this.readAt(bytes, offset, base, 0, records, source);
      yield (this.check === null ? value : this.check(value, base + offset)) as Output;
      offset = next;
    }
  }

  /**
   * Decodes one value starting at `offset` of `bytes` and returns it with
   * the offset after it: the building block of `decodeMulti` and the
   * stream decoders. Error offsets count from `base`, the offset that
   * `bytes[0]` has in the user's input (a stream offset), so they need no
   * rewriting. A value that runs past the end throws a `DecodeError` with
   * code `TRUNCATED`, and `needed` saying how many more bytes it needs at
   * least.
   *
   * @param bytes the input
   * @param offset where the value starts: an integer in 0..length
   * @param base the offset of `bytes[0]` in the user's input
   * @param extra levels of nesting the value starts below the current one
   * @param records the record table of the sequence (from {@link newRecords}), or null
   * @param source with `binaryAsView`, the `Buffer` the caller passed, whose views binaries become
   * @returns the value and the offset after it
   * @throws {DecodeError} for malformed or truncated input
   * @internal
   */
  readAt(bytes: Uint8Array, offset: number, base: number, extra: number, records: RecordState | null, source: Uint8Array | null = null): [unknown, number] {
    const d = this.busy ? this.reentrant() : this;
    const depth = nesting + extra;
    d.busy = true;
    try {
      d.setInput(bytes, offset, base);
      d.source = source;
      d.records = records;
      const value = d.readValue(depth);
      if (records !== null) records.commit();
      return [value, d.pos];
    } catch (e) {
      if (records !== null) records.rollback();
      throw stackOverflow(e, base + d.pos);
    } finally {
      // let go of the input (no user memory kept between calls); inline, as this may run near the stack limit
      d.bytes = EMPTY;
      d.view = null;
      d.window.reset();
      d.source = null;
      d.records = null;
      d.busy = false;
    }
  }

  /** Starts a `decode()` call with this decoder's own record table. */
  private beginRecords(): void {
    const records = this.messageRecords!;
    records.begin();
    this.records = records;
  }

  /** Ends a `decode()` call: the message's own structures are let go (only the shared ones stay). */
  private endRecords(): void {
    this.records!.rollback();
    this.records = null;
  }

  /**
   * A record table for one sequence of values (`decodeMulti`, a stream:
   * structures defined by one value stay defined for the next, as
   * msgpackr's `sequential`), begun, to pass to each {@link readAt}; null
   * without `useRecords`.
   * @internal
   */
  newRecords(): RecordState | null {
    if (this.messageRecords === null) return null;
    const table = this.recordDecoding!.table(this.options.structures, this.options.compileRecordReaders);
    table.begin();
    return table;
  }

  /**
   * A free decoder for calls made while this one is busy (from an extension
   * decoder): the first idle one down the chain of children, made on first
   * need. Found in a loop, not by recursion through the busy ones: decode()
   * with equal options finds this same busy decoder at every level of nested
   * extensions, and a call at level k must not cost k stack frames.
   */
  private reentrant(): CoreDecoder<ContextType, Output> {
    let d: CoreDecoder<ContextType, Output> = this;
    while (d.busy) d = d.child ?? (d.child = new CoreDecoder(this.options as DecodeOptions<ContextType, Output>));
    return d;
  }

  private setInput(bytes: Uint8Array, offset: number, base: number): void {
    this.bytes = bytes;
    this.base = base;
    this.direct = base === 0 && this.lossyUtf8 === null;
    this.view = null;
    this.floatsRead = 0;
    this.pos = offset;
    this.end = bytes.length;
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

  /**
   * The value at `pos`, at nesting depth `depth`. With records on for the
   * call (`records` is set), the bytes 0x40-0x7f start records and a fixext
   * 1 or 2 of type 0x72 declares a structure: the records module reads them.
   * @internal
   */
  readValue(depth: number): unknown {
    const pos = this.pos;
    const end = this.end;
    if (pos >= end) throw this.short(pos, 1, "value");
    const b = this.bytes;
    const t = b[pos]!;
    this.pos = pos + 1;
    if (t < 0x40) return t; // positive fixint
    if (t < 0x80) return this.records === null ? t : this.recordDecoding!.record(this, t, depth, pos); // positive fixint, or a record
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
      if (pos + 1 + n > end || n > this.limits.maxArrayLength || depth >= this.limits.maxDepth) throw this.badArray(n, depth, pos);
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
    if (t === 0xcf && pos + 9 <= end && b[pos + 1] === 0 && b[pos + 2]! < 0x20 && this.int64 !== "bigint") {
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
    const n = field === 0 ? form >> 8 : this.readLengthField(field, pos);
    switch (form & 0x0f) {
      case 6: // WIRE_STR: str 8 / 16 / 32
        return this.readString(n, pos);
      case 9: // WIRE_MAP: map 16 / 32
        return this.readMap(n, depth, pos);
      case 8: // WIRE_ARRAY: array 16 / 32
        return this.readLongArray(n, depth, pos);
      case 5: // WIRE_FLOAT: float 32 (float 64 above)
        return n === 8 ? this.readFloat64(this.need(8, pos)) : this.readFloat32(this.need(4, pos));
      case 3: // WIRE_UINT: uint 8 / 16 / 32 / 64
        if (n === 1) return b[this.need(1, pos)];
        if (n === 2) return this.u16(this.need(2, pos));
        return n === 4 ? this.u32(this.need(4, pos)) : this.readUint64(this.need(8, pos));
      case 4: // WIRE_INT: int 8 / 16 / 32 / 64
        if (n === 1) return (b[this.need(1, pos)]! << 24) >> 24;
        if (n === 2) return (this.u16(this.need(2, pos)) << 16) >> 16;
        return n === 4 ? this.u32(this.need(4, pos)) | 0 : this.readInt64(this.need(8, pos));
      case 0: // WIRE_NIL
        return null;
      case 1: // WIRE_FALSE
        return false;
      case 2: // WIRE_TRUE
        return true;
      case 7: // WIRE_BIN: bin 8 / 16 / 32
        return this.readBinary(n, pos);
      case 10: // WIRE_EXT: fixext 1-16, ext 8 / 16 / 32
        return this.readExt(n, pos, depth);
      default: // WIRE_RESERVED: 0xc1
        throw reservedByte(this.base + pos);
    }
  }

  /** The big-endian length field of `field` (1, 2 or 4) bytes after the first byte at `start`. @internal */
  readLengthField(field: number, start: number): number {
    const at = this.pos;
    if (at + field > this.end) throw this.short(start, at - start + field, formName(this.bytes[start]!));
    this.pos = at + field;
    return field === 1 ? this.bytes[at]! : field === 2 ? this.u16(at) : this.u32(at);
  }

  /** A TRUNCATED error: the input ends, but the item at `start` needs `need` bytes from `start`. @internal */
  short(start: number, need: number, what: string): DecodeError {
    return truncated(this.base + start, need, this.base + this.end, what);
  }

  /**
   * Checks that `n` bytes follow the type byte at `start`, advances past
   * them and returns where they begin. `what` names the item in the error
   * (by default, the form of the byte at `start`: "uint 16").
   * @internal
   */
  need(n: number, start: number, what?: string): number {
    const at = this.pos;
    if (at + n > this.end) throw this.short(start, at - start + n, what ?? formName(this.bytes[start]!));
    this.pos = at + n;
    return at;
  }

  /**
   * Checks a declared payload length against its limit (`max`, the limit
   * {@link headerError} applies to a header of `kind`) and the bytes
   * left; returns where the payload begins.
   */
  private payload(n: number, max: number, start: number, what: string, kind: number): number {
    if (n > max) throw this.refused(kind, n, 0, start);
    const at = this.pos;
    if (at + n > this.end) throw this.short(start, at - start + n, what);
    this.pos = at + n;
    return at;
  }

  private readString(n: number, start: number): string | Uint8Array {
    if (n > this.strMax) return this.readStringCold(n, start);
    const at = this.pos;
    if (at + n > this.end) throw this.short(start, at - start + n, "string");
    this.pos = at + n;
    return this.direct ? this.window.text(this.bytes, at, n) : this.textAt(at, n, false);
  }

  /**
   * The `n` bytes of UTF-8 at `at` as text (a map key through the key
   * cache with `key`), for an input with a base (invalid UTF-8 is reported
   * at its offset counted from the base) or with `invalidUtf8: "replace"`
   * (invalid UTF-8 is decoded with U+FFFD; such a key is not cached).
   * @internal
   */
  textAt(at: number, n: number, key: boolean): string {
    try {
      return key ? this.keys.get(this.bytes, at, n) : decodeUtf8(this.bytes, at, n);
    } catch (e) {
      if (!(e instanceof DecodeError && e.code === "INVALID_UTF8")) throw e;
      if (this.lossyUtf8 !== null) return this.lossyUtf8(this.bytes, at, n);
      throw invalidUtf8(this.base + at);
    }
  }

  /** A string value over `maxStrLength`, or any string value with `rawStrings` (then a binary). */
  private readStringCold(n: number, start: number): string | Uint8Array {
    if (this.strMax >= 0) throw this.refused(6 /* WIRE_STR */, n, 0, start);
    const at = this.payload(n, this.limits.maxBinLength, start, "string", 6 /* WIRE_STR */);
    return this.binary(at, n);
  }

  /**
   * The error for a header at `start` that {@link headerError} refuses (a
   * string as a binary while `strMax` says so). A method of few arguments:
   * it is called from the recursive readers, whose frames it must not grow.
   */
  private refused(kind: number, n: number, depth: number, start: number): DecodeError {
    return headerError(this.limits, kind, n, depth, kind === 6 /* WIRE_STR */ && this.strMax < 0, this.base + start)!;
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
      const len = t - 0xa0;
      if (p + 1 + len > this.end) throw this.short(p, 1 + len, "string");
      this.pos = p + 1 + len;
      return this.direct ? this.keys.get(this.bytes, p + 1, len) : this.textAt(p + 1, len, true);
    }
    if (!this.rawStrings || !((t >= 0xa0 && t < 0xc0) || (t >= 0xd9 && t <= 0xdb))) return this.readValue(depth);
    this.strMax = this.limits.maxStrLength; // this one string as text
    try {
      return this.readValue(depth);
    } finally {
      this.strMax = -1;
    }
  }

  private readBinary(n: number, start: number): Uint8Array {
    const at = this.payload(n, this.limits.maxBinLength, start, "binary", 7 /* WIRE_BIN */);
    return this.binary(at, n);
  }

  /** The `n` bytes at `at` as a binary result: a copy or (`binaryAsView`) a view; a `Buffer` with `buffers`, or a view of a `Buffer` input. */
  private binary(at: number, n: number): Uint8Array {
    if (this.source !== null) return this.source.subarray(at, at + n);
    if (this.toBuffer !== null) return this.toBuffer(this.binaryAsView ? this.bytes.subarray(at, at + n) : this.bytes.slice(at, at + n));
    return this.binaryAsView ? this.bytes.subarray(at, at + n) : this.bytes.slice(at, at + n);
  }

  /**
   * The error for an array header of `n` items at `start` that is over the
   * length limit, longer than the bytes left (every item takes at least
   * one) or too deep: the array readers test all three in one condition,
   * before anything is allocated, and call this cold method only to throw
   * (as a call of its own per array, the test cost the 2-item arrays of a
   * time series 8% of their decode time on Node).
   */
  private badArray(n: number, depth: number, start: number): DecodeError {
    if (n > this.limits.maxArrayLength) return this.refused(8 /* WIRE_ARRAY */, n, 0, start);
    if (this.pos + n > this.end) return this.short(start, this.pos - start + n, `array of ${n} items`);
    return this.refused(8 /* WIRE_ARRAY */, n, depth, start);
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
    if (this.pos + n > this.end || n > this.limits.maxArrayLength || depth >= this.limits.maxDepth) throw this.badArray(n, depth, start);
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
    if (n > this.limits.maxMapLength) throw this.refused(9 /* WIRE_MAP */, n, 0, start);
    // every entry takes at least two bytes: refuse before allocating
    if (this.pos + 2 * n > this.end) throw this.short(start, this.pos - start + 2 * n, `map of ${n} entries`);
    if (depth >= this.limits.maxDepth) throw this.refused(9 /* WIRE_MAP */, n, depth, start);
    if (this.coldMaps) return readMapWith(this, n, depth, this.useMap, this.keyConverter);
    const obj: Record<string, unknown> = {};
    // the keys in wire order, kept from the first key that may be an array
    // index (objects list those first), for a switch to Map
    let order: string[] | null = null;
    for (let i = 0; i < n; i++) {
      let key = this.readKey(depth + 1);
      if (typeof key !== "string") {
        // numbers and bigints become property names; other keys switch to a Map
        if (typeof key !== "number" && typeof key !== "bigint") return continueAsMap(this, obj, order, key, n - i - 1, depth);
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

  private readExt(n: number, start: number, depth: number): unknown {
    // a fixext 1 / 2 of type 0x72 declares a structure (in an ext 8 / 16 / 32 of 2 bytes or less, the byte after the first is 0-2)
    if (n < 3 && this.bytes[start + 1] === 0x72 && this.records !== null) return this.recordDecoding!.definition(this, n === 2, depth, start);
    if (n > this.limits.maxExtLength) throw this.refused(10 /* WIRE_EXT */, n, 0, start);
    const type = (this.bytes[this.need(1, start, "extension type")]! << 24) >> 24;
    const at = this.payload(n, MAX_U32, start, "extension", 10 /* WIRE_EXT */);
    const decodeExt = this.codec.get(type);
    if (decodeExt !== undefined) return callExtension(this, decodeExt, this.context, type, at, n, start, depth);
    return builtInExtension(this, type, at, n, start, this.undefinedAsExtension);
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
