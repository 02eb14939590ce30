// Drop-in compatibility of the stream API with @msgpack/msgpack 3.x: the
// stream functions and the Decoder's stream methods from the main entry
// (src/index.ts, src/stream/decoder.ts), a program written for
// @msgpack/msgpack run against both libraries, the error classes, and
// tree-shaking (bundles that don't use streams leave them out).
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as msgpack from "@msgpack/msgpack";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import * as core from "../src/core.ts";
import { CoreDecoder } from "../src/decode/decoder.ts";
import * as ours from "../src/index.ts";

type Lib = Pick<typeof msgpack, "encode" | "decodeAsync" | "decodeArrayStream" | "decodeMultiStream"> & { Decoder: new () => DecoderLike };
interface DecoderLike {
  decodeAsync(stream: AsyncIterable<ArrayLike<number> | BufferSource>): Promise<unknown>;
  decodeArrayStream(stream: AsyncIterable<ArrayLike<number> | BufferSource>): AsyncIterable<unknown>;
  decodeStream(stream: AsyncIterable<ArrayLike<number> | BufferSource>): AsyncIterable<unknown>;
}

async function* chunks<T>(items: T[]): AsyncGenerator<T> {
  for (const x of items) yield x;
}

async function collect(it: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** `v` with every binary (a Uint8Array or a Buffer) as `{ bin: [bytes] }`, to compare values across libraries. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return { bin: Array.from(v) };
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** A program written against @msgpack/msgpack's stream API; returns everything it decoded. */
async function program(lib: Lib): Promise<unknown[]> {
  const { encode } = lib;
  const record = { id: 7, name: "ünïcode", tags: ["a", "b"], bin: Uint8Array.of(1, 2, 3), nested: { deep: [1.5, null, true] } };
  const one = encode(record);
  const list = encode([record, 2, "three"]);
  const many = [encode(1), encode("two"), encode([3])];
  const out: unknown[] = [];
  // functions: a Blob's stream, a Node Readable, an async generator, a ReadableStream
  out.push(await lib.decodeAsync(new Blob([one]).stream()));
  out.push(await lib.decodeAsync(Readable.from([Buffer.from(one.subarray(0, 5)), Buffer.from(one.subarray(5))])));
  out.push(await collect(lib.decodeArrayStream(chunks([list.subarray(0, 9), list.subarray(9)]))));
  out.push(await collect(lib.decodeMultiStream(new Blob(many).stream())));
  // chunks as arrays of numbers, ArrayBuffers and DataViews
  out.push(await lib.decodeAsync(chunks([Array.from(one.subarray(0, 4)), one.slice(4, 10).buffer, new DataView(one.slice(10).buffer)])));
  // the Decoder's methods
  const decoder = new lib.Decoder();
  out.push(await decoder.decodeAsync(chunks([one])));
  out.push(await collect(decoder.decodeArrayStream(chunks([list]))));
  out.push(await collect(decoder.decodeStream(chunks(many.map((m) => Array.from(m))))));
  return out;
}

describe("stream API of @msgpack/msgpack 3.x from the main entry", () => {
  it("exports decodeAsync, decodeArrayStream and decodeMultiStream, and a Decoder with decodeAsync, decodeArrayStream and decodeStream", () => {
    for (const name of ["decodeAsync", "decodeArrayStream", "decodeMultiStream"] as const) expect(typeof ours[name]).toBe("function");
    const decoder = new ours.Decoder({ useMap: true });
    for (const name of ["decodeAsync", "decodeArrayStream", "decodeStream", "decode", "decodeMulti"] as const) expect(typeof decoder[name]).toBe("function");
    expect(decoder).toBeInstanceOf(CoreDecoder);
    expect(decoder.decode(ours.encode({ a: 1 }))).toEqual(new Map([["a", 1]]));
  });

  it("a program written for @msgpack/msgpack gives the same results with only the import changed", async () => {
    const expected = await program(msgpack as unknown as Lib);
    const got = await program(ours as unknown as Lib);
    // @msgpack/msgpack returns binaries as Buffer views of Buffer chunks; ours are plain Uint8Array copies
    for (let i = 0; i < expected.length; i++) expect(plain(got[i]), `result ${i}`).toEqual(plain(expected[i]));
    expect(JSON.stringify(got, (_, v: unknown) => (v instanceof Uint8Array && v.constructor !== Uint8Array ? "not a plain Uint8Array" : v))).not.toContain("not a plain");
    expect(got.length).toBe(8);
  });

  it("Decoder's stream methods use its options, and run several streams at once", async () => {
    const decoder = new ours.Decoder({ useMap: true, maxValueBytes: 100 });
    const [a, b] = await Promise.all([decoder.decodeAsync(chunks([ours.encode({ x: 1 })])), decoder.decodeAsync(chunks([ours.encode({ y: 2 })]))]);
    expect(a).toEqual(new Map([["x", 1]]));
    expect(b).toEqual(new Map([["y", 2]]));
    await expect(decoder.decodeAsync(chunks([ours.encode("z".repeat(200))]))).rejects.toMatchObject({ code: "MAX_LENGTH" });
  });

  // @msgpack/msgpack throws RangeError for these; ours are DecodeErrors (a RangeError) with a code and the stream offset
  const errors: [string, () => Promise<unknown>, () => Promise<unknown>, string, number][] = [
    ["an empty stream", () => ours.decodeAsync(chunks([])), () => msgpack.decodeAsync(chunks([])), "TRUNCATED", 0],
    ["a truncated stream", () => ours.decodeAsync(chunks([[0x92], [1]])), () => msgpack.decodeAsync(chunks([[0x92], [1]])), "TRUNCATED", 0],
    ["bytes after the value", () => ours.decodeAsync(chunks([[1], [2]])), () => msgpack.decodeAsync(chunks([[1], [2]])), "EXTRA_BYTES", 1],
    ["bytes after the value, in one chunk", () => ours.decodeAsync(chunks([[1, 2]])), () => msgpack.decodeAsync(chunks([[1, 2]])), "EXTRA_BYTES", 1],
    [
      "a reserved byte inside a split value",
      () => ours.decodeAsync(chunks([[0x92], [0xc1, 0x01]])),
      () => msgpack.decodeAsync(chunks([[0x92], [0xc1, 0x01]])),
      "INVALID_BYTE",
      1,
    ],
  ];
  for (const [what, run, theirs, code, offset] of errors) {
    it(`${what}: a RangeError, as with @msgpack/msgpack, that is a DecodeError with code ${code} at offset ${offset}`, async () => {
      const their = await theirs().catch((e: unknown) => e);
      expect(their).toBeInstanceOf(Error);
      const err = await run().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RangeError);
      expect(err).toBeInstanceOf(ours.DecodeError);
      expect(err).toMatchObject({ code, offset });
      expect((err as Error).message).toMatch(/^Cannot decode/);
      if (their instanceof RangeError) expect(err).toBeInstanceOf(RangeError);
    });
  }
});

