// Runtime-neutral checks shared by the smoke script (node, bun, deno) and the
// browser test. Plain JavaScript with no I/O and no test runner, importing
// only test/_support/fixtures.mjs (the seeded PRNG, its Random, and the vector reader,
// itself import-free): the caller hands in the library namespace and the
// parsed vector files, and every failed check throws an Error that says
// what, where and, for random values, which seed. fixtures.mjs describes the
// vector format.
import { bytesToHex, hexToBytes, Random, readVectors } from "../_support/fixtures.mjs";

export { bytesToHex, hexToBytes };

/** Names the runtime this runs in, e.g. "node 18.20.8", "deno 2.9.6". */
export function runtimeName() {
  const g = globalThis;
  if (g.Deno?.version?.deno) return `deno ${g.Deno.version.deno}`;
  if (g.Bun?.version) return `bun ${g.Bun.version}`;
  if (g.process?.versions?.node) return `node ${g.process.versions.node}`;
  if (g.navigator?.userAgent) return g.navigator.userAgent;
  return "unknown";
}

/** True where `ArrayBuffer.prototype.resize` exists (not Node 18). */
export const HAS_RESIZABLE = typeof ArrayBuffer.prototype.resize === "function";

// ---------------------------------------------------------------- helpers

function show(value) {
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})[${bytesToHex(value.subarray(0, 16))}${value.length > 16 ? "..." : ""}]`;
  if (value instanceof Date) return `Date(${value.getTime()})`;
  if (value instanceof Map) return `Map(${value.size})`;
  try {
    const s = JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? `${v}n` : v));
    if (s !== undefined) return s.length > 120 ? `${s.slice(0, 120)}...` : s;
  } catch {
    // fall through
  }
  return String(value);
}

function isPlainObject(v) {
  if (v === null || typeof v !== "object") return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function isExt(v) {
  return v !== null && typeof v === "object" && typeof v.type === "number" && v.data instanceof Uint8Array;
}

/**
 * Deep comparison for decoded values. Returns null when equal, otherwise a
 * sentence naming the first difference and its path. Numbers compare with
 * Object.is: NaN equals NaN, and -0 must stay -0 (it encodes as a float).
 */
export function difference(actual, expected, path = "$") {
  if (typeof expected === "number") {
    if (typeof actual !== "number") return `${path}: expected number ${expected}, got ${typeof actual} ${show(actual)}`;
    if (Object.is(actual, expected)) return null;
    const str = (n) => (Object.is(n, -0) ? "-0" : String(n));
    return `${path}: expected ${str(expected)}, got ${str(actual)}`;
  }
  if (typeof expected !== "object" || expected === null) {
    if (actual === expected) return null;
    return `${path}: expected ${typeof expected} ${show(expected)}, got ${typeof actual} ${show(actual)}`;
  }
  if (expected instanceof Uint8Array) {
    if (!(actual instanceof Uint8Array)) return `${path}: expected Uint8Array, got ${show(actual)}`;
    if (actual.length !== expected.length) return `${path}: expected ${expected.length} bytes, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      if (actual[i] !== expected[i]) return `${path}[${i}]: expected byte ${expected[i]}, got ${actual[i]}`;
    }
    return null;
  }
  if (expected instanceof Date) {
    if (!(actual instanceof Date)) return `${path}: expected Date, got ${show(actual)}`;
    return actual.getTime() === expected.getTime() ? null : `${path}: expected ${show(expected)}, got ${show(actual)}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected array, got ${show(actual)}`;
    if (actual.length !== expected.length) return `${path}: expected length ${expected.length}, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = difference(actual[i], expected[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (expected instanceof Map) {
    if (!(actual instanceof Map)) return `${path}: expected Map, got ${show(actual)}`;
    if (actual.size !== expected.size) return `${path}: expected Map of ${expected.size}, got ${actual.size}`;
    const a = [...actual];
    const e = [...expected];
    for (let i = 0; i < e.length; i++) {
      const d = difference(a[i][0], e[i][0], `${path}.key(${i})`) ?? difference(a[i][1], e[i][1], `${path}.get(${show(e[i][0])})`);
      if (d) return d;
    }
    return null;
  }
  if (isExt(expected)) {
    if (!isExt(actual)) return `${path}: expected ExtData, got ${show(actual)}`;
    // Same class, not just the same shape: catches a second copy of the codec
    // (e.g. a "./streams" bundle with its own ExtData).
    if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected)) return `${path}: expected an instance of the ExtData class the test uses, got another class with the same shape`;
    if (actual.type !== expected.type) return `${path}.type: expected ${expected.type}, got ${actual.type}`;
    return difference(actual.data, expected.data, `${path}.data`);
  }
  if (!isPlainObject(actual)) return `${path}: expected plain object, got ${show(actual)}`;
  const ak = Object.keys(actual);
  const ek = Object.keys(expected);
  if (ak.join("\u0000") !== ek.join("\u0000")) return `${path}: expected keys ${show(ek)}, got ${show(ak)}`;
  for (const k of ek) {
    const d = difference(actual[k], expected[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

function fail(message) {
  throw new Error(message);
}

// ---------------------------------------------------------------- vectors

function checkDecoded(actual, spec, where) {
  const d = difference(actual, spec.expected);
  if (d) fail(`${where}: ${d}`);
}

/** Decodes `bytes` from a Uint8Array, an ArrayBuffer and an offset view. */
function decodeEveryWay(lib, bytes, options) {
  const results = [lib.decode(bytes, options)];
  const buffer = new ArrayBuffer(bytes.length);
  new Uint8Array(buffer).set(bytes);
  results.push(lib.decode(buffer, options));
  const padded = new Uint8Array(bytes.length + 7);
  padded.fill(0xc1);
  padded.set(bytes, 3);
  results.push(lib.decode(padded.subarray(3, 3 + bytes.length), options));
  return results;
}

/**
 * Checks every entry of every vector file. `files` maps a file name to its
 * parsed JSON. Returns the number of encodings decoded and values encoded.
 */
export function checkVectors(lib, files) {
  let decoded = 0;
  let encoded = 0;
  /** `<file>/<group>` -> the group's entries checked by decoding, for decodeMulti */
  const groups = new Map();
  for (const spec of readVectors(files, lib.ExtData)) {
    const { where } = spec;
    const group = `${spec.file}/${spec.group}`;
    if (!groups.has(group)) groups.set(group, []);
    if (!spec.encodeOnly) {
      spec.hex.forEach((hex, i) => {
        const bytes = spec.encodings[i];
        let results;
        try {
          results = decodeEveryWay(lib, bytes);
        } catch (e) {
          fail(`${where}: decode(${hex}) threw ${e}`);
        }
        ["Uint8Array", "ArrayBuffer", "offset view"].forEach((how, i) => checkDecoded(results[i], spec, `${where}: decode(${hex}) from ${how}`));
        if (spec.bigint !== undefined && /^(cf|d3)/.test(hex)) {
          const asBig = lib.decode(bytes, { int64: "bigint" });
          if (asBig !== spec.bigint) fail(`${where}: decode(${hex}, { int64: "bigint" }) gave ${show(asBig)}, expected ${spec.bigint}n`);
        }
        decoded++;
      });
      groups.get(group).push(spec);
    }
    if (!spec.decodeOnly && spec.input !== undefined) {
      let out;
      try {
        out = lib.encode(spec.input);
      } catch (e) {
        fail(`${where}: encode(${show(spec.input)}) threw ${e}`);
      }
      if (!(out instanceof Uint8Array)) fail(`${where}: encode() returned ${show(out)}, not a Uint8Array`);
      const hex = bytesToHex(out);
      if (!spec.hex.includes(hex)) fail(`${where}: encode(${show(spec.input)}) gave ${hex}, expected one of ${spec.hex.join(" | ")}`);
      encoded++;
    }
  }
  // decodeMulti over the concatenation of each group's first encodings.
  if (typeof lib.decodeMulti === "function") {
    for (const [group, specs] of groups) {
      if (specs.length === 0) continue;
      const all = new Uint8Array(specs.reduce((n, s) => n + s.encodings[0].length, 0));
      let pos = 0;
      for (const s of specs) {
        all.set(s.encodings[0], pos);
        pos += s.encodings[0].length;
      }
      const values = [...lib.decodeMulti(all)];
      if (values.length !== specs.length) fail(`${group}: decodeMulti gave ${values.length} values, expected ${specs.length}`);
      values.forEach((v, i) => checkDecoded(v, specs[i], `${group}: decodeMulti value ${i}`));
    }
  }
  if (decoded === 0) fail("checkVectors: no vectors were checked");
  return { decoded, encoded };
}

// ---------------------------------------------------------------- round trips

const ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.:/";
const UNICODE = ["é", "ß", "Ж", "中", "文", "ー", "€", "😀", "🎉", "𝄞", "\u0000", "\u007f", "\u0080", "\u07ff", "\u0800", "\uffff"];

/** Random values for round trips, from the shared seeded {@link Random}. */
export class Generator extends Random {
  string(maxLength) {
    const length = this.below(maxLength + 1);
    const unicode = this.next() < 0.3;
    let s = "";
    for (let i = 0; i < length; i++) s += unicode && this.next() < 0.3 ? this.pick(UNICODE) : ASCII[this.below(ASCII.length)];
    // Flatten the rope so every runtime sees an ordinary string.
    return s.length > 0 ? JSON.parse(JSON.stringify(s)) : s;
  }
  number() {
    switch (this.below(10)) {
      case 0: return this.below(128);                                // positive fixint
      case 1: return -1 - this.below(32);                            // negative fixint
      case 2: return this.pick([127, 128, 255, 256, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER]);
      case 3: return this.pick([-32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, Number.MIN_SAFE_INTEGER]);
      case 4: return this.below(2 ** 16) - 2 ** 15;
      case 5: return Math.floor((this.next() - 0.5) * 2 ** 53);  // any safe integer width
      case 6: return (this.next() - 0.5) * 10 ** this.below(12);   // float64
      case 7: return this.pick([0.5, -0.5, 1.5, Math.PI, 1e-7, 5e-324, -5e-324, 1.7976931348623157e308, Infinity, -Infinity, NaN]);
      case 8: return this.below(2 ** 32);
      default: return -this.below(2 ** 31);
    }
  }
  bigint() {
    // Outside the safe range (inside it, "auto" decodes to a number).
    const magnitude = 2n ** 53n + BigInt(this.below(2 ** 30)) * BigInt(this.below(2 ** 30) + 1);
    return this.pick([
      magnitude,
      -magnitude,
      2n ** 63n - 1n,
      -(2n ** 63n),
      2n ** 64n - 1n,
      2n ** 63n,
    ]);
  }
  value(lib, depth) {
    const r = this.below(depth > 0 ? 14 : 11);
    switch (r) {
      case 0: return null;
      case 1: return this.next() < 0.5;
      case 2: case 3: return this.number();
      case 4: case 5: return this.string(this.pick([8, 31, 40, 300]));
      case 6: return this.bytes(this.below(this.pick([4, 300])));
      case 7: return this.bigint();
      case 8: return new Date(Math.floor((this.next() - 0.3) * 8e12));
      case 9: return new lib.ExtData(this.below(128), this.bytes(this.pick([0, 1, 2, 3, 4, 8, 16, 17, 300])));
      case 10: return this.string(3);
      case 11: {
        const n = this.below(this.pick([4, 20]));
        const a = [];
        for (let i = 0; i < n; i++) a.push(this.value(lib, depth - 1));
        return a;
      }
      default: {
        const n = this.below(this.pick([4, 20]));
        const o = {};
        for (let i = 0; i < n; i++) o[`${this.string(10)}${i}`] = this.value(lib, depth - 1);
        return o;
      }
    }
  }
  map(lib, depth) {
    const m = new Map();
    const n = 1 + this.below(10);
    for (let i = 0; i < n; i++) {
      const key = this.next() < 0.5 ? this.below(1000) : `k${this.string(6)}`;
      m.set(key, depth > 0 && this.next() < 0.3 ? this.map(lib, depth - 1) : this.value(lib, 0));
    }
    return m;
  }
}

function roundTrip(lib, value, where, options) {
  let bytes;
  try {
    bytes = lib.encode(value);
  } catch (e) {
    fail(`${where}: encode threw ${e}`);
  }
  if (!(bytes instanceof Uint8Array)) fail(`${where}: encode returned ${show(bytes)}`);
  if (bytes.byteOffset !== 0 || bytes.buffer.byteLength !== bytes.byteLength) {
    fail(`${where}: encode returned a view of ${bytes.buffer.byteLength} bytes for ${bytes.byteLength} bytes of output (expected independent, exact-length bytes)`);
  }
  if (typeof lib.encodedSize === "function") {
    const size = lib.encodedSize(value);
    if (size !== bytes.length) fail(`${where}: encodedSize gave ${size}, encode wrote ${bytes.length} bytes`);
  }
  if (typeof lib.estimateSize === "function") {
    const guess = lib.estimateSize(value);
    if (!(Number.isFinite(guess) && guess >= 0)) fail(`${where}: estimateSize gave ${guess}`);
  }
  let back;
  try {
    back = lib.decode(bytes, options);
  } catch (e) {
    fail(`${where}: decode of ${bytes.length} encoded bytes threw ${e}`);
  }
  const d = difference(back, value);
  if (d) fail(`${where}: decode(encode(x)) differs: ${d}`);
  return bytes;
}

/**
 * Browsers' Web IDL bindings (Chromium: Blob, Response, TextDecoder,
 * TextEncoder.encodeInto, crypto.getRandomValues) reject views of resizable
 * ArrayBuffers, even ones shrunk to their maximum. An encode result must be
 * usable there, whatever its size.
 */
function usableByWebApis(bytes, where) {
  try {
    if (typeof Blob === "function" && new Blob([bytes]).size !== bytes.length) fail(`${where}: Blob size differs`);
    if (typeof TextDecoder === "function") new TextDecoder().decode(bytes.subarray(0, 16));
  } catch (e) {
    fail(`${where}: the encode result cannot be passed to Blob/TextDecoder: ${e}`);
  }
}

/** Builds values big enough to leave any scratch buffer (> 1 MiB encoded). */
export function bigValues(gen, lib) {
  const records = [];
  for (let i = 0; i < 12000; i++) {
    records.push({ id: i, name: gen.string(24), score: gen.number(), tags: [gen.string(6), gen.string(6)], ok: i % 3 === 0 });
  }
  let text = "";
  while (text.length < 1_200_000) text += gen.string(200) + "\n";
  return [
    { name: "12k records", value: records },
    { name: "2 MiB binary", value: gen.bytes(2 * 1024 * 1024 + 3) },
    { name: "1.2M-char string", value: JSON.parse(JSON.stringify(text)) },
    { name: "mixed object", value: { head: gen.value(lib, 2), body: gen.bytes(600_000), text: text.slice(0, 700_000), tail: records.slice(0, 500) } },
  ];
}

/**
 * Seeded random round trips: `count` small values, Maps with `useMap`, and
 * the big values. Also encodes with one `Encoder` across big and small values
 * and checks that earlier results are not overwritten by later calls.
 */
export function checkRoundTrips(lib, { seed = 1, count = 400, big = true } = {}) {
  const gen = new Generator(seed);
  let n = 0;
  let largest = 0;
  const tag = (what) => `round trip ${what} (seed ${seed})`;
  for (let i = 0; i < count; i++) {
    roundTrip(lib, gen.value(lib, 3), tag(`#${i}`));
    n++;
  }
  for (let i = 0; i < 30; i++) {
    roundTrip(lib, gen.map(lib, 2), tag(`Map #${i} with useMap`), { useMap: true });
    n++;
  }
  // poolResults: the same bytes as plain results, none overwritten by later calls;
  // shared slabs except on Bun, where the option keeps plain results (cheaper there)
  if (lib.Encoder) {
    const pooled = new lib.Encoder({ poolResults: true });
    const plain = new lib.Encoder();
    const kept = [];
    for (let i = 0; i < 600; i++) {
      const value = gen.value(lib, 2);
      kept.push({ out: pooled.encode(value), expected: plain.encode(value) });
    }
    kept.forEach(({ out, expected }, i) => {
      if (bytesToHex(out) !== bytesToHex(expected)) fail(`${tag("poolResults")}: result ${i} differs from the plain encoding`);
    });
    const shared = kept.some(({ out }) => out.buffer.byteLength !== out.length);
    const expectShared = typeof globalThis.Bun === "undefined";
    if (shared !== expectShared) fail(`${tag("poolResults")}: results ${shared ? "share" : "do not share"} buffers on ${runtimeName()}`);
    n++;
  }
  if (big) {
    const values = bigValues(gen, lib);
    for (const { name, value } of values) {
      const bytes = roundTrip(lib, value, tag(name));
      largest = Math.max(largest, bytes.length);
      usableByWebApis(bytes, tag(name));
      n++;
    }
    if (largest <= 1024 * 1024) fail(`${tag("big")}: largest encoding is ${largest} bytes, not over 1 MiB`);
    // One Encoder reused: results must be independent of later encodes.
    const encoder = new lib.Encoder();
    const small = { a: 1, b: "two", c: [3] };
    const outputs = [];
    for (const { value } of [values[0], { value: small }, values[1], { value: small }, values[2]]) {
      const out = encoder.encode(value);
      outputs.push({ value, out, copy: out.slice() });
    }
    outputs.forEach(({ value, out, copy }, i) => {
      const d = difference(out, copy);
      if (d) fail(`${tag("Encoder reuse")}: result ${i} changed after later encode() calls: ${d}`);
      const back = lib.decode(out);
      const e = difference(back, value);
      if (e) fail(`${tag("Encoder reuse")}: result ${i} does not decode back: ${e}`);
      n++;
    });
  }
  return { roundTrips: n, largest };
}

