/**
 * The options of the encoder and of the stream encoders: their types and
 * documentation, and the one place they are read, checked and resolved
 * (every encoder, the inline options of `encode()` and the stream
 * encoders go through it).
 *
 * @module
 */

import { encodeNeeds, invalidEncodeOption as fail } from "../common/errors.ts";
import { DEFAULT_MAX_DEPTH } from "../common/limits.ts";
import { ARRAY, BOOLEAN, checked, type Resolved, type Rule, take, upTo } from "../common/options.ts";
import { ExtensionCodec, type ExtensionCodecType } from "../format/extensions.ts";
import { DEFAULT_SCRATCH_BYTES, MAX_STORE_BYTES } from "./output.ts";
import { MAX_SHARED_STRUCTURES } from "../format/records.ts";
import { modules } from "../common/modules.ts";

/**
 * Options of {@link encode} and {@link Encoder}. Every field may be left
 * out or `undefined` for its default; an invalid value throws an
 * `EncodeError` (`INVALID_ARGUMENT`) when the encoder is made.
 */
export interface EncodeOptions<ContextType = undefined> {
  /**
   * Extension types to try on every object (and every bigint, function and
   * symbol) before the built-in types, in @msgpack/msgpack's order: types
   * -1 down to -128, then 0 up to 127, where a `Date` is the timestamp
   * (-1) unless a type -1 is registered. Types registered later are
   * honoured. With `@resizable/msgpack/compat/msgpack` imported, any object
   * with a `tryToEncode(value, context)` that returns an `ExtData` or null
   * (@msgpack/msgpack's `ExtensionCodecType`, or another copy's
   * `ExtensionCodec`) may stand in for an {@link ExtensionCodec}: it is
   * asked about every object, `Date`s included; without that import, such
   * a codec is an `INVALID_ARGUMENT` naming it.
   * @default `ExtensionCodec.defaultCodec` (no extensions unless registered there)
   */
  extensionCodec?: ExtensionCodecType<ContextType> | undefined;
  /** Passed to the extension encoders. @default undefined */
  context?: ContextType | undefined;
  /**
   * Write object keys in sorted order (code unit order), for canonical
   * output. Costs a sort per object.
   * @default false
   */
  sortKeys?: boolean | undefined;
  /**
   * Write non-integer numbers (and, with `forceIntegerToFloat`, all
   * numbers) as float 32 instead of float 64. Loses precision.
   * @default false
   */
  forceFloat32?: boolean | undefined;
  /**
   * Write every number, integers too, as a float (float 64, or float 32
   * with `forceFloat32`), as @msgpack/msgpack's option of that name does.
   * Bigints are not affected.
   * @default false
   */
  forceIntegerToFloat?: boolean | undefined;
  /**
   * @msgpack/msgpack's 64-bit mode, for use with the decoder's
   * `useBigInt64`: bigints are written as int 64 / uint 64 without asking
   * the extensions first, and integer numbers outside the 32-bit ranges
   * are written as float 64, so that numbers decode as numbers and
   * bigints as bigints (`0n` comes back as `0n`). Without it, extensions get the first try at
   * bigints, then every bigint is int 64 / uint 64 and every safe integer
   * number takes its shortest integer form.
   * @default false
   */
  useBigInt64?: boolean | undefined;
  /**
   * Leave out object properties whose value is `undefined` instead of
   * writing them as nil. Costs an array of values per object.
   * @default false
   */
  ignoreUndefined?: boolean | undefined;
  /**
   * Write `undefined` as the extension msgpackr writes for it (and
   * notepack.io and msgpackr read back as `undefined`): fixext 1, type 0,
   * payload 0 (`d4 00 00`), instead of nil; for peers that tell
   * `undefined` from `null`. Decoders read it back as `undefined` with the
   * decode option of the same name. With `ignoreUndefined`, object
   * properties whose value is `undefined` are still left out.
   * @default false
   */
  undefinedAsExtension?: boolean | undefined;
  /**
   * Return Node `Buffer`s (`encode`, `Encoder#encode`,
   * `Encoder#encodeSharedRef`, the chunks of `Encoder#encodeChunks` and of
   * the streaming encoders): each result is a `Buffer` over the same bytes,
   * made without a copy, for Node APIs and clients that want one (Redis
   * clients, `Buffer` methods). `Buffer` is looked up on `globalThis` (Node,
   * Bun, Deno; a polyfill counts) when the encoder is made; where there is
   * none (browsers, Deno without node globals), `true` is an `EncodeError`
   * with code `INVALID_ARGUMENT`. Needs
   * `import "@resizable/msgpack/compat/notepack"` (once, anywhere in the
   * program); without it, `true` is an `INVALID_ARGUMENT` naming it.
   * `encode(v, { buffers: true })` and an `Encoder` made with
   * `buffers: true` are typed `Buffer` where Node's types are loaded.
   * @default false
   */
  buffers?: boolean | undefined;
  /**
   * Deepest nesting of arrays, maps and extensions (an `encode` called
   * from inside an extension encoder continues at the extension's depth).
   * Deeper values throw an `EncodeError` with code `MAX_DEPTH`, and values
   * that contain themselves one with code `CYCLE`. `Infinity` is allowed:
   * nesting is then bounded by the call stack, still with a `MAX_DEPTH`
   * error.
   * @default 512
   */
  maxDepth?: number | undefined;
  /**
   * Size of the reusable scratch buffer in bytes. Outputs that fit are
   * returned with one exact-size copy; larger ones move to a growable store.
   * @default 262144 (256 KiB)
   */
  initialBufferSize?: number | undefined;
  /**
   * Ceiling of the resizable store in bytes. The store's actual ceiling is
   * chosen from the size estimate, up to this; past it, output continues
   * as a list of chunks. Capped at 2^32.
   * @default 4294967296 (2^32)
   */
  maxByteLength?: number | undefined;
  /**
   * Return results of up to 4 KiB as views into a 16 KiB `ArrayBuffer`
   * shared by the encoder's next results (as Node's `Buffer` pool does),
   * instead of each in an `ArrayBuffer` of its own: 2-3x faster for tiny
   * messages on Node and Deno, where allocating an `ArrayBuffer` costs
   * ~0.6 µs. Ignored on Bun, where allocating is cheaper than pooling.
   * Read the hazards below first.
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
  poolResults?: boolean | undefined;
  /**
   * Write plain objects (and class instances) as msgpackr's records: the
   * first object of each key sequence declares a record structure (fixext
   * of type 0x72, then the array of its field names), and objects of that
   * structure are written as its identifier (one byte from 0x40-0x7f)
   * followed by their values, without keys. Half the bytes of maps for
   * arrays of like objects, and faster to decode. Integers 64-127 are then
   * written as uint 8 (0xcc), as their fixint bytes start records. Read by
   * msgpackr's default `Unpackr` and by the decoder's `useRecords`; not by
   * plain MessagePack decoders. A function is asked about every object:
   * true writes it as a record, false as a map (which msgpackr's default
   * `Unpackr` decodes as a `Map`). Each message declares the structures it
   * uses (64 at a time, the oldest identifier reused after that), unless
   * `structures` or `sequential` shares them. Extension type 0x72 is then
   * refused (`INVALID_EXT`). Needs `import "@resizable/msgpack/records"`
   * (as do `structures`, `maxSharedStructures` and `sequential`): without it,
   * `INVALID_ARGUMENT`. See docs/records.md.
   * @default false
   */
  useRecords?: boolean | ((obj: object) => boolean) | undefined;
  /**
   * Record structures shared with the decoders, as msgpackr's option of
   * that name: an array whose entry i lists the field names of structure
   * i, written without a declaration as identifier 0x40 + i. New key
   * sequences are appended to it (changing it in place) while it has
   * fewer than `maxSharedStructures` entries; persist it and give the
   * decoders the same array (a message written after an append needs it).
   * Structures another encoder appends are picked up when a message
   * starts. Used with `useRecords`.
   * @default none
   */
  structures?: string[][] | undefined;
  /**
   * Most entries of `structures` (msgpackr's option): up to 8160. Past 32,
   * identifiers from index 32 take two bytes, as msgpackr writes them.
   * With `structures`, each message still has 32 identifiers of its own;
   * without it, at most 32 (more is `INVALID_ARGUMENT`: identifiers from 32
   * up to it would never be defined, and the records would not decode).
   * @default 0, or 32 with `structures`
   */
  maxSharedStructures?: number | undefined;
  /**
   * With `useRecords`: structures declared in one message stay declared
   * for this encoder's later messages (msgpackr's `sequential`), so the
   * output must be decoded in order by one sequence: `decodeMulti` over the
   * concatenation, or the stream decoders. `EncoderStream` with
   * `useRecords` is always sequential. A message that
   * throws makes the encoder forget its structures (the next message
   * declares them again). `encode()` and `encodedSize()` refuse it
   * (`INVALID_ARGUMENT`): a sequence lives in an `Encoder` of its own.
   * @default false (always `true` in `EncoderStream` with `useRecords`)
   */
  sequential?: boolean | undefined;
}

