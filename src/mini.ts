/**
 * @resizable/msgpack/mini: the same MessagePack (every format, timestamps,
 * extensions), the same values, errors and output bytes as the main entry,
 * built on the same format modules, in about 6.8 KiB gzip (4.4 KiB when only
 * `encode` is imported, 4.0 KiB when only `decode` is), for browsers and
 * workers where bundle size matters more than the last factor of speed. No `decodeMulti`, no `Encoder`/`Decoder`
 * classes, no streams, no size functions, and none of the main encoder's
 * buffer tuning options; otherwise switching between the two is changing
 * the import.
 *
 * @example Round trip
 * ```ts
 * import { decode, encode, ExtData } from "@resizable/msgpack/mini";
 * const value = decode(encode({ tag: new ExtData(3, new Uint8Array([9])), n: 2n ** 63n })) as { tag: ExtData; n: bigint };
 * console.assert(value.tag.type === 3 && value.n === 2n ** 63n);
 * ```
 *
 * @module
 */

export { encode, type MiniEncodeOptions as EncodeOptions } from "./mini/encode.ts";
export { decode } from "./mini/decode.ts";
export type { DecodeOptions, Int64Mode } from "./decode/options.ts";
export { ExtData, ExtensionCodec, type Extension } from "./format/extensions.ts";
export { DecodeError, EncodeError, type DecodeErrorCode, type EncodeErrorCode } from "./shared/errors.ts";
