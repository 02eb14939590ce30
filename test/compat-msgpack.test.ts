// @resizable/msgpack as a drop-in replacement for @msgpack/msgpack 3.x: a
// program written for @msgpack/msgpack (its documented API, options,
// extension recipes and errors) keeps working after changing the import.
//
// Most checks run the same program against both libraries and compare
// (@msgpack/msgpack 3.1.3, a devDependency, is the oracle). The intended
// differences are the "migration table" at the end: one test per row, showing
// our default and the option that gives @msgpack/msgpack's behaviour.
// The async decoders run under Node, Bun and Deno in test/compat-async.test.ts.
//
// A migrating program changes its import line to the entry for it,
// "@resizable/msgpack/compat/msgpack" (the package's own name, resolved to
// src/compat/msgpack.ts here, as a user would import it, without a build).
// The main entry without that import is checked at the end: what it refuses,
// naming the import.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import * as theirModule from "@msgpack/msgpack";
import { forSeeds, value as randomValue } from "./_support/arbitrary.ts";
import { assertBuilt } from "./tools/harness.ts";
import { rejection, thrown } from "./_support/thrown.ts";
import * as ourModule from "@resizable/msgpack/compat/msgpack";

vi.mock("@resizable/msgpack/compat/msgpack", async () => await import("../src/compat/msgpack.ts"));

/** @msgpack/msgpack's module type: a program written for it uses these names and signatures. */
type Lib = typeof theirModule;
const theirs: Lib = theirModule;
/**
 * Our module, seen through @msgpack/msgpack's types, as a migrated program
 * sees it (copied out of the module mock so a missing export reads as
 * undefined, as it would in a real import).
 */
const ours = Object.fromEntries(Object.keys(ourModule).map((k) => [k, (ourModule as Record<string, unknown>)[k]])) as unknown as Lib;
const LIBS = [
  ["@msgpack/msgpack", theirs],
  ["@resizable/msgpack", ours],
] as const;

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

// ---------------------------------------------------------------- helpers

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const fromHex = (s: string): Uint8Array => Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));
const utf8 = (s: string): number[] => [...new TextEncoder().encode(s)];

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function attempt(f: () => unknown): Outcome {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Describes an error by the classes a migrating program would catch it by. */
function errorKind(lib: Lib, e: unknown): string {
  if (e instanceof lib.DecodeError) return "DecodeError";
  if (e instanceof RangeError) return "RangeError";
  if (e instanceof TypeError) return "TypeError";
  if (e instanceof Error) return "Error";
  return `non-error ${String(e)}`;
}

/**
 * Whether our error `e` is caught where a program catches @msgpack/msgpack's
 * error of `kind`: their DecodeError is our DecodeError; their RangeError
 * is a RangeError (our DecodeError is one); their Error is an Error.
 */
function isKind(kind: string, e: unknown): boolean {
  switch (kind) {
    case "DecodeError":
      return e instanceof ours.DecodeError;
    case "RangeError":
      return e instanceof RangeError;
    case "TypeError":
      return e instanceof TypeError;
    case "Error":
      return e instanceof Error;
    default:
      return false;
  }
}

/** Plain data for comparing decoded values: typed arrays (Buffer included) as number arrays, Maps as entry lists. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return { bytes: Array.from(v) };
  if (v instanceof ourModule.ExtData || v instanceof theirModule.ExtData) {
    const e = v as { type: number; data: unknown };
    return { ext: e.type, data: plain(e.data) };
  }
  if (v instanceof Date) return { date: v.getTime() };
  if (v instanceof Map) return { map: [...v].map(([k, x]) => [plain(k), plain(x)]) };
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = plain((v as Record<string, unknown>)[k]);
    return { object: out, proto: Object.getPrototypeOf(v) === Object.prototype ? "Object" : "other" };
  }
  if (typeof v === "number" && Object.is(v, -0)) return "-0";
  if (typeof v === "number" && Number.isNaN(v)) return "NaN";
  return v;
}

/**
 * Runs `program` against both libraries and expects the same outcome: equal
 * results (compared as plain data), or errors of corresponding classes
 * (their DecodeError = our DecodeError; their RangeError = a RangeError).
 */
function expectSame(program: (lib: Lib) => unknown, what = "program"): unknown {
  const a = attempt(() => program(theirs));
  const b = attempt(() => program(ours));
  if (!a.ok) {
    const kind = errorKind(theirs, a.error);
    const got = b.ok ? `returned ${JSON.stringify(plain(b.value), replacer)}` : `threw ${String(b.error)}`;
    expect(!b.ok && isKind(kind, b.error), `${what}: @msgpack/msgpack throws ${String(a.error)} (${kind}); ours ${got}`).toBe(true);
    return undefined;
  }
  if (!b.ok) throw new Error(`${what}: @msgpack/msgpack returns ${JSON.stringify(plain(a.value), replacer)} but ours throws ${String(b.error)}`, { cause: b.error });
  expect(plain(b.value), what).toEqual(plain(a.value));
  return b.value;
}

const replacer = (_k: string, v: unknown): unknown => (typeof v === "bigint" ? `${v}n` : v);

/**
 * Expects the same bytes from both libraries' `encode(value, options)`;
 * `options` may be a function of the library (for options holding that
 * library's objects, such as an extension codec).
 */
function expectSameBytes(value: unknown, options?: Record<string, unknown> | ((lib: Lib) => Record<string, unknown>), what?: string): Uint8Array {
  const optionsFor = (lib: Lib) => (typeof options === "function" ? options(lib) : options) as never;
  const label = what ?? `encode(${describeValue(value)}${options ? `, ${JSON.stringify(options, replacer)}` : ""})`;
  const expected = attempt(() => theirs.encode(value, optionsFor(theirs)));
  if (!expected.ok) throw new Error(`${label}: the oracle throws ${String(expected.error)}`);
  const actual = attempt(() => ours.encode(value, optionsFor(ours)));
  if (!actual.ok) throw new Error(`${label}: ours throws ${String(actual.error)}`, { cause: actual.error });
  expect(hex(actual.value as Uint8Array), label).toBe(hex(expected.value as Uint8Array));
  return actual.value as Uint8Array;
}

function describeValue(v: unknown): string {
  if (typeof v === "string") return v.length > 20 ? `string(${v.length})` : JSON.stringify(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (v instanceof Date) return `Date(${v.getTime()})`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.byteLength} bytes)`;
  if (Array.isArray(v)) return `array(${v.length})`;
  if (v instanceof theirModule.ExtData || v instanceof ourModule.ExtData) return `ExtData(${(v as { type: number }).type})`;
  if (v !== null && typeof v === "object") return `object(${Object.keys(v).length} keys)`;
  return String(v);
}

/** `depth` arrays nested around `leaf`. */
function nested(depth: number, leaf: unknown): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

// Values whose encoding both libraries define the same way (the shortest
// form for integers, float 64 for other numbers, shortest str/bin/array/map
// and extension forms, timestamps 32/64/96).
const corpus = (lib: Lib): unknown[] => [
  null, undefined, true, false,
  0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, Number.MAX_SAFE_INTEGER,
  -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 53 - 1),
  0.5, -1.5, 1e300, -1e-300, Math.PI, NaN, Infinity, -Infinity, 2 ** 64,
  "", "a", "x".repeat(31), "x".repeat(32), "x".repeat(255), "x".repeat(256), "x".repeat(65535), "x".repeat(65536),
  "ünï日本😀", "😀".repeat(100),
  new Uint8Array(0), new Uint8Array([1, 2, 3]), new Uint8Array(255), new Uint8Array(256), new Uint8Array(70000),
  new Int16Array([1, -1]), new Float64Array([1.5]), new DataView(new Uint8Array([9, 8, 7]).buffer, 1), Buffer.from([4, 5]),
  [], [1, [2, [3, []]]], Array.from({ length: 15 }, (_, i) => i), Array.from({ length: 16 }, (_, i) => i),
  Array.from({ length: 65536 }, (_, i) => i & 0x7f),
  {}, { a: 1, b: { c: [null, true, "s"] } }, Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, i])),
  Object.fromEntries(Array.from({ length: 65536 }, (_, i) => [`k${i}`, i & 1])),
  { "": 0, "ключ": "значение", "🔑": [] },
  new Date(0), new Date(1), new Date(-1), new Date(1_700_000_000_000), new Date(2 ** 32 * 1000), new Date(2 ** 34 * 1000),
  new Date(-8.64e15), new Date(8.64e15),
  new lib.ExtData(0, new Uint8Array(1)), new lib.ExtData(1, new Uint8Array(2)), new lib.ExtData(2, new Uint8Array(3)),
  new lib.ExtData(3, new Uint8Array(4)), new lib.ExtData(4, new Uint8Array(8)), new lib.ExtData(5, new Uint8Array(16)),
  new lib.ExtData(6, new Uint8Array(17)), new lib.ExtData(-7, new Uint8Array(300)), new lib.ExtData(127, new Uint8Array(70000)),
  new lib.ExtData(9, new Uint8Array(0)),
  new (class Point {
    x = 1;
    y = [2];
  })(),
];

// ---------------------------------------------------------------- exports

describe("@msgpack/msgpack's exports exist in @resizable/msgpack and do what the peer's do", () => {
  const VALUE = { id: 7, name: "seven", tags: ["a", "b"], ratio: 0.5, blob: new Uint8Array([1, 2, 3]), when: new Date(1_700_000_000_123) };
  const BYTES = theirs.encode(VALUE);
  const TWO = theirs.encode(VALUE).length + theirs.encode([1, "x"]).length;
  const both = (): Uint8Array => {
    const out = new Uint8Array(TWO);
    out.set(theirs.encode(VALUE));
    out.set(theirs.encode([1, "x"]), BYTES.length);
    return out;
  };
  async function* pieces(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
    for (let at = 0; at < bytes.length; at += 5) yield bytes.subarray(at, at + 5);
  }
  const collect = async (it: AsyncIterable<unknown>): Promise<unknown[]> => {
    const out: unknown[] = [];
    for await (const x of it) out.push(x);
    return out;
  };
  const DATE = new Date(-1_234_567);
  const SPEC = { sec: 2 ** 33 + 5, nsec: 123_456_789 };

  /** Each function run by both libraries on the same input: its result as something toEqual compares. */
  const FUNCTIONS: Record<string, (lib: Lib) => unknown> = {
    encode: (lib) => hex(lib.encode(VALUE)),
    decode: (lib) => lib.decode(BYTES),
    decodeMulti: (lib) => [...lib.decodeMulti(both())],
    decodeAsync: (lib) => lib.decodeAsync(pieces(BYTES)),
    decodeArrayStream: (lib) => collect(lib.decodeArrayStream(pieces(theirs.encode([1, "two", [3]])))),
    decodeMultiStream: (lib) => collect(lib.decodeMultiStream(pieces(both()))),
    encodeDateToTimeSpec: (lib) => lib.encodeDateToTimeSpec(DATE),
    encodeTimeSpecToTimestamp: (lib) => hex(lib.encodeTimeSpecToTimestamp(SPEC)),
    decodeTimestampToTimeSpec: (lib) => lib.decodeTimestampToTimeSpec(theirs.encodeTimeSpecToTimestamp(SPEC)),
    encodeTimestampExtension: (lib) => hex(lib.encodeTimestampExtension(DATE)!),
    decodeTimestampExtension: (lib) => lib.decodeTimestampExtension(theirs.encodeTimestampExtension(DATE)!),
  };

  test("every runtime export of @msgpack/msgpack's main entry is exported by ours", () => {
    const missing = Object.keys(theirModule).filter((name) => !(name in ours));
    expect(missing).toEqual([]);
  });

  test.for(Object.keys(FUNCTIONS))("%s gives what @msgpack/msgpack's gives", async (name) => {
    const want = await FUNCTIONS[name]!(theirs);
    expect(await FUNCTIONS[name]!(ours)).toEqual(want);
  });

  test("Encoder and Decoder: instances encode and decode as the peer's do", () => {
    expect(hex(new ours.Encoder({ sortKeys: true }).encode(VALUE))).toBe(hex(new theirs.Encoder({ sortKeys: true }).encode(VALUE)));
    expect(new ours.Decoder({ useBigInt64: true }).decode(BYTES)).toEqual(new theirs.Decoder({ useBigInt64: true }).decode(BYTES));
  });

  test("DecodeError: what decode throws on malformed bytes, an Error subclass one can construct", () => {
    const e = thrown(() => ours.decode(Uint8Array.of(0xc1)));
    expect(e).toBeInstanceOf(ours.DecodeError);
    expect(e).toBeInstanceOf(Error);
    const made = new ours.DecodeError("bad");
    expect(made).toBeInstanceOf(Error);
    expect([made.name, made.message]).toEqual(["DecodeError", "bad"]);
  });

  test("ExtensionCodec and ExtData: a registered extension writes the peer's bytes and reads back; ExtData too", () => {
    class Pair {
      readonly a: number;
      readonly b: number;
      constructor(a: number, b: number) {
        this.a = a;
        this.b = b;
      }
    }
    const codecs = LIBS.map(([, lib]) => {
      const codec = new lib.ExtensionCodec();
      codec.register({ type: 3, encode: (v) => (v instanceof Pair ? Uint8Array.of(v.a, v.b) : null), decode: (d) => new Pair(d[0]!, d[1]!) });
      return [lib, codec] as const;
    });
    const [[, theirCodec], [, ourCodec]] = codecs;
    const pairBytes = ours.encode([new Pair(1, 2)], { extensionCodec: ourCodec });
    expect(hex(pairBytes)).toBe(hex(theirs.encode([new Pair(1, 2)], { extensionCodec: theirCodec })));
    expect(ours.decode(pairBytes, { extensionCodec: ourCodec })).toEqual([new Pair(1, 2)]);
    const ext = new ours.ExtData(5, Uint8Array.of(9, 8, 7));
    expect(hex(ours.encode(ext))).toBe(hex(theirs.encode(new theirs.ExtData(5, Uint8Array.of(9, 8, 7)))));
    expect(ours.decode(ours.encode(ext))).toEqual(ext);
  });

  test("EXT_TIMESTAMP is -1 and ExtensionCodec.defaultCodec is an extension codec", () => {
    expect(ours.EXT_TIMESTAMP).toBe(theirs.EXT_TIMESTAMP);
    expect(ours.ExtensionCodec.defaultCodec).toBeDefined();
    expect(typeof ours.ExtensionCodec.defaultCodec.tryToEncode).toBe("function");
    expect(typeof ours.ExtensionCodec.defaultCodec.decode).toBe("function");
  });

  test("the Encoder and Decoder methods of @msgpack/msgpack exist", () => {
    for (const m of ["encode", "encodeSharedRef"]) expect(typeof (ours.Encoder.prototype as any)[m], `Encoder#${m}`).toBe("function");
    for (const m of ["decode", "decodeMulti", "decodeAsync", "decodeArrayStream", "decodeStream"]) {
      expect(typeof (ours.Decoder.prototype as any)[m], `Decoder#${m}`).toBe("function");
    }
    for (const m of ["register", "tryToEncode", "decode"]) expect(typeof (ours.ExtensionCodec.prototype as any)[m], `ExtensionCodec#${m}`).toBe("function");
  });
});

