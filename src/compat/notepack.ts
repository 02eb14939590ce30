/**
 * `@resizable/msgpack/compat/notepack`: `encode` and `decode` for programs
 * written for notepack.io, which run after changing only their import
 * line. With notepack.io's ways: `encode` returns a Node `Buffer`, leaves
 * out object properties whose value is `undefined` and writes `undefined`
 * elsewhere as fixext 1 of type 0 (`d4 00 00`); `decode` returns binaries
 * as `Buffer`s and reads `d4 00 00` as `undefined`. Importing it also
 * installs `buffers: true` for the main entry's encoders and decoders.
 *
 * @example
 * ```ts
 * import notepack from "@resizable/msgpack/compat/notepack";
 * const bytes = notepack.encode({ id: 1, data: undefined, list: [undefined] });
 * console.assert(bytes.constructor.name === "Buffer");
 * console.assert(JSON.stringify(notepack.decode(bytes)) === '{"id":1,"list":[null]}');
 * ```
 *
 * @module
 */

import type { DecodeInput } from "../common/input.ts";
import type { NodeBuffer } from "../common/engine.ts";
import { decode as decodeWith } from "../decode/decode.ts";
import { installBuffers } from "../dropin/buffers.ts";
import { encode as encodeWith } from "../encode/encoder.ts";

installBuffers();

/** notepack.io's encoding: Buffers, `undefined` properties left out, other `undefined`s as `d4 00 00`. */
const ENCODE_OPTIONS = { buffers: true, ignoreUndefined: true, undefinedAsExtension: true } as const;

/** notepack.io's decoding: binaries as Buffers, `d4 00 00` as `undefined`. */
const DECODE_OPTIONS = { buffers: true, undefinedAsExtension: true } as const;

/**
 * Encodes `value` as notepack.io does: into a Node `Buffer`, with object
 * properties whose value is `undefined` left out and any other
 * `undefined` written as `d4 00 00`.
 *
 * @param value the value to encode
 * @returns the MessagePack bytes as a `Buffer`
 * @throws {EncodeError} as the main entry's `encode`; `INVALID_ARGUMENT` where there is no `Buffer`
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack/compat/notepack";
 * console.assert(encode({ a: undefined }).length === 1); // an empty map
 * ```
 */
export function encode(value: unknown): NodeBuffer {
  return encodeWith(value, ENCODE_OPTIONS);
}

/**
 * Decodes one value as notepack.io does: binaries as Node `Buffer`s (copies),
 * `d4 00 00` as `undefined`. Typed `any`, as notepack.io's `decode` is used.
 *
 * @param input the MessagePack bytes
 * @returns the value
 * @throws {DecodeError} as the main entry's `decode`
 *
 * @example
 * ```ts
 * import { decode } from "@resizable/msgpack/compat/notepack";
 * console.assert(decode(Uint8Array.of(0xd4, 0, 0)) === undefined);
 * ```
 */
export function decode<T = any>(input: DecodeInput): T {
  return decodeWith(input, DECODE_OPTIONS) as T;
}

/** notepack.io's default export: `{ encode, decode }`, for `import notepack from ...`. */
const notepack: { encode: typeof encode; decode: typeof decode } = { encode, decode };
export default notepack;
