import { describe, expect, test } from "vitest";
import { decode, encode, Encoder } from "../src/index.ts";
import { hex } from "./_support/arbitrary.ts";
import { STRATEGIES, withStrategy } from "./_support/strategy.ts";
import { loadVectors } from "./_support/vectors.ts";

const vectors = loadVectors();

describe("shared msgpack vectors", () => {
  test("the suite and the edge cases are loaded", () => {
    expect(vectors.length).toBeGreaterThan(100);
  });

  test.each(vectors.map((v) => [v.name, v] as const))("decode() reads every encoding of %s", (_, v) => {
    for (const bytes of v.encodings) {
      const got = decode(bytes);
      if (typeof v.value === "number") expect(Object.is(got, v.value) || got === v.value, `${hex(bytes)} gave ${String(got)}`).toBe(true);
      else expect(got, hex(bytes)).toEqual(v.value);
    }
  });

  const encodable = vectors.filter((v) => v.encodable);
  test.each(encodable.map((v) => [v.name, v] as const))("encode() writes one of the listed encodings of %s", (_, v) => {
    const listed = v.encodings.map(hex);
    expect(listed).toContain(hex(encode(v.value)));
  });

  test("encode() writes the shortest listed integer encoding", () => {
    for (const v of encodable) {
      if (typeof v.value !== "number" || !Number.isInteger(v.value) || Object.is(v.value, -0)) continue;
      const ints = v.encodings.filter((b) => b[0] !== 0xca && b[0] !== 0xcb);
      if (ints.length === 0) continue; // beyond 2^53: written as float 64
      const shortest = Math.min(...ints.map((b) => b.length));
      expect(encode(v.value).length, v.name).toBe(shortest);
    }
  });

  test("every output strategy writes the same bytes for every vector", () => {
    const strategies = STRATEGIES.map((strategy) => new Encoder(withStrategy(strategy, { initialBufferSize: 64 })));
    for (const v of encodable) {
      const bytes = strategies.map((e) => hex(e.encode(v.value)));
      expect(new Set(bytes).size, v.name).toBe(1);
    }
  });
});
