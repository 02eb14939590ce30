/**
 * The options the stream helpers add to the encode and decode options:
 * their types and documentation, and their tables, read and checked by the
 * same reader, rules and errors as the encode and decode options
 * (common/options.ts).
 *
 * @module
 */

import { invalidDecodeOption, invalidEncodeOption } from "../common/errors.ts";
import { BOOLEAN, isResolved, type OptionSide, optionsIn, type Resolved, RESOLVED, type Rule, take, upTo } from "../common/options.ts";
import type { DecodeOptions } from "../decode/options.ts";
import type { EncodeOptions } from "../encode/options.ts";
import type { StreamStats } from "./queue.ts";

/**
 * Options of the stream decoders (`decodeAsync`, `decodeArrayStream`,
 * `decodeMultiStream`, `DecoderStream` and the main entry's `Decoder`):
 * the decode options plus `maxValueBytes`, `stats` and `lengthPrefixed`
 * (the decode option `schema` checks each value, or each item of
 * `decodeArrayStream`, as it completes, and may validate asynchronously).
 * An invalid value of these three is a `DecodeError` with code
 * `INVALID_ARGUMENT` naming the option, when a stream decoder starts or a
 * `DecoderStream` or `Decoder` is made.
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

/** The options the stream decoders add: {@link StreamDecodeOptions} without the decode options. */
type StreamDecodeOwn = Omit<StreamDecodeOptions, keyof DecodeOptions>;

/** The options the stream encoders add: {@link StreamEncodeOptions} without the encode options. */
type StreamEncodeOwn = Omit<StreamEncodeOptions, keyof EncodeOptions>;

/** The stream decoders' own options, resolved: each default filled in (`stats`: the object given, if any). */
export type StreamSettings = Resolved<Omit<StreamDecodeOwn, "stats">> & { readonly stats: StreamStats | undefined };

/** The stream encoders' own options, resolved: each default filled in, `chunkSize` a whole number. */
export type StreamEncodeSettings = Resolved<StreamEncodeOwn>;

/** The stream decoders' side (their own options; the decode options are the decoder's). */
export const STREAM_DECODE: OptionSide = { fail: invalidDecodeOption, resolve: (o) => readStreamOptions(o), accepted: [] };

/** The stream encoders' side (their own options; the encode options are the encoder's). */
export const STREAM_ENCODE: OptionSide = { fail: invalidEncodeOption, resolve: (o) => readStreamEncodeOptions(o), accepted: [] };

/**
 * The stream decoders' own options of `options`, resolved as the decode
 * options are (see decode/options.ts); as they are when already resolved.
 *
 * @throws {DecodeError} `INVALID_ARGUMENT` for an invalid value or a misspelled name
 */
export function readStreamOptions(options: unknown): StreamSettings {
  if (isResolved(options, STREAM_DECODE)) return options as StreamSettings;
  const o = optionsIn(options, STREAM_DECODE);
  return {
    maxValueBytes: take(STREAM_DECODE, o.maxValueBytes, "maxValueBytes", LIMIT, Infinity),
    stats: take(STREAM_DECODE, o.stats, "stats", STATS, undefined),
    lengthPrefixed: take(STREAM_DECODE, o.lengthPrefixed, "lengthPrefixed", BOOLEAN, false),
    [RESOLVED]: STREAM_DECODE, // last: a computed key ends the literal's boilerplate, so the names before it are in it
  } satisfies StreamSettings;
}

/**
 * The stream encoders' own options of `options`, resolved as the encode
 * options are (see encode/options.ts), `chunkSize` rounded down.
 *
 * @throws {EncodeError} `INVALID_ARGUMENT` for an invalid value or a misspelled name
 */
export function readStreamEncodeOptions(options: unknown): StreamEncodeSettings {
  if (isResolved(options, STREAM_ENCODE)) return options as StreamEncodeSettings;
  const o = optionsIn(options, STREAM_ENCODE);
  return {
    lengthPrefixed: take(STREAM_ENCODE, o.lengthPrefixed, "lengthPrefixed", BOOLEAN, false),
    chunkSize: Math.floor(take(STREAM_ENCODE, o.chunkSize, "chunkSize", CHUNK, 64 * 1024)),
    preventClose: take(STREAM_ENCODE, o.preventClose, "preventClose", BOOLEAN, false),
    [RESOLVED]: STREAM_ENCODE, // last: a computed key ends the literal's boilerplate, so the names before it are in it
  } satisfies StreamEncodeSettings;
}

const LIMIT = /* @__PURE__ */ upTo(Infinity, "a non-negative integer");
const STATS: Rule<StreamStats> = ["a StreamStats object", (v): v is StreamStats => typeof v === "object" && v !== null];
const CHUNK: Rule<number> = ["a number of bytes from 1 to 2^31", (v): v is number => typeof v === "number" && v >= 1 && v <= 2 ** 31];
