/**
 * Per-runtime choices, each made by measurement (see
 * benchmarks/README.md): where one engine is faster another way, the library asks
 * here rather than sniffing in each module.
 *
 * @module
 */

/**
 * Running on Bun (JavaScriptCore). There, a small `ArrayBuffer` costs ~35 ns
 * to allocate (V8: ~0.6 µs), and `String.fromCharCode` with many arguments
 * is slow enough that `TextDecoder` wins from ~16 bytes (V8: from ~48).
 */
export const ON_BUN: boolean = /* @__PURE__ */ (() => typeof (globalThis as { Bun?: unknown }).Bun !== "undefined")();

/** Whether this machine stores numbers little-endian (every engine on x86 and ARM does). */
export const LITTLE_ENDIAN: boolean = /* @__PURE__ */ (() => new Uint8Array(new Uint16Array([1]).buffer)[0] === 1)();

/** Whether this runtime can resize an `ArrayBuffer` in place (Node 20+, Bun, Deno, browsers since 2024; not Node 18). */
export const CAN_RESIZE: boolean = /* @__PURE__ */ (() => typeof (ArrayBuffer.prototype as { resize?: unknown }).resize === "function")();

/** What the library uses of Node's `Buffer` class: making a `Buffer` over existing memory, without a copy. */
export interface BufferClass {
  from(buffer: ArrayBufferLike, byteOffset?: number, length?: number): Uint8Array;
}

/**
 * Node's `Buffer` class where the runtime has one (Node, Bun; Deno and
 * browsers only with a polyfill on `globalThis`), else null. Looked up
 * when asked, not at load, so a polyfill installed later counts; never
 * imported, so the library runs where there is none.
 */
export function nodeBuffer(): BufferClass | null {
  // by a string key (which minifiers keep): no identifier in the shipped code names Node's class
  const B: unknown = Reflect.get(globalThis, "Buffer");
  if (typeof B !== "function") return null;
  const { from, prototype } = B as { from?: unknown; prototype?: unknown };
  return typeof from === "function" && prototype instanceof Uint8Array ? (B as unknown as BufferClass) : null;
}

/** `bytes` as a `Buffer` of class `B` over the same memory (no copy). */
export function asBuffer(B: BufferClass, bytes: Uint8Array): Uint8Array {
  return B.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/**
 * Node's `Buffer` type where the program's types declare a global `Buffer`
 * (`@types/node`, Bun's or Deno's types), else `Uint8Array`: the type of
 * what `encode` returns with `buffers: true`. Found structurally, so the
 * declarations need no Node types.
 */
export type NodeBuffer = typeof globalThis extends { Buffer: { alloc(size: number): infer B } } ? B : Uint8Array<ArrayBuffer>;
