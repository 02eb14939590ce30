// The async decoders of @msgpack/msgpack's API (decodeAsync,
// decodeArrayStream, decodeMultiStream and the Decoder methods decodeAsync,
// decodeArrayStream, decodeStream), checked without a test runner, as-is
// under node (18+), bun and deno:
//
//   node test/runtime/compat-async.mjs src/compat/msgpack.ts        (Node 22.6+ strips types)
//   bun  test/runtime/compat-async.mjs src/compat/msgpack.ts
//   deno run --allow-read --no-lock test/runtime/compat-async.mjs src/compat/msgpack.ts
//   node test/runtime/compat-async.mjs test/node_modules/@msgpack/msgpack/dist.esm/index.mjs --oracle
//
// With --oracle the module is @msgpack/msgpack itself: the checks that hold
// for both libraries must pass on it too (so they say what it does), and the
// checks of our own additions (error codes, offsets) are skipped.
// Prints one line starting with "COMPAT_ASYNC_OK " followed by a JSON
// summary, or throws (exit code 1).
import { pathToFileURL } from "node:url";
import process from "node:process";
import { readableOf } from "./checks.mjs";

function parseArgs(argv) {
  const args = { module: undefined, oracle: false };
  for (const a of argv) {
    if (a === "--oracle") args.oracle = true;
    else if (a.startsWith("--")) throw new Error(`compat-async: unknown option ${a}`);
    else args.module = a;
  }
  if (!args.module) throw new Error("compat-async: give the module to test as an argument");
  return args;
}

function moduleUrl(specifier) {
  if (/^[a-z]+:/i.test(specifier) && !/^[a-z]:[\\/]/i.test(specifier)) return specifier;
  return pathToFileURL(specifier.startsWith("/") ? specifier : `${process.cwd()}/${specifier}`).href;
}

function runtimeName() {
  if (typeof globalThis.Deno !== "undefined") return `deno ${globalThis.Deno.version.deno}`;
  if (typeof globalThis.Bun !== "undefined") return `bun ${globalThis.Bun.version}`;
  return `node ${process.versions.node}`;
}

// ---------------------------------------------------------------- helpers

let checks = 0;
/** Failed checks so far: all of them are reported at the end. */
const failures = [];

function fail(message) {
  throw new Error(`compat-async: ${message}`);
}

/** Records a failed check and carries on with the next. */
function miss(message) {
  failures.push(message);
}

/** Compares two values as JSON (bigints, typed arrays, Maps and Sets spelled out). */
function same(actual, expected, what) {
  checks++;
  const a = show(actual);
  const e = show(expected);
  if (a !== e) miss(`${what}: got ${a.length > 300 ? `${a.slice(0, 300)}...` : a}, expected ${e.length > 300 ? `${e.slice(0, 300)}...` : e}`);
}

function show(value) {
  return JSON.stringify(value, (_k, v) => {
    if (typeof v === "bigint") return `${v}n`;
    if (v instanceof Uint8Array) return { bytes: Array.from(v) };
    if (v instanceof Map) return { map: [...v] };
    if (v instanceof Date) return { date: v.getTime() };
    return v;
  });
}

async function rejects(promise, test, what) {
  checks++;
  try {
    await promise;
  } catch (e) {
    const problem = test(e);
    if (problem) miss(`${what}: ${problem} (got ${e?.name}: ${e?.message})`);
    return e;
  }
  miss(`${what}: expected an error, but it resolved`);
  return undefined;
}

async function collect(iterable) {
  const out = [];
  for await (const v of iterable) out.push(v);
  return out;
}

/** Splits `bytes` into chunks of the given sizes, cycling through them. */
function split(bytes, sizes) {
  const out = [];
  for (let pos = 0, i = 0; pos < bytes.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length]);
    out.push(bytes.slice(pos, pos + n));
    pos += n;
  }
  return out;
}

async function* asyncIterableOf(chunks) {
  for (const c of chunks) {
    await null;
    yield c;
  }
}


/** The chunk forms @msgpack/msgpack accepts: ArrayLike<number>, ArrayBuffer and any view. */
const CHUNK_FORMS = {
  "Uint8Array": (c) => c,
  "plain array": (c) => Array.from(c),
  "ArrayBuffer": (c) => c.slice().buffer,
  "DataView at an offset": (c) => {
    const u = new Uint8Array(c.length + 3);
    u.set(c, 3);
    return new DataView(u.buffer, 3, c.length);
  },
  "Int8Array": (c) => new Int8Array(c.slice().buffer),
  "Uint8Array at an offset": (c) => {
    const u = new Uint8Array(c.length + 5);
    u.set(c, 5);
    return u.subarray(5);
  },
};