describe("the built package gives @msgpack/msgpack's names in every form", () => {
  beforeAll(() => assertBuilt());
  const names = Object.keys(theirModule).sort();

  test("ESM: import from dist/compat/msgpack.js", async () => {
    const esm = (await import(/* @vite-ignore */ join(ROOT, "dist/compat/msgpack.js"))) as Record<string, unknown>;
    expect(names.filter((n) => !(n in esm))).toEqual([]);
  });

  test("CommonJS: require() of dist/compat/msgpack.cjs", () => {
    const cjs = createRequire(import.meta.url)(join(ROOT, "dist/compat/msgpack.cjs")) as Record<string, unknown>;
    expect(names.filter((n) => !(n in cjs))).toEqual([]);
  });

  test("a classic script: dist/browser/msgpack.iife.min.js defines them on globalThis.ResizableMsgpack (@msgpack/msgpack's UMD global is MessagePack)", () => {
    const context: Record<string, unknown> = { TextEncoder, TextDecoder };
    runInNewContext(readFileSync(join(ROOT, "dist/browser/msgpack.iife.min.js"), "utf8"), context);
    const global = context.ResizableMsgpack as Record<string, unknown>;
    expect(global).toBeDefined();
    expect(names.filter((n) => !(n in global))).toEqual([]);
  });
});

// ---------------------------------------------------------------- types

/**
 * A TypeScript program written for @msgpack/msgpack 3.1.3, importing
 * "@resizable/msgpack/compat/msgpack". It is type-checked twice: against @msgpack/msgpack's
 * declarations (so the program itself is right) and against our src/.
 */
const TYPED_PROGRAM = `
import {
  encode, decode, decodeMulti, decodeAsync, decodeArrayStream, decodeMultiStream,
  Encoder, Decoder, DecodeError, ExtensionCodec, ExtData,
  EXT_TIMESTAMP, encodeDateToTimeSpec, encodeTimeSpecToTimestamp, decodeTimestampToTimeSpec,
  encodeTimestampExtension, decodeTimestampExtension,
  type EncoderOptions, type DecoderOptions,
  type ExtensionCodecType, type ExtensionEncoderType, type ExtensionDecoderType,
} from "@resizable/msgpack/compat/msgpack";

const encoderOptions: EncoderOptions = {
  useBigInt64: true, forceIntegerToFloat: false, maxDepth: 100, initialBufferSize: 2048,
  sortKeys: true, forceFloat32: false, ignoreUndefined: true,
};
const decoderOptions: DecoderOptions = {
  useBigInt64: true, rawStrings: false, maxStrLength: 10, maxBinLength: 10, maxArrayLength: 10,
  maxMapLength: 10, maxExtLength: 10, mapKeyConverter: (key: unknown) => String(key),
};
const bytes: Uint8Array = encode({ a: 1 }, encoderOptions);
const value: unknown = decode(bytes, decoderOptions);
decode([0x90]);
decode(bytes.buffer);
decode(new DataView(bytes.buffer));
for (const item of decodeMulti(bytes, decoderOptions)) console.log(item, value);
for (const item of decodeMulti([1, 2])) console.log(item);

class Tracker {
  seen: unknown[] = [];
}
const codec = new ExtensionCodec<Tracker>();
const encodeSet: ExtensionEncoderType<Tracker> = (input, context) => {
  context.seen.push(input);
  return input instanceof Set ? (dataPos: number) => new Uint8Array([dataPos & 0xff]) : null;
};
const decodeSet: ExtensionDecoderType<Tracker> = (data, extensionType, context) => {
  context.seen.push(extensionType);
  return new Set(data);
};
codec.register({ type: 0, encode: encodeSet, decode: decodeSet });
const asType: ExtensionCodecType<Tracker> = codec;
const tracker = new Tracker();
encode(new Set([1]), { extensionCodec: codec, context: tracker });
decode(bytes, { extensionCodec: asType, context: tracker });
new Encoder<Tracker>({ extensionCodec: codec, context: tracker }).encode(1);
new Decoder<Tracker>({ extensionCodec: codec, context: tracker }).decode(bytes);

const plainCodec = new ExtensionCodec();
plainCodec.register({
  type: 1,
  encode(input: unknown): Uint8Array | null {
    return typeof input === "bigint" ? encode(String(input)) : null;
  },
  decode(data: Uint8Array): bigint {
    const source = decode(data);
    if (typeof source !== "string") throw new DecodeError("not a bigint source: " + typeof source);
    return BigInt(source);
  },
});
const big: unknown = decode(encode(2n ** 70n, { extensionCodec: plainCodec }), { extensionCodec: plainCodec });
const defaultCodec: ExtensionCodecType<undefined> = ExtensionCodec.defaultCodec;
const viaDefault = defaultCodec.tryToEncode(new Date(0), undefined);
const dateAgain: unknown = defaultCodec.decode(new Uint8Array(4), EXT_TIMESTAMP, undefined);
console.log(big, viaDefault?.type, dateAgain);

const shared: Uint8Array = new Encoder().encodeSharedRef([1, 2]);
const ext = new ExtData(1, new Uint8Array([1]));
const lazyExt = new ExtData(2, (pos: number) => new Uint8Array([pos]));
const error: Error = new DecodeError("message");
const spec: { sec: number; nsec: number } = encodeDateToTimeSpec(new Date());
const stamp: Uint8Array = encodeTimeSpecToTimestamp(spec);
const back: { sec: number; nsec: number } = decodeTimestampToTimeSpec(stamp);
const date: Date = decodeTimestampExtension(stamp);
const maybe: Uint8Array | null = encodeTimestampExtension(date);
const type: number = EXT_TIMESTAMP;
console.log(shared, ext.type, lazyExt.data, error.message, back.sec, maybe, type);

async function streams(stream: ReadableStream<Uint8Array>, iterable: AsyncIterable<Uint8Array>, blob: Blob): Promise<void> {
  console.log(await decodeAsync(stream), await decodeAsync(iterable, decoderOptions), await decodeAsync(blob.stream()));
  for await (const item of decodeArrayStream(stream, decoderOptions)) console.log(item);
  for await (const item of decodeMultiStream(iterable)) console.log(item);
  const decoder = new Decoder(decoderOptions);
  console.log(await decoder.decodeAsync(iterable));
  for await (const item of decoder.decodeArrayStream(iterable)) console.log(item);
  for await (const item of decoder.decodeStream(iterable)) console.log(item);
}
console.log(streams);
`;

function runTsc(project: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", project], { timeout: 240_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, out: `${stdout}${stderr}` });
    });
  });
}

