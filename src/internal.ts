/**
 * The library's internals that its tests reach for, in one place. Not a
 * package entry point: package.json's `exports` and deno.json's `exports`
 * leave it out, so `@resizable/msgpack/internal` does not resolve, and
 * nothing here is part of the public API or its semver.
 *
 * - {@link extensionEncoders} and {@link extensionDecoders}: the live
 *   registries of an `ExtensionCodec` (private fields of the class), as
 *   the encoders and decoders read them.
 *
 * @module
 */

export { extensionDecoders, extensionEncoders, type ExtensionEntry } from "./format/extensions.ts";
