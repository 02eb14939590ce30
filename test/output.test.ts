import { afterEach, describe, expect, test, vi } from "vitest";
import { decode, encode, Encoder, ExtData, ExtensionCodec } from "../src/index.ts";
import { DEFAULT_SCRATCH_BYTES } from "../src/encode/output.ts";
import { hex } from "./_support/arbitrary.ts";
import { expectEqual } from "./_support/equal.ts";
import { withStrategy } from "./_support/strategy.ts";

const concatChunks = (chunks: Uint8Array[]) => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  chunks.reduce((at, c) => (out.set(c, at), at + c.length), 0);
  return out;
};

const records = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, name: `record number ${i}`, score: i / 3, ok: i % 2 === 0 }));

describe("output: results own exactly their bytes", () => {
  test("small and medium results are plain buffers of exact length", () => {
    const encoder = new Encoder();
    for (const value of [1, "x".repeat(1000), records(10), records(3000)]) {
      const bytes = encoder.encode(value);
      expect(bytes.byteLength).toBe(bytes.buffer.byteLength);
      expect((bytes.buffer as ArrayBuffer).resizable).toBe(false);
    }
  });

  test("200,000 live results hold no resizable buffer (no reservation each)", () => {
    const encoder = new Encoder();
    const kept: Uint8Array[] = [];
    for (let i = 0; i < 200_000; i++) kept.push(encoder.encode({ i, s: "abc" }));
    expect(kept.every((b) => !(b.buffer as ArrayBuffer).resizable && b.buffer.byteLength === b.byteLength)).toBe(true);
    expect(decode(kept[199_999]!)).toEqual({ i: 199_999, s: "abc" });
  });

  test("a large result is a plain buffer of exact length too (platform APIs such as Response refuse resizable ones)", () => {
    const value = { list: new Array(1_200_000).fill(0.25), blob: new Uint8Array(3 << 20).fill(1) }; // ~14 MB
    const bytes = new Encoder().encode(value);
    expect(bytes.byteLength).toBe(bytes.buffer.byteLength);
    expect((bytes.buffer as ArrayBuffer).resizable).toBe(false);
    expectEqual(decode(bytes), value);
  });

  test("an encoder keeps no store between calls, only its scratch", () => {
    type Peek = { output: { store: ArrayBuffer | null } };
    const encoder = new Encoder();
    const list: unknown[] = new Array(40_000).fill(0.5);
    list[12_345] = "y".repeat(4_000_000); // missed by the estimate's samples: the output goes through the store
    expectEqual(decode(encoder.encode(list)), list);
    expect((encoder as unknown as Peek).output.store).toBe(null);
    encoder.encode(new Array(3_000_000).fill(0.5)); // 27 MB
    expect((encoder as unknown as Peek).output.store).toBe(null);
  });
});

describe("output: the scratch grows to an output the estimate missed", () => {
  test("the next output of that size is written in place; results never share the scratch's buffer, and earlier ones stay as they were", () => {
    type Peek = { output: { scratch: Uint8Array } };
    const encoder = new Encoder();
    const value = records(6000); // ~290 KB: past the default scratch, a little under its estimate
    const first = encoder.encode(value);
    const expected = hex(first);
    const scratch = (encoder as unknown as Peek).output.scratch;
    expect(scratch.length).toBeGreaterThan(DEFAULT_SCRATCH_BYTES);
    expect(scratch.length).toBeGreaterThanOrEqual(first.length);
    const second = encoder.encode(value);
    expect((encoder as unknown as Peek).output.scratch).toBe(scratch);
    for (const r of [first, second]) expect(r.buffer === scratch.buffer || r.length !== r.buffer.byteLength).toBe(false);
    // a result made from an exact estimate is handed out, never kept as the scratch
    const blob = encoder.encode(new Uint8Array(1 << 20).fill(3));
    expect(blob.buffer).not.toBe(scratch.buffer);
    expect((encoder as unknown as Peek).output.scratch).toBe(scratch);
    encoder.encode(records(5000));
    expect(hex(first)).toBe(expected);
    expect(hex(second)).toBe(expected);
    expectEqual(decode(first), value);
  });
});

