/**
 * Helpers shared by the stream tests: chunk sources, joining and
 * collecting, and the work bounds of the stream decoders.
 */
import { expect } from "vitest";
import type { StreamStats } from "../../src/streams.ts";
import type { Random } from "./fixtures.mjs";

/** The chunks as an async iterable, one at a time. */
export async function* chunked<T>(chunks: Iterable<T>): AsyncGenerator<T> {
  for (const c of chunks) yield c;
}

/** The items as a `ReadableStream` that pulls them one at a time. */
export function readableOf<T>(items: Iterable<T>): ReadableStream<T> {
  const it = items[Symbol.iterator]();
  return new ReadableStream<T>({
    pull(c) {
      const r = it.next();
      if (r.done) c.close();
      else c.enqueue(r.value);
    },
  });
}

/** `bytes` cut at the given positions. */
export function cut(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...at, bytes.length]) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  return out;
}

/** `bytes` cut into pieces whose sizes `size()` picks. */
export function split(bytes: Uint8Array, size: () => number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, size());
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

/** The ways the stream tests cut `bytes`: whole, byte by byte, and in random pieces of up to 4, 64 and 300 bytes. */
export function chunkings(r: Random, bytes: Uint8Array): Uint8Array[][] {
  return [
    [bytes],
    Array.from(bytes, (b) => Uint8Array.of(b)),
    split(bytes, () => r.int(1, 4)),
    split(bytes, () => r.int(1, 64)),
    split(bytes, () => (r.bool() ? 1 : r.int(1, 300))),
  ];
}

/** The chunks joined into one array. */
export function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Everything an async iterable or a `ReadableStream` yields, in order. */
export async function collect<T>(it: AsyncIterable<T> | ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  if ("getReader" in it) {
    const reader = it.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
    return out;
  }
  for await (const x of it) out.push(x);
  return out;
}

/** Whether `a` and `b` hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** Asserts the buffering work is linear: copies, decoding and scanning each a small multiple of the bytes. */
export function expectLinear(stats: StreamStats, total: number, factor: number): void {
  expect(stats.bytesIn).toBe(total);
  expect(stats.bytesCopied).toBeLessThanOrEqual(factor * total);
  expect(stats.bytesDecoded).toBeLessThanOrEqual(factor * total);
  expect(stats.bytesScanned).toBeLessThanOrEqual(total);
}
