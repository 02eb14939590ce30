/**
 * Capabilities that live in modules a program imports when it uses them,
 * so that a page calling only `encode` and `decode` does not carry them.
 *
 * Importing such a module (for example `@resizable/msgpack/records`)
 * installs it here once, for every encoder and decoder in the program; an
 * option that needs a module that was not imported is an
 * `INVALID_ARGUMENT` error that names the import (see {@link needModule}).
 * A slot, once filled, is never changed or emptied: nothing here carries
 * state from one call, encoder or decoder to another.
 *
 * Each slot's type is declared by the module that fills it.
 *
 * @module
 */

import { type DecodeError, decodeError, type EncodeError, encodeError } from "./errors.ts";

/** The slots, one per importable module. Each module widens its own slot's type. */
export interface Modules {
  /** msgpackr's record extension: `@resizable/msgpack/records`. */
  records?: unknown;
}

/** What is installed; read-only for everything but {@link install}. */
export const modules: Modules = {};

/** Installs a module's capability in its slot (the first install wins; a second copy of the same module changes nothing). */
export function install<K extends keyof Modules>(name: K, module: NonNullable<Modules[K]>): void {
  modules[name] ??= module;
}

/**
 * The error for an option used without the module it needs: an
 * `INVALID_ARGUMENT` of the option's direction that names the import.
 *
 * @param option the option as the user wrote it, e.g. `"useRecords"`
 * @param entry the import that installs it, e.g. `"@resizable/msgpack/records"`
 * @param side whose option it is
 */
export function needModule(option: string, entry: string, side: "encode" | "decode"): EncodeError | DecodeError {
  const message = `The ${side} option ${option} needs its module: add import "${entry}" (once, anywhere in the program)`;
  return side === "encode" ? encodeError(message, "INVALID_ARGUMENT") : decodeError(message, 0, "INVALID_ARGUMENT");
}
