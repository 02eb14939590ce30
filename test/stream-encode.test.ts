// The streaming encoder (encodeIterable and the functions on it) against encode(): the same bytes, the same
// errors (code and message, which holds the path) and the same extension calls, for hostile values too.

import { describe, expect, it } from "vitest";
import { concat, sameBytes } from "./_support/streams.ts";
import { forSeeds, type Random, string as randomString, value as randomValue } from "./_support/arbitrary.ts";
import { decode, encode, EncodeError, ExtensionCodec, type EncodeOptions } from "../src/index.ts";
import { EncoderStream, encodeIterable, encodeToStream, type StreamEncodeOptions } from "../src/streams.ts";

/** What a call gave: its bytes, or its error's code and message. */
type Outcome = { bytes: Uint8Array } | { code: unknown; message: string; name: string };

function outcome(f: () => Uint8Array): Outcome {
  try {
    return { bytes: f() };
  } catch (e) {
    const err = e as Error & { code?: unknown };
    return { code: err.code, message: err.message, name: err.name };
  }
}

function expectSame(streamed: Outcome, whole: Outcome, label: string): void {
  if ("bytes" in whole && "bytes" in streamed) {
    expect(sameBytes(streamed.bytes, whole.bytes), `${label}: bytes`).toBe(true);
    return;
  }
  expect(streamed, label).toEqual(whole);
}

const streamed = (value: unknown, options: StreamEncodeOptions<unknown>): Uint8Array => concat([...encodeIterable(value, options)]);

// ---- extensions that count their calls, and one whose payload depends on where it lands ----

class Point {
  readonly x: number;
  constructor(x: number) {
    this.x = x;
  }
}

/** A Float32Array-like payload aligned to 4 bytes in the whole output: the recipe of @msgpack/msgpack's docs. */
class Floats {
  readonly values: Float32Array;
  constructor(values: Float32Array) {
    this.values = values;
  }
}

/** A large container an extension claims (its payload: its length), so that the stream must not split it. */
class Tagged {
  readonly items: unknown[];
  constructor(items: unknown[]) {
    this.items = items;
  }
}

interface Counted {
  codec: ExtensionCodec;
  calls: Map<string, number>;
}

function countingCodec(): Counted {
  const calls = new Map<string, number>();
  const count = (name: string): void => void calls.set(name, (calls.get(name) ?? 0) + 1);
  const codec = new ExtensionCodec();
  codec.register({
    type: 1,
    encode: (v) => (v instanceof Point ? (count("point"), Uint8Array.of(v.x & 0xff)) : null),
    decode: (d) => new Point(d[0]!),
  });
  codec.register({
    type: 2,
    encode: (v) => {
      if (!(v instanceof Floats)) return null;
      count("floats");
      return (dataPos: number) => {
        count("floats position");
        const pad = (4 - ((dataPos + 1) % 4)) % 4;
        const out = new Uint8Array(1 + pad + v.values.byteLength);
        out[0] = pad;
        out.set(new Uint8Array(v.values.buffer, v.values.byteOffset, v.values.byteLength), 1 + pad);
        return out;
      };
    },
    decode: (d) => {
      const pad = d[0]!;
      if ((d.byteOffset + 1 + pad) % 4 !== 0) throw new Error("start offset of Float32Array should be a multiple of 4");
      return new Float32Array(d.buffer, d.byteOffset + 1 + pad, (d.length - 1 - pad) / 4);
    },
  });
  codec.register({
    type: 3,
    encode: (v) => (v instanceof Tagged ? (count("tagged"), Uint8Array.of(v.items.length & 0xff)) : null),
    decode: (d) => d[0],
  });
  return { codec, calls };
}

// ---- hostile containers ----

/** A Map whose size and iterator say what `entries` and `size` give: entries that are no entries, more or fewer than its size. */
function lyingMap(entries: unknown[], size: number | (() => number)): Map<unknown, unknown> {
  const map = new Map<unknown, unknown>();
  Object.defineProperty(map, "size", typeof size === "function" ? { get: size } : { value: size });
  Object.defineProperty(map, Symbol.iterator, { value: () => entries[Symbol.iterator]() });
  return map;
}

