import { describe, expect, test } from "vitest";
import { decode, Encoder } from "../src/index.ts";
import { POOL_MAX_RESULT_BYTES, POOL_SLAB_BYTES } from "../src/sink.ts";
import { hex } from "./_support/arbitrary.ts";

// the hazards poolResults documents, each measured here (these tests run on Node, where pooling is on)
describe("poolResults: what a pooled result carries", () => {
  test("a pooled result's buffer is its 16 KiB slab, not its own bytes", () => {
    const r = new Encoder({ poolResults: true }).encode({ a: 1 });
    expect(r.length).toBe(4);
    expect(r.buffer.byteLength).toBe(POOL_SLAB_BYTES);
    expect(POOL_SLAB_BYTES).toBe(16 * 1024);
  });

  test("structuredClone of a pooled result copies the whole slab, other results' bytes included", () => {
    const encoder = new Encoder({ poolResults: true });
    const secret = encoder.encode("secret");
    const r = encoder.encode(1);
    const clone = structuredClone(r);
    expect(clone.buffer.byteLength).toBe(POOL_SLAB_BYTES);
    expect(hex(new Uint8Array(clone.buffer, secret.byteOffset, secret.length))).toBe(hex(secret));
    // slice() gives an independent copy of just its bytes
    expect(structuredClone(r.slice()).buffer.byteLength).toBe(1);
  });

  test("transferring one result's buffer empties its neighbours; later results are whole", () => {
    const encoder = new Encoder({ poolResults: true });
    const neighbours = [encoder.encode([1]), encoder.encode("two")];
    const r = encoder.encode({ three: 3 });
    const moved = structuredClone(r.buffer, { transfer: [r.buffer] });
    expect(moved.byteLength).toBe(POOL_SLAB_BYTES);
    expect(neighbours.map((n) => n.length)).toEqual([0, 0]);
    expect(r.length).toBe(0);
    const later = Array.from({ length: 200 }, (_, i) => encoder.encode({ i }));
    expect(later.every((x, i) => (decode(x) as { i: number }).i === i)).toBe(true);
  });

  test("a kept result keeps at most one slab alive; results past 4 KiB have buffers of their own", () => {
    const encoder = new Encoder({ poolResults: true });
    const kept = [];
    for (let i = 0; i < 6400; i++) {
      const r = encoder.encode({ i, s: "abc" });
      if (i % 64 === 0) kept.push(r);
    }
    const slabs = new Set(kept.map((r) => r.buffer));
    expect([...slabs].every((b) => b.byteLength === POOL_SLAB_BYTES)).toBe(true);
    expect(slabs.size).toBeLessThanOrEqual(kept.length);
    const large = encoder.encode("x".repeat(POOL_MAX_RESULT_BYTES));
    expect(large.buffer.byteLength).toBe(large.length);
  });

  test("results from one slab never share bytes, across slab rollovers", () => {
    const encoder = new Encoder({ poolResults: true });
    const plain = new Encoder();
    const values = Array.from({ length: 2000 }, (_, i) => ({ i, s: "y".repeat(i % 300) }));
    const results = values.map((v) => encoder.encode(v));
    expect(new Set(results.map((r) => r.buffer)).size).toBeGreaterThan(10);
    for (let i = 0; i < values.length; i++) expect(hex(results[i]!)).toBe(hex(plain.encode(values[i])));
  });
});