/** @msgpack/msgpack's name for {@link EncodeOptions}. */
export type EncoderOptions<ContextType = undefined> = EncodeOptions<ContextType>;

/**
 * Options of the stream encoders: the encode options, and what each
 * stream encoder adds (the others ignore it). One type for
 * `EncoderStream`, `encodeIterable`, `encodeToStream` and
 * `encodeToReadableStream`. An invalid value is an `EncodeError` with code
 * `INVALID_ARGUMENT` naming the option.
 *
 * @example One options object for a framed stream and a chunked value
 * ```ts
 * import { EncoderStream, encodeIterable, type StreamEncodeOptions } from "@resizable/msgpack/streams";
 * const options: StreamEncodeOptions = { sortKeys: true, lengthPrefixed: true, chunkSize: 4096 };
 * const stream = new EncoderStream(options); // frames each value
 * const chunks = [...encodeIterable({ b: 1, a: "x".repeat(10_000) }, options)]; // 4 KiB chunks
 * console.assert(stream.readable !== undefined && chunks.length === 3);
 * ```
 */
export interface StreamEncodeOptions<ContextType = undefined> extends EncodeOptions<ContextType> {
  /**
   * `EncoderStream`: write each value's length as a u32 big-endian
   * prefix before it, for protocols that frame messages. Values of 2^32
   * bytes or more throw an `EncodeError` (code `TOO_LONG`).
   * @default false
   */
  lengthPrefixed?: boolean | undefined;
  /**
   * `encodeIterable`, `encodeToStream`, `encodeToReadableStream`: the size
   * of the chunks the encoder fills, in bytes (64 KiB by default).
   * Containers whose encoding may be larger are encoded in parts;
   * binaries of at least this size are yielded as views of the input,
   * without a copy. A number from 1 to 2^31 (a fraction is rounded down).
   * @default 65536
   */
  chunkSize?: number | undefined;
  /**
   * `encodeToStream`: leave the writable stream open after the last
   * chunk, as `pipeTo`'s option of that name.
   * @default false
   */
  preventClose?: boolean | undefined;
}


