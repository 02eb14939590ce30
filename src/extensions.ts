/**
 * Extension types: {@link ExtData} for payloads nobody registered, and
 * {@link ExtensionCodec} to map user types to extension types and back.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md#extension-types
 *
 * @module
 */

import { badExtType, brand } from "./errors.ts";

/**
 * An extension value: a type in -128..127 and its payload bytes. Encoded as
 * fixext 1/2/4/8/16 or ext 8/16/32; decoded from any extension type that no
 * codec claims.
 *
 * @example Round-tripping an unknown extension
 * ```ts
 * import { decode, encode, ExtData } from "@resizable/msgpack";
 * const ext = decode(encode(new ExtData(7, new Uint8Array([1, 2])))) as ExtData;
 * console.assert(ext instanceof ExtData && ext.type === 7 && ext.data.length === 2);
 * ```
 */
export class ExtData {
  /** Extension type, -128..127 (negative types are reserved by the spec). */
  declare readonly type: number;
  /** The payload. */
  declare readonly data: Uint8Array;

  /**
   * @param type extension type, an integer in -128..127
   * @param data the payload bytes
   */
  constructor(type: number, data: Uint8Array) {
    this.type = type;
    this.data = data;
  }

  static {
    brand(this, "ExtData");
  }
}

/** How a user type becomes an extension and back; the argument of {@link ExtensionCodec.register}. */
export interface Extension<ContextType = undefined> {
  /** Extension type, an integer in -128..127; -1 (timestamp) may be overridden. */
  type: number;
  /** Returns the payload for values this extension handles, `null` for any other value. */
  encode: (value: unknown, context: ContextType) => Uint8Array | null;
  /** Builds the value from a payload of this type. `data` is a view into the decoder's input: copy it to keep it past the call. */
  decode: (data: Uint8Array, type: number, context: ContextType) => unknown;
}

/**
 * A registry of extension types, passed as the `extensionCodec` option of
 * the encoder and the decoder. Encoders are tried in registration order on
 * every object (not on primitives) before the built-in types.
 *
 * @example A `Set` as extension type 1
 * ```ts
 * import { decode, encode, ExtensionCodec } from "@resizable/msgpack";
 * const extensionCodec = new ExtensionCodec();
 * extensionCodec.register({
 *   type: 1,
 *   encode: (v) => (v instanceof Set ? encode([...v], { extensionCodec }) : null),
 *   decode: (data) => new Set(decode(data, { extensionCodec }) as unknown[]),
 * });
 * const set = decode(encode(new Set([1, 2]), { extensionCodec }), { extensionCodec });
 * console.assert(set instanceof Set && set.has(2));
 * ```
 */
export class ExtensionCodec<ContextType = undefined> {
  /** Registered encoders in registration order (internal). */
  readonly encoders: Array<{ type: number; encode: Extension<ContextType>["encode"] }> = [];
  /** Registered decoders by type (internal). */
  readonly decoders: Map<number, Extension<ContextType>["decode"]> = new Map();

  /**
   * Registers an extension type. Registering the same type again replaces its decoder
   * and adds its encoder after the earlier ones.
   *
   * @param extension the type, its `encode` and its `decode`
   * @throws {EncodeError} when `type` is not an integer in -128..127
   */
  register(extension: Extension<ContextType>): void {
    const { type } = extension;
    checkExtType(type, "register");
    this.encoders.push({ type, encode: extension.encode });
    this.decoders.set(type, extension.decode);
  }
}

/**
 * Throws an `EncodeError` (`INVALID_EXT`) unless `type` is an integer in
 * -128..127; `verb` says what was being done ("encode" or "register").
 */
export function checkExtType(type: number, verb?: string): void {
  if (!Number.isInteger(type) || type < -128 || type > 127) throw badExtType(type, verb);
}