describe("types: a program typed for @msgpack/msgpack type-checks against ours", () => {
  const dir = mkdtempSync(join(tmpdir(), "compat-types-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function project(name: string, target: string): string {
    const path = join(dir, name);
    writeFileSync(join(dir, "program.ts"), TYPED_PROGRAM);
    const compilerOptions = {
      target: "ES2022", module: "ESNext", moduleResolution: "Bundler", lib: ["ES2024", "DOM"], types: [],
      strict: true, noEmit: true, skipLibCheck: true, allowImportingTsExtensions: true,
      paths: { "@resizable/msgpack/compat/msgpack": [target] },
    };
    writeFileSync(path, JSON.stringify({ compilerOptions, files: ["program.ts"] }));
    return path;
  }

  test("the program is a valid @msgpack/msgpack 3.1.3 program", async () => {
    const r = await runTsc(project("tsconfig.theirs.json", join(ROOT, "node_modules/@msgpack/msgpack/dist.esm/index.d.ts")));
    expect(r.out).toBe("");
    expect(r.code).toBe(0);
  });

  test("the same program type-checks against src/compat/msgpack.ts (EncoderOptions, DecoderOptions, ExtensionCodecType, ExtensionEncoderType, ExtensionDecoderType...)", async () => {
    const r = await runTsc(project("tsconfig.ours.json", join(ROOT, "src/compat/msgpack.ts")));
    expect(r.out).toBe("");
    expect(r.code).toBe(0);
  });
});

// ---------------------------------------------------------------- the format

describe("encode() and decode() agree with @msgpack/msgpack", () => {
  test("every corpus value encodes to the same bytes", () => {
    const values = corpus(theirs);
    corpus(ours).forEach((value, i) => {
      const label = `encode(${describeValue(value)})`;
      expect(hex(ours.encode(value)), label).toBe(hex(theirs.encode(values[i])));
    });
  });

  test("both libraries decode each other's bytes to the same values", () => {
    for (const value of corpus(theirs)) {
      const bytes = theirs.encode(value);
      expectSame((lib) => lib.decode(bytes), `decode(encode(${describeValue(value)}))`);
    }
  });

  test("decoding maps gives plain objects whose prototype is Object.prototype", () => {
    expectSame((lib) => lib.decode(fromHex("80")));
    expectSame((lib) => lib.decode(fromHex("82a16101a162c0")));
  });

  test("number map keys become string properties, as in @msgpack/msgpack", () => {
    // {1: "a", -2: "b", 1.5: "c", "k": 4}
    const bytes = fromHex("84" + "01a161" + "fea162" + "cb3ff8000000000000a163" + "a16b04");
    expectSame((lib) => lib.decode(bytes));
    const value = ours.decode(bytes) as Record<string, unknown>;
    expect(value).not.toBeInstanceOf(Map);
    expect(value["1"]).toBe("a");
    expect(value["1.5"]).toBe("c");
  });
});

describe("seeded random programs give the same results", () => {
  test("encode(value, random options) writes the same bytes", () => {
    forSeeds(200, (r) => {
      const value = randomValue(r, { maxDepth: 4 });
      const options = {
        sortKeys: r.bool(),
        forceFloat32: r.bool(),
        ignoreUndefined: r.bool(),
        forceIntegerToFloat: r.bool(0.2),
        maxDepth: r.bool(0.3) ? r.int(1, 6) : undefined,
        initialBufferSize: r.bool(0.3) ? r.int(1, 5000) : undefined,
      };
      const a = attempt(() => hex(theirs.encode(value, options)));
      const b = attempt(() => hex(ours.encode(value, options)));
      expect(b.ok, `${JSON.stringify(options)}: ours ${b.ok ? "encodes" : `throws ${String((b as { error: unknown }).error)}`}`).toBe(a.ok);
      if (a.ok && b.ok) expect(b.value, JSON.stringify(options)).toBe(a.value);
    });
  });

  test("decode(bytes, random options) gives the same values or errors of the same classes", () => {
    forSeeds(200, (r) => {
      const bytes = theirs.encode(randomValue(r, { maxDepth: 4 }));
      const options = {
        useBigInt64: r.bool(),
        rawStrings: r.bool(0.3),
        maxStrLength: r.bool(0.3) ? r.int(0, 300) : undefined,
        maxBinLength: r.bool(0.3) ? r.int(0, 600) : undefined,
        maxArrayLength: r.bool(0.3) ? r.int(0, 8) : undefined,
        maxMapLength: r.bool(0.3) ? r.int(0, 8) : undefined,
      };
      const cut = r.bool(0.2) ? r.int(0, bytes.length - 1) : bytes.length;
      expectSame((lib) => lib.decode(bytes.subarray(0, cut), options), `${JSON.stringify(options)}, ${cut} of ${bytes.length} bytes`);
    });
  });
});

// ---------------------------------------------------------------- timestamp helpers

describe("timestamp helpers give the same outputs and errors", () => {
  const DATES = [0, 1, -1, 999, -999, 1000, -1000, 1_700_000_000_123, 2 ** 32 * 1000, 2 ** 32 * 1000 - 1, 2 ** 34 * 1000 + 5, -8.64e15, 8.64e15, -62_135_596_800_000];
  const SPECS = [
    { sec: 0, nsec: 0 }, { sec: 1, nsec: 0 }, { sec: 2 ** 32 - 1, nsec: 0 }, { sec: 2 ** 32, nsec: 0 }, { sec: 1, nsec: 1 },
    { sec: 2 ** 34 - 1, nsec: 999_999_999 }, { sec: 2 ** 34, nsec: 0 }, { sec: -1, nsec: 0 }, { sec: -1, nsec: 999_000_000 },
    { sec: -(2 ** 40), nsec: 5 }, { sec: 1_700_000_000, nsec: 123_456_789 },
  ];

  test("new Date(-1) is { sec: -1, nsec: 999000000 }", () => {
    expect(ours.encodeDateToTimeSpec(new Date(-1))).toEqual({ sec: -1, nsec: 999_000_000 });
  });

  test("encodeDateToTimeSpec and encodeTimestampExtension match for dates before, at and after 1970 and at the 32/64/96-bit edges", () => {
    for (const ms of DATES) {
      expectSame((lib) => lib.encodeDateToTimeSpec(new Date(ms)), `encodeDateToTimeSpec(${ms})`);
      expectSame((lib) => lib.encodeTimestampExtension(new Date(ms)), `encodeTimestampExtension(${ms})`);
    }
  });

  test("encodeTimestampExtension returns null for anything but a Date", () => {
    for (const v of [0, "2020-01-01", null, {}, { getTime: () => 0 }]) expectSame((lib) => lib.encodeTimestampExtension(v), `encodeTimestampExtension(${String(v)})`);
  });

  test("encodeTimeSpecToTimestamp picks the same 4, 8 or 12-byte form", () => {
    for (const spec of SPECS) expectSame((lib) => lib.encodeTimeSpecToTimestamp(spec), `encodeTimeSpecToTimestamp(${JSON.stringify(spec)})`);
  });

  test("decodeTimestampToTimeSpec and decodeTimestampExtension read each form, also from a view at an offset", () => {
    for (const spec of SPECS) {
      const data = theirs.encodeTimeSpecToTimestamp(spec);
      const padded = new Uint8Array(data.length + 3);
      padded.set(data, 3);
      const view = padded.subarray(3);
      expectSame((lib) => lib.decodeTimestampToTimeSpec(view), `decodeTimestampToTimeSpec(${JSON.stringify(spec)})`);
      if (Math.abs(spec.sec) < 8e12) expectSame((lib) => lib.decodeTimestampExtension(view), `decodeTimestampExtension(${JSON.stringify(spec)})`);
    }
  });

  test("a timestamp payload that is not 4, 8 or 12 bytes is a DecodeError naming the size", () => {
    for (const n of [0, 1, 5, 16]) {
      expectSame((lib) => lib.decodeTimestampToTimeSpec(new Uint8Array(n)), `decodeTimestampToTimeSpec(${n} bytes)`);
      const e = thrown(() => ours.decodeTimestampToTimeSpec(new Uint8Array(n))) as Error;
      expect(e.message).toMatch(/timestamp/i);
      expect(e.message).toMatch(new RegExp(`\\b${n}\\b`));
      expectSame((lib) => lib.decode(fromHex("c7" + n.toString(16).padStart(2, "0") + "ff" + "00".repeat(n))), `decode(timestamp of ${n} bytes)`);
    }
  });
});

// ---------------------------------------------------------------- inputs

describe("every input @msgpack/msgpack accepts", () => {
  const bytes = theirs.encode({ a: [1, "two", new Uint8Array([3])] });
  const offset = (n: number) => {
    const u = new Uint8Array(bytes.length + n);
    u.set(bytes, n);
    return u;
  };
  const INPUTS: Array<[string, () => any]> = [
    ["a Uint8Array", () => bytes],
    ["a plain array of byte values (ArrayLike<number>)", () => Array.from(bytes)],
    ["an array-like object", () => Object.assign({}, Array.from(bytes), { length: bytes.length })],
    ["an ArrayBuffer", () => bytes.slice().buffer],
    ["a SharedArrayBuffer", () => {
      const sab = new SharedArrayBuffer(bytes.length);
      new Uint8Array(sab).set(bytes);
      return sab;
    }],
    ["a Uint8Array at an offset", () => offset(3).subarray(3)],
    ["a DataView at an offset", () => new DataView(offset(5).buffer, 5)],
    ["an Int8Array at an offset", () => new Int8Array(offset(1).buffer, 1)],
    ["a Uint16Array (its bytes)", () => new Uint16Array(offset(bytes.length % 2).buffer)],
    ["a Node Buffer", () => Buffer.from(bytes)],
  ];

  test.for(INPUTS)("decode() takes %s", ([label, make]) => {
    if (label.startsWith("a Uint16Array")) {
      // a Uint16Array of an odd-length message holds a leading zero byte: check both libraries agree on what its bytes mean
      expectSame((lib) => [...lib.decodeMulti(make())], label);
      return;
    }
    const value = expectSame((lib) => lib.decode(make()), label);
    expect(plain(value)).toEqual(plain(theirs.decode(bytes)));
  });

  test.for(INPUTS)("decodeMulti() and Decoder#decodeMulti() take %s", ([label, make]) => {
    expectSame((lib) => [...lib.decodeMulti(make())], label);
    expectSame((lib) => [...new lib.Decoder().decodeMulti(make())], label);
  });
});

// ---------------------------------------------------------------- Encoder / Decoder

describe("Encoder and Decoder instances", () => {
  test("an Encoder gives independent results, each the same bytes as @msgpack/msgpack's", () => {
    const encoder = new ours.Encoder();
    const a = encoder.encode([1, 2, 3]);
    const b = encoder.encode("overwrite?");
    expect(hex(a)).toBe(hex(theirs.encode([1, 2, 3])));
    expect(hex(b)).toBe(hex(theirs.encode("overwrite?")));
  });

  test("Encoder#encodeSharedRef() returns the encoding as a view of the encoder's own buffer, reused by the next call", () => {
    const encoder = new ours.Encoder();
    const first = encoder.encodeSharedRef({ a: [1, 2] });
    expect(hex(first)).toBe(hex(theirs.encode({ a: [1, 2] })));
    const second = encoder.encodeSharedRef("x");
    expect(hex(second)).toBe(hex(theirs.encode("x")));
    // one buffer, reused: the first result is only valid until the next call
    expect(second.buffer).toBe(first.buffer);
  });

  test("Encoder#encodeSharedRef() is right for outputs larger than its initial buffer, and after them", () => {
    const encoder = new ours.Encoder({ initialBufferSize: 16 });
    const big = { s: "é".repeat(100_000), n: Array.from({ length: 5000 }, (_, i) => i) };
    expect(hex(encoder.encodeSharedRef(big))).toBe(hex(theirs.encode(big)));
    expect(hex(encoder.encodeSharedRef([true]))).toBe(hex(theirs.encode([true])));
  });

  test("an Encoder reads its options once, at construction, as @msgpack/msgpack's does", () => {
    for (const lib of [theirs, ours]) {
      const options = { sortKeys: true };
      const encoder = new lib.Encoder(options);
      options.sortKeys = false;
      expect(hex(encoder.encode({ b: 1, a: 2 }))).toBe(hex(theirs.encode({ a: 2, b: 1 })));
    }
  });

  test("a Decoder decodes, and decodes many values, repeatedly", () => {
    const decoder = new ours.Decoder();
    for (const value of [1, "a", [1, { b: 2 }]]) expect(decoder.decode(theirs.encode(value))).toEqual(value);
    expect([...decoder.decodeMulti(fromHex("0102a161"))]).toEqual([1, 2, "a"]);
    expect([...decoder.decodeMulti(new Uint8Array(0))]).toEqual([]);
  });

  test("an extension may call encode() and decode() from inside (re-entrancy), on the same instance too", () => {
    const codec = new ours.ExtensionCodec();
    let encoder: InstanceType<Lib["Encoder"]> | undefined;
    let decoder: InstanceType<Lib["Decoder"]> | undefined;
    codec.register({
      type: 7,
      encode: (v) => (v instanceof Set ? encoder!.encodeSharedRef([...v]).slice() : null),
      decode: (data) => new Set(decoder!.decode(data) as unknown[]),
    });
    encoder = new ours.Encoder({ extensionCodec: codec });
    decoder = new ours.Decoder({ extensionCodec: codec });
    const value = [new Set([1, new Set([2])]), "after"];
    const bytes = encoder.encode(value);
    expect(decoder.decode(bytes)).toEqual(value);
  });
});

// ---------------------------------------------------------------- encode options

describe("encode options mean what they mean in @msgpack/msgpack", () => {
  test("useBigInt64 writes every bigint as int 64 / uint 64, so 0n comes back as 0n", () => {
    for (const n of [0n, 1n, -1n, 127n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n]) {
      const bytes = expectSameBytes(n, { useBigInt64: true });
      expect(ours.decode(bytes, { useBigInt64: true })).toBe(n);
    }
  });

  test("useBigInt64 on both sides keeps numbers numbers and bigints bigints", () => {
    const value = [0, 5, -5, 2 ** 31, -(2 ** 31) - 1, 2 ** 40, -(2 ** 40), Number.MAX_SAFE_INTEGER, 1.5, 5n, 2n ** 40n, -(2n ** 40n)];
    const opts = { useBigInt64: true };
    const viaOurs = ours.decode(ours.encode(value, opts), opts);
    expect(viaOurs).toEqual(value);
    // and @msgpack/msgpack reads our bytes the same way
    expect(theirs.decode(ours.encode(value, opts), opts)).toEqual(value);
    expect(ours.decode(theirs.encode(value, opts), opts)).toEqual(value);
  });

  test("forceIntegerToFloat writes integers as float 64, or float 32 with forceFloat32; bigints are not affected", () => {
    for (const v of [0, 3, -3, 255, 2 ** 40, -(2 ** 40), 1.5, [1, { a: 2 }]]) {
      expectSameBytes(v, { forceIntegerToFloat: true });
      expectSameBytes(v, { forceIntegerToFloat: true, forceFloat32: true });
    }
    expectSameBytes(7n, { forceIntegerToFloat: true, useBigInt64: true });
  });

  test("forceFloat32 writes non-integers as float 32 and keeps integers as integers", () => {
    for (const v of [1.5, 0.1, -2.25, 1e40, NaN, Infinity, 3, -200, 2 ** 40]) expectSameBytes(v, { forceFloat32: true });
  });

  test("maxDepth refuses deep values with an Error that says the value is too deep", () => {
    const e = thrown(() => ours.encode(nested(20, 1), { maxDepth: 10 }));
    expect(e).toBeInstanceOf(Error);
    expect((e as Error).message).toMatch(/too deep|depth/i);
  });

  test("initialBufferSize changes nothing in the output, from 1 byte up", () => {
    const value = { s: "x".repeat(5000), a: Array.from({ length: 3000 }, (_, i) => i * 1.5), b: new Uint8Array(70_000) };
    for (const initialBufferSize of [1, 16, 2048, 1 << 20]) {
      expectSameBytes(value, { initialBufferSize });
      expectSameBytes([1], { initialBufferSize });
    }
  });

  test("sortKeys writes keys in the same order (code unit order), nested objects too", () => {
    const value = { b: 1, a: { z: 1, y: [{ d: 1, c: 2 }] }, "é": 3, Z: 4, "😀": 5, "\uffff": 6, "10": 7, "9": 8 };
    expectSameBytes(value, { sortKeys: true });
  });

  test("ignoreUndefined leaves out undefined properties, not undefined array items", () => {
    expectSameBytes({ a: undefined, b: 1, c: { d: undefined }, e: [undefined] }, { ignoreUndefined: true });
    expectSameBytes(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i % 3 ? i : undefined])), { ignoreUndefined: true });
  });
});

