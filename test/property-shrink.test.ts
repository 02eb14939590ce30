/**
 * Property tests that shrink: the round trip, the output paths and the
 * stream chunkings, with fast-check's generators. A failure prints the
 * smallest value (and cut points) fast-check could shrink it to, with the
 * seed and path to replay it. The seed is fixed (FC_SEED overrides it), so
 * every run checks the same cases; FC_RUNS sets the number of runs.
 * property.test.ts keeps the project's own seeded generator, whose values
 * reach every format boundary on purpose.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decode, encode, Encoder } from "../src/index.ts";
import { decodeAsync, decodeMultiStream, encodeIterable } from "../src/streams.ts";
import { expectSameBytes } from "./_support/bytes.ts";
import { concat, cut } from "./_support/streams.ts";

const env = process.env;
const SEED = Number(env.FC_SEED ?? 46);
const RUNS = env.FC_RUNS ? Number(env.FC_RUNS) : undefined;
const params = (numRuns: number): fc.Parameters<unknown> => ({ seed: SEED, numRuns: RUNS ?? numRuns });

/** Integers and floats across every number form's boundaries, -0, NaN and the infinities included. */
const number = fc.oneof(
  fc.integer({ min: -128, max: 255 }),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double(),
  fc.constantFrom(0, -0, 2 ** 32, -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53 - 1), NaN, Infinity, -Infinity),
);

/** Object keys other than `__proto__`, whose policy has tests of its own. */
const key = fc.string({ unit: "binary", maxLength: 12 }).filter((k) => k !== "__proto__");

/**
 * Values that decode back to themselves, but for one documented change:
 * a `Map` with string keys comes back as a plain object (see {@link asDecoded}).
 */
const { value } = fc.letrec<{ value: unknown; leaf: unknown }>((tie) => ({
  leaf: fc.oneof(
    fc.constant(null),
    fc.boolean(),
    number,
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.string({ unit: "grapheme-ascii", minLength: 30, maxLength: 300 }),
    fc.uint8Array({ maxLength: 300 }),
    fc.date({ noInvalidDate: true }),
  ),
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("leaf"),
    fc.array(tie("value"), { maxLength: 20 }),
    fc.dictionary(key, tie("value"), { maxKeys: 10, noNullPrototype: true }),
    fc.array(fc.tuple(key, tie("value")), { maxLength: 5 }).map((entries) => new Map(entries)),
  ),
}));

/** `x` as decode() gives it back: string-keyed Maps as plain objects. */
function asDecoded(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(asDecoded);
  if (x instanceof Map) return Object.fromEntries([...x].map(([k, v]) => [k, asDecoded(v)]));
  if (x !== null && typeof x === "object" && Object.getPrototypeOf(x) === Object.prototype) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, asDecoded(v)]));
  return x;
}

/** Sorted distinct cut points inside `length` bytes, from fractions in [0, 1). */
const cutsOf = (fractions: number[], length: number): number[] => [...new Set(fractions.map((f) => Math.floor(f * length)))].filter((p) => p > 0 && p < length).sort((a, b) => a - b);
const fractions = fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { maxLength: 12 });

async function* chunked(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

describe("shrinking properties: round trip", () => {
  test("decode(encode(x)) equals x (string-keyed Maps as objects)", () => {
    fc.assert(
      fc.property(value, (x) => {
        expect(decode(encode(x))).toEqual(asDecoded(x));
      }),
      params(300),
    );
  });

  test("Encoder#encode, encodeChunks and encodeIterable write encode()'s bytes, under tiny scratches and ceilings", () => {
    fc.assert(
      fc.property(value, fc.constantFrom(undefined, 64, 1024), fc.constantFrom(undefined, 256, 4096), fc.constantFrom(1, 16, 256, 65536), (x, initialBufferSize, maxByteLength, chunkSize) => {
        const expected = encode(x);
        const options = { initialBufferSize, maxByteLength };
        expectSameBytes(new Encoder(options).encode(x), expected, "Encoder#encode");
        expectSameBytes(concat(new Encoder(options).encodeChunks(x)), expected, "encodeChunks");
        expectSameBytes(concat([...encodeIterable(x, { chunkSize })]), expected, `encodeIterable (chunkSize ${chunkSize})`);
      }),
      params(150),
    );
  });
});

describe("shrinking properties: stream chunkings", () => {
  test("decodeAsync gives decode()'s value however the bytes are cut", async () => {
    await fc.assert(
      fc.asyncProperty(value, fractions, async (x, at) => {
        const bytes = encode(x);
        expect(await decodeAsync(chunked(cut(bytes, cutsOf(at, bytes.length))))).toEqual(asDecoded(x));
      }),
      params(200),
    );
  });

  test("decodeMultiStream gives back-to-back values however the bytes are cut, cuts inside headers included", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 5 }), fractions, async (xs, at) => {
        const bytes = concat(xs.map((x) => encode(x)));
        const got: unknown[] = [];
        for await (const v of decodeMultiStream(chunked(cut(bytes, cutsOf(at, bytes.length))))) got.push(v);
        expect(got).toEqual(xs.map(asDecoded));
      }),
      params(200),
    );
  });

  test("a truncated stream is a TRUNCATED error, never a value", async () => {
    await fc.assert(
      fc.asyncProperty(value, fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), fractions, async (x, keep, at) => {
        const whole = encode(x);
        const bytes = whole.subarray(0, Math.floor(keep * whole.length));
        const error = await decodeAsync(chunked(cut(bytes, cutsOf(at, bytes.length)))).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({ code: "TRUNCATED" });
      }),
      params(200),
    );
  });
});
