/**
 * @resizable/msgpack: a MessagePack encoder and decoder whose encoder
 * writes small values into a plain scratch buffer, grows a resizable
 * `ArrayBuffer` in place for large outputs, and falls back to a chunk list
 * past its ceiling or where buffers cannot resize.
 *
 * @example Round trip
 * ```ts
 * import { decode, encode } from "@resizable/msgpack";
 * const bytes = encode({ hello: "world", n: [1, 2.5, 2n ** 63n] });
 * const value = decode(bytes) as { hello: string };
 * console.assert(value.hello === "world");
 * ```
 *
 * @module
 */

export { encode, Encoder, type EncodeOptions, type EncoderOptions } from "./encode.ts";
export { decode, decodeMulti, Decoder, type DecodeOptions, type Int64Mode } from "./decode.ts";
export {
  ExtData,
  ExtensionCodec,
  type Extension,
  type ExtensionCodecType,
  type ExtensionDecoderType,
  type ExtensionEncoderType,
} from "./extensions.ts";
export {
  decodeTimestampExtension,
  decodeTimestampToTimeSpec,
  encodeDateToTimeSpec,
  encodeTimeSpecToTimestamp,
  encodeTimestampExtension,
  EXT_TIMESTAMP,
  type TimeSpec,
} from "./timestamp.ts";
export { DecodeError, DecodeErrorCode, EncodeError, EncodeErrorCode } from "./errors.ts";
export { encodedSize, estimateSize, type SizeOptions } from "./size.ts";
export type { SinkStrategy } from "./sink.ts";
