/**
 * The options of the decoder and of the stream decoders: their types and
 * documentation, and the one place they are read, checked and resolved
 * (every decoder, the inline options of `decode()` and the stream
 * decoders go through it).
 *
 * @module
 */

import type { ExtensionCodecType } from "../format/extensions.ts";
import { invalidDecodeOption as fail } from "../common/errors.ts";
import { DEFAULT_MAX_DEPTH, MAX_U32 } from "../common/limits.ts";
import type { StandardSchemaV1 } from "./schema-hook.ts";
import type { StreamStats } from "../stream/queue.ts";
import { ARRAY, BOOLEAN, checked, type Resolved, type Rule, take, upTo } from "../common/options.ts";

/** How 64-bit integers (int 64, uint 64) decode. */
export type Int64Mode = "auto" | "number" | "bigint";

/**
 * Options of {@link decode} and {@link Decoder}. Invalid values (a limit
 * that is not a non-negative integer or Infinity, a flag that is not a
 * boolean, an unknown `int64` mode...) throw a `DecodeError` with code
 * `INVALID_ARGUMENT` when the decoder is made (for `decode()`, at each
 * call). Each option is read once. A name that differs from an option
 * only by letter case or a typo (`maxStrLenght`) throws too, so a limit is
 * never lost without a word; other unknown names are ignored.
 */
