/**
 * Extension types: {@link ExtData} for payloads nobody registered, and
 * {@link ExtensionCodec} to map user types to extension types and back.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md#extension-types
 *
 * @module
 */

import { badExtension, badExtType, brand, decodeNeeds, encodeNeeds } from "../common/errors.ts";
import { readTimestamp, writeTimestamp } from "./timestamp.ts";
import { dropIn } from "../common/modules.ts";

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
export class ExtData<Data extends ExtDataPayload = Uint8Array> {
  /** Extension type, -128..127 (negative types are reserved by the spec). */
  declare readonly type: number;
  /** The payload (always bytes in a decoded `ExtData`). */
  declare readonly data: Data;

  /**
   * @param type extension type, an integer in -128..127
   * @param data the payload: bytes (any view or `ArrayBuffer` is written
   *   as its bytes), or a function of the output position where the
   *   payload will start (written as ext 32, as an extension encoder's)
   */
  constructor(type: number, data: Data) {
    this.type = type;
    this.data = data;
  }
}
brand(ExtData, "ExtData");

/**
 * What an {@link ExtData} may carry: bytes, or (to be encoded) a function
 * of the output position where its payload will start, as
 * @msgpack/msgpack's type allows.
 */
export type ExtDataPayload = Uint8Array | ((dataPos: number) => Uint8Array);

/**
 * An extension encoder: returns the payload for values it handles, `null`
 * for any other value. Besides bytes (a `Uint8Array`; other views and
 * `ArrayBuffer`s are written as their bytes too) it may return a function of `dataPos`, the byte position in the output
 * where the payload will start, for payloads that must be aligned; such an
 * extension is always written as ext 32 (6 header bytes), as
 * @msgpack/msgpack does.
 */
export type ExtensionEncoderType<ContextType> = (
  input: unknown,
  context: ContextType,
) => Uint8Array | ((dataPos: number) => Uint8Array) | null;

/** An extension decoder: builds the value from a payload of its type. */
export type ExtensionDecoderType<ContextType> = (data: Uint8Array, extensionType: number, context: ContextType) => unknown;

/**
 * What an `extensionCodec` option must provide (the shape of
 * @msgpack/msgpack's type of the same name): {@link ExtensionCodec}
 * implements it.
 */
export type ExtensionCodecType<ContextType> = {
  /** Carries the context type for type checking only. */
  __brand?: ContextType;
  /** The extension for `object`, or null when no registered type claims it. */
  tryToEncode(object: unknown, context: ContextType): ExtData<ExtDataPayload> | null;
  /** The value for a payload of type `extType`. */
  decode(data: Uint8Array, extType: number, context: ContextType): unknown;
};

/** How a user type becomes an extension and back; the argument of {@link ExtensionCodec.register}. */
export interface Extension<ContextType = undefined> {
  /** Extension type, an integer in -128..127; -1 (timestamp) may be overridden. */
  type: number;
  /** Returns the payload for values this extension handles, `null` for any other value. */
  encode: ExtensionEncoderType<ContextType>;
  /** Builds the value from a payload of this type. `data` is a view into the decoder's input: copy it to keep it past the call. */
  decode: ExtensionDecoderType<ContextType>;
}

/** What an {@link ExtensionCodec} has registered. */
interface Registry {
  /** Encoders in the order they are tried; encoders keep this very array, so later registrations reach them. */
  readonly encoders: ExtensionEntry[];
  /** Decoders by type; decoders keep this very map. */
  readonly decoders: Map<number, ExtensionDecoderType<unknown>>;
}

/**
 * The registry of each {@link ExtensionCodec}, kept out of the instances
 * (a codec has no properties besides its methods) and read by the
 * encoders and decoders through {@link extensionEncoders} and
 * {@link extensionDecoders}.
 */
const REGISTRIES = /* @__PURE__ */ new WeakMap<object, Registry>();

/**
 * The decoders of `ExtensionCodec.defaultCodec`, which decoders made
 * without an `extensionCodec` read (see {@link extensionDecoders}) without
 * going through the class: a page that only decodes carries no
 * `ExtensionCodec`, nor the encoders its `tryToEncode` reaches.
 */
