/**
 * The options the stream helpers add to the encode and decode options:
 * their types and documentation (docs/options.md's stream tables). Each is
 * one line of its side's resolver (decode/options.ts, encode/options.ts),
 * read, checked and defaulted there with the options it extends, so one
 * options object is read once and checked for misspelled names once.
 *
 * @module
 */

import { isResolved } from "../common/options.ts";
import { DECODE, decodeOptionsOf, type DecodeOptions, type ResolvedDecodeOptions } from "../decode/options.ts";
import { encodeOptionsOf, type EncodeOptions, type ResolvedEncodeOptions } from "../encode/options.ts";
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

/** The stream decoders' options, resolved: the decode options' resolver reads them with the decode options. */
export type StreamSettings = ResolvedDecodeOptions;

/** The stream encoders' options, resolved: the encode options' resolver reads them with the encode options. */
export type StreamEncodeSettings = ResolvedEncodeOptions;

/** The stream decode options of `options`, resolved (see decode/options.ts). */
export const readStreamOptions: (options: unknown) => StreamSettings = decodeOptionsOf;

/** Whether `o` was made by {@link readStreamOptions}. */
export const isStreamSettings = (o: unknown): o is StreamSettings => isResolved(o, DECODE);

/** The stream encode options of `options`, resolved (see encode/options.ts). */
export const readStreamEncodeOptions: (options: unknown) => StreamEncodeSettings = encodeOptionsOf;