/** A value with hostile parts, built from `r` (the same seed builds the same value, with fresh counters and getters). */
function hostile(r: Random, depth = 0): unknown {
  const leaf = (): unknown => randomValue(r, { rich: true, maxDepth: 2, maxItems: 4 });
  const child = (): unknown => (depth < 4 ? hostile(r, depth + 1) : leaf());
  switch (r.int(0, 17)) {
    case 0:
      return new Point(r.int(0, 300));
    case 1:
      return new Floats(new Float32Array(r.int(0, 9)).map(() => r.int(-5, 5) / 4));
    case 2:
      return new Tagged(Array.from({ length: r.int(0, 40) }, () => randomString(r, 40)));
    case 3: {
      // entries as arrays, as {0, 1} objects, and sometimes no entry at all
      const n = r.int(0, 5);
      const entries: unknown[] = Array.from({ length: n }, (_, i) => (r.bool() ? [`k${i}`, child()] : { 0: i, 1: child() }));
      if (r.bool(0.2)) entries.splice(r.int(0, n), 0, r.pick(["ab", null, 7, undefined]));
      return lyingMap(entries, r.bool(0.8) ? entries.length : r.int(0, n + 1));
    }
    case 4:
      return lyingMap([[1, child()]], () => {
        throw new Error("no size");
      });
    case 5: {
      const map = new Map<unknown, unknown>([["a", child()]]);
      Object.defineProperty(map, Symbol.iterator, {
        value: () => {
          throw new Error("no iterator");
        },
      });
      return map;
    }
    case 6: {
      // a Set whose size changes while it is written
      const set = new Set<unknown>([child(), randomString(r, 60)]);
      if (r.bool()) set.add({ get x() { set.add(Symbol.for("more")); return 1; } }); // prettier-ignore
      return set;
    }
    case 7:
      return r.bool() ? new Proxy(new Map([[1, 2]]), {}) : new Proxy(new Set([1]), {});
    case 8: {
      // getters: read once each, one of them changes the array they sit in
      const arr: unknown[] = Array.from({ length: r.int(1, 6) }, child);
      if (r.bool(0.3)) arr.push({ get x() { arr.pop(); return null; } }); // prettier-ignore
      const obj: Record<string, unknown> = { list: arr };
      Object.defineProperty(obj, "got", { enumerable: true, get: child });
      return obj;
    }
    case 9: {
      // nesting: deep enough for maxDepth, sometimes a cycle
      const top: unknown[] = [];
      let cur = top;
      for (let i = r.pick([3, 40, 300, 600]); i > 0; i--) cur.push((cur = [randomString(r, 10)]));
      if (r.bool(0.2)) cur.push(top);
      return top;
    }
    case 10:
      return r.bool() ? () => 1 : Symbol("s");
    case 11:
      return "x".repeat(r.int(0, 300)) + randomString(r, 100);
    case 12:
      return r.bytes(r.int(0, 700));
    case 13:
      return new Map<unknown, unknown>(Array.from({ length: r.int(0, 6) }, (_, i) => [r.bool() ? i : child(), child()]));
    case 14:
      return r.bool() ? undefined : BigInt(r.int(-1000, 1000)) * 2n ** 40n;
    default: {
      if (r.bool(0.5)) return Array.from({ length: r.int(0, 8) }, child);
      const obj: Record<string, unknown> = {};
      for (let i = r.int(0, 8); i > 0; i--) obj[randomString(r, 8)] = r.bool(0.2) ? undefined : child();
      return obj;
    }
  }
}