/** Every way a program hands bytes to the async decoders. */
function sources(chunks) {
  const out = [];
  for (const [form, convert] of Object.entries(CHUNK_FORMS)) {
    out.push([`a ReadableStream of ${form} chunks`, () => readableOf(chunks.map(convert))]);
    out.push([`an async iterable of ${form} chunks`, () => asyncIterableOf(chunks.map(convert))]);
  }
  return out;
}

/** Sources that must be read as bytes by the runtime itself: a Blob's stream and a Response body. */
function nativeSources(bytes) {
  const out = [];
  if (typeof Blob === "function" && typeof Blob.prototype.stream === "function") out.push(["a Blob's stream()", () => new Blob([bytes]).stream()]);
  if (typeof Response === "function") out.push(["a Response body", () => new Response(bytes).body]);
  return out;
}

// ---------------------------------------------------------------- checks

/** Runs `run` and compares its result; a rejection is a failed check. */
async function check(what, run, expected) {
  let actual;
  try {
    actual = await run();
  } catch (e) {
    checks++;
    miss(`${what}: threw ${e?.name}: ${e?.message}`);
    return;
  }
  same(actual, expected, what);
}

async function checkDecodeAsync(lib) {
  const small = { name: "compat", list: [1, -2, 3.5, "ünï", null, true, 2 ** 40], bin: new Uint8Array([1, 2, 3]), text: "x".repeat(300), date: new Date(1_700_000_000_123) };
  const large = { ...small, text: "x".repeat(70_000), list: Array.from({ length: 20_000 }, (_, i) => i * 0.5) };
  for (const [value, splits] of [[small, [[1], [2, 7], [10_000]]], [large, [[1000], [1 << 20]]]]) {
    const bytes = lib.encode(value);
    const expected = lib.decode(bytes);
    for (const sizes of splits) {
      for (const [label, make] of sources(split(bytes, sizes))) {
        await check(`decodeAsync(${label}, ${bytes.length} bytes split ${sizes})`, () => lib.decodeAsync(make()), expected);
      }
    }
    for (const [label, make] of nativeSources(bytes)) await check(`decodeAsync(${label}, ${bytes.length} bytes)`, () => lib.decodeAsync(make()), expected);
  }

  // options are passed through
  const int64 = lib.encode([5n, -(2n ** 63n)], { useBigInt64: true });
  await check("decodeAsync with useBigInt64", () => lib.decodeAsync(asyncIterableOf(split(int64, [3])), { useBigInt64: true }), [5n, -(2n ** 63n)]);
  const codec = new lib.ExtensionCodec();
  codec.register({ type: 3, encode: (v) => (v instanceof Set ? lib.encode([...v]) : null), decode: (data, type, context) => ({ set: lib.decode(data), type, context }) });
  const withExt = lib.encode(new Set([1, 2]), { extensionCodec: codec });
  await check("decodeAsync with extensionCodec and context", () => lib.decodeAsync(readableOf(split(withExt, [1])), { extensionCodec: codec, context: "ctx" }), { set: [1, 2], type: 3, context: "ctx" });
  await rejects(lib.decodeAsync(readableOf([lib.encode("abcdef")]), { maxStrLength: 3 }), (e) => (e instanceof lib.DecodeError ? "" : "not a DecodeError"), "decodeAsync with maxStrLength");

  // a stream is read to its end and released
  const stream = new Blob([lib.encode([1, 2])]).stream();
  await check("decodeAsync of a Blob stream", () => lib.decodeAsync(stream), [1, 2]);
  same(stream.locked, false, "the stream is unlocked after decodeAsync");
}

