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

// everything in core.ts, with the Decoder that adds the stream methods
// (a subclass of the core one, under the same name: an explicit export wins over the
// star export), and the stream decoders
export * from "./core.ts";
export { decodeArrayStream, decodeAsync, decodeMultiStream } from "./stream/decode.ts";
export { Decoder } from "./stream/decoder.ts";