export interface DecodeOptions<ContextType = undefined, Output = unknown> {
  /**
   * Extension types to decode; unregistered ones decode as `ExtData`
   * (type -1 decodes as `Date` unless registered). Types registered after
   * the decoder was made are used too. An extension decoder gets `data` as
   * a view into the input (copy it to keep it past the call); a decode
   * called from inside it continues at the extension's depth + 1, so
   * `maxDepth` bounds nesting through extensions. Any object with a
   * `decode(data, type, context)` (@msgpack/msgpack's `ExtensionCodecType`)
   * may stand in for an `ExtensionCodec` once
   * `@resizable/msgpack/compat/msgpack` is imported (else it is an
   * `INVALID_ARGUMENT` naming that import): it then decodes every
   * extension type, -1 included.
   * @default `ExtensionCodec.defaultCodec` (no extensions besides the built-in timestamp unless registered there)
   */
  extensionCodec?: ExtensionCodecType<ContextType> | undefined;
  /** Passed to the extension decoders. @default undefined */
  context?: ContextType | undefined;
  /**
   * How int 64 and uint 64 decode: `"auto"` gives a number when the value
   * is a safe integer and a bigint otherwise; `"bigint"` always a bigint;
   * `"number"` always a number (values past 2^53 lose precision).
   * @default "auto"
   */
  int64?: Int64Mode | undefined;
  /**
   * Decode every 64-bit integer as a bigint (the @msgpack/msgpack name for
   * `int64: "bigint"`).
   * @default false
   */
  useBigInt64?: boolean | undefined;
  /**
   * Decode every map as a `Map` with its keys as decoded (numbers stay
   * numbers). Otherwise maps decode as plain objects whose number and
   * bigint keys become string property names (`1` and `"1"` are the same
   * key), switching to a `Map` that keeps the wire order of the entries
   * only for other key kinds (binary, boolean, nil, array, map, extension),
   * number keys still as strings. Caution: number keys in a `Map` let
   * crafted input pick their hash (engines hash numbers without a seed), so
   * with `useMap` a hostile map of 100,000 float keys can take seconds.
   * @default false
   */
  useMap?: boolean | undefined;
  /**
   * Decode string values as `Uint8Array` (copies, or views with
   * `binaryAsView`) without UTF-8 decoding, for strings that may not be
   * valid UTF-8. Map keys stay strings. Their length is checked against
   * `maxBinLength`.
   * @default false
   */
  rawStrings?: boolean | undefined;
  /**
   * What a string (value or map key) that is not valid UTF-8 decodes as:
   * `"throw"` makes it a `DecodeError` with code `INVALID_UTF8`;
   * `"replace"` decodes it with each invalid sequence replaced by U+FFFD,
   * as `TextDecoder` does by default, so one bad string (such as the lone
   * surrogates @msgpack/msgpack writes as 3 invalid bytes) does not make
   * the whole message unreadable. Valid strings decode the same either
   * way, in the stream decoders too; `rawStrings` still gives string
   * values as bytes. `"replace"`
   * needs `import "@resizable/msgpack/compat/msgpack"` (once, anywhere in
   * the program); without it, it is an `INVALID_ARGUMENT` naming it.
   * @default "throw"
   */
  invalidUtf8?: "throw" | "replace" | undefined;
  /**
   * Called with every map key (strings too); its result is the key. It
   * must return a string or a number (a number becomes a property name,
   * or stays a number with `useMap`), else the decode throws a
   * `DecodeError` with code `INVALID_KEY`. Maps then never switch to `Map`
   * without `useMap`.
   * @default none: keys as described under `useMap`
   */
  mapKeyConverter?: ((key: unknown) => string | number) | undefined;
  /**
   * Accepted for compatibility with @msgpack/msgpack and ignored: map keys
   * always go through a key cache shared by all decoders.
   * @default undefined
   */
  keyDecoder?: unknown;
  /**
   * Return bin values as views into the input instead of copies. Faster,
   * but the result then shares memory with the input. Views of a Node
   * `Buffer` input are `Buffer`s, as with @msgpack/msgpack: a view shares
   * the input's memory and class, while a copy owns plain memory, so
   * copies stay `Uint8Array`s unless `buffers`.
   * @default false
   */
  binaryAsView?: boolean | undefined;
  /**
   * Return binaries (and string values under `rawStrings`) as Node
   * `Buffer`s: copies, or views into the input with `binaryAsView`, as
   * notepack.io and msgpackr return them. `Buffer` is looked up on
   * `globalThis` when the decoder is made; where there is none, `true` is
   * a `DecodeError` with code `INVALID_ARGUMENT`. Without it, a `Buffer`
   * input with `binaryAsView` still gives `Buffer` views (a view of a
   * `Buffer` is a `Buffer`), as @msgpack/msgpack does; copies are plain
   * `Uint8Array`s. Extension payloads (`ExtData.data`) stay `Uint8Array`s.
   * `true` needs `import "@resizable/msgpack/compat/notepack"` (once,
   * anywhere in the program); without it, it is an `INVALID_ARGUMENT`
   * naming it.
   * @default false
   */
  buffers?: boolean | undefined;
  /**
   * Decode an extension of type 0 with a 1-byte payload (`d4 00 00`, as
   * msgpackr and the `undefinedAsExtension` encode option write
   * `undefined`; notepack.io reads any such payload so) as `undefined`
   * instead of an `ExtData`. A codec that registers type 0 still gets it.
   * Off by default because @msgpack/msgpack, like the MessagePack spec,
   * gives such bytes to the application as extension type 0.
   * @default false
   */
  undefinedAsExtension?: boolean | undefined;
  /**
   * Deepest nesting of arrays, maps and extensions whose decoder decodes
   * again. Nesting deeper than the engine's call stack allows (about 3,000
   * levels on Node, more once the decoder is warm) is a `MAX_DEPTH`
   * `DecodeError` too, whatever this is set to.
   * @default 512
   */
  maxDepth?: number | undefined;
  /** Longest string, in bytes. @default 4294967295 (2^32 - 1) */
  maxStrLength?: number | undefined;
  /** Longest binary, in bytes. @default 4294967295 (2^32 - 1) */
  maxBinLength?: number | undefined;
  /** Most items in one array. @default 4294967295 (2^32 - 1) */
  maxArrayLength?: number | undefined;
  /** Most entries in one map (and fields in one record). @default 4294967295 (2^32 - 1) */
  maxMapLength?: number | undefined;
  /** Longest extension payload, in bytes. @default 4294967295 (2^32 - 1) */
  maxExtLength?: number | undefined;
  /**
   * Read msgpackr's record extension: a fixext of type 0x72 declares a
   * record structure (an identifier 0x40-0x7f, then an array of field
   * names), after which that identifier byte starts a record, its field
   * values in order, decoded as a plain object. Then 0x40-0x7f are no
   * longer integers: a reference to an identifier with no structure is a
   * `DecodeError` (`INVALID_BYTE`) rather than the integer 64-127, and an
   * `extensionCodec` entry for type 0x72 is not used. Structures defined in
   * a message last to its end; in `decodeMulti` and the stream decoders, to
   * the end of the input or stream (msgpackr's `sequential`). A structure
   * counts as a map for `maxMapLength` (its fields) and `maxDepth`. Needs
   * `import "@resizable/msgpack/records"` (as does `structures`): without
   * it, `INVALID_ARGUMENT`. See docs/records.md.
   * @default false
   */
  useRecords?: boolean | undefined;
  /**
   * Record structures shared with the encoder (msgpackr's option of that
   * name): an array whose entry i lists the field names of structure i,
   * referenced without a declaration as identifier 0x40 + i (i < 32) or,
   * from index 32, by two bytes (0x60 + (i & 31), then (i - 32) >> 5). Up
   * to 8,160 structures. The array is read again whenever its length has
   * changed (an encoder with the same array appends to it), when a message
   * or stream starts. Used with `useRecords`.
   * @default none
   */
  structures?: ReadonlyArray<readonly string[] | null | undefined> | undefined;
  /**
   * With `useRecords`: once a record structure has been read 16 times, read
   * its records with a function made for it by `new Function` (one object
   * literal per record, as msgpackr does; field names are written in as
   * string literals, never as code). Where code generation is refused (a
   * Content-Security-Policy without 'unsafe-eval', Cloudflare Workers)
   * records are read without it, with no error. `false` never generates
   * code. See docs/records.md.
   * @default true
   */
  compileRecordReaders?: boolean | undefined;
  /**
   * A Standard Schema (zod 4, valibot 1, arktype 2, Effect Schema, or any
   * object with a `~standard.validate` method) that each decoded value
   * must match: the caller gets the schema's output (transforms and
   * defaults applied), typed as the schema's output type, or a
   * `DecodeError` with code `SCHEMA_MISMATCH`, the schema's `issues` and
   * the offset of the value (in a stream: of that value in the stream).
   * Each value of `decodeMulti`, each item of `decodeArrayStream` and each
   * value of the other stream decoders is checked as it completes. A
   * schema that validates asynchronously (its `validate` returns a
   * Promise) works with the stream decoders and `decodeAsync`, and is an
   * `INVALID_ARGUMENT` in `decode` and `decodeMulti`; an error the
   * validator throws is thrown as it is. Needs
   * `import "@resizable/msgpack/schema"` (once, anywhere in the program):
   * without it, `INVALID_ARGUMENT` naming that import. See docs/schema.md.
   *
   * @example A schema written by hand (zod, valibot and arktype schemas are used the same way)
   * ```ts
   * import { decode, DecodeError, encode, type StandardSchemaV1 } from "@resizable/msgpack/schema";
   * const point: StandardSchemaV1<unknown, { x: number; y: number }> = {
   *   "~standard": {
   *     version: 1,
   *     vendor: "by-hand",
   *     validate(v) {
   *       const p = v as { x?: unknown; y?: unknown } | null;
   *       return typeof p?.x === "number" && typeof p.y === "number" ? { value: { x: p.x, y: p.y } } : { issues: [{ message: "expected a point" }] };
   *     },
   *   },
   * };
   * const p = decode(encode({ x: 1, y: 2 }), { schema: point });
   * console.assert(p.x + p.y === 3); // typed { x: number; y: number }, no cast
   * try {
   *   decode(encode({ x: 1 }), { schema: point });
   *   console.assert(false);
   * } catch (e) {
   *   console.assert(e instanceof DecodeError && e.code === "SCHEMA_MISMATCH" && e.issues?.[0]?.message === "expected a point");
   * }
   * ```
   * @default none: values are returned as decoded, typed `unknown`
   */
  schema?: StandardSchemaV1<unknown, Output> | undefined;
}