async function checkArrayStream(lib, oracle) {
  const items = [1, "two", [3], { four: 4 }, new Uint8Array([5]), null, 2 ** 40, -1.5];
  for (const list of [items, Array.from({ length: 70_000 }, (_, i) => i % 300), []]) {
    const bytes = lib.encode(list);
    const expected = lib.decode(bytes);
    for (const sizes of list.length > 100 ? [[5, 1, 9], [bytes.length]] : [[1], [5, 1, 9], [bytes.length || 1]]) {
      // @msgpack/msgpack 3.1.3 throws when an array 16/32 header is split
      // across chunks: the oracle gets the header in one piece
      const header = bytes[0] === 0xdc ? 3 : bytes[0] === 0xdd ? 5 : 1;
      const chunks = oracle && sizes[0] < header ? [bytes.slice(0, header), ...split(bytes.subarray(header), sizes)] : split(bytes, sizes);
      for (const [label, make] of sources(chunks)) {
        await check(`decodeArrayStream(${label}, ${list.length} items, split ${sizes})`, () => collect(lib.decodeArrayStream(make())), expected);
      }
    }
    for (const [label, make] of nativeSources(bytes)) await check(`decodeArrayStream(${label}, ${list.length} items)`, () => collect(lib.decodeArrayStream(make())), expected);
  }
  // items are yielded as they arrive, before the stream ends
  let resume;
  const gate = new Promise((r) => (resume = r));
  async function* slow() {
    yield Uint8Array.of(0x93, 0x01);
    await gate;
    yield Uint8Array.of(0x02, 0x03);
  }
  const it = lib.decodeArrayStream(slow())[Symbol.asyncIterator]();
  await check("decodeArrayStream yields the first item before the rest arrives", async () => (await it.next()).value, 1);
  resume();
  await check("decodeArrayStream then yields the rest", () => collect({ [Symbol.asyncIterator]: () => it }), [2, 3]);

  await check("decodeArrayStream with useBigInt64", () => collect(lib.decodeArrayStream(asyncIterableOf([lib.encode([1n, 2], { useBigInt64: true })]), { useBigInt64: true })), [1n, 2]);
  await rejects(collect(lib.decodeArrayStream(asyncIterableOf([lib.encode("abc")]))), (e) => (e instanceof lib.DecodeError ? "" : "not a DecodeError"), "decodeArrayStream of a string");
  // @msgpack/msgpack 3.1.3 reads a fixmap header as an array of negative length here
  if (!oracle) await rejects(collect(lib.decodeArrayStream(asyncIterableOf([lib.encode({ a: 1 })]))), (e) => (e instanceof lib.DecodeError ? "" : "not a DecodeError"), "decodeArrayStream of a map");
}

async function checkMultiStream(lib) {
  const values = [1, "two", [3, [4]], { five: 5 }, new Uint8Array([6]), null, false, 2 ** 40, 0.25, "z".repeat(300)];
  const bytes = concat(values.map((v) => lib.encode(v)));
  const expected = values.map((v) => lib.decode(lib.encode(v)));
  for (const sizes of [[1], [3, 11], [bytes.length]]) {
    for (const [label, make] of sources(split(bytes, sizes))) {
      await check(`decodeMultiStream(${label}, split ${sizes})`, () => collect(lib.decodeMultiStream(make())), expected);
    }
  }
  for (const [label, make] of nativeSources(bytes)) await check(`decodeMultiStream(${label})`, () => collect(lib.decodeMultiStream(make())), expected);
  await check("decodeMultiStream of an empty stream", () => collect(lib.decodeMultiStream(asyncIterableOf([]))), []);
  await check("decodeMultiStream with mapKeyConverter", () => collect(lib.decodeMultiStream(readableOf(split(lib.encode({ k: "v" }), [1])), { mapKeyConverter: (k) => `key:${k}` })), [{ "key:k": "v" }]);
}

async function checkDecoderMethods(lib, oracle) {
  const decoder = new lib.Decoder({ useBigInt64: true });
  const one = lib.encode({ a: [1n, "b"] }, { useBigInt64: true });
  const many = concat([lib.encode(1), lib.encode("two"), lib.encode([3n], { useBigInt64: true })]);
  const array = lib.encode([1, "two", [3n]], { useBigInt64: true });
  for (let round = 0; round < 2; round++) {
    await check(`Decoder#decodeAsync, round ${round}`, () => decoder.decodeAsync(asyncIterableOf(split(one, [2]))), { a: [1n, "b"] });
    await check(`Decoder#decodeStream, round ${round}`, () => collect(decoder.decodeStream(asyncIterableOf(split(many, [1])))), [1, "two", [3n]]);
    await check(`Decoder#decodeArrayStream, round ${round}`, () => collect(decoder.decodeArrayStream(asyncIterableOf(split(array, [4])))), [1, "two", [3n]]);
    // a ReadableStream is an async iterable in Node 18+, Bun and Deno
    await check(`Decoder#decodeAsync of a ReadableStream, round ${round}`, () => decoder.decodeAsync(readableOf(split(one, [1]))), { a: [1n, "b"] });
    await check(`Decoder#decodeStream of a Blob stream, round ${round}`, () => collect(decoder.decodeStream(new Blob([many]).stream())), [1, "two", [3n]]);
  }
  // the decoder is still usable after an error (not so in @msgpack/msgpack 3.1.3, which keeps the bad byte)
  if (oracle) return;
  await rejects(decoder.decodeAsync(asyncIterableOf([Uint8Array.of(0xc1)])), (e) => (e instanceof lib.DecodeError ? "" : "not a DecodeError"), "Decoder#decodeAsync of 0xc1");
  await check("Decoder#decodeAsync after an error", () => decoder.decodeAsync(asyncIterableOf([Uint8Array.of(0x07)])), 7);
}

