/**
 * The main entry without stream decoding: everything `@resizable/msgpack`
 * exports except `decodeAsync`, `decodeArrayStream` and
 * `decodeMultiStream`, and with the core `Decoder` (no stream methods).
 * The browser bundle dist/browser/msgpack.min.js is built from it, to
 * stay small; the streams bundle (msgpack-streams.min.js) has the full
 * main entry, and msgpack.iife.min.js is built from compat/msgpack.ts.
 *
 * @module
 */

export { encode, encodedSize, Encoder, type EncodeOptions, type EncoderOptions, type SizeOptions } from "./encode/encoder.ts";
export { decode, decodeMulti } from "./decode/decode.ts";
export { CoreDecoder as Decoder, type DecodeOptions, type DecoderOptions, type Int64Mode } from "./decode/decoder.ts";
export type { DecodeInput } from "./common/input.ts";
export {
  ExtData,
  ExtensionCodec,
  type Extension,
  type ExtensionCodecType,
  type ExtensionDecoderType,
  type ExtensionEncoderType,
} from "./format/extensions.ts";
export {
  decodeTimestampExtension,
  decodeTimestampToTimeSpec,
  encodeDateToTimeSpec,
  encodeTimeSpecToTimestamp,
  encodeTimestampExtension,
  EXT_TIMESTAMP,
  type TimeSpec,
} from "./format/timestamp.ts";
export { DecodeError, DecodeErrorCode, EncodeError, EncodeErrorCode, type SchemaIssue } from "./common/errors.ts";
export type { StandardSchemaV1 } from "./decode/schema-hook.ts";
export { estimateSize } from "./encode/size.ts";