// ---------------------------------------------------------------- decode options

describe("decode options mean what they mean in @msgpack/msgpack", () => {
  test("useBigInt64 decodes int 64 and uint 64 as bigint, other integers as numbers", () => {
    const bytes = fromHex("96" + "cf0000000000000005" + "d3fffffffffffffffb" + "cfffffffffffffffff" + "d38000000000000000" + "ce00000005" + "05");
    expectSame((lib) => lib.decode(bytes, { useBigInt64: true }));
    expect(ours.decode(bytes, { useBigInt64: true })).toEqual([5n, -5n, 2n ** 64n - 1n, -(2n ** 63n), 5, 5]);
  });

  test("rawStrings decodes string values as Uint8Array and keeps map keys strings", () => {
    const bytes = theirs.encode({ key: "välue", list: ["a", ""], nested: { k: "v" } });
    expectSame((lib) => lib.decode(bytes, { rawStrings: true }));
    const value = ours.decode(bytes, { rawStrings: true }) as { key: unknown; list: unknown[] };
    expect(value.key).toBeInstanceOf(Uint8Array);
    expect(Array.from(value.key as Uint8Array)).toEqual(utf8("välue"));
    expect(Object.keys(value)).toEqual(["key", "list", "nested"]);
  });

  test("rawStrings returns invalid UTF-8 as its bytes", () => {
    const bytes = fromHex("92a2fffe" + "d903c0afff");
    expectSame((lib) => lib.decode(bytes, { rawStrings: true }));
  });

  test("with rawStrings, maxBinLength limits string values and maxStrLength limits keys", () => {
    const bytes = theirs.encode({ key: "value" });
    for (const opts of [
      { rawStrings: true, maxBinLength: 5 },
      { rawStrings: true, maxBinLength: 4 },
      { rawStrings: true, maxBinLength: 100, maxStrLength: 4 },
      { rawStrings: true, maxBinLength: 100, maxStrLength: 2 },
    ]) {
      expectSame((lib) => lib.decode(bytes, opts), JSON.stringify(opts));
    }
  });

  test("mapKeyConverter is called with every key, strings included, and its result is the property name", () => {
    const bytes = theirs.encode({ a: 1, b: { c: 2 } });
    for (const lib of [theirs, ours]) {
      const seen: unknown[] = [];
      const value = lib.decode(bytes, {
        mapKeyConverter: (key) => {
          seen.push(key);
          return String(key).toUpperCase();
        },
      });
      expect(value).toEqual({ A: 1, B: { C: 2 } });
      expect(seen.sort()).toEqual(["a", "b", "c"]);
    }
  });

  test("mapKeyConverter turns non-string keys into property names (booleans, nil, arrays, binaries, maps)", () => {
    // {true: 1, nil: 2, [1, 2]: 3, bin(0x01): 4, {}: 5}
    const bytes = fromHex("85" + "c301" + "c002" + "92010203" + "c4010104" + "8005");
    const convert = (key: unknown): string => JSON.stringify(key instanceof Uint8Array ? Array.from(key) : key);
    expectSame((lib) => lib.decode(bytes, { mapKeyConverter: convert }));
    expect(ours.decode(bytes, { mapKeyConverter: convert })).toEqual({ true: 1, null: 2, "[1,2]": 3, "[1]": 4, "{}": 5 });
  });

  test("mapKeyConverter may return numbers, which become string properties", () => {
    const bytes = theirs.encode({ a: 1, bb: 2 });
    expectSame((lib) => lib.decode(bytes, { mapKeyConverter: (key) => String(key).length }));
  });

  test("maxStrLength, maxBinLength, maxArrayLength, maxMapLength and maxExtLength allow the limit and refuse one more", () => {
    const CASES: Array<[string, unknown, number]> = [
      ["maxStrLength", "abcd", 4],
      ["maxStrLength", { abcd: 1 }, 4],
      ["maxBinLength", new Uint8Array(4), 4],
      ["maxArrayLength", [1, 2, 3, 4], 4],
      ["maxMapLength", { a: 1, b: 2, c: 3, d: 4 }, 4],
      ["maxExtLength", new theirModule.ExtData(1, new Uint8Array(4)), 4],
      ["maxExtLength", new Date(1), 8],
    ];
    for (const [option, value, limit] of CASES) {
      const bytes = theirs.encode([value]);
      for (const n of [limit, limit - 1]) expectSame((lib) => lib.decode(bytes, { [option]: n } as never), `${option}: ${n} for ${describeValue(value)}`);
      const e = thrown(() => ours.decode(bytes, { [option]: limit - 1 } as never)) as Error;
      expect(e).toBeInstanceOf(ours.DecodeError);
      expect(e.message).toMatch(/max|exceed|long|length/i);
    }
  });
});

// ---------------------------------------------------------------- extensions