// ---------------------------------------------------------------- streams

function chunked(bytes, gen) {
  const chunks = [];
  for (let pos = 0; pos < bytes.length;) {
    const size = 1 + gen.below(gen.pick([3, 64, 4096]));
    chunks.push(bytes.slice(pos, pos + size));
    pos += size;
  }
  return chunks;
}

/** The chunks as a `ReadableStream` that pulls them one at a time. */
export function readableOf(chunks) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
}

async function* asyncIterableOf(chunks) {
  for (const c of chunks) yield c;
}

async function collect(iterable) {
  const out = [];
  for await (const v of iterable) out.push(v);
  return out;
}

/**
 * Checks the "./streams" entry: decodeAsync, decodeMultiStream and
 * decodeArrayStream over randomly split input (ReadableStream and async
 * iterable), and EncoderStream piped into DecoderStream.
 */
export async function checkStreams(lib, streams, { seed = 2 } = {}) {
  const gen = new Generator(seed);
  const names = ["decodeAsync", "decodeArrayStream", "decodeMultiStream", "EncoderStream", "DecoderStream"];
  for (const name of names) if (typeof streams[name] !== "function") fail(`streams: ${name} is not exported`);
  const values = [];
  for (let i = 0; i < 40; i++) values.push(gen.value(lib, 2));
  values.push(bigValues(gen, lib)[0].value);
  let checks = 0;
  const where = (what) => `streams ${what} (seed ${seed})`;
  for (const [i, value] of values.entries()) {
    const bytes = lib.encode(value);
    const viaStream = await streams.decodeAsync(readableOf(chunked(bytes, gen)));
    const d1 = difference(viaStream, value);
    if (d1) fail(`${where(`decodeAsync(ReadableStream) #${i}`)}: ${d1}`);
    const viaIterable = await streams.decodeAsync(asyncIterableOf(chunked(bytes, gen)));
    const d2 = difference(viaIterable, value);
    if (d2) fail(`${where(`decodeAsync(AsyncIterable) #${i}`)}: ${d2}`);
    checks += 2;
  }
  const parts = values.map((v) => lib.encode(v));
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((pos, p) => (joined.set(p, pos), pos + p.length), 0);
  const multi = await collect(streams.decodeMultiStream(readableOf(chunked(joined, gen))));
  const d3 = difference(multi, values);
  if (d3) fail(`${where("decodeMultiStream")}: ${d3}`);
  const items = await collect(streams.decodeArrayStream(readableOf(chunked(lib.encode(values), gen))));
  const d4 = difference(items, values);
  if (d4) fail(`${where("decodeArrayStream")}: ${d4}`);
  // Errors from the streams entry are the DecodeError class of the main entry.
  let thrown;
  try {
    await streams.decodeAsync(asyncIterableOf([Uint8Array.of(0xc1)]));
  } catch (e) {
    thrown = e;
  }
  if (!(thrown instanceof lib.DecodeError)) fail(`${where("decodeAsync of 0xc1")}: expected a DecodeError of the main entry, got ${show(thrown)}`);
  const piped = await collect(readableOf(values).pipeThrough(new streams.EncoderStream()).pipeThrough(new streams.DecoderStream()));
  const d5 = difference(piped, values);
  if (d5) fail(`${where("EncoderStream | DecoderStream")}: ${d5}`);
  return { streamChecks: checks + 4 + (await checkStreamFailures(lib, streams)) + checkStreamEncoder(lib, streams, gen) };
}

/**
 * The streaming encoder is encode() chunk by chunk: the same bytes (an
 * aligned extension's position counted in the whole output), as many
 * extension calls, the same error for a Map whose iterator yields no
 * entry; and a detached buffer is a DecodeError INVALID_ARGUMENT. Returns
 * the number of checks.
 */
function checkStreamEncoder(lib, streams, gen) {
  if (typeof streams.encodeIterable !== "function") fail("streams: encodeIterable is not exported");
  class Aligned {
    constructor(n) {
      this.n = n;
    }
  }
  let calls = 0;
  const extensionCodec = new lib.ExtensionCodec();
  extensionCodec.register({ type: 5, encode: (v) => (v instanceof Aligned ? (calls++, (pos) => new Uint8Array(((4 - (pos % 4)) % 4) + v.n).fill(v.n)) : null), decode: (d) => d });
  const joined = (chunks) => {
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    chunks.reduce((at, c) => (out.set(c, at), at + c.length), 0);
    return out;
  };
  const errorOf = (f) => {
    try {
      f();
    } catch (e) {
      return `${e.code}: ${e.message}`;
    }
    return "no error";
  };
  let checks = 0;
  for (let i = 0; i < 20; i++) {
    const value = { head: gen.value(lib, 2), list: Array.from({ length: 1 + gen.below(30) }, (_, k) => (k % 3 === 0 ? new Aligned(gen.below(9)) : gen.value(lib, 1))) };
    calls = 0;
    const whole = lib.encode(value, { extensionCodec });
    const wholeCalls = calls;
    for (const chunkSize of [1, 13, 4096]) {
      calls = 0;
      const bytes = joined([...streams.encodeIterable(value, { extensionCodec, chunkSize })]);
      if (bytesToHex(bytes) !== bytesToHex(whole)) fail(`encodeIterable #${i} chunkSize ${chunkSize}: bytes differ from encode()`);
      if (calls !== wholeCalls) fail(`encodeIterable #${i} chunkSize ${chunkSize}: ${calls} extension calls, encode() made ${wholeCalls}`);
      checks++;
    }
  }
  const lying = () => {
    const map = new Map([["a", 1]]);
    Object.defineProperty(map, Symbol.iterator, { value: () => ["ab"][Symbol.iterator]() });
    return { a: { b: [0, map] }, pad: "p".repeat(100) };
  };
  const expected = errorOf(() => lib.encode(lying()));
  const got = errorOf(() => [...streams.encodeIterable(lying(), { chunkSize: 8 })]);
  if (!expected.startsWith("CHANGED: Cannot encode Map at $.a.b[1]") || got !== expected) fail(`encodeIterable of a Map yielding "ab": ${got}, encode(): ${expected}`);
  const buffer = lib.encode([1, 2]).buffer;
  structuredClone(buffer, { transfer: [buffer] });
  let thrown;
  try {
    lib.decode(buffer);
  } catch (e) {
    thrown = e;
  }
  if (!(thrown instanceof lib.DecodeError) || thrown.code !== "INVALID_ARGUMENT") fail(`decode of a detached ArrayBuffer: expected DecodeError INVALID_ARGUMENT, got ${show(thrown)}`);
  return checks + 2;
}

/**
 * What differs between runtimes' stream machinery: DecoderStream decodes one
 * value per read (a 64 KiB chunk of 1-byte values is never decoded, or
 * queued, at once); an extension decoder's truncated inner decode fails a
 * stream at once (INVALID_EXT), not at its end; a source whose return()
 * never settles cannot hold back the error. Returns the number of checks.
 */
async function checkStreamFailures(lib, streams) {
  const n = 64 * 1024;
  const decoder = new streams.DecoderStream();
  const writer = decoder.writable.getWriter();
  const written = writer.write(new Uint8Array(n).map((_, i) => i & 0x7f));
  const reader = decoder.readable.getReader();
  for (let i = 0; i < 10; i++) {
    const r = await reader.read();
    if (r.value !== i) fail(`DecoderStream: value ${i} is ${show(r.value)}`);
  }
  if (decoder.stats.bytesDecoded > 11) fail(`DecoderStream: ${decoder.stats.bytesDecoded} bytes decoded after 10 reads of 1-byte values: it decoded ahead of the reader`);
  const closing = written.then(() => writer.close());
  let count = 10;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    if (r.value !== (count & 0x7f)) fail(`DecoderStream: value ${count} is ${show(r.value)}`);
    count++;
  }
  await closing;
  if (count !== n) fail(`DecoderStream: ${count} values of ${n}`);

  const codec = new lib.ExtensionCodec();
  codec.register({ type: 1, encode: () => null, decode: (data) => lib.decode(data, { extensionCodec: codec }) });
  let pulled = 0;
  async function* packets() {
    yield Uint8Array.of(0x01, 0xd5, 0x01, 0x92, 0x01); // 1, then an extension whose payload is an array cut short
    for (;;) {
      if (++pulled > 1000) throw new Error("the stream decoder kept reading");
      yield Uint8Array.of(0x02);
    }
  }
  const got = [];
  let error;
  try {
    for await (const v of streams.decodeMultiStream(packets(), { extensionCodec: codec })) got.push(v);
  } catch (e) {
    error = e;
  }
  if (!(error instanceof lib.DecodeError) || error.code !== "INVALID_EXT" || error.offset !== 1 || got.length !== 1 || pulled > 1) {
    fail(`decodeMultiStream with a failing extension decoder: values ${show(got)}, error ${show(error?.code)} at ${show(error?.offset)} (${String(error)}), ${pulled} chunks pulled after it`);
  }

  const hanging = {
    [Symbol.asyncIterator]() {
      let sent = false;
      return {
        next: async () => (sent ? { done: true, value: undefined } : ((sent = true), { done: false, value: Uint8Array.of(0x92, 0xc1, 0x00) })),
        return: () => new Promise(() => undefined),
      };
    },
  };
  // a guard against a hang, not a timing: the decode settles at once, and the timer is cleared
  let timer;
  const outcome = await Promise.race([
    streams.decodeAsync(hanging).then(
      () => "resolved",
      (e) => e,
    ),
    new Promise((resolve) => (timer = setTimeout(() => resolve("hung"), 10_000))),
  ]);
  clearTimeout(timer);
  if (!(outcome instanceof lib.DecodeError) || outcome.code !== "INVALID_BYTE") fail(`decodeAsync whose source's return() never settles: ${show(outcome)}`);
  return 3;
}

/**
 * The error code and message `run` throws, or null when it returns.
 */
function thrownBy(run) {
  try {
    run();
  } catch (e) {
    return { code: e.code, message: String(e.message) };
  }
  return null;
}

/**
 * Messages dense in short strings, so that the decoder reads them through
 * its window where the runtime has one (Node, Bun and Deno: see
 * src/decode/text-window.ts), with a non-ASCII character or a byte that is
 * not UTF-8 here and there, and floats of high bytes between them, at
 * every byte offset of their buffer: each string must equal the strict
 * UTF-8 decoding of its bytes, and a message with bytes that are not
 * UTF-8 must throw INVALID_UTF8.
 */
export function checkStringWindows(lib, { seed = 1, count = 60 } = {}) {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const odd = [[0xc3, 0xa9], [0xe6, 0x97, 0xa5], [0xf0, 0x9f, 0x98, 0x80], [0x80], [0xff], [0x9f]];
  let strings = 0;
  for (let k = 0; k < count; k++) {
    const r = new Random(seed * 1000 + k);
    const n = r.int(1, 300);
    const out = [0xdc, n >> 8, n & 0xff];
    const expected = [];
    let valid = true;
    for (let i = 0; i < n; i++) {
      const bytes = Array.from({ length: r.int(0, 40) }, () => r.int(0x20, 0x7e));
      if (bytes.length > 0 && r.int(0, 9) === 0) bytes.splice(r.int(0, bytes.length - 1), 0, ...r.pick(odd));
      let text = null;
      try {
        text = strict.decode(Uint8Array.from(bytes));
      } catch {
        valid = false;
      }
      expected.push(text);
      out.push(0xd9, bytes.length, ...bytes);
    }
    const offset = r.int(0, 7);
    const buffer = new Uint8Array(offset + out.length + r.int(0, 5)).fill(0xcb);
    buffer.set(out, offset);
    const input = buffer.subarray(offset, offset + out.length);
    const where = `string windows, seed ${seed * 1000 + k}, offset ${offset}`;
    const thrown = thrownBy(() => {
      const values = lib.decode(input);
      for (let i = 0; i < n; i++) if (values[i] !== expected[i]) fail(`${where}: string ${i} is ${show(values[i])}, not ${show(expected[i])}`);
    });
    if (valid && thrown) fail(`${where}: ${thrown.code ?? "error"}: ${thrown.message}`);
    if (!valid && thrown?.code !== "INVALID_UTF8") fail(`${where}: bytes that are not UTF-8 gave ${thrown ? thrown.code : "no error"}`);
    strings += n;
  }
  return { windowStrings: strings };
}

/**
 * The options for programs written for other libraries, in this runtime:
 * `buffers` (Node `Buffer`s where `globalThis.Buffer` exists, else an
 * INVALID_ARGUMENT error),
 * `undefinedAsExtension`, `invalidUtf8: "replace"`, boxed primitives.
 * `invalidUtf8: "replace"` and `buffers` are installed by the compatibility
 * entries (compat/msgpack, compat/notepack): from an entry that did not
 * install them, each must be an INVALID_ARGUMENT naming its import.
 * Returns what it found: whether this runtime has Buffers, and which of
 * the two were installed.
 */
export function checkDropIn(lib) {
  const B = typeof globalThis.Buffer === "function" ? globalThis.Buffer : null;
  const value = { bin: new Uint8Array([0, 1, 2]), u: undefined, list: [undefined, 1] };
  // undefined as msgpackr writes it, and back
  const ext = lib.encode(value.list, { undefinedAsExtension: true });
  if (bytesToHex(ext) !== "92-d4-00-00-01") fail(`undefinedAsExtension: encode([undefined, 1]) gave ${bytesToHex(ext)}, not 92-d4-00-00-01`);
  const back = lib.decode(ext, { undefinedAsExtension: true });
  if (!(Array.isArray(back) && back.length === 2 && back[0] === undefined && back[1] === 1)) fail(`undefinedAsExtension: decode gave ${show(back)}`);
  if (!isExt(lib.decode(ext)[0])) fail("without undefinedAsExtension, d4 00 00 must decode as ExtData");
  // invalid UTF-8, replaced string by string
  const invalid = hexToBytes("92-a2-ff-61-a1-62");
  const lossy = thrownBy(() => lib.decode(invalid, { invalidUtf8: "replace" })) === null;
  if (lossy) {
    const replaced = lib.decode(invalid, { invalidUtf8: "replace" });
    if (replaced[0] !== "\ufffda" || replaced[1] !== "b") fail(`invalidUtf8 "replace" gave ${show(replaced)}`);
  } else {
    const error = thrownBy(() => lib.decode(invalid, { invalidUtf8: "replace" }));
    if (error.code !== "INVALID_ARGUMENT" || !error.message.includes('import "@resizable/msgpack/compat/msgpack"')) fail(`invalidUtf8 "replace" without its module: ${show(error)}`);
  }
  // boxed primitives
  if (bytesToHex(lib.encode([new Number(5), new String("s"), new Boolean(false)])) !== "93-05-a1-73-c2") fail("boxed primitives must encode as their values");
  if (B === null) {
    for (const run of [() => lib.encode(1, { buffers: true }), () => lib.decode(ext, { buffers: true })]) {
      let code;
      try {
        run();
      } catch (e) {
        code = e.code;
      }
      if (code !== "INVALID_ARGUMENT") fail(`buffers: true without a Buffer class must be INVALID_ARGUMENT, got ${code}`);
    }
    return { buffers: false, invalidUtf8: lossy };
  }
  const needsImport = thrownBy(() => lib.encode(1, { buffers: true }));
  if (needsImport !== null && needsImport.message.includes('import "@resizable/msgpack/compat/notepack"')) {
    // not installed: both sides say which import installs it
    const decodeSide = thrownBy(() => lib.decode(ext, { buffers: true }));
    if (needsImport.code !== "INVALID_ARGUMENT" || decodeSide?.code !== "INVALID_ARGUMENT" || !decodeSide.message.includes("compat/notepack")) fail(`buffers without its module: ${show([needsImport, decodeSide])}`);
    return { buffers: "not installed", invalidUtf8: lossy };
  }
  const bytes = lib.encode(value, { buffers: true, ignoreUndefined: true });
  if (!B.isBuffer(bytes)) fail("buffers: encode must return a Buffer");
  const out = lib.decode(bytes, { buffers: true });
  if (!B.isBuffer(out.bin) || out.bin.toString("hex") !== "000102") fail(`buffers: decode must give Buffer binaries, got ${show(out.bin)}`);
  const view = lib.decode(B.from(bytes), { binaryAsView: true }).bin;
  if (!B.isBuffer(view) || view.readUInt16BE(1) !== 0x0102) fail("binaryAsView with a Buffer input must give Buffer views");
  return { buffers: true, invalidUtf8: lossy };
}

/** Runs everything; returns a summary object for the caller to print. */
export async function runAll(lib, files, { streams, seed = 1, count = 400, big = true } = {}) {
  const required = ["encode", "decode", "decodeMulti", "Encoder", "Decoder", "ExtensionCodec", "ExtData", "DecodeError", "EncodeError"];
  const missing = required.filter((name) => typeof lib[name] !== "function");
  if (missing.length > 0) fail(`module does not export ${missing.join(", ")}`);
  const vectors = checkVectors(lib, files);
  const trips = checkRoundTrips(lib, { seed, count, big });
  const summary = { runtime: runtimeName(), resizable: HAS_RESIZABLE, files: Object.keys(files).length, ...vectors, ...trips, ...checkStringWindows(lib, { seed }), ...checkDropIn(lib) };
  if (streams) Object.assign(summary, await checkStreams(lib, streams, { seed: seed + 1 }));
  return summary;
}