/** The arguments of @msgpack/msgpack 2.x's positional `new Decoder(...)`, each the option of that name (`undefined` for its default). */
export type PositionalDecoderArguments<C> = [extensionCodec?: ExtensionCodecType<C>, context?: C, maxStrLength?: number, maxBinLength?: number, maxArrayLength?: number, maxMapLength?: number, maxExtLength?: number];


/** The options type under the name @msgpack/msgpack gives it. */
export type DecoderOptions<ContextType = undefined, Output = unknown> = DecodeOptions<ContextType, Output>;

/**
 * Options of the stream decoders (`decodeAsync`, `decodeArrayStream`,
 * `decodeMultiStream`, `DecoderStream` and the main entry's `Decoder`):
 * the decode options plus `maxValueBytes`, `stats` and `lengthPrefixed`
 * (the decode option `schema` checks each value, or each item of
 * `decodeArrayStream`, as it completes, and may validate asynchronously).
 * They are read and checked with the decode options: an invalid value is
 * a `DecodeError` with code `INVALID_ARGUMENT` naming the option.
 */
export interface StreamDecodeOptions<ContextType = undefined, Output = unknown> extends DecodeOptions<ContextType, Output> {
  /**
   * The most bytes one value (for `decodeArrayStream`, one item; with
   * `lengthPrefixed`, one frame) may take. A value still incomplete past
   * this many buffered bytes, or a frame prefix above it, throws a
   * `DecodeError` (code `MAX_LENGTH`) at once: it bounds the memory the
   * decoder holds for untrusted streams (together with the `max*Length`
   * options, which stop a long string or array at its header). Set it
   * (and the `max*Length` options) for untrusted input.
   * @default Infinity
   */
  maxValueBytes?: number | undefined;
  /**
   * An object (from `createStreamStats()`) whose counters the decoder
   * updates as it goes (see `StreamStats`); the counters are not reset.
   * @default none
   */
  stats?: StreamStats | undefined;
  /**
   * Each value is preceded by its length as a u32 big-endian prefix (as
   * `EncoderStream` writes with the same option); each frame must hold
   * exactly one value. Framed values decode with one pass and at most one
   * copy, with no scanning. For back-to-back values only
   * (`decodeMultiStream`, `DecoderStream`, `Decoder#decodeStream`):
   * `true` for `decodeAsync` or `decodeArrayStream` is a `DecodeError`
   * with code `INVALID_ARGUMENT`.
   * @default false
   */
  lengthPrefixed?: boolean | undefined;
}