describe("extensions work as in @msgpack/msgpack", () => {
  /** A bigint codec written the way @msgpack/msgpack's README suggests: safe integers as numbers, others as decimal strings. */
  function bigintCodec(lib: Lib) {
    const codec = new lib.ExtensionCodec();
    codec.register({
      type: 0,
      encode(input) {
        if (typeof input !== "bigint") return null;
        const safe = input >= BigInt(Number.MIN_SAFE_INTEGER) && input <= BigInt(Number.MAX_SAFE_INTEGER);
        return lib.encode(safe ? Number(input) : input.toString());
      },
      decode(data) {
        const source = lib.decode(data);
        if (typeof source !== "string" && typeof source !== "number") throw new lib.DecodeError(`not a bigint source: ${typeof source}`);
        return BigInt(source);
      },
    });
    return codec;
  }

  test("the documented BigInt-as-extension recipe round-trips every bigint, beyond 64 bits too", () => {
    const values = [0n, 1n, -1n, 2n ** 53n, -(2n ** 63n), 2n ** 64n - 1n, 2n ** 70n, -(10n ** 30n)];
    for (const value of values) {
      const bytes = expectSameBytes(value, (lib) => ({ extensionCodec: bigintCodec(lib) }), `${value}n through the bigint extension`);
      expect(ours.decode(bytes, { extensionCodec: bigintCodec(ours) })).toBe(value);
    }
    expect(ours.decode(ours.encode({ list: [1n, 2n ** 70n] }, { extensionCodec: bigintCodec(ours) }), { extensionCodec: bigintCodec(ours) })).toEqual({ list: [1n, 2n ** 70n] });
  });

  test("an error thrown by an extension decoder reaches the caller unchanged (the recipe's DecodeError)", () => {
    const codec = bigintCodec(ours);
    const bad = fromHex("d400" + "c3"); // fixext 1, type 0, payload `true`: not a bigint source
    const e = thrown(() => ours.decode(bad, { extensionCodec: codec })) as Error;
    expect(e).toBeInstanceOf(ours.DecodeError);
    expect(e.message).toBe("not a bigint source: boolean");
  });

  test("with useBigInt64 the bigint extension is not asked: bigints are int 64 / uint 64", () => {
    for (const lib of [theirs, ours]) {
      const codec = new lib.ExtensionCodec();
      let asked = 0;
      codec.register({ type: 0, encode: (v) => (typeof v === "bigint" ? (asked++, new Uint8Array([1])) : null), decode: () => null });
      expect(hex(lib.encode(5n, { extensionCodec: codec, useBigInt64: true }))).toBe("cf0000000000000005");
      expect(asked).toBe(0);
    }
  });

  test("extensions are tried before the built-in types: a codec may claim arrays, plain objects, binaries and Maps", () => {
    const claim = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      codec.register({ type: 1, encode: (v) => (Array.isArray(v) && v.length === 2 ? lib.encode(v.join("+")) : null), decode: (d) => String(lib.decode(d)).split("+") });
      codec.register({ type: 2, encode: (v) => (v instanceof Uint8Array && v.length === 1 ? new Uint8Array([v[0]! ^ 0xff]) : null), decode: (d) => d });
      codec.register({ type: 3, encode: (v) => (v instanceof Map ? lib.encode([...v], { extensionCodec: codec }) : null), decode: (d) => new Map(lib.decode(d, { extensionCodec: codec }) as []) });
      codec.register({ type: 4, encode: (v) => (v !== null && typeof v === "object" && "tag" in v ? new Uint8Array([4]) : null), decode: () => ({ tag: true }) });
      return codec;
    };
    const value = [[1, 2], [1, 2, 3], new Uint8Array([7]), new Map<unknown, unknown>([[1, [3, 4]]]), { tag: 1 }, { other: [5, 6] }];
    const bytes = expectSameBytes(value, (lib) => ({ extensionCodec: claim(lib) }), "extensions claiming built-in types");
    expectSame((lib) => lib.decode(bytes, { extensionCodec: claim(lib) }));
  });

  test("the documented Set and Map recipe works unchanged", () => {
    const recipe = (lib: Lib) => {
      const extensionCodec = new lib.ExtensionCodec();
      extensionCodec.register({
        type: 0,
        encode: (object) => (object instanceof Set ? lib.encode([...object], { extensionCodec }) : null),
        decode: (data) => new Set(lib.decode(data, { extensionCodec }) as unknown[]),
      });
      extensionCodec.register({
        type: 1,
        encode: (object) => (object instanceof Map ? lib.encode([...object], { extensionCodec }) : null),
        decode: (data) => new Map(lib.decode(data, { extensionCodec }) as Array<[unknown, unknown]>),
      });
      return extensionCodec;
    };
    const value = [new Set([1, "a", new Set([2])]), new Map<unknown, unknown>([["k", new Map([[1, 2]])], [true, null]])];
    const bytes = expectSameBytes(value, (lib) => ({ extensionCodec: recipe(lib) }), "Set/Map recipe");
    const back = ours.decode(bytes, { extensionCodec: recipe(ours) });
    expect(back).toEqual(value);
  });

  test("context reaches every extension encoder and decoder, nested calls included", () => {
    class Tracker {
      readonly log: string[] = [];
    }
    class Thing {
      readonly name: string;
      readonly child: Thing | undefined;
      constructor(name: string, child?: Thing) {
        this.name = name;
        this.child = child;
      }
    }
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec<Tracker>();
      codec.register({
        type: 5,
        encode: (v, context) => {
          if (!(v instanceof Thing)) return null;
          context.log.push(`enc ${v.name}`);
          return lib.encode([v.name, v.child ?? null], { extensionCodec: codec, context });
        },
        decode: (data, type, context) => {
          const [name, child] = lib.decode(data, { extensionCodec: codec, context }) as [string, Thing | null];
          context.log.push(`dec ${name} (${type})`);
          return new Thing(name, child ?? undefined);
        },
      });
      const encodeContext = new Tracker();
      const decodeContext = new Tracker();
      const bytes = lib.encode({ t: new Thing("outer", new Thing("inner")) }, { extensionCodec: codec, context: encodeContext });
      const back = lib.decode(bytes, { extensionCodec: codec, context: decodeContext }) as { t: Thing };
      const viaInstances = new lib.Decoder({ extensionCodec: codec, context: new Tracker() }).decode(new lib.Encoder({ extensionCodec: codec, context: new Tracker() }).encode(back));
      return { bytes, back, encodeLog: encodeContext.log, decodeLog: decodeContext.log, viaInstances };
    };
    const a = run(theirs);
    const b = run(ours);
    expect(hex(b.bytes)).toBe(hex(a.bytes));
    expect(b.encodeLog).toEqual(a.encodeLog);
    expect(b.decodeLog).toEqual(a.decodeLog);
    expect(b.back.t).toBeInstanceOf(Thing);
    expect(b.back.t.child?.name).toBe("inner");
    expect(b.viaInstances).toEqual(b.back);
  });

  test("an extension encode may return a function of the payload's position (the Float32Array alignment recipe)", () => {
    const recipe = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      codec.register({
        type: 0,
        encode: (object) => {
          if (!(object instanceof Float32Array)) return null;
          return (pos: number) => {
            const bpe = Float32Array.BYTES_PER_ELEMENT;
            const padding = 1 + ((bpe - ((pos + 1) % bpe)) % bpe);
            const payload = new Uint8Array(padding + object.byteLength);
            payload[0] = padding;
            payload.set(new Uint8Array(object.buffer, object.byteOffset, object.byteLength), padding);
            return payload;
          };
        },
        decode: (data) => {
          const padding = data[0]!;
          return new Float32Array(data.buffer, data.byteOffset + padding, (data.byteLength - padding) / 4);
        },
      });
      return codec;
    };
    for (const prefix of ["", "a", "ab", "abc", "x".repeat(40), "y".repeat(300_000)]) {
      const value = { p: prefix, f: new Float32Array([1.5, -2, 3.25]), more: [new Float32Array([7])] };
      const bytes = expectSameBytes(value, (lib) => ({ extensionCodec: recipe(lib) }), `aligned Float32Array after ${prefix.length} chars`);
      const back = ours.decode(bytes, { extensionCodec: recipe(ours) }) as typeof value;
      expect(back.f).toBeInstanceOf(Float32Array);
      expect(Array.from(back.f)).toEqual([1.5, -2, 3.25]);
      expect(Array.from(back.more[0]!)).toEqual([7]);
    }
  });

  test("an ExtData whose data is a function is written as ext 32 with the position of its payload", () => {
    const make = (lib: Lib) => [1, new lib.ExtData(4, (pos: number) => new Uint8Array([pos, 1]))];
    expect(hex(ours.encode(make(ours)))).toBe(hex(theirs.encode(make(theirs))));
  });

  test("an ExtData is written as is, and an unregistered type decodes to an ExtData", () => {
    for (const size of [0, 1, 2, 3, 4, 8, 16, 17, 255, 256, 65536]) {
      const data = Uint8Array.from({ length: size }, (_, i) => i & 0xff);
      const bytes = hex(ours.encode(new ours.ExtData(42, data)));
      expect(bytes, `ExtData of ${size} bytes`).toBe(hex(theirs.encode(new theirs.ExtData(42, data))));
      expectSame((lib) => lib.decode(fromHex(bytes)), `decode ExtData of ${size} bytes`);
    }
  });

  test("extension decoders receive the payload as a view into the input", () => {
    for (const lib of [theirs, ours]) {
      const input = fromHex("92a178" + "d705" + "0001020304050607");
      let seen: Uint8Array | undefined;
      const codec = new lib.ExtensionCodec();
      codec.register({ type: 5, encode: () => null, decode: (data) => ((seen = data), data.length) });
      expect(lib.decode(input, { extensionCodec: codec })).toEqual(["x", 8]);
      expect(seen!.buffer === input.buffer, "the payload is a view of the input's buffer, not a copy").toBe(true);
      expect(seen!.byteOffset).toBe(5);
    }
  });

  test("registering a type again replaces its encoder and decoder", () => {
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      codec.register({ type: 3, encode: (v) => (v instanceof Set ? new Uint8Array([1]) : null), decode: () => "first" });
      const before = lib.encode(new Set(), { extensionCodec: codec });
      codec.register({ type: 3, encode: (v) => (v instanceof Set ? new Uint8Array([2]) : null), decode: () => "second" });
      const after = lib.encode(new Set(), { extensionCodec: codec });
      return [hex(before), hex(after), lib.decode(after, { extensionCodec: codec })];
    };
    expect(run(ours)).toEqual(run(theirs));
  });

  test("an extension registered after first use is honoured", () => {
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      const encoder = new lib.Encoder({ extensionCodec: codec });
      const decoder = new lib.Decoder({ extensionCodec: codec });
      const before = encoder.encode(new Date(0));
      codec.register({ type: 9, encode: (v) => (v instanceof RegExp ? lib.encode(v.source) : null), decode: (d) => new RegExp(lib.decode(d) as string) });
      const after = encoder.encode(/a+b/);
      return [hex(before), hex(after), String(decoder.decode(after)), String(lib.decode(after, { extensionCodec: codec }))];
    };
    expect(run(ours)).toEqual(run(theirs));
  });

  test("registering EXT_TIMESTAMP replaces the Date mapping (the Temporal recipe) with the timestamp helpers", () => {
    class Instant {
      readonly epochNanoseconds: bigint;
      constructor(epochNanoseconds: bigint) {
        this.epochNanoseconds = epochNanoseconds;
      }
    }
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      codec.register({
        type: lib.EXT_TIMESTAMP,
        encode: (input) => {
          if (!(input instanceof Instant)) return null;
          const sec = input.epochNanoseconds / 1_000_000_000n - (input.epochNanoseconds < 0n && input.epochNanoseconds % 1_000_000_000n !== 0n ? 1n : 0n);
          const nsec = Number(input.epochNanoseconds - sec * 1_000_000_000n);
          return lib.encodeTimeSpecToTimestamp({ sec: Number(sec), nsec });
        },
        decode: (data) => {
          const spec = lib.decodeTimestampToTimeSpec(data);
          return new Instant(BigInt(spec.sec) * 1_000_000_000n + BigInt(spec.nsec));
        },
      });
      const values = [new Instant(0n), new Instant(1_700_000_000_123_456_789n), new Instant(-1n), new Instant(2n ** 70n)];
      const bytes = lib.encode(values, { extensionCodec: codec });
      const back = lib.decode(bytes, { extensionCodec: codec }) as Instant[];
      // a timestamp beyond Date's range, nanoseconds kept
      const far = lib.decode(fromHex("c70cff" + "3b9ac9ff" + "0000010000000000"), { extensionCodec: codec }) as Instant;
      return [hex(bytes), back.map((i) => `${i.epochNanoseconds}`), `${far.epochNanoseconds}`];
    };
    expect(run(ours)).toEqual(run(theirs));
  });

  test("ExtensionCodec.defaultCodec handles Dates; passing it changes nothing; its tryToEncode and decode work as @msgpack/msgpack's", () => {
    const date = new Date(1_700_000_000_123);
    expectSameBytes([date, 1], (lib) => ({ extensionCodec: lib.ExtensionCodec.defaultCodec }), "explicit defaultCodec");
    const ext = ours.ExtensionCodec.defaultCodec.tryToEncode(date, undefined);
    expect(ext?.type).toBe(-1);
    expect(hex(ext!.data as Uint8Array)).toBe(hex(theirs.encodeTimestampExtension(date)!));
    expect(ours.ExtensionCodec.defaultCodec.tryToEncode({}, undefined)).toBeNull();
    expect(ours.ExtensionCodec.defaultCodec.decode(theirs.encodeTimestampExtension(date)!, -1, undefined)).toEqual(date);
    const unknown = ours.ExtensionCodec.defaultCodec.decode(new Uint8Array([1, 2]), 33, undefined);
    expect(unknown).toBeInstanceOf(ours.ExtData);
  });

  test("a program's own ExtensionCodecType object (tryToEncode + decode) can be the extensionCodec", () => {
    const run = (lib: Lib) => {
      const codec = {
        tryToEncode: (object: unknown) => (object instanceof Set ? new lib.ExtData(9, Uint8Array.of(object.size)) : null),
        decode: (data: Uint8Array, type: number) => `ext ${type} of ${data.length}: ${data[0]}`,
      };
      const bytes = lib.encode({ s: new Set([1, 2]) }, { extensionCodec: codec });
      return [hex(bytes), lib.decode(bytes, { extensionCodec: codec })];
    };
    expect(run(ours)).toEqual(run(theirs));
  });

  test("an extension decoder may throw new DecodeError(message), as with theirs: a RangeError with code INVALID_EXT at offset 0", () => {
    const e = new ours.DecodeError("not a bigint source") as ourModule.DecodeError;
    expect(e).toBeInstanceOf(RangeError);
    expect([e.message, e.code, e.offset, e.name]).toEqual(["not a bigint source", "INVALID_EXT", 0, "DecodeError"]);
  });

  test("extensions are tried in the same order: the timestamp (-1) first for Dates, then -2 down to -128, then 0 up, whatever the registration order", () => {
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      const any = (t: number) => (v: unknown) => (v instanceof Object && !Array.isArray(v) ? new Uint8Array([t & 0xff]) : null);
      const out: string[] = [];
      const value = [{}, new Date(0)];
      codec.register({ type: 3, encode: any(3), decode: () => 3 });
      codec.register({ type: 1, encode: any(1), decode: () => 1 });
      out.push(hex(lib.encode(value, { extensionCodec: codec })));
      codec.register({ type: -5, encode: any(-5), decode: () => -5 });
      codec.register({ type: -2, encode: any(-2), decode: () => -2 });
      out.push(hex(lib.encode(value, { extensionCodec: codec })));
      // a registered -1 replaces the timestamp, for Dates too
      codec.register({ type: -1, encode: any(-1), decode: () => -1 });
      out.push(hex(lib.encode(value, { extensionCodec: codec })));
      return out;
    };
    expect(run(theirs)[0]).toBe("92d40101d6ff00000000");
    expect(run(ours)).toEqual(run(theirs));
  });

  test("functions and symbols are offered to the extensions; unclaimed, both libraries throw", () => {
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      codec.register({ type: 0, encode: (v) => (typeof v === "function" ? new Uint8Array([1]) : typeof v === "symbol" ? new Uint8Array([2]) : null), decode: () => () => 1 });
      return [hex(lib.encode(() => 1, { extensionCodec: codec })), hex(lib.encode([Symbol("s")], { extensionCodec: codec }))];
    };
    expect(run(theirs)).toEqual(["d40001", "91d40002"]);
    expect(run(ours)).toEqual(run(theirs));
    expectSame((lib) => lib.encode({ f: () => 1 }), "encode of an unclaimed function");
    expect((thrown(() => ours.encode(Symbol("s"))) as ourModule.EncodeError).code).toBe("UNSUPPORTED_TYPE");
  });

  test("an extension encode that returns undefined (no return statement) passes the value on, as null does", () => {
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      // eslint-disable-next-line consistent-return
      codec.register({ type: 1, encode: ((v: unknown) => { if (v instanceof Set) return new Uint8Array([1]); }) as never, decode: () => "set" });
      const bytes = lib.encode([new Set(), { a: 1 }, [2]], { extensionCodec: codec });
      return [hex(bytes), lib.decode(bytes, { extensionCodec: codec })];
    };
    expect(run(ours)).toEqual(run(theirs));
  });

  test("an extension may return a Node Buffer, and an ExtData may hold one", () => {
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      codec.register({ type: 2, encode: (v) => (v instanceof Set ? Buffer.from([9, 8]) : null), decode: (d) => Array.from(d) });
      return [hex(lib.encode(new Set(), { extensionCodec: codec })), hex(lib.encode(new lib.ExtData(3, Buffer.from([1, 2, 3]))))];
    };
    expect(run(ours)).toEqual(run(theirs));
  });

  test("an extension returning an empty payload is written as ext 8 of length 0", () => {
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      codec.register({ type: 3, encode: (v) => (v instanceof Set ? new Uint8Array(0) : null), decode: (d) => d.length });
      const bytes = lib.encode(new Set(), { extensionCodec: codec });
      return [hex(bytes), lib.decode(bytes, { extensionCodec: codec })];
    };
    expect(run(ours)).toEqual(run(theirs));
  });
});