describe("output: a value whose size the estimate gives exactly is written once", () => {
  afterEach(() => vi.restoreAllMocks());

  /** Bytes copied by `set` and `slice` during `run`, in calls that copy at least `min` bytes each. */
  const copied = (min: number, run: () => Uint8Array) => {
    let total = 0;
    const { set, slice } = Uint8Array.prototype;
    vi.spyOn(Uint8Array.prototype, "set").mockImplementation(function (this: Uint8Array, src: ArrayLike<number>, at?: number) {
      if (src.length >= min) total += src.length;
      return set.call(this, src, at);
    });
    vi.spyOn(Uint8Array.prototype, "slice").mockImplementation(function (this: Uint8Array, start?: number, end?: number) {
      const out = slice.call(this, start, end);
      if (out.length >= min) total += out.length;
      return out;
    });
    const bytes = run();
    vi.restoreAllMocks();
    return { bytes, total };
  };

  test("a binary past the scratch is copied once, into the result, which is a plain buffer of exact length", () => {
    const blob = new Uint8Array(1 << 20).fill(7);
    const { bytes, total } = copied(1 << 16, () => new Encoder().encode(blob));
    expect(total).toBe(1 << 20);
    expect(bytes.length).toBe(bytes.buffer.byteLength);
    expect((bytes.buffer as ArrayBuffer).resizable).toBe(false);
    expectEqual(decode(bytes), blob);
  });

  test("an ASCII string and an array of doubles past the scratch are not copied after the walk wrote them", () => {
    for (const value of ["a".repeat(1 << 20), Array.from({ length: 100_000 }, (_, i) => i + 0.5)]) {
      const { bytes, total } = copied(1 << 16, () => new Encoder().encode(value));
      expect(total).toBeLessThanOrEqual(DEFAULT_SCRATCH_BYTES); // the scratch's bytes, moved once into the result
      expect(bytes.length).toBe(bytes.buffer.byteLength);
      expectEqual(decode(bytes), value);
    }
  });

  test("a long string that is not ASCII is encoded once, not tried at its ASCII size first, and the next call fits it in the scratch", () => {
    const encodeInto = vi.spyOn(TextEncoder.prototype, "encodeInto");
    try {
      for (const value of ["é".repeat(200_000), "漢字".repeat(150_000), ["x", "🙂".repeat(100_000)]]) {
        const encoder = new Encoder();
        for (let call = 0; call < 2; call++) {
          encodeInto.mockClear();
          const bytes = encoder.encode(value);
          expect(encodeInto).toHaveBeenCalledTimes(1);
          expectEqual(decode(bytes), value);
          expect(hex(bytes)).toBe(hex(new Encoder({ maxByteLength: 1 }).encode(value)));
        }
      }
    } finally {
      encodeInto.mockRestore();
    }
  });

  test("where the estimate misses, the result is still right and exact: short of it, longer than it, and a non-ASCII string", () => {
    const short: unknown[] = new Array(100_000).fill(0.5);
    for (let i = 1; i < short.length; i += 64) short[i] = 1; // ints between the samples: fewer bytes than estimated
    const long: unknown[] = new Array(100_000).fill(1);
    for (let i = 1; i < long.length; i += 64) long[i] = "z".repeat(40); // strings between the samples: more
    for (const value of [short, long, "é".repeat(200_000), ["a".repeat(300_000), "é".repeat(100_000)]]) {
      const bytes = new Encoder().encode(value);
      expect(bytes.length).toBe(bytes.buffer.byteLength);
      expectEqual(decode(bytes), value);
      expect(hex(bytes)).toBe(hex(new Encoder({ maxByteLength: 1 }).encode(value)));
    }
  });
});

