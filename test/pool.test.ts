import { describe, expect, test } from "vitest";
import { decode, Encoder } from "../src/index.ts";
import { POOL_MAX_RESULT_BYTES, POOL_SLAB_BYTES } from "../src/encode/encoder.ts";
import { hex } from "./_support/arbitrary.ts";
import { withStrategy } from "./_support/strategy.ts";

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
    let total = 0;
    for (let i = 0; i < 6400; i++) {
      const r = encoder.encode({ i, s: "abc" });
      total += (r.length + 7) & ~7; // each result starts 8-byte aligned in its slab
      if (i % 64 === 0) kept.push(r);
    }
    const slabs = new Set(kept.map((r) => r.buffer));
    expect([...slabs].every((b) => b.byteLength === POOL_SLAB_BYTES)).toBe(true);
    // 100 kept results of 6,400 hold no more slabs than all 6,400 filled (a slab per result would be 100)
    expect(slabs.size).toBeGreaterThan(1);
    expect(slabs.size).toBeLessThanOrEqual(Math.ceil(total / POOL_SLAB_BYTES) + 1);
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

// pooled results are copied into the slab when the call ends, wherever the call wrote
describe("poolResults: results written in the slab", () => {
  const bytesOf = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7) & 0xff);
  /** Values of every size around the slab's, the scratch's and the store's limits, small ones in between. */
  const values = (): unknown[] => {
    const out: unknown[] = [];
    const large = [
      "x".repeat(1400), // a worst case past a nearly full slab's free part: leaves it, still pooled
      "é".repeat(3000), // a long string, large for the slab only: written in the scratch
      bytesOf(4000), // a binary past the slab's free part
      Array.from({ length: 3000 }, (_, i) => i * 1000), // past the slab: a result of its own
      { big: "z".repeat(300_000) }, // past the default scratch: to a store
      bytesOf(600_000), // a binary past the scratch, copied into the store
    ];
    for (let i = 0; i < 24; i++) {
      out.push({ i, s: "y".repeat(i * 37 % 500) }, [i, -i, i / 3]);
      out.push(large[i % large.length]);
    }
    return out;
  };

  for (const [name, options] of [
    ["default scratch", {}],
    ["64 B scratch", { initialBufferSize: 64 }],
    ["1 KiB scratch, chunks", withStrategy("chunks", { initialBufferSize: 1024 })],
    ["default scratch, chunks", withStrategy("chunks")],
  ] as const) {
    test(`every result is right, and earlier pooled results stay unchanged (${name})`, () => {
      const encoder = new Encoder({ ...options, poolResults: true });
      const plain = new Encoder();
      const kept: { r: Uint8Array; hex: string }[] = [];
      for (const v of values()) {
        const r = encoder.encode(v);
        const expected = hex(plain.encode(v));
        expect(hex(r)).toBe(expected);
        if (r.length <= POOL_MAX_RESULT_BYTES) expect(r.buffer.byteLength).toBe(POOL_SLAB_BYTES);
        else expect(r.buffer.byteLength).toBe(r.length);
        kept.push({ r, hex: expected });
      }
      for (const { r, hex: h } of kept) expect(hex(r)).toBe(h);
    });
  }

  test("a small result whose worst case outgrows the slab's free part is still pooled, in the same slab", () => {
    const plain = new Encoder();
    // up to 4205 and 9005 bytes for the string: the scratch's part, not the slab's
    for (const v of ["x".repeat(1400), "a".repeat(3000)]) {
      const encoder = new Encoder({ poolResults: true });
      // 3 x (4003 B, 8-aligned 4008) + 256: the next result starts 4104 bytes before the slab's end
      const fill = [bytesOf(4000), bytesOf(4000), bytesOf(4000), bytesOf(253)].map((b) => encoder.encode(b));
      expect(fill.at(-1)!.byteOffset + 256).toBe(POOL_SLAB_BYTES - 4104);
      const r = encoder.encode(v);
      expect(hex(r)).toBe(hex(plain.encode(v)));
      expect(r.buffer).toBe(fill[0]!.buffer);
      for (let i = 0; i < fill.length; i++) expect(hex(fill[i]!)).toBe(hex(plain.encode(bytesOf(i < 3 ? 4000 : 253))));
    }
  });

  test("encodeInto, encodeChunks and encodeSharedRef of a pooled encoder write the call's bytes only", () => {
    const encoder = new Encoder({ poolResults: true });
    const plain = new Encoder();
    const first = encoder.encode({ first: 1 }); // the slab's free part no longer starts at 0
    for (const v of [{ a: [1, 2, 3] }, "x".repeat(5000), bytesOf(300_000)]) {
      const target = new Uint8Array(400_000);
      const n = encoder.encodeInto(v, target, 3);
      expect(hex(target.subarray(3, 3 + n))).toBe(hex(plain.encode(v)));
      const chunks = encoder.encodeChunks(v);
      expect(hex(Uint8Array.from(chunks.flatMap((c) => [...c])))).toBe(hex(plain.encode(v)));
      expect(hex(encoder.encodeSharedRef(v))).toBe(hex(plain.encode(v)));
    }
    expect(decode(first)).toEqual({ first: 1 });
  });
});

describe("poolResults: a slab transferred during a call", () => {
  test("a getter that transfers an earlier result's buffer mid-call changes nothing: the result is right, for every output, and the encoder stays usable", () => {
    const encoder = new Encoder({ poolResults: true });
    const plain = new Encoder();
    const join = (chunks: Uint8Array[]) => Uint8Array.from(chunks.flatMap((c) => [...c]));
    const calls: Array<[string, (v: unknown) => Uint8Array]> = [
      ["encode", (v) => encoder.encode(v)],
      ["encodeChunks", (v) => join(encoder.encodeChunks(v))],
      ["encodeInto", (v) => {
        const target = new Uint8Array(64 * 1024);
        return target.subarray(0, encoder.encodeInto(v, target));
      }],
    ]; // prettier-ignore
    for (const [name, call] of calls) {
      for (const tail of ["after", "b".repeat(6000)]) {
        const make = (transfer: boolean) => {
          const earlier = encoder.encode({ earlier: 1 });
          return {
            x: "before",
            get y() {
              if (transfer) structuredClone(earlier, { transfer: [earlier.buffer] });
              return tail;
            },
          };
        };
        expect(hex(call(make(true))), name).toBe(hex(plain.encode(make(false))));
        expect(decode(encoder.encode({ ok: [1, 2] }))).toEqual({ ok: [1, 2] });
      }
    }
  });
});