/**
 * The encode options (the stream encoders' included) as an encoder uses
 * them: every default filled in, read once from what the user passed.
 * Each option has its type without `undefined` (`extensionCodec`: the
 * codec given, or `ExtensionCodec.defaultCodec`; `maxSharedStructures`: 32
 * with `structures`, else 0; `chunkSize` a whole number), except
 * `structures` (the array given, if any).
 */
export type ResolvedEncodeOptions = Resolved<Omit<StreamEncodeOptions<unknown>, "structures">> & {
  readonly structures: string[][] | undefined;
};

/** An encode option's codec: anything with a `tryToEncode`. */
const CODEC: Rule<ExtensionCodecType<unknown>> = ["an ExtensionCodec, or an object with tryToEncode and decode", (v): v is ExtensionCodecType<unknown> => typeof (v as { tryToEncode?: unknown } | null)?.tryToEncode === "function"];

/**
 * The encode options of `options` (null or undefined: none), resolved:
 * each option read once, by its literal name, checked by its rule and
 * defaulted, and the options object checked for misspelled names (see
 * common/options.ts); resolved options resolve to equal ones. Needs the
 * records module for `useRecords`, `structures`, `sequential` and
 * `maxSharedStructures`.
 *
 * @throws {EncodeError} `INVALID_ARGUMENT` for options that are not an
 *   object, an invalid value, a misspelled option name, or a records
 *   option without the records module
 */
