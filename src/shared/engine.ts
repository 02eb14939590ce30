/**
 * Per-runtime choices, each made by measurement (see the README's
 * benchmarks): where one engine is faster another way, the library asks
 * here rather than sniffing in each module.
 *
 * @module
 */

/**
 * Running on Bun (JavaScriptCore). There, a small `ArrayBuffer` costs ~35 ns
 * to allocate (V8: ~0.6 µs), and `String.fromCharCode` with many arguments
 * is slow enough that `TextDecoder` wins from ~16 bytes (V8: from ~48).
 */
export const ON_BUN: boolean = /* @__PURE__ */ isBun();

function isBun(): boolean {
  return typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
}

/** Whether this runtime can resize an `ArrayBuffer` in place (Node 20+, Bun, Deno, browsers since 2024; not Node 18). */
export const CAN_RESIZE: boolean = typeof (ArrayBuffer.prototype as { resize?: unknown }).resize === "function";
