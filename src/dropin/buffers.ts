/**
 * Node `Buffer` results (`buffers: true`), as notepack.io and msgpackr
 * return them: installed by the compatibility entries that need it, so a
 * page that never asks for a `Buffer` does not carry the lookup.
 *
 * @module
 */

import { asBuffer, nodeBuffer } from "../common/engine.ts";
import { install } from "../common/modules.ts";

/**
 * Installs `buffers: true` for every encoder and decoder of the program:
 * each looks `Buffer` up on `globalThis` when it is made (null where there
 * is none), then makes each result a `Buffer` over the same memory.
 *
 * @example
 * ```ts
 * import "@resizable/msgpack/compat/notepack"; // calls installBuffers()
 * import { encode } from "@resizable/msgpack";
 * console.assert(encode(1, { buffers: true }).constructor.name === "Buffer");
 * ```
 */
export function installBuffers(): void {
  install("buffers", () => {
    const B = nodeBuffer();
    return B === null ? null : (bytes) => asBuffer(B, bytes);
  });
}
