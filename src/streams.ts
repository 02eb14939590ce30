/**
 * Streaming: decode values from a `ReadableStream` or any `AsyncIterable`
 * of byte chunks ({@link decodeAsync}, {@link decodeArrayStream},
 * {@link decodeMultiStream}), WHATWG transform streams for both directions
 * ({@link EncoderStream}, {@link DecoderStream}), optional u32 big-endian
 * length-prefixed framing, and an encoder that yields the bytes of one
 * huge value in chunks while it encodes ({@link encodeIterable},
 * {@link encodeToStream}, {@link encodeToReadableStream}).
 *
 * `decodeAsync`, `decodeArrayStream` and `decodeMultiStream` are also
 * exported from the main entry, as @msgpack/msgpack does, with a
 * `Decoder` that has the matching stream methods.
 *
 * This entry imports the core; the core never imports it.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

export {
  createStreamStats,
  decodeArrayStream,
  decodeAsync,
  decodeMultiStream,
  type ByteChunk,
  type ReadableStreamLike,
  type StreamDecodeOptions,
  type StreamStats,
} from "./stream/decode.ts";
export { DecoderStream } from "./stream/transform.ts";
export {
  EncoderStream,
  encodeIterable,
  encodeToReadableStream,
  encodeToStream,
  type StreamEncodeOptions,
} from "./stream/encode.ts";