// ---------------------------------------------------------------- errors

describe("errors a migrating program catches by class", () => {
  const TRUNCATED = ["", "92", "9201", "cd01", "a361", "c40501", "d9", "cf000000", "81a161", "c7", "d6ff0000"];

  test.for(TRUNCATED)("truncated input %j is a RangeError in both; ours is a DecodeError with code TRUNCATED, offset and needed", (h) => {
    const bytes = fromHex(h);
    expectSame((lib) => lib.decode(bytes), `decode(${h})`);
    const e = thrown(() => ours.decode(bytes)) as ourModule.DecodeError;
    expect(e).toBeInstanceOf(RangeError);
    expect(e).toBeInstanceOf(ours.DecodeError);
    expect(e.code).toBe("TRUNCATED");
    expect(e.offset).toBeGreaterThanOrEqual(0);
    expect(e.offset).toBeLessThanOrEqual(bytes.length);
    expect(e.needed).toBeGreaterThan(0);
    expect(e.message).toMatch(/short|truncated|insufficient|more|end/i);
  });

  test("empty input is a RangeError in both; ours says TRUNCATED at offset 0, one byte needed", () => {
    expectSame((lib) => lib.decode(new Uint8Array(0)));
    expectSame((lib) => lib.decode([]));
    const e = thrown(() => ours.decode(new Uint8Array(0))) as ourModule.DecodeError;
    expect([e.code, e.offset, e.needed]).toEqual(["TRUNCATED", 0, 1]);
  });

  test("extra bytes after the value are a RangeError in both; ours says EXTRA_BYTES at the first extra byte", () => {
    for (const h of ["0102", "92010203", "c0c0c0"]) {
      expectSame((lib) => lib.decode(fromHex(h)), `decode(${h})`);
    }
    const e = thrown(() => ours.decode(fromHex("92010203"))) as ourModule.DecodeError;
    expect(e).toBeInstanceOf(RangeError);
    expect([e.code, e.offset]).toEqual(["EXTRA_BYTES", 3]);
    expect(e.message).toMatch(/extra/i);
  });

  test("decodeMulti yields the complete values, then throws a RangeError for a truncated tail", () => {
    const run = (lib: Lib) => {
      const out: unknown[] = [];
      try {
        for (const v of lib.decodeMulti(fromHex("0102" + "9201"))) out.push(v);
      } catch (e) {
        out.push(e instanceof RangeError ? "RangeError" : String(e));
      }
      return out;
    };
    expect(run(ours)).toEqual(run(theirs));
  });

  test("an unrecognized type byte (0xc1) is a DecodeError in both, naming the byte", () => {
    for (const h of ["c1", "92c101", "81a161c1"]) expectSame((lib) => lib.decode(fromHex(h)), `decode(${h})`);
    const e = thrown(() => ours.decode(fromHex("9201c1"))) as ourModule.DecodeError;
    expect([e.code, e.offset]).toEqual(["INVALID_BYTE", 2]);
    expect(e.message).toMatch(/0xc1/i);
    expect(e.message).toMatch(/unrecognized|unknown|reserved|invalid/i);
    expect(e.message).toMatch(/type|byte/i);
  });

  test("over-limit lengths are DecodeErrors in both", () => {
    expectSame((lib) => lib.decode(theirs.encode("abc"), { maxStrLength: 2 }));
    expectSame((lib) => lib.decode(theirs.encode([1, 2, 3]), { maxArrayLength: 2 }));
  });

  test("DecodeError can be made with just a message, as the BigInt recipe does, and is an Error", () => {
    const e = new ours.DecodeError("unexpected BigInt source");
    expect(e).toBeInstanceOf(ours.DecodeError);
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toBe("unexpected BigInt source");
    expect(e.name).toBe("DecodeError");
    expect(String(e)).toBe("DecodeError: unexpected BigInt source");
  });

  test("our DecodeError is a RangeError, so `catch (e) { if (e instanceof RangeError) ... }` still sees truncation", () => {
    expect(new ours.DecodeError("x")).toBeInstanceOf(RangeError);
  });

  test("a value nested too deep is an Error in both, saying it is too deep", () => {
    expectSame((lib) => lib.encode(nested(150, 1), { maxDepth: 100 }));
    const e = thrown(() => ours.encode(nested(600, 1))) as Error;
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toMatch(/too deep|deeper|depth/i);
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expectSame((lib) => lib.encode(cycle));
  });

  test("an unrecognized object (a function, a symbol) is an Error in both, naming what it is", () => {
    for (const [v, name] of [[() => 1, /function/i], [Symbol("s"), /symbol/i]] as const) {
      expectSame((lib) => lib.encode({ v }));
      const e = thrown(() => ours.encode({ v })) as Error;
      expect(e).toBeInstanceOf(Error);
      expect(e.message).toMatch(/unrecognized|unsupported|cannot encode|not supported/i);
      expect(e.message).toMatch(name);
    }
  });

  test("a decoder stays usable after an error", () => {
    const decoder = new ours.Decoder();
    expect(() => decoder.decode(fromHex("92c1"))).toThrow();
    expect(() => decoder.decode(fromHex("92"))).toThrow(RangeError);
    expect(decoder.decode(fromHex("9201a161"))).toEqual([1, "a"]);
  });
});

// ---------------------------------------------------------------- their suite's message checks