/** Random encode options (every one that changes bytes or errors) and a chunk size. */
function options(r: Random): StreamEncodeOptions<unknown> {
  return {
    sortKeys: r.bool(),
    ignoreUndefined: r.bool(),
    forceFloat32: r.bool(0.2),
    forceIntegerToFloat: r.bool(0.2),
    useBigInt64: r.bool(),
    undefinedAsExtension: r.bool(0.2),
    maxDepth: r.pick([undefined, 3, 50, 512, 10_000, Infinity]),
    chunkSize: r.pick([1, 2, 7, 16, 64, 300, 4096, 65536]),
  };
}

describe("property: the streaming encoder is encode(), chunk by chunk", () => {
  it("same bytes or the same error (code, path), and each extension encoder called as many times, for hostile values and any options", () => {
    const seen = new Map<unknown, number>();
    forSeeds(400, (r) => {
      const seed = r.int(0, 2 ** 31);
      const opts = options(r);
      const runs = [0, 1].map((k) => {
        const counted = countingCodec();
        const value = hostile(new (r.constructor as new (seed: number) => Random)(seed));
        const o = { ...opts, extensionCodec: counted.codec };
        const result = k === 0 ? outcome(() => encode(value, o as EncodeOptions<unknown>)) : outcome(() => streamed(value, o));
        return { result, calls: counted.calls };
      });
      const [whole, chunked] = runs as [(typeof runs)[0], (typeof runs)[0]];
      const label = `${JSON.stringify(opts)} value seed ${seed}`;
      expectSame(chunked.result, whole.result, label);
      expect(Object.fromEntries(chunked.calls), label).toEqual(Object.fromEntries(whole.calls));
      const kind = "bytes" in whole.result ? "bytes" : whole.result.code;
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
    });
    // the values reach every outcome: bytes, and each error the walk gives
    for (const kind of ["bytes", "CHANGED", "UNSUPPORTED_TYPE", "MAX_DEPTH", "CYCLE"]) expect(seen.get(kind) ?? 0, `${kind} in ${JSON.stringify([...seen])}`).toBeGreaterThan(5);
  });
});

