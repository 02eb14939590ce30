/**
 * The options the stream helpers add to the encode and decode options:
 * their types and documentation, and their tables, read and checked by the
 * same reader, rules and errors as the encode and decode options
 * (common/options.ts).
 *
 * @module
 */

import { invalidEncodeOption } from "../common/errors.ts";
import { BOOLEAN, LIMIT, optionSide, type OptionTable, readOptions, type Resolved, withDefaults } from "../common/options.ts";
import { invalidDecodeOption, type DecodeOptions } from "../decode/options.ts";
import type { EncodeOptions } from "../encode/options.ts";
import type { StreamStats } from "./queue.ts";

/**
 * Options of the stream decoders (`decodeAsync`, `decodeArrayStream`,
 * `decodeMultiStream`, `DecoderStream` and the main entry's `Decoder`):
 * the decode options plus `maxValueBytes`, `stats` and `lengthPrefixed`.
 * An invalid value of these three is a `DecodeError` with code
 * `INVALID_ARGUMENT` naming the option, when a stream decoder starts or a
 * `DecoderStream` or `Decoder` is made.
 */
export interface StreamDecodeOptions<ContextType = undefined> extends DecodeOptions<ContextType> {
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

/** Each option the stream decoders add, declared once: what it takes and its default, in the order they are read. */
export const STREAM_DECODE_TABLE: OptionTable<StreamDecodeOwn> = {
  maxValueBytes: [LIMIT, Infinity],
  stats: [["a StreamStats object", (v) => typeof v === "object" && v !== null], undefined],
  lengthPrefixed: [BOOLEAN, false],
};

/** Each option the stream encoders add, declared once: what it takes and its default, in the order they are read. */
export const STREAM_ENCODE_TABLE: OptionTable<StreamEncodeOwn> = {
  lengthPrefixed: [BOOLEAN, false],
  chunkSize: [["a number of bytes from 1 to 2^31", (v) => typeof v === "number" && v >= 1 && v <= 2 ** 31], 64 * 1024],
  preventClose: [BOOLEAN, false],
};

/** The stream decoders' own options, each read once, by its literal name, in the order of {@link STREAM_DECODE_TABLE}. */
function readStreamDecodeValues(o: Record<string, unknown>): unknown[] {
  return [o.maxValueBytes, o.stats, o.lengthPrefixed];
}

/** The stream encoders' own options, each read once, by its literal name, in the order of {@link STREAM_ENCODE_TABLE}. */
function readStreamEncodeValues(o: Record<string, unknown>): unknown[] {
  return [o.lengthPrefixed, o.chunkSize, o.preventClose];
}

const STREAM_DECODE_SIDE = /* @__PURE__ */ optionSide(STREAM_DECODE_TABLE, readStreamDecodeValues, invalidDecodeOption);

const STREAM_ENCODE_SIDE = /* @__PURE__ */ optionSide(STREAM_ENCODE_TABLE, readStreamEncodeValues, invalidEncodeOption);

/** The stream decoders' own options, resolved: each default filled in (`stats`: the object given, if any). */
export type StreamSettings = Resolved<Omit<StreamDecodeOwn, "stats">> & { readonly stats: StreamStats | undefined };

/** The stream encoders' own options, resolved: each default filled in, `chunkSize` a whole number. */
export type StreamEncodeSettings = Resolved<StreamEncodeOwn>;

/** Settings made by {@link readStreamOptions}. */
const SETTINGS = /* @__PURE__ */ new WeakSet<object>();

/** Whether `o` was made by {@link readStreamOptions}. */
export function isStreamSettings(o: unknown): o is StreamSettings {
  return typeof o === "object" && o !== null && SETTINGS.has(o);
}

/**
 * Reads the stream decoders' own options (the decode options are the
 * decoder's) once each, checked by the rules of {@link STREAM_DECODE_TABLE},
 * with their defaults filled in.
 *
 * @throws {DecodeError} `INVALID_ARGUMENT` for an invalid value or a misspelled name
 */
export function readStreamOptions(options: unknown): StreamSettings {
  const settings = Object.freeze(withDefaults(STREAM_DECODE_SIDE, readOptions(options, STREAM_DECODE_SIDE))) as unknown as StreamSettings;
  SETTINGS.add(settings);
  return settings;
}

/**
 * Reads the stream encoders' own options (the encode options are the
 * encoder's) once each, checked by the rules of {@link STREAM_ENCODE_TABLE},
 * with their defaults filled in; `chunkSize` rounded down.
 *
 * @throws {EncodeError} `INVALID_ARGUMENT` for an invalid value or a misspelled name
 */
export function readStreamEncodeOptions(options: unknown): StreamEncodeSettings {
  const settings = withDefaults(STREAM_ENCODE_SIDE, readOptions(options, STREAM_ENCODE_SIDE));
  settings.chunkSize = Math.floor(settings.chunkSize as number);
  return Object.freeze(settings) as unknown as StreamEncodeSettings;
}