async function checkErrors(lib, oracle) {
  const isRange = (e) => (e instanceof RangeError ? "" : "not a RangeError");
  const isDecodeError = (e) => (e instanceof lib.DecodeError ? "" : "not a DecodeError");
  const withCode = (code) => (e) => (oracle ? "" : e.code === code ? "" : `code ${e.code}, not ${code}`);
  const both = (...tests) => (e) => tests.map((t) => t(e)).find((p) => p) ?? "";

  // incomplete or empty input: a RangeError, as @msgpack/msgpack's
  const empty = await rejects(lib.decodeAsync(asyncIterableOf([])), both(isRange, withCode("TRUNCATED")), "decodeAsync of an empty stream");
  if (!oracle && empty && (empty.offset !== 0 || !(empty.needed > 0))) miss(`decodeAsync of an empty stream: offset ${empty.offset}, needed ${empty.needed}`);
  const cut = await rejects(lib.decodeAsync(readableOf([Uint8Array.of(0x93, 0x01), Uint8Array.of(0x02)])), both(isRange, withCode("TRUNCATED")), "decodeAsync of a truncated array");
  if (!oracle && cut && !(cut.needed > 0)) miss(`decodeAsync of a truncated array: needed ${cut.needed}`);
  // bytes after the value: a RangeError
  await rejects(lib.decodeAsync(asyncIterableOf([Uint8Array.of(0x01), Uint8Array.of(0x02)])), both(isRange, withCode("EXTRA_BYTES")), "decodeAsync of two values");
  // invalid bytes: a DecodeError, wherever they are
  await rejects(lib.decodeAsync(asyncIterableOf([Uint8Array.of(0x92, 0x01), Uint8Array.of(0xc1)])), both(isDecodeError, withCode("INVALID_BYTE")), "decodeAsync of 0xc1");
  await rejects(collect(lib.decodeMultiStream(readableOf([Uint8Array.of(0x01, 0xc1)]))), both(isDecodeError, withCode("INVALID_BYTE")), "decodeMultiStream of 0xc1");
  await rejects(collect(lib.decodeArrayStream(asyncIterableOf([Uint8Array.of(0x92, 0x01, 0xc1)]))), both(isDecodeError, withCode("INVALID_BYTE")), "decodeArrayStream of 0xc1");
  // an error from the source reaches the caller unchanged
  const boom = new Error("source failed");
  async function* failing() {
    yield Uint8Array.of(0x92);
    throw boom;
  }
  await rejects(lib.decodeAsync(failing()), (e) => (e === boom ? "" : "not the source's error"), "decodeAsync of a failing source");
  await rejects(collect(lib.decodeMultiStream(failing())), (e) => (e === boom ? "" : "not the source's error"), "decodeMultiStream of a failing source");
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const lib = await import(moduleUrl(args.module));
  const names = ["decodeAsync", "decodeArrayStream", "decodeMultiStream"];
  for (const name of names) if (typeof lib[name] !== "function") fail(`${name} is not exported by ${args.module}`);
  for (const name of ["decodeAsync", "decodeArrayStream", "decodeStream"]) {
    if (typeof lib.Decoder?.prototype[name] !== "function") fail(`Decoder#${name} is missing in ${args.module}`);
  }
  const started = Date.now();
  await checkDecodeAsync(lib);
  await checkArrayStream(lib, args.oracle);
  await checkMultiStream(lib);
  await checkDecoderMethods(lib, args.oracle);
  await checkErrors(lib, args.oracle);
  if (failures.length > 0) fail(`${failures.length} of ${checks} checks failed on ${runtimeName()}:\n  ${failures.join("\n  ")}`);
  const summary = { runtime: runtimeName(), module: args.module, oracle: args.oracle, checks, ms: Date.now() - started };
  console.log(`COMPAT_ASYNC_OK ${JSON.stringify(summary)}`);
}

await main();