describe("encodeIterable() defects fixed", () => {
  it("runs an extension encoder once per value, as encode(): at the top, at a split point, and for a large container it claims", () => {
    for (const value of [new Point(5), [new Point(1), "x".repeat(100), new Point(2)], new Tagged(Array.from({ length: 500 }, (_, i) => i))]) {
      const a = countingCodec();
      const b = countingCodec();
      const bytes = streamed(value, { extensionCodec: a.codec, chunkSize: 16 });
      expect(sameBytes(bytes, encode(value, { extensionCodec: b.codec }))).toBe(true);
      expect(Object.fromEntries(a.calls)).toEqual(Object.fromEntries(b.calls));
      expect([...a.calls.values()].every((n) => n >= 1)).toBe(true);
    }
  });

  it("gives aligned extensions their position in the whole stream: the bytes of encode(), which the recipe decodes", () => {
    const { codec } = countingCodec();
    const value = { head: "x".repeat(33), list: Array.from({ length: 300 }, (_, i) => new Floats(new Float32Array(i % 9).fill(i / 2))) };
    const whole = encode(value, { extensionCodec: codec });
    for (const chunkSize of [1, 5, 64, 1000, 65536]) {
      const bytes = streamed(value, { extensionCodec: codec, chunkSize });
      expect(sameBytes(bytes, whole), `chunkSize ${chunkSize}`).toBe(true);
      const back = decode(bytes.slice(), { extensionCodec: codec }) as { list: Float32Array[] };
      expect(Array.from(back.list[299]!)).toEqual(Array.from(new Float32Array(299 % 9).fill(299 / 2)));
    }
  });

  it("checks Map entries and unreadable Maps and Sets as encode() does, with the error's path", () => {
    const cases: [string, () => unknown][] = [
      ["a non-entry string", () => ({ a: { b: [0, lyingMap(["ab"], 1)] } })],
      ["{0, 1} entries", () => ({ a: [lyingMap([{ 0: "k", 1: "v" }, { 0: 1, 1: [2] }], 2)] })],
      ["a null entry", () => [lyingMap([null], 1)]],
      ["more entries than its size", () => ({ m: lyingMap([[1, 2], [3, 4]], 1) })],
      ["a throwing size getter", () => ({ a: [lyingMap([[1, 2]], () => { throw new Error("boom"); })] })], // prettier-ignore
      ["a Proxy around a Set", () => ({ s: [new Proxy(new Set([1]), {})] })],
    ];
    for (const [label, make] of cases) {
      const whole = outcome(() => encode(make()));
      for (const chunkSize of [1, 8, 65536]) {
        // padded so that the container holding the hostile Map is split, not written whole
        expectSame(outcome(() => streamed([make(), "p".repeat(200)], { chunkSize })), outcome(() => encode([make(), "p".repeat(200)])), label);
      }
      if (!("bytes" in whole)) expect(whole.message, label).toMatch(/ at \$/);
    }
    const e = outcome(() => streamed({ a: { b: [0, lyingMap(["ab"], 1)] }, pad: "p".repeat(100) }, { chunkSize: 8 }));
    expect(e).toMatchObject({ code: "CHANGED", message: "Cannot encode Map at $.a.b[1]: it changed while being encoded (1 entries, then a non-entry)" });
  });

  it("gives MAX_DEPTH for 100,000 nested arrays with maxDepth 10,000 or Infinity, as encode()", () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const maxDepth of [10_000, Infinity]) {
      const whole = outcome(() => encode(deep, { maxDepth }));
      expect(whole).toMatchObject({ code: "MAX_DEPTH" });
      for (const chunkSize of [16, 65536]) expectSame(outcome(() => streamed(deep, { maxDepth, chunkSize })), whole, `maxDepth ${maxDepth} chunkSize ${chunkSize}`);
    }
  });

  it("a split array whose length answers differently at each read is CHANGED, as in encode(), never a header that lies", () => {
    const make = () => {
      let reads = 0;
      const items = ["語".repeat(31), "x".repeat(40)];
      return { k0: { x: new Proxy(items, { get: (t, k) => (k === "length" ? (reads++ % 2 === 0 ? 2 : 1) : Reflect.get(t, k)) }) } };
    };
    // the size bound reads the length too, so the counts in the messages may differ from encode()'s; the outcome may not
    expect(outcome(() => encode(make(), { sortKeys: true }))).toMatchObject({ code: "CHANGED", message: expect.stringContaining("at $.k0.x") });
    for (const chunkSize of [16, 64]) {
      expect(outcome(() => streamed(make(), { chunkSize, sortKeys: true })), `chunkSize ${chunkSize}`).toMatchObject({ code: "CHANGED", message: expect.stringContaining("at $.k0.x") });
    }
  });

  it("a bad chunkSize or lengthPrefixed is EncodeError INVALID_ARGUMENT", () => {
    for (const chunkSize of [0, -1, NaN, 2 ** 32, "64"]) {
      const e = outcome(() => streamed(1, { chunkSize } as unknown as StreamEncodeOptions<unknown>));
      expect(e, String(chunkSize)).toMatchObject({ name: "EncodeError", code: "INVALID_ARGUMENT", message: expect.stringContaining("chunkSize") });
    }
    for (const lengthPrefixed of ["yes", 1, null]) {
      let error: unknown;
      try {
        new EncoderStream({ lengthPrefixed } as unknown as StreamEncodeOptions<unknown>);
      } catch (e) {
        error = e;
      }
      expect(error, String(lengthPrefixed)).toBeInstanceOf(EncodeError);
      expect(error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("lengthPrefixed") });
    }
  });

  it("encodeToStream: a preventClose that is not a boolean is INVALID_ARGUMENT, nothing written and the stream aborted, not closed", async () => {
    for (const preventClose of ["yes", 1, null, {}]) {
      const events: string[] = [];
      const writable = new WritableStream<Uint8Array>({
        write: () => void events.push("write"),
        close: () => void events.push("close"),
        abort: () => void events.push("abort"),
      });
      const error = await encodeToStream([1, 2], writable, { preventClose } as unknown as StreamEncodeOptions<unknown>).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, String(preventClose)).toBeInstanceOf(EncodeError);
      expect(error).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringMatching(/^Invalid encode option preventClose: .* \(expected a boolean\)$/) });
      expect(events, String(preventClose)).toEqual(["abort"]);
    }
    // true keeps the stream open, false (the default) closes it
    for (const [preventClose, closed] of [[true, false], [false, true], [undefined, true]] as const) {
      let wasClosed = false;
      const writable = new WritableStream<Uint8Array>({ close: () => void (wasClosed = true) });
      await encodeToStream([1, 2], writable, { preventClose });
      expect(wasClosed, String(preventClose)).toBe(closed);
    }
  });

  it("the stream encoders read each of their options once, and refuse a misspelled one with the name meant", async () => {
    const reads = new Map<string | symbol, number>();
    const options = new Proxy({ chunkSize: 8, preventClose: true, lengthPrefixed: true } as object, {
      get: (t, name) => (reads.set(name, (reads.get(name) ?? 0) + 1), Reflect.get(t, name)),
    });
    await encodeToStream("x".repeat(20), new WritableStream<Uint8Array>(), options);
    for (const name of ["chunkSize", "preventClose", "lengthPrefixed", "sortKeys"]) expect(reads.get(name), name).toBe(1);
    reads.clear();
    new EncoderStream(options);
    for (const name of ["lengthPrefixed", "sortKeys"]) expect(reads.get(name), name).toBe(1);
    for (const [name, meant] of [["chunksize", "chunkSize"], ["preventClos", "preventClose"], ["lenghtPrefixed", "lengthPrefixed"]]) {
      const e = outcome(() => streamed(1, { [name]: 1 } as unknown as StreamEncodeOptions<unknown>));
      expect(e, name).toMatchObject({ name: "EncodeError", code: "INVALID_ARGUMENT", message: expect.stringContaining(`did you mean ${meant}?`) });
    }
  });
});