// @msgpack/msgpack's own tests match error messages with regular
// expressions; each case runs its check against both libraries, so a
// program (or test suite) that matches their words keeps passing.
describe("error messages carry @msgpack/msgpack's words, with our codes and offsets", () => {
  async function* oneChunk(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
    yield bytes;
  }
  async function* byteByByte(bytes: Uint8Array): AsyncGenerator<number[]> {
    for (const b of bytes) yield [b];
  }

  const LIMITS: Array<[string, unknown, Record<string, unknown>]> = [
    ["maxStrLength", "foo", { maxStrLength: 1 }],
    ["maxBinLength", Uint8Array.from([1, 2, 3]), { maxBinLength: 1 }],
    ["maxArrayLength", [1, 2, 3], { maxArrayLength: 1 }],
    ["maxMapLength", { foo: 1, bar: 1, baz: 3 }, { maxMapLength: 1 }],
    ["maxExtLength", new Date(), { maxExtLength: 1 }],
    ["maxBinLength with rawStrings", "foo", { rawStrings: true, maxBinLength: 1 }],
  ];

  test.for(LIMITS)("%s: decode and decodeAsync say \"max length exceeded\"", async ([, value, options]) => {
    const input = theirs.encode(value);
    for (const lib of LIBS.map(([, l]) => l)) {
      expect(() => lib.decode(input, options as never)).toThrow(/max length exceeded/i);
      expect(String(await rejection(lib.decodeAsync(oneChunk(input), options as never)))).toMatch(/max length exceeded/i);
    }
    const e = thrown(() => ours.decode(input, options as never)) as ourModule.DecodeError;
    expect([e.code, e.offset]).toEqual(["MAX_LENGTH", 0]);
    expect(e.message).toMatch(/^Cannot decode \w+ at offset 0: max length exceeded, length \d+ exceeds max\w+Length \(1\)$/);
  });

  test("maxValueBytes of the stream decoders says \"max length exceeded\" too", async () => {
    const e = (await rejection(ourModule.decodeAsync(oneChunk(ours.encode("x".repeat(100))), { maxValueBytes: 10 }))) as ourModule.DecodeError;
    expect(e.code).toBe("MAX_LENGTH");
    expect(e.message).toMatch(/max length exceeded/i);
  });

  test("a timestamp of a size other than 4, 8 or 12 bytes: \"unrecognized data size for timestamp\"", () => {
    for (const lib of LIBS.map(([, l]) => l)) {
      expect(() => lib.decodeTimestampExtension(Uint8Array.from([0]))).toThrow(/unrecognized data size for timestamp/i);
      expect(() => lib.decode(fromHex("c701ff00"))).toThrow(/unrecognized data size for timestamp/i);
    }
    const e = thrown(() => ours.decode(fromHex("9201c701ff00"))) as ourModule.DecodeError;
    expect([e.code, e.offset]).toEqual(["INVALID_EXT", 2]);
  });

  test("decodeArrayStream of a stream that holds no array: \"Unrecognized array type byte:\"", async () => {
    const input = theirs.encode("demo");
    for (const lib of LIBS.map(([, l]) => l)) {
      const e = await rejection((async () => {
        for await (const item of lib.decodeArrayStream(byteByByte(input))) void item;
      })());
      expect(String(e)).toMatch(/.*Unrecognized array type byte:.*/i);
    }
    const e = (await rejection((async () => {
      for await (const item of ours.decodeArrayStream(oneChunk(input))) void item;
    })())) as ourModule.DecodeError;
    expect([e.code, e.offset]).toEqual(["INVALID_BYTE", 0]);
  });

  test("a cycle, in an array or an object: \"too deep\", and the encoder stays usable", () => {
    const array: unknown[] = [];
    array.push(array);
    const object: Record<string, unknown> = {};
    object.foo = object;
    for (const lib of LIBS.map(([, l]) => l)) {
      const encoder = new lib.Encoder();
      for (const cyclic of [array, object]) {
        expect(() => encoder.encode(cyclic)).toThrow(/too deep/i);
        expect(lib.decode(encoder.encode({ foo: 1, baz: ["one"] }))).toEqual({ foo: 1, baz: ["one"] });
      }
    }
    expect((thrown(() => ours.encode(array)) as ourModule.EncodeError).code).toBe("CYCLE");
  });

  test("nesting past maxDepth: \"too deep\" on encode and on decode", () => {
    expect(() => ours.encode(nested(20, 1), { maxDepth: 10 })).toThrow(/too deep/i);
    const e = thrown(() => ours.decode(new Uint8Array(600).fill(0x91))) as ourModule.DecodeError;
    expect(e.code).toBe("MAX_DEPTH");
    expect(e.message).toMatch(/too deep/i);
  });
});

// ---------------------------------------------------------------- inline options

describe("options given inline, per call", () => {
  test("a fresh options literal per call is honoured call by call", () => {
    const value = { b: [1.5, 2], a: { d: undefined, c: 3 } };
    for (let i = 0; i < 200; i++) {
      const sortKeys = i % 2 === 0;
      const forceFloat32 = i % 3 === 0;
      const ignoreUndefined = i % 5 === 0;
      const got = ours.encode(value, { sortKeys, forceFloat32, ignoreUndefined });
      const want = theirs.encode(value, { sortKeys, forceFloat32, ignoreUndefined });
      expect(hex(got), `call ${i}`).toBe(hex(want));
    }
  });

  test("options set to undefined mean their defaults", () => {
    const encodeOptions = { maxDepth: undefined, initialBufferSize: undefined, sortKeys: undefined, forceFloat32: undefined, ignoreUndefined: undefined, useBigInt64: undefined, forceIntegerToFloat: undefined, extensionCodec: undefined, context: undefined };
    const decodeOptions = { useBigInt64: undefined, rawStrings: undefined, maxStrLength: undefined, maxBinLength: undefined, maxArrayLength: undefined, maxMapLength: undefined, maxExtLength: undefined, mapKeyConverter: undefined, extensionCodec: undefined, context: undefined };
    const value = { b: [1.5, new Date(3)], a: "x", u: undefined };
    expectSameBytes(value, encodeOptions);
    expectSame((lib) => lib.decode(theirs.encode(value), decodeOptions));
    expectSame((lib) => new lib.Decoder(decodeOptions).decode(new lib.Encoder(encodeOptions).encode(value)));
  });

  test("changing an options object between calls takes effect (encode and decode)", () => {
    const encodeOptions: { sortKeys?: boolean; forceFloat32?: boolean } = {};
    const value = { b: 1.5, a: 2 };
    const seen: string[] = [];
    for (const [sortKeys, forceFloat32] of [[false, false], [true, false], [true, true], [false, true], [false, false]] as const) {
      encodeOptions.sortKeys = sortKeys;
      encodeOptions.forceFloat32 = forceFloat32;
      const got = hex(ours.encode(value, encodeOptions));
      expect(got).toBe(hex(theirs.encode(value, { sortKeys, forceFloat32 })));
      seen.push(got);
    }
    expect(new Set(seen).size).toBe(4);

    const decodeOptions: { useBigInt64?: boolean; maxArrayLength?: number } = {};
    const bytes = theirs.encode([2n ** 40n], { useBigInt64: true });
    expect(ours.decode(bytes, decodeOptions)).toEqual([2 ** 40]);
    decodeOptions.useBigInt64 = true;
    expect(ours.decode(bytes, decodeOptions)).toEqual([2n ** 40n]);
    decodeOptions.maxArrayLength = 0;
    expect(() => ours.decode(bytes, decodeOptions)).toThrow(ours.DecodeError);
    delete decodeOptions.maxArrayLength;
    decodeOptions.useBigInt64 = false;
    expect(ours.decode(bytes, decodeOptions)).toEqual([2 ** 40]);
  });

  test("an options object's extension codec and context may change between calls", () => {
    const options: { extensionCodec?: ourModule.ExtensionCodec<{ tag: string }>; context?: { tag: string } } = {};
    const codec = new ourModule.ExtensionCodec<{ tag: string }>();
    codec.register({ type: 1, encode: (v, ctx) => (v instanceof Set ? ourModule.encode(ctx.tag) : null), decode: (d, _t, ctx) => `${ctx.tag}:${ourModule.decode(d)}` });
    expect(() => ourModule.encode(new Set(), options as never)).not.toThrow();
    options.extensionCodec = codec;
    options.context = { tag: "one" };
    const one = ourModule.encode(new Set(), options as never);
    options.context = { tag: "two" };
    expect(ourModule.decode(one, options as never)).toBe("two:one");
  });
});

// ---------------------------------------------------------------- migration table