/**
 * The decode options (the stream decoders' included) as a decoder uses
 * them: every default filled in, read once from what the user passed.
 * Each option has its type without `undefined` (`int64`: the mode given,
 * or `"bigint"` with `useBigInt64`, else `"auto"`), except those absent
 * unless given: `stats`, `extensionCodec` (absent for
 * `ExtensionCodec.defaultCodec`, read without the class, so a decode-only
 * page does not carry it), `mapKeyConverter`, `structures` and `schema`.
 * Resolved options resolve to themselves: a decoder made from them (by
 * the cache of `decode()`, or for a re-entrant call) reads them again.
 */
export type ResolvedDecodeOptions = Resolved<Omit<StreamDecodeOptions<unknown>, "extensionCodec" | "mapKeyConverter" | "structures" | "keyDecoder" | "schema" | "stats">> & { readonly extensionCodec: ExtensionCodecType<unknown> | undefined; readonly mapKeyConverter: ((key: unknown) => string | number) | undefined; readonly structures: readonly unknown[] | undefined; readonly schema: StandardSchemaV1 | undefined; readonly stats: StreamStats | undefined };

/**
 * The decode options of `options` (null or undefined: none), resolved:
 * each option read once, by its literal name, checked by its rule and
 * defaulted, and the options object checked for misspelled names (see
 * common/options.ts).
 *
 * @throws {DecodeError} `INVALID_ARGUMENT` for options that are not an
 *   object, an invalid value (a limit that is not a non-negative integer
 *   or Infinity, a flag that is not a boolean, an unknown `int64` mode, a
 *   `mapKeyConverter` that is not a function, an `extensionCodec` without
 *   a `decode` method, a `schema` without a `~standard.validate` method),
 *   or a misspelled option name
 */
