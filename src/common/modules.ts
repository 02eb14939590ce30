/**
 * Capabilities that live in modules a program imports when it uses them,
 * so that a page calling only `encode` and `decode` does not carry them.
 *
 * Importing such a module (for example `@resizable/msgpack/records`)
 * installs it here once, for every encoder and decoder in the program; an
 * option that needs a module that was not imported is an
 * `INVALID_ARGUMENT` error that names the import (see {@link Needs}).
 * A slot, once filled, is never changed or emptied: nothing here carries
 * state from one call, encoder or decoder to another. The slots are shared
 * by every copy of the library of the same version in the program (the
 * ESM build, the CommonJS build), so one import serves them all.
 *
 * The drop-in slots (filled by the compatibility entries and the schema
 * entry, see {@link dropIn}) are typed here, structurally, so this module imports
 * nothing above it; `records` is typed by its module.
 *
 * @module
 */

/** The slots, one per importable capability. */
export interface Modules {
  /** msgpackr's record extension: `@resizable/msgpack/records`. */
  records?: unknown;
  /**
   * The `schema` decode option: makes, when a decoder is made, the check of
   * its values against a Standard Schema (see decode/schema-hook.ts).
   */
  schema?: (schema: { readonly "~standard": unknown }) => (value: unknown, offset: number, wait?: boolean) => unknown;
  /**
   * `buffers: true`: makes, when an encoder or decoder is made, the function
   * that turns its results into Node `Buffer`s over the same memory; null
   * where the runtime has no `Buffer` class.
   */
  buffers?: () => ((bytes: Uint8Array) => Uint8Array) | null;
  /** `invalidUtf8: "replace"`: decodes `length` bytes at `start`, each invalid sequence as U+FFFD. */
  invalidUtf8?: (bytes: Uint8Array, start: number, length: number) => string;
  /**
   * @msgpack/msgpack 2.x's positional constructors: the options object that
   * `new Encoder(extensionCodec, context, ...)` (`side` "encode") or
   * `new Decoder(extensionCodec, context, ...)` means.
   */
  positional?: (side: "encode" | "decode", args: readonly unknown[]) => Record<string, unknown>;
  /**
   * Codecs of another kind (any object with `tryToEncode` and `decode`, as
   * @msgpack/msgpack's `ExtensionCodecType`, or an `ExtensionCodec` of
   * another copy of this library): the encoder entry that asks `tryToEncode`
   * for a whole `ExtData`, and the decoders (its `decode` for every type).
   */
  extensionCodec?: {
    encoder(codec: { tryToEncode(value: unknown, context: unknown): unknown }): { type: number; encode: (value: unknown, context: unknown) => unknown };
    decoder(codec: { decode(data: Uint8Array, type: number, context: unknown): unknown }): (data: Uint8Array, type: number, context: unknown) => unknown;
  };
}

/** The drop-in slots (all but `records`), each with the entry that installs it. */
type DropIn = Exclude<keyof Modules, "records">;

/** The import that installs each drop-in slot: @msgpack/msgpack's ways, notepack.io's, or the schema checks. */
const ENTRIES: { readonly [K in DropIn]: string } = {
  schema: "@resizable/msgpack/schema",
  buffers: "@resizable/msgpack/compat/notepack",
  invalidUtf8: "@resizable/msgpack/compat/msgpack",
  extensionCodec: "@resizable/msgpack/compat/msgpack",
  positional: "@resizable/msgpack/compat/msgpack",
};

/**
 * The package's version (test/records-module.test.ts checks that it is
 * package.json's): copies of one version share their installs, copies of
 * two versions do not (a module of one may not fit the other's core).
 */
const VERSION = "0.1.0";

/**
 * What is installed; read-only for everything but {@link install}. Shared,
 * through a registered symbol on `globalThis`, by every copy of this
 * version of the library in the program: a module imported through the
 * ESM build serves the CommonJS build's encoders and decoders too, and the
 * other way round (a program and its dependencies may load both).
 */
export const modules: Modules = /* @__PURE__ */ (() => {
  const global = globalThis as { [key: symbol]: Modules | undefined };
  return (global[Symbol.for(`@resizable/msgpack@${VERSION}/modules`)] ??= {}); // made by the first copy that asks
})();

/** Installs a module's capability in its slot (the first install wins; a second copy of the same module changes nothing). */
export function install<K extends keyof Modules>(name: K, module: NonNullable<Modules[K]>): void {
  modules[name] ??= module;
}

/**
 * The error of one side (errors.ts: `encodeNeeds`, `decodeNeeds`) for an
 * option used without the module it needs: an `INVALID_ARGUMENT` that
 * names the import `entry`. One function per side, so that a page that
 * only decodes does not carry the encoder's error class.
 */
export type Needs = (option: string, entry: string) => Error;

/**
 * The drop-in capability `slot`, installed by its compatibility entry;
 * without it, the side's `needs` error naming that entry, for the option
 * of the same name (or `option`, when the user wrote something else: a
 * positional constructor).
 *
 * @param slot the capability, named after the option that needs it
 * @param needs the error of the side whose option it is
 * @param option how the error names what the user wrote, when not `slot`
 */
export function dropIn<K extends DropIn>(slot: K, needs: Needs, option: string = slot): NonNullable<Modules[K]> {
  const module = modules[slot];
  if (module === undefined) throw needs(option, ENTRIES[slot]);
  return module as NonNullable<Modules[K]>;
}
