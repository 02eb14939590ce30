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

export { encode, Encoder, type EncodeOptions } from "./encode.ts";
export { decode, decodeMulti, type DecodeOptions, type DecoderOptions, type Int64Mode } from "./decode.ts";
export type { DecodeInput } from "./input.ts";
export { ExtData, ExtensionCodec, type Extension } from "./extensions.ts";
export { DecodeError, DecodeErrorCode, EncodeError, EncodeErrorCode } from "./errors.ts";
export { encodedSize, estimateSize, type SizeOptions } from "./size.ts";
export type { SinkStrategy } from "./sink.ts";
export { decodeArrayStream, decodeAsync, decodeMultiStream } from "./stream-decode.ts";
export { Decoder } from "./stream-decoder.ts";
