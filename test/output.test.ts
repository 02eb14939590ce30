import { afterEach, describe, expect, test, vi } from "vitest";
import { decode, encode, Encoder, ExtData, ExtensionCodec } from "../src/index.ts";
import { RETAIN_MAX_BYTES } from "../src/encode/output.ts";
import { hex } from "./_support/arbitrary.ts";
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
    expect(decode(bytes)).toEqual(value);
  });

  test("large binaries are copied once, straight from the value into the result", () => {
    const blob = new Uint8Array(1 << 20).fill(5);
    const spy = vi.spyOn(Uint8Array.prototype, "set");
    const bytes = new Encoder().encode([blob, blob]);
    const calls = spy.mock.calls.map(([src]) => src as Uint8Array);
    spy.mockRestore();
    // two copies of the blob's bytes, and no other copy that large (none into the store)
    expect(calls.filter((src) => src.buffer === blob.buffer).length).toBe(2);
    expect(calls.every((src) => src.length < 1 << 20 || src.buffer === blob.buffer)).toBe(true);
    expect(decode(bytes)).toEqual([blob, blob]);
  });

  test("an encoder that encoded a large value keeps no big store afterwards (retention policy)", () => {
    const encoder = new Encoder();
    encoder.encode(new Array(3_000_000).fill(0.5)); // 27 MB: its store is dropped after the call
    encoder.encode(records(20_000)); // ~0.9 MB, through the store, copied out
    for (let i = 0; i < 100; i++) encoder.encode({ small: i });
    // the store stays with the scratch the encoder used (and other encoders may take)
    const scratch = (encoder as unknown as { output: { scratch: { kept: ArrayBuffer | null; busy: boolean } } }).output.scratch;
    expect(scratch.busy).toBe(false);
    expect(scratch.kept === null || scratch.kept.byteLength <= RETAIN_MAX_BYTES).toBe(true);
  });
});

describe("output: shared scratches", () => {
  test("creating an encoder allocates no scratch; encoders made per call reuse the shared scratches", () => {
    type Peek = { output: { scratch: { bytes: Uint8Array } | null } };
    const first = new Encoder({ context: 1 });
    expect((first as unknown as Peek).output.scratch).toBe(null);
    first.encode({ a: 1 });
    const scratch = (first as unknown as Peek).output.scratch!.bytes;
    for (let i = 0; i < 100; i++) {
      const e = new Encoder({ context: i });
      expect(decode(e.encode({ i }))).toEqual({ i });
      expect((e as unknown as Peek).output.scratch!.bytes).toBe(scratch);
    }
  });

  test("an encoder whose scratch another encoder took gets correct bytes and its kept store", () => {
    const a = new Encoder();
    const b = new Encoder();
    const big = records(20_000);
    const expected = hex(new Encoder().encode(big));
    for (let i = 0; i < 3; i++) {
      expect(hex(a.encode(big))).toBe(expected);
      expect(hex(b.encode({ i }))).toBe(hex(new Encoder().encode({ i })));
      expect(hex(b.encode(big))).toBe(expected);
    }
  });

  test("an exact-sized call that cannot start leaves its scratch free", () => {
    const exact = new Encoder(withStrategy("exact"));
    expect(() => exact.encode([() => 1])).toThrow(/function/);
    const other = new Encoder(withStrategy("exact"));
    expect(decode(other.encode([1, 2]))).toEqual([1, 2]);
  });

  test("the store-plan hook is internal: new Encoder reads it, encode(value, options) does not", () => {
    let reads = 0;
    const value = {
      get x() {
        reads++;
        return 1;
      },
    };
    // the exact plan measures the value before encoding it: two reads
    new Encoder(withStrategy("exact")).encode(value);
    expect(reads).toBe(2);
    reads = 0;
    expect(hex(encode(value, withStrategy("exact")))).toBe("81-a1-78-01");
    expect(reads).toBe(1);
  });

  test("deep re-entry with one options object keeps at most a few idle encoders, and none of them keeps a scratch made because the shared ones were busy", () => {
    type Peek = { child: Peek | null; output: { scratch: object | null } };
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
    // the outer call and its first 3 re-entrant levels use the 4 shared scratches; deeper levels' own ones are let go
    expect(chain.filter((e) => e.output.scratch !== null).length).toBeLessThanOrEqual(3);
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

  test("the estimate sizes the store so that it rarely resizes", () => {
    const value = new Array(1_000_000).fill(0.75); // 9 MB
    const spy = vi.spyOn(ArrayBuffer.prototype, "resize");
    new Encoder().encode(value);
    const withEstimate = spy.mock.calls.length;
    spy.mockClear();
    new Encoder(withStrategy("resizable-no-est")).encode(value);
    const without = spy.mock.calls.length;
    expect(withEstimate).toBeLessThanOrEqual(1); // at most the final shrink
    expect(without).toBeGreaterThan(withEstimate);
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

  test("a store that reaches its ceiling passes its bytes and references on to the chunk list", () => {
    const blob = new Uint8Array(50_000).fill(2);
    const value = [records(2000), blob, records(2000), blob, "é".repeat(30_000)];
    const expected = hex(encode(value));
    // the store's ceiling is maxByteLength: it fills part-way through
    const encoder = new Encoder(withStrategy("resizable-no-est", { initialBufferSize: 1024, maxByteLength: 150_000 }));
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

  test("where encodeInto refuses resizable buffers (Chromium) long strings take a plain stand-in into the store, with identical bytes", async () => {
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
