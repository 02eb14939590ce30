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
export const ON_BUN: boolean = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