const DEFAULT_DECODERS = /* @__PURE__ */ new Map<number, ExtensionDecoderType<unknown>>();

/** `ExtensionCodec.defaultCodec`, made on first use. */
let defaultCodec: ExtensionCodec<undefined> | undefined;

/**
 * A registry of extension types, passed as the `extensionCodec` option of
 * the encoder and the decoder. Encoders are tried on every object (and on
 * every bigint, function and symbol) before the built-in types, in
 * @msgpack/msgpack's order: negative types from -1 down, then types 0 up.
 * Types registered after an encoder or decoder was made are honoured.
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
export class ExtensionCodec<ContextType = undefined> implements ExtensionCodecType<ContextType> {
  /**
   * The class's name in every build, as it is exported (a minifier renames the class itself).
   * @internal
   */
  // @ts-ignore: a static accessor defines `name` (TypeScript assumes an assignment; Deno's checker does not)
  static get name(): string {
    return "ExtensionCodec";
  }

  /**
   * The codec that encoders and decoders made without an `extensionCodec`
   * option use, shared by the whole program (as in @msgpack/msgpack).
   */
  static get defaultCodec(): ExtensionCodec<undefined> {
    if (defaultCodec === undefined) {
      defaultCodec = new ExtensionCodec();
      REGISTRIES.set(defaultCodec, { encoders: [], decoders: DEFAULT_DECODERS }); // what decoders made without a codec read
    }
    return defaultCodec;
  }

  declare __brand?: ContextType;
  constructor() {
    REGISTRIES.set(this, { encoders: [], decoders: new Map() });
  }

  /**
   * Registers an extension type. Registering a type again replaces its
   * encoder and its decoder.
   *
   * @param extension the type, its `encode` and its `decode`
   * @throws {EncodeError} (code `INVALID_EXT`) when `extension` is not an
   *   object, `type` is not an integer in -128..127, or `encode` or
   *   `decode` is not a function: at once, not when the type is first used
   */
  register(extension: Extension<ContextType>): void {
    if (typeof extension !== "object" || extension === null) throw badExtension("the argument", extension);
    const { type } = extension;
    checkExtType(type, "register");
    for (const key of ["encode", "decode"] as const) {
      if (typeof extension[key] !== "function") throw badExtension(`${key} of type ${type}`, extension[key]);
    }
    const list = REGISTRIES.get(this)!.encoders;
    // -1, -2, ..., -128, then 0, 1, ..., 127
    const rank = (t: number): number => (t < 0 ? -t : 200 + t);
    let i = 0;
    while (i < list.length && rank(list[i]!.type) < rank(type)) i++;
    list.splice(i, list[i]?.type === type ? 1 : 0, { type, encode: extension.encode as ExtensionEncoderType<unknown> });
    REGISTRIES.get(this)!.decoders.set(type, extension.decode as ExtensionDecoderType<unknown>);
  }

  /**
   * The extension the first encoder that claims `object` makes, in the
   * encoders' order (a `Date` is the timestamp, type -1, first, unless a
   * type -1 is registered), `object` itself when it is an {@link ExtData},
   * else null.
   *
   * @param object any value
   * @param context passed to the encoders
   * @returns the extension, or null
   *
   * @example
   * ```ts
   * import { ExtensionCodec } from "@resizable/msgpack";
   * const codec = new ExtensionCodec();
   * codec.register({ type: 3, encode: (v) => (v instanceof RegExp ? new Uint8Array([1]) : null), decode: () => null });
   * console.assert(codec.tryToEncode(/x/, undefined)?.type === 3 && codec.tryToEncode({}, undefined) === null);
   * ```
   */
  tryToEncode(object: unknown, context: ContextType): ExtData<ExtDataPayload> | null {
    if (timestampFirst(REGISTRIES.get(this)!.encoders, object)) {
      const bytes = new Uint8Array(15);
      const end = writeTimestamp(new DataView(bytes.buffer), 0, (object as Date).getTime());
      return new ExtData(-1, bytes.slice(end === 15 ? 3 : 2, end)); // the payload, after the header and type
    }
    for (const e of REGISTRIES.get(this)!.encoders) {
      const data = e.encode(object, context);
      if (data != null) return new ExtData(e.type, data);
    }
    return object instanceof ExtData ? object : null;
  }

  /**
   * Decodes a payload with the decoder registered for `type`; type -1
   * without one is a timestamp (a `Date`), any other an {@link ExtData}.
   *
   * @param data the payload
   * @param type its extension type
   * @param context passed to the decoder
   * @returns the decoded value
   * @throws {DecodeError} for a malformed timestamp
   *
   * @example
   * ```ts
   * import { ExtData, ExtensionCodec } from "@resizable/msgpack";
   * const codec = new ExtensionCodec();
   * console.assert((codec.decode(new Uint8Array([0, 0, 0, 1]), -1, undefined) as Date).getTime() === 1000);
   * console.assert(codec.decode(new Uint8Array([7]), 5, undefined) instanceof ExtData);
   * ```
   */
  decode(data: Uint8Array, type: number, context: ContextType): unknown {
    const d = REGISTRIES.get(this)!.decoders.get(type);
    return d ? d(data, type, context) : type === -1 ? readTimestamp(data, 0) : new ExtData(type, data);
  }
}