describe("encodeIterable(): the core call stays open between chunks", () => {
  it("generators interleaved with each other and with encode() calls each give encode()'s bytes", () => {
    const values = [
      { list: Array.from({ length: 3000 }, (_, i) => ({ i, s: `v${i}`, m: new Map([[i, [i]]]) })) },
      new Set(Array.from({ length: 2000 }, (_, i) => "é".repeat(i % 40))),
      ["x".repeat(200_000), new Uint8Array(100_000).fill(2), { deep: [[[Array.from({ length: 5000 }, (_, i) => i * 1.5)]]] }],
    ];
    const generators = values.map((v, k) => encodeIterable(v, { chunkSize: [16, 1000, 4096][k]! }));
    const chunks: Uint8Array[][] = values.map(() => []);
    for (let live = generators.length, step = 0; live > 0; step++) {
      live = 0;
      generators.forEach((g, k) => {
        const r = g.next();
        if (r.done !== true) {
          live++;
          chunks[k]!.push(r.value);
        }
      });
      if (step % 7 === 0) encode(values[step % values.length]); // the shared encoder runs in between
    }
    values.forEach((v, k) => expect(sameBytes(concat(chunks[k]!), encode(v)), `value ${k}`).toBe(true));
  });

  it("a long string's chunks keep no more memory alive than their bytes", () => {
    const text = "a".repeat(1 << 20);
    const chunks = [...encodeIterable([text, text], { chunkSize: 4096 })];
    const held = new Set(chunks.map((c) => c.buffer));
    const bytes = [...held].reduce((n, b) => n + b.byteLength, 0);
    expect(bytes).toBeLessThan(2 * (1 << 20) + 3 * 4096 + 64);
    expect(sameBytes(concat(chunks), encode([text, text]))).toBe(true);
  });
});