describe("output: binaries are copied when the walk reaches them", () => {
  const BIG = 300 * 1024; // past the scratch: the size of binaries once referenced, not copied, until the call ended

  test("an extension encoder that returns a reused buffer gives each value its own bytes", () => {
    class Blob {
      readonly n: number;
      constructor(n: number) {
        this.n = n;
      }
    }
    const reused = new Uint8Array(BIG);
    const extensionCodec = new ExtensionCodec();
    extensionCodec.register({ type: 1, encode: (v) => (v instanceof Blob ? reused.fill(v.n) : null), decode: (d) => new Blob(d[0]!) });
    const encoder = new Encoder({ extensionCodec });
    const value = [new Blob(1), new Blob(2)];
    for (const bytes of [encoder.encode(value), concatChunks(encoder.encodeChunks(value))]) {
      expect(decode(bytes, { extensionCodec })).toEqual([new Blob(1), new Blob(2)]);
    }
  });

  test("a getter that changes a binary already written does not change the output", () => {
    const make = () => {
      const bin = new Uint8Array(BIG).fill(1);
      return [bin, { get later() { bin.fill(9); return "x"; } }]; // prettier-ignore
    };
    const expected = encode([new Uint8Array(BIG).fill(1), { later: "x" }]);
    const encoder = new Encoder();
    expect(hex(encoder.encode(make()))).toBe(hex(expected));
    expect(hex(concatChunks(encoder.encodeChunks(make())))).toBe(hex(expected));
    const target = new Uint8Array(BIG * 2);
    expect(hex(target.subarray(0, encoder.encodeInto(make(), target)))).toBe(hex(expected));
  });

  test("a binary detached by a later getter keeps the bytes it had when written, with no TypeError", () => {
    const make = () => {
      const bin = new Uint8Array(BIG).fill(4);
      return [bin, { get later() { structuredClone(bin.buffer, { transfer: [bin.buffer] }); return "x"; } }]; // prettier-ignore
    };
    const expected = encode([new Uint8Array(BIG).fill(4), { later: "x" }]);
    expect(hex(encode(make()))).toBe(hex(expected));
    expect(hex(concatChunks(new Encoder().encodeChunks(make())))).toBe(hex(expected));
  });
});

describe("output: a count keeps nothing", () => {
  afterEach(() => vi.restoreAllMocks());

  test("encodedSize of binaries and extension payloads wider than the scratch copies none of their bytes", () => {
    const blob = new Uint8Array(1 << 20).fill(5);
    const value = [blob, new ExtData(3, blob), "x"];
    const encoder = new Encoder();
    const expected = encoder.encode(value).length;
    let copied = 0;
    const { set } = Uint8Array.prototype;
    vi.spyOn(Uint8Array.prototype, "set").mockImplementation(function (this: Uint8Array, src: ArrayLike<number>, at?: number) {
      copied += src.length;
      return set.call(this, src, at);
    });
    expect(encoder.encodedSize(value)).toBe(expected);
    expect(copied).toBeLessThan(1 << 16);
  });
});

describe("output: what an encoder holds", () => {
  test("creating an encoder allocates no buffer; its first call makes its scratch, later calls reuse it", () => {
    type Peek = { output: { scratch: Uint8Array } };
    const encoder = new Encoder({ context: 1 });
    expect((encoder as unknown as Peek).output.scratch.length).toBe(0);
    encoder.encode({ a: 1 });
    const scratch = (encoder as unknown as Peek).output.scratch;
    expect(scratch.length).toBe(256 * 1024);
    for (let i = 0; i < 100; i++) expect(decode(encoder.encode({ i }))).toEqual({ i });
    expect((encoder as unknown as Peek).output.scratch).toBe(scratch);
  });

  test("encoders interleaved with each other get correct bytes", () => {
    const a = new Encoder();
    const b = new Encoder();
    const big = records(20_000);
    const expected = new Encoder().encode(big);
    for (let i = 0; i < 3; i++) {
      expectEqual(a.encode(big), expected);
      expect(hex(b.encode({ i }))).toBe(hex(new Encoder().encode({ i })));
      expectEqual(b.encode(big), expected);
    }
  });

  test("deep re-entry with one options object keeps at most a few idle encoders", () => {
    type Peek = { child: Peek | null };
    const extensionCodec = new ExtensionCodec();
    let encoder: Encoder | null = null;
    // the extension re-enters the same encoder, 10 levels deep
    extensionCodec.register({ type: 1, encode: (v) => (v instanceof Set ? encoder!.encode([...v]) : null), decode: () => null });
    encoder = new Encoder({ extensionCodec });
    let v: unknown = 1;
    for (let i = 0; i < 10; i++) v = new Set([v]);
    expect(hex(encoder.encode(v))).toBe(hex(encode(v, { extensionCodec })));
    const chain: Peek[] = [];
    for (let e = (encoder as unknown as Peek).child; e !== null; e = e.child) chain.push(e);
    expect(chain.length).toBeLessThanOrEqual(4);
  });
});

