/**
 * The options of the stream helpers, as the stream modules use them: the
 * interfaces `StreamDecodeOptions` and `StreamEncodeOptions` and their
 * lines in the resolvers are beside the options they extend
 * (decode/options.ts, encode/options.ts), so one options object is read
 * once and checked for misspelled names once.
 *
 * @module
 */

import { isResolved } from "../common/options.ts";
import { DECODE, decodeOptionsOf, type ResolvedDecodeOptions } from "../decode/options.ts";
import { encodeOptionsOf, type ResolvedEncodeOptions } from "../encode/options.ts";

export type { StreamDecodeOptions } from "../decode/options.ts";
export type { StreamEncodeOptions } from "../encode/options.ts";

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