export function decodeOptionsOf(options: unknown): ResolvedDecodeOptions {
  const o = (options ?? {}) as Record<string, unknown>; // another primitive reads as none, and is refused below
  const useBigInt64 = take(fail, o.useBigInt64, "useBigInt64", BOOLEAN, false);
  return checked(options, {
    extensionCodec: take(fail, o.extensionCodec, "extensionCodec", CODEC, undefined),
    context: o.context,
    int64: take(fail, o.int64, "int64", INT64, useBigInt64 ? "bigint" : "auto"),
    useBigInt64,
    useMap: take(fail, o.useMap, "useMap", BOOLEAN, false),
    rawStrings: take(fail, o.rawStrings, "rawStrings", BOOLEAN, false),
    invalidUtf8: take(fail, o.invalidUtf8, "invalidUtf8", UTF8, "throw"),
    mapKeyConverter: take(fail, o.mapKeyConverter, "mapKeyConverter", FUNCTION, undefined),
    binaryAsView: take(fail, o.binaryAsView, "binaryAsView", BOOLEAN, false),
    buffers: take(fail, o.buffers, "buffers", BOOLEAN, false),
    undefinedAsExtension: take(fail, o.undefinedAsExtension, "undefinedAsExtension", BOOLEAN, false),
    maxDepth: take(fail, o.maxDepth, "maxDepth", LIMIT, DEFAULT_MAX_DEPTH),
    maxStrLength: take(fail, o.maxStrLength, "maxStrLength", LIMIT, MAX_U32),
    maxBinLength: take(fail, o.maxBinLength, "maxBinLength", LIMIT, MAX_U32),
    maxArrayLength: take(fail, o.maxArrayLength, "maxArrayLength", LIMIT, MAX_U32),
    maxMapLength: take(fail, o.maxMapLength, "maxMapLength", LIMIT, MAX_U32),
    maxExtLength: take(fail, o.maxExtLength, "maxExtLength", LIMIT, MAX_U32),
    useRecords: take(fail, o.useRecords, "useRecords", BOOLEAN, false),
    structures: take(fail, o.structures, "structures", ARRAY, undefined),
    compileRecordReaders: take(fail, o.compileRecordReaders, "compileRecordReaders", BOOLEAN, true),
    schema: take(fail, o.schema, "schema", SCHEMA, undefined),
    maxValueBytes: take(fail, o.maxValueBytes, "maxValueBytes", LIMIT, Infinity),
    stats: take(fail, o.stats, "stats", STATS, undefined),
    lengthPrefixed: take(fail, o.lengthPrefixed, "lengthPrefixed", BOOLEAN, false),
  } satisfies ResolvedDecodeOptions, fail);
}

/** The rules of the decode options that are not flags. */
const LIMIT = /* @__PURE__ */ upTo(Infinity, "a non-negative integer");
const CODEC: Rule<ExtensionCodecType<unknown>> = ["an ExtensionCodec, or an object with a decode method", (v): v is ExtensionCodecType<unknown> => typeof (v as { decode?: unknown } | null)?.decode === "function"];
const INT64: Rule<Int64Mode> = ['"auto", "number" or "bigint"', (v): v is Int64Mode => v === "auto" || v === "number" || v === "bigint"];
const UTF8: Rule<"throw" | "replace"> = ['"throw" or "replace"', (v): v is "throw" | "replace" => v === "throw" || v === "replace"];
const SCHEMA: Rule<StandardSchemaV1> = ["a Standard Schema", (v): v is StandardSchemaV1 => typeof (v as StandardSchemaV1 | null)?.["~standard"]?.validate === "function"];
const FUNCTION: Rule<(key: unknown) => string | number> = ["a function", (v): v is (key: unknown) => string | number => typeof v === "function"];
const STATS: Rule<StreamStats> = ["a StreamStats object", (v): v is StreamStats => typeof v === "object" && v !== null];