describe("output: re-entrant calls of every method", () => {
  test("an extension that re-enters the same Encoder through encodeInto, encodeChunks, encodeSharedRef and encodedSize, past the kept levels, gets encode()'s bytes", () => {
    const ways = {
      into: (e: Encoder, v: unknown) => {
        const target = new Uint8Array(64);
        return target.slice(0, e.encodeInto(v, target));
      },
      chunks: (e: Encoder, v: unknown) => concatChunks(e.encodeChunks(v)),
      shared: (e: Encoder, v: unknown) => e.encodeSharedRef(v).slice(),
      size: (e: Encoder, v: unknown) => Uint8Array.of(e.encodedSize(v)),
    };
    for (const [name, way] of Object.entries(ways)) {
      const extensionCodec = new ExtensionCodec();
      let encoder: Encoder | null = null;
      extensionCodec.register({ type: 1, encode: (v) => (v instanceof Set ? way(encoder!, [...v]) : null), decode: () => null });
      encoder = new Encoder({ extensionCodec });
      const reference = new ExtensionCodec();
      reference.register({ type: 1, encode: (v) => (v instanceof Set ? way(new Encoder({ extensionCodec: reference }), [...v]) : null), decode: () => null });
      let v: unknown = 1;
      for (let i = 0; i < 7; i++) v = new Set([v]); // 7 levels: past the 4 kept re-entrant encoders
      expect(hex(way(encoder, v)), name).toBe(hex(way(new Encoder({ extensionCodec: reference }), v)));
    }
  });
});

