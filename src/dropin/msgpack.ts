/**
 * What programs written for @msgpack/msgpack rely on beyond the options
 * the main entry reads: its 2.x positional constructors, codecs of its
 * own kind (any object with `tryToEncode` and `decode`), and decoding
 * invalid UTF-8 with U+FFFD (`invalidUtf8: "replace"`; @msgpack/msgpack
 * always does). Installed by `@resizable/msgpack/compat/msgpack`.
 *
 * @module
 */

import { install } from "../common/modules.ts";
import type { DecodeOptions } from "../decode/options.ts";
import type { EncodeOptions } from "../encode/options.ts";
import { WHOLE_CODEC } from "../format/extensions.ts";
import { decodeUtf8Lossy } from "../format/utf8.ts";

/**
 * Installs @msgpack/msgpack's ways for every encoder and decoder of the
 * program: `new Encoder(extensionCodec, context, maxDepth, ...)` and
 * `new Decoder(extensionCodec, context, maxStrLength, ...)` (an argument
 * left `undefined` means its default), `extensionCodec` objects of any
 * kind with `tryToEncode` and `decode`, and `invalidUtf8: "replace"`.
 *
 * @example
 * ```ts
 * import "@resizable/msgpack/compat/msgpack"; // calls installMsgpackWays()
 * import { Encoder } from "@resizable/msgpack";
 * const sorted = new Encoder(undefined, undefined, undefined, undefined, true).encode({ b: 1, a: 2 });
 * console.assert(sorted[2] === 0x61); // sortKeys: "a" first
 * ```
 */
export function installMsgpackWays(): void {
  // the options each argument of the 2.x constructors sets, typed against the options interfaces
  install("positional", (side, [extensionCodec, context, a, b, c, d, e, f]) =>
    side === "encode"
      ? ({ extensionCodec, context, maxDepth: a, initialBufferSize: b, sortKeys: c, forceFloat32: d, ignoreUndefined: e, forceIntegerToFloat: f } satisfies { [K in keyof EncodeOptions]?: unknown })
      : ({ extensionCodec, context, maxStrLength: a, maxBinLength: b, maxArrayLength: c, maxMapLength: d, maxExtLength: e } satisfies { [K in keyof DecodeOptions]?: unknown }),
  );
  install("extensionCodec", {
    // its tryToEncode gives a whole ExtData (checked where it is written)
    encoder: (codec) => ({ type: WHOLE_CODEC, encode: (value, context) => codec.tryToEncode(value, context) }),
    decoder: (codec) => (data, type, context) => codec.decode(data, type, context),
  });
  install("invalidUtf8", decodeUtf8Lossy);
}