// Each row: what @msgpack/msgpack does, what we do by default, and where an
// option of ours gives @msgpack/msgpack's behaviour, that it does.
describe("migration table (Coming from @msgpack/msgpack)", () => {
  test("__proto__ map keys: they throw a DecodeError; we make an own property and never touch the prototype (no option)", () => {
    const bytes = Uint8Array.from([0x81, 0xa9, ...utf8("__proto__"), 0x01]);
    expect(() => theirs.decode(bytes)).toThrow(theirs.DecodeError);
    const value = ours.decode(bytes) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("invalid UTF-8: they decode it to replacement or mangled characters; we throw INVALID_UTF8; invalidUtf8: \"replace\" gives U+FFFD, rawStrings the bytes", () => {
    const bytes = fromHex("a2fffe");
    expect(typeof theirs.decode(bytes)).toBe("string");
    const e = thrown(() => ours.decode(bytes)) as ourModule.DecodeError;
    expect(e).toBeInstanceOf(ours.DecodeError);
    expect(e.code).toBe("INVALID_UTF8");
    expect(Array.from(ours.decode(bytes, { rawStrings: true }) as Uint8Array)).toEqual([0xff, 0xfe]);
    expect(plain(ours.decode(bytes, { rawStrings: true }))).toEqual(plain(theirs.decode(bytes, { rawStrings: true })));
    expect(ourModule.decode(bytes, { invalidUtf8: "replace" })).toBe("\ufffd\ufffd");
  });

  test("lone surrogates: they write them as (invalid) 3-byte sequences; we write U+FFFD (no option)", () => {
    expect(hex(theirs.encode("a\ud800b"))).toBe("a561eda08062");
    expect(hex(ours.encode("a\ud800b"))).toBe("a561efbfbd62");
    expect(ours.decode(ours.encode("a\ud800b"))).toBe("a\ufffdb");
  });

  test("binaries: they return views into the input (Buffer views for a Buffer input); we return copies; binaryAsView gives views (Buffer views for a Buffer input)", () => {
    const input = theirs.encode({ b: new Uint8Array([1, 2, 3]) });
    const viaTheirs = (theirs.decode(input) as { b: Uint8Array }).b;
    expect(viaTheirs.buffer).toBe(input.buffer);
    const copy = (ours.decode(input) as { b: Uint8Array }).b;
    expect(copy.buffer).not.toBe(input.buffer);
    expect(Array.from(copy)).toEqual([1, 2, 3]);
    const view = (ourModule.decode(input, { binaryAsView: true }) as { b: Uint8Array }).b;
    expect(view.buffer).toBe(input.buffer);
    expect(view.byteOffset).toBe(viaTheirs.byteOffset);
    const fromBuffer = (ours.decode(Buffer.from(input)) as { b: Uint8Array }).b;
    expect(fromBuffer.constructor).toBe(Uint8Array);
    const buffer = Buffer.from(input);
    const theirView = (theirs.decode(buffer) as { b: Uint8Array }).b;
    const ourView = (ourModule.decode(buffer, { binaryAsView: true }) as { b: Uint8Array }).b;
    expect(Buffer.isBuffer(theirView) && Buffer.isBuffer(ourView)).toBe(true);
    expect([ourView.buffer, ourView.byteOffset, ourView.length]).toEqual([theirView.buffer, theirView.byteOffset, theirView.length]);
  });

  test("@msgpack/msgpack 2.x positional constructors: 3.x ignores them; ours take them as the options of those names", () => {
    const codec = new ourModule.ExtensionCodec<{ n: number }>();
    codec.register({ type: 5, encode: (v, ctx) => (v instanceof Set ? Uint8Array.of(ctx.n) : null), decode: (d, _t, ctx) => d[0]! + ctx.n });
    const bytes = new ourModule.Encoder(codec, { n: 7 }).encode(new Set());
    expect(hex(bytes)).toBe("d40507");
    expect(new ourModule.Decoder(codec, { n: 1 }).decode(bytes)).toBe(8);
    const Theirs2x = theirModule.Encoder as unknown as new (...args: unknown[]) => { encode(v: unknown): Uint8Array };
    expect(hex(new Theirs2x(codec, { n: 7 }).encode(new Set()))).toBe("80"); // 3.x: the codec is ignored, a Set is an empty map
  });

  test("unregistered extensions: they return ExtData whose data is a view into the input; ours holds a copy (no option)", () => {
    const input = fromHex("d40509");
    expect((theirs.decode(input) as theirModule.ExtData).data).toHaveProperty("buffer", input.buffer);
    const ext = ours.decode(input) as ourModule.ExtData;
    expect(ext).toBeInstanceOf(ours.ExtData);
    expect([ext.type, Array.from(ext.data)]).toEqual([5, [9]]);
    expect(ext.data.buffer).not.toBe(input.buffer);
  });

  test("64-bit integers past 2^53: they give an inexact number; we give an exact bigint; int64: \"number\" gives their number", () => {
    const bytes = fromHex("92" + "cf0020000000000001" + "d3ffdfffffffffffff");
    const expected = theirs.decode(bytes);
    expect(expected).toEqual([2 ** 53, -(2 ** 53)]);
    expect(ours.decode(bytes)).toEqual([2n ** 53n + 1n, -(2n ** 53n) - 1n]);
    expect(ourModule.decode(bytes, { int64: "number" })).toEqual(expected);
    // safe integers stay numbers either way
    expect(ours.decode(fromHex("cf0000000000000005"))).toBe(theirs.decode(fromHex("cf0000000000000005")));
  });

  test("maps with keys other than strings and numbers: they throw a DecodeError; we return a Map; a mapKeyConverter gives their plain object", () => {
    // {true: 1, "a": 2}
    const bytes = fromHex("82c301a16102");
    expect(() => theirs.decode(bytes)).toThrow(theirs.DecodeError);
    const map = ours.decode(bytes) as Map<unknown, unknown>;
    expect(map).toBeInstanceOf(Map);
    expect([...map]).toEqual([[true, 1], ["a", 2]]);
    const convert = { mapKeyConverter: (k: unknown) => String(k) };
    expect(ours.decode(bytes, convert)).toEqual(theirs.decode(bytes, convert));
  });

  test("bigint map keys (with useBigInt64): they throw a DecodeError; we give string properties", () => {
    const bytes = fromHex("81cf000000000000000101");
    expect(() => theirs.decode(bytes, { useBigInt64: true })).toThrow(theirs.DecodeError);
    expect(ours.decode(bytes, { useBigInt64: true })).toEqual({ "1": 1 });
  });

  test("Map, Set and ArrayBuffer: they encode them as an empty map {}; we encode a map, an array and a bin (no option)", () => {
    expect(hex(theirs.encode(new Map([[1, 2]])))).toBe("80");
    expect(hex(theirs.encode(new Set([1, 2])))).toBe("80");
    expect(hex(theirs.encode(new Uint8Array([1, 2]).buffer))).toBe("80");
    expect(hex(ours.encode(new Map([[1, 2]])))).toBe("810102");
    expect(hex(ours.encode(new Set([1, 2])))).toBe("920102");
    expect(hex(ours.encode(new Uint8Array([1, 2]).buffer))).toBe("c4020102");
  });

  test("bigint without useBigInt64 or an extension: they throw; we write int 64 / uint 64 (no option)", () => {
    expect(() => theirs.encode(5n)).toThrow(/Unrecognized object/);
    expect(hex(ours.encode(5n))).toBe("cf0000000000000005");
    expect(hex(ours.encode(-5n))).toBe("d3fffffffffffffffb");
    expect(() => ours.encode(2n ** 64n)).toThrow(ourModule.EncodeError);
  });

  test("-0: they write integer 0; we write float 64 -0 so it decodes as -0 (no option)", () => {
    expect(hex(theirs.encode(-0))).toBe("00");
    expect(Object.is(ours.decode(ours.encode(-0)), -0)).toBe(true);
  });

  test("default maxDepth: theirs 100 on encode and none on decode; ours 512 on both; maxDepth sets it", () => {
    const deep = nested(150, 1);
    expect(() => theirs.encode(deep)).toThrow(/deep/);
    const bytes = ours.encode(deep);
    expect(() => ours.encode(deep, { maxDepth: 100 })).toThrow(/deep|depth/i);
    const deeper = new Uint8Array(1001).fill(0x91);
    deeper[1000] = 0x01;
    expect(JSON.stringify(theirs.decode(deeper))).toHaveLength(2001);
    expect(() => ours.decode(deeper)).toThrow(ours.DecodeError);
    expect(ourModule.decode(deeper, { maxDepth: 2000 })).toEqual(theirs.decode(deeper));
    expect(ours.decode(bytes)).toEqual(deep);
  });

  test("maxDepth through extensions: theirs starts again in each nested encode; ours carries on (no option)", () => {
    const run = (lib: Lib) => {
      const codec = new lib.ExtensionCodec();
      codec.register({ type: 1, encode: (v) => (v instanceof Set ? lib.encode([...v], { extensionCodec: codec, maxDepth: 5 }) : null), decode: () => null });
      let v: unknown = 1;
      for (let i = 0; i < 4; i++) v = new Set([[v]]);
      return attempt(() => lib.encode(v, { extensionCodec: codec, maxDepth: 5 })).ok;
    };
    expect(run(theirs)).toBe(true);
    expect(run(ours)).toBe(false);
  });

  test("truncation errors: theirs are plain RangeErrors; ours are DecodeErrors (still RangeErrors): test e.code === \"TRUNCATED\" instead of the class", () => {
    const bytes = fromHex("92");
    const a = thrown(() => theirs.decode(bytes));
    const b = thrown(() => ours.decode(bytes)) as ourModule.DecodeError;
    expect(a).not.toBeInstanceOf(theirs.DecodeError);
    expect(b).toBeInstanceOf(ours.DecodeError);
    expect(b.code).toBe("TRUNCATED");
    // and their DecodeError (invalid data) is not a RangeError, ours is
    expect(thrown(() => theirs.decode(fromHex("c1")))).not.toBeInstanceOf(RangeError);
    expect(thrown(() => ours.decode(fromHex("c1")))).toBeInstanceOf(RangeError);
  });

  test("Invalid Date: they write a timestamp of 0 seconds; we throw INVALID_DATE (no option)", () => {
    expect(theirs.decode(theirs.encode(new Date(NaN)))).toEqual(new Date(0));
    const e = thrown(() => ours.encode(new Date(NaN))) as ourModule.EncodeError;
    expect(e).toBeInstanceOf(ourModule.EncodeError);
    expect(e.code).toBe("INVALID_DATE");
  });

  test("timestamps that are no valid Date (nanoseconds >= 1e9, outside Date's range): they give an (Invalid) Date; we throw INVALID_EXT; an EXT_TIMESTAMP decoder takes them", () => {
    const bigNsec = fromHex("d7ff" + "fffffffc" + "00000001");
    const far = fromHex("c70cff" + "00000000" + "7fffffffffffffff");
    expect(theirs.decode(bigNsec)).toBeInstanceOf(Date);
    expect(Number.isNaN((theirs.decode(far) as Date).getTime())).toBe(true);
    for (const bytes of [bigNsec, far]) {
      const e = thrown(() => ours.decode(bytes)) as ourModule.DecodeError;
      expect(e.code).toBe("INVALID_EXT");
    }
    const codec = new ours.ExtensionCodec();
    codec.register({ type: ours.EXT_TIMESTAMP, encode: () => null, decode: (d) => ours.decodeTimestampToTimeSpec(d) });
    expect(ours.decode(far, { extensionCodec: codec })).toEqual(theirs.decodeTimestampToTimeSpec(far.subarray(3)));
  });

  test("negative timestamps with a millisecond fraction: they round toward zero; we round down (toward the past)", () => {
    // sec -1, nsec 500000: -999.5 ms
    const bytes = fromHex("c70cff" + "0007a120" + "ffffffffffffffff");
    expect((theirs.decode(bytes) as Date).getTime()).toBe(-999);
    expect((ours.decode(bytes) as Date).getTime()).toBe(-1000);
  });

  test("maxDepth: theirs counts every value (a leaf counts one level below its container); ours counts containers (arrays, maps, extensions), so the same number accepts one more level of leaves (no option)", () => {
    const values = [1, [], [1], [[]], [[1]], {}, { a: 1 }, { a: {} }, { a: { b: 1 } }, [{ a: [] }]];
    const accepts = (lib: Lib, v: unknown, maxDepth: number) => attempt(() => lib.encode(v, { maxDepth })).ok;
    for (const maxDepth of [0, 1, 2, 3, 4]) {
      for (const v of values) {
        const what = `${JSON.stringify(v)} with maxDepth ${maxDepth}`;
        // what theirs accepts with N, ours accepts with N; what ours accepts with N, theirs accepts with N + 1
        if (accepts(theirs, v, maxDepth)) expect(accepts(ours, v, maxDepth), what).toBe(true);
        if (accepts(ours, v, maxDepth)) expect(accepts(theirs, v, maxDepth + 1), what).toBe(true);
      }
    }
    // the difference: a leaf below the deepest container
    expect(accepts(theirs, [1], 1)).toBe(false);
    expect(accepts(ours, [1], 1)).toBe(true);
    expect(accepts(theirs, 1, 0)).toBe(false);
    expect(accepts(ours, 1, 0)).toBe(true);
    expect(accepts(ours, [[1]], 1)).toBe(false);
  });

  test("keyDecoder: their custom key decoder is used; ours is accepted and ignored (we cache keys ourselves)", () => {
    const keyDecoder = { canBeCached: () => true, decode: () => "X" };
    const bytes = theirs.encode({ a: 1 });
    expect(theirs.decode(bytes, { keyDecoder })).toEqual({ X: 1 });
    expect(ours.decode(bytes, { keyDecoder })).toEqual({ a: 1 });
    expect(ours.decode(bytes, { keyDecoder: null })).toEqual({ a: 1 });
  });

  test("stream decoders at a truncated end, or extra bytes after decodeArrayStream's array: they stop silently; we throw a DecodeError (no option)", async () => {
    async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
      for (const p of parts) yield fromHex(p);
    }
    const collect = async (items: AsyncIterable<unknown>) => {
      const out: unknown[] = [];
      try {
        for await (const v of items) out.push(v);
      } catch (e) {
        out.push((e as ourModule.DecodeError).code ?? String(e));
      }
      return out;
    };
    expect(await collect(theirs.decodeMultiStream(chunks("01", "02", "9201")))).toEqual([1, 2]);
    expect(await collect(ours.decodeMultiStream(chunks("01", "02", "9201")))).toEqual([1, 2, "TRUNCATED"]);
    expect(await collect(theirs.decodeArrayStream(chunks("9301", "02")))).toEqual([1, 2]);
    expect(await collect(ours.decodeArrayStream(chunks("9301", "02")))).toEqual([1, 2, "TRUNCATED"]);
    // extra bytes in a later chunk: theirs throws before reading that chunk, naming the chunk before it (3 bytes, all used)
    expect(await collect(theirs.decodeArrayStream(chunks("920102", "05")))).toEqual([1, 2, "RangeError: Extra 0 of 3 byte(s) found at buffer[3]"]);
    expect(await collect(ours.decodeArrayStream(chunks("920102", "05")))).toEqual([1, 2, "EXTRA_BYTES"]);
    expect(await collect(theirs.decodeArrayStream(chunks("92010205")))).toEqual([1, 2]);
    expect(await collect(ours.decodeArrayStream(chunks("92010205")))).toEqual([1, 2, "EXTRA_BYTES"]);
  });

  test("encode() results: theirs are views of a larger buffer (2048 bytes and up); ours own an exact-size buffer", () => {
    const a = theirs.encode([1, 2, 3]);
    const b = ours.encode([1, 2, 3]);
    expect(a.buffer.byteLength).toBeGreaterThanOrEqual(2048);
    expect([b.byteOffset, b.buffer.byteLength]).toEqual([0, b.length]);
  });
});