/**
 * Throws an `EncodeError` (`INVALID_EXT`) unless `type` is an integer in
 * -128..127; `verb` says what was being done ("encode" or "register").
 */
export function checkExtType(type: number, verb?: string): void {
  if (!Number.isInteger(type) || type < -128 || type > 127) throw badExtType(type, verb);
}

/** The type of the one {@link extensionEncoders} entry that stands for a codec of another kind: its `tryToEncode` gives whole `ExtData`s. */
export const WHOLE_CODEC = 1000;

/** An extension encoder as the encoders try them: its type (or {@link WHOLE_CODEC}) and its `encode`. */
export type ExtensionEntry = { type: number; encode: ExtensionEncoderType<unknown> };

/**
 * The encoders to try for a codec, in order: an {@link ExtensionCodec}'s
 * live list (types registered later show up), or for any other object with
 * a `tryToEncode` (@msgpack/msgpack's `ExtensionCodecType`, or an
 * `ExtensionCodec` of another copy of this library), one
 * {@link WHOLE_CODEC} entry that asks it, from the module that installs
 * such codecs.
 *
 * @throws {EncodeError} `INVALID_ARGUMENT` naming the import, for a codec of another kind without its module
 */
export function extensionEncoders(codec: ExtensionCodecType<unknown>): ExtensionEntry[] {
  return REGISTRIES.get(codec)?.encoders ?? [dropIn("extensionCodec", encodeNeeds).encoder(codec) as ExtensionEntry];
}

/**
 * The decoders of a codec by type: an {@link ExtensionCodec}'s live map
 * (types registered later show up; `ExtensionCodec.defaultCodec`'s for
 * null), or for any other object with a `decode`, its `decode` for every
 * type, from the module that installs such codecs.
 *
 * @throws {DecodeError} `INVALID_ARGUMENT` naming the import, for a codec of another kind without its module
 */
export function extensionDecoders<C>(codec: ExtensionCodecType<C> | null): { get(type: number): ExtensionDecoderType<C> | undefined } {
  if (codec === null) return DEFAULT_DECODERS as Map<number, ExtensionDecoderType<C>>;
  const registry = REGISTRIES.get(codec);
  if (registry !== undefined) return registry.decoders as Map<number, ExtensionDecoderType<C>>;
  const decode = dropIn("extensionCodec", decodeNeeds).decoder(codec as ExtensionCodecType<unknown>) as ExtensionDecoderType<C>;
  return { get: () => decode };
}

/**
 * Whether `value` is a `Date` that the timestamp (type -1) claims before
 * any of `encoders` (sorted as {@link ExtensionCodec} keeps them): unless
 * a type -1 is registered, as in @msgpack/msgpack, where the timestamp is
 * the first extension.
 */
export function timestampFirst(encoders: readonly ExtensionEntry[], value: unknown): boolean {
  return value instanceof Date && encoders[0]?.type !== -1 && encoders[0]?.type !== WHOLE_CODEC;
}