describe("output: growth", () => {
  afterEach(() => vi.restoreAllMocks());

  test("the estimate sizes the store so that it never resizes for a regular value", () => {
    const value = new Array(1_000_000).fill(0.75); // 9 MB
    const spy = vi.spyOn(ArrayBuffer.prototype, "resize");
    new Encoder().encode(value);
    expect(spy.mock.calls.length).toBe(0);
    spy.mockClear();
    // an estimate that misses (a rare large item it did not sample) grows the store in place instead
    const list: unknown[] = new Array(40_000).fill(0.75);
    list[12_345] = "y".repeat(4_000_000);
    expectEqual(decode(new Encoder().encode(list)), list);
    expect(spy.mock.calls.length).toBeGreaterThan(0);
  });

  test("the chunk list hands over chunks that share no buffer, with binaries between them copied", () => {
    const blob = new Uint8Array(40_000).fill(6);
    const value = Array.from({ length: 30 }, (_, i) => ({ i, blob, text: `item ${i}`.repeat(50) }));
    const expected = hex(encode(value));
    const chunks = new Encoder(withStrategy("chunks", { initialBufferSize: 1024 })).encodeChunks(value);
    expect(chunks.map(hex).join("-")).toBe(expected);
    expect(new Set(chunks.map((c) => c.buffer)).size).toBe(chunks.length);
    expect(chunks.every((c) => c.buffer !== blob.buffer && c.length > 0)).toBe(true);
  });

  test("an extension payload that is a Node Buffer is copied into the chunks too, not handed over (Buffer's slice() is a view)", () => {
    const payload = new Uint8Array(40_000).fill(7);
    // a Uint8Array subclass whose slice() returns a view, as Node's Buffer does
    class ViewSlicing extends Uint8Array {
      override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
        return this.subarray(start, end) as Uint8Array<ArrayBuffer>;
      }
    }
    const data = new ViewSlicing(payload.buffer);
    for (const name of ["default", "chunks"] as const) {
      const chunks = new Encoder(withStrategy(name, { initialBufferSize: 1024 })).encodeChunks([new ExtData(5, data), "x".repeat(100)]);
      expect(chunks.every((c) => c.buffer !== payload.buffer && c.constructor === Uint8Array)).toBe(true);
      expect(decode(concatChunks(chunks))).toEqual([new ExtData(5, payload), "x".repeat(100)]);
    }
  });

  test("a store that reaches its ceiling passes its bytes on to the chunk list", () => {
    const blob = new Uint8Array(50_000).fill(2);
    const value = [records(2000), blob, records(2000), blob, "é".repeat(30_000)];
    const expected = hex(encode(value));
    // the store's ceiling is maxByteLength: it fills part-way through
    const encoder = new Encoder({ initialBufferSize: 1024, maxByteLength: 150_000 });
    expect(hex(encoder.encode(value))).toBe(expected);
    const chunks = encoder.encodeChunks(value);
    expect(chunks.map(hex).join("-")).toBe(expected);
    expect(chunks.every((c) => !(c.buffer as ArrayBuffer).resizable && c.buffer !== blob.buffer)).toBe(true);
  });

  test("past a tiny maxByteLength the output continues as chunks, byte-identical", () => {
    const value = { list: records(20_000), blob: new Uint8Array(200_000).fill(3), text: "ü".repeat(100_000) };
    const expected = hex(encode(value));
    for (const maxByteLength of [1, 1000, 100_000, 1_000_000]) {
      expect(hex(new Encoder({ maxByteLength }).encode(value)), `maxByteLength ${maxByteLength}`).toBe(expected);
      expect(new Encoder({ maxByteLength }).encodeChunks(value).length, "it really continued in chunks").toBeGreaterThan(1);
    }
  });

  test("where encodeInto refuses resizable buffers (Chromium) long strings are written into plain windows, with identical bytes", async () => {
    const value = { list: records(20_000), text: "ü".repeat(150_000), ascii: "a".repeat(200_000) };
    const expected = hex(encode(value));
    const original = TextEncoder.prototype.encodeInto;
    const refusing = function (this: TextEncoder, s: string, view: Uint8Array) {
      if ((view.buffer as ArrayBuffer).resizable) throw new TypeError("resizable buffers are not allowed");
      return original.call(this, s, view);
    };
    TextEncoder.prototype.encodeInto = refusing;
    try {
      vi.resetModules();
      // @ts-expect-error a query suffix: vitest loads a fresh instance of the module
      const utf8 = await import("../src/format/utf8.ts?chromium");
      expect(utf8.ENCODE_INTO_RESIZABLE).toBe(false);
      // @ts-expect-error as above
      const fresh = await import("../src/index.ts?chromium");
      const encoder = new fresh.Encoder();
      expect(hex(encoder.encode(value))).toBe(expected);
      expect(encoder.encodeChunks(value).map(hex).join("-")).toBe(expected);
    } finally {
      TextEncoder.prototype.encodeInto = original;
      vi.resetModules();
    }
  });

  test("without ArrayBuffer.prototype.resize (as in Node 18) the chunk list is used and bytes are identical", async () => {
    const value = { list: records(20_000), blob: new Uint8Array(300_000).fill(9) };
    const expected = hex(encode(value));
    const descriptor = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "resize")!;
    // @ts-expect-error: simulate a runtime without resizable buffers
    delete ArrayBuffer.prototype.resize;
    try {
      vi.resetModules();
      // @ts-expect-error a query suffix: vitest loads a fresh instance of the module
      const fresh = await import("../src/index.ts?no-resize");
      // @ts-expect-error as above
      const engine = await import("../src/common/engine.ts?no-resize");
      expect(engine.CAN_RESIZE).toBe(false);
      const bytes = new fresh.Encoder().encode(value);
      expect(hex(bytes)).toBe(expected);
      expect((bytes.buffer as ArrayBuffer).resizable).toBe(false);
    } finally {
      Object.defineProperty(ArrayBuffer.prototype, "resize", descriptor);
      vi.resetModules();
    }
  });
});