export function encodeOptionsOf(options: unknown): ResolvedEncodeOptions {
  const o = (options ?? {}) as Record<string, unknown>; // another primitive reads as none, and is refused below
  const structures = take(fail, o.structures, "structures", ARRAY, undefined);
  const resolved = checked(options, {
    extensionCodec: take(fail, o.extensionCodec, "extensionCodec", CODEC, undefined) ?? ExtensionCodec.defaultCodec,
    context: o.context,
    sortKeys: take(fail, o.sortKeys, "sortKeys", BOOLEAN, false),
    forceFloat32: take(fail, o.forceFloat32, "forceFloat32", BOOLEAN, false),
    forceIntegerToFloat: take(fail, o.forceIntegerToFloat, "forceIntegerToFloat", BOOLEAN, false),
    useBigInt64: take(fail, o.useBigInt64, "useBigInt64", BOOLEAN, false),
    ignoreUndefined: take(fail, o.ignoreUndefined, "ignoreUndefined", BOOLEAN, false),
    undefinedAsExtension: take(fail, o.undefinedAsExtension, "undefinedAsExtension", BOOLEAN, false),
    buffers: take(fail, o.buffers, "buffers", BOOLEAN, false),
    maxDepth: take(fail, o.maxDepth, "maxDepth", LIMIT, DEFAULT_MAX_DEPTH),
    initialBufferSize: take(fail, o.initialBufferSize, "initialBufferSize", SCRATCH, DEFAULT_SCRATCH_BYTES),
    maxByteLength: take(fail, o.maxByteLength, "maxByteLength", LIMIT, MAX_STORE_BYTES),
    poolResults: take(fail, o.poolResults, "poolResults", BOOLEAN, false),
    useRecords: take(fail, o.useRecords, "useRecords", RECORDS, false),
    structures,
    maxSharedStructures: take(fail, o.maxSharedStructures, "maxSharedStructures", SHARED, structures === undefined ? 0 : 32),
    sequential: take(fail, o.sequential, "sequential", BOOLEAN, false),
    lengthPrefixed: take(fail, o.lengthPrefixed, "lengthPrefixed", BOOLEAN, false),
    chunkSize: Math.floor(take(fail, o.chunkSize, "chunkSize", CHUNK, 64 * 1024)),
    preventClose: take(fail, o.preventClose, "preventClose", BOOLEAN, false),
  } satisfies ResolvedEncodeOptions, fail);
  const needs = resolved.useRecords !== false ? "useRecords" : structures ? "structures" : resolved.sequential ? "sequential" : resolved.maxSharedStructures ? "maxSharedStructures" : "";
  if (needs !== "" && modules.records === undefined) throw encodeNeeds(needs, "@resizable/msgpack/records");
  return resolved;
}

/** The rules of the encode limits, of `useRecords` and of `chunkSize`. */
const LIMIT = /* @__PURE__ */ upTo(Infinity), SCRATCH = /* @__PURE__ */ upTo(MAX_STORE_BYTES), SHARED = /* @__PURE__ */ upTo(MAX_SHARED_STRUCTURES);
const RECORDS: Rule<boolean | ((obj: object) => boolean)> = ["a boolean or a function", (v): v is boolean => typeof v === "boolean" || typeof v === "function"];
const CHUNK: Rule<number> = ["a number of bytes from 1 to 2^31", (v): v is number => typeof v === "number" && v >= 1 && v <= 2 ** 31];