describe("tree-shaking and entries", () => {
  const index = fileURLToPath(new URL("../src/index.ts", import.meta.url));

  async function bundle(code: string): Promise<string> {
    const result = await build({
      stdin: { contents: code, resolveDir: fileURLToPath(new URL("..", import.meta.url)), loader: "ts" },
      bundle: true,
      write: false,
      minify: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
    });
    return result.outputFiles[0]!.text;
  }

  it("a bundle that uses only encode/decode from the main entry leaves the stream decoders out; one that uses decodeAsync has them", async () => {
    const marker = "over maxValueBytes"; // a message only the stream decoders have
    const plain = await bundle(`import { decode, encode } from ${JSON.stringify(index)}; console.log(decode(encode(1)));`);
    expect(plain).not.toContain(marker);
    const streams = await bundle(`import { decodeAsync } from ${JSON.stringify(index)}; console.log(decodeAsync);`);
    expect(streams).toContain(marker);
    const decoder = await bundle(`import { Decoder } from ${JSON.stringify(index)}; console.log(new Decoder());`);
    expect(decoder).toContain(marker);
    // the core entry (what the small browser bundles are built from) has none of it
    const coreBundle = await bundle(`export * from ${JSON.stringify(fileURLToPath(new URL("../src/core.ts", import.meta.url)))};`);
    expect(coreBundle).not.toContain(marker);
  });

  it("src/core.ts exports what the main entry does, except the stream decoders, with the core Decoder", () => {
    const streamNames = ["decodeArrayStream", "decodeAsync", "decodeMultiStream"];
    expect(Object.keys(core).sort()).toEqual(
      Object.keys(ours)
        .filter((k) => !streamNames.includes(k))
        .sort(),
    );
    expect(core.Decoder).toBe(CoreDecoder);
    expect(new ours.Decoder()).toBeInstanceOf(core.Decoder);
  });
});
