/**
 * `@resizable/msgpack/compat/msgpack`: the main entry's API for programs
 * written for @msgpack/msgpack, which run after changing only their import
 * line. It exports what `@resizable/msgpack` exports (stream decoders
 * included), and installs, for the whole program, what @msgpack/msgpack's
 * users rely on beyond the main entry: the 2.x positional constructors
 * (`new Encoder(extensionCodec, context, ...)`), codecs of any kind with
 * `tryToEncode` and `decode`, and `invalidUtf8: "replace"`.
 *
 * @example A program written for @msgpack/msgpack 2.x
 * ```ts
 * import { Decoder, Encoder, ExtensionCodec } from "@resizable/msgpack/compat/msgpack";
 * const codec = new ExtensionCodec<{ scale: number }>();
 * codec.register({ type: 1, encode: (v, ctx) => (v instanceof Set ? Uint8Array.of(v.size * ctx.scale) : null), decode: (d, _t, ctx) => d[0]! / ctx.scale });
 * const bytes = new Encoder(codec, { scale: 10 }).encode(new Set([1, 2]));
 * console.assert(new Decoder(codec, { scale: 10 }).decode(bytes) === 2);
 * ```
 *
 * @module
 */

import { installMsgpackWays } from "../dropin/msgpack.ts";

installMsgpackWays();

export * from "../index.ts";
