/**
 * MessagePack as JSON and back, losslessly: the values JSON lacks
 * (bigints, binaries, extensions, timestamps with nanoseconds, non-string
 * keys, -0, NaN, float 32) and every form other than the one the encoder
 * would choose (a uint 16 holding 1, a str 8 holding "a") are written as
 * one-key objects whose key starts with `$`, so that `fromJson(toJson(x))`
 * gives back the bytes of `x` exactly. The tags are listed in the
 * package's docs/inspect.md ("JSON form").
 *
 * @module
 */

import { encodeError } from "../common/errors.ts";
import { FIRST_BYTE, lengthFieldOf, strHeaderSize, writeArrayHeader, writeBinHeader, writeBoolean, writeExtHeader, writeFloat, writeInt, writeMapHeader, writeNil, writeStrHeader, writeU32 } from "../format/forms.ts";
import type { DecodeInput } from "../common/input.ts";
import { inspect, type InspectNode, type InspectOptions } from "./tree.ts";
import { isoTime, parseIsoTime } from "./time.ts";

// ---- base64 ----

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_INDEX[B64.charCodeAt(i)] = i;

/** `b` in base64 (RFC 4648, with padding). */
export function toBase64(b: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  if (i < b.length) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8);
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + (i + 1 < b.length ? B64[(n >> 6) & 63]! : "=") + "=";
  }
  return out;
}

/** The bytes of base64 text (padding optional, no whitespace); null when it is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  const s = text.endsWith("==") ? text.slice(0, -2) : text.endsWith("=") ? text.slice(0, -1) : text;
  if (s.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? B64_INDEX[c]! : -1;
    if (v < 0) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

// ---- MessagePack -> JSON ----

/** The form a first byte starts, as a tag: "$uint16", "$str8", "$ext32". */
function tagOf(t: number, prefix: string): string {
  const field = lengthFieldOf(FIRST_BYTE[t]!);
  return `$${prefix}${field ? field * 8 : ""}`;
}

/** Whether the map's keys can be the keys of a plain JSON object that reads back in the same order to the same bytes. */
function plainKeys(children: InspectNode[], bytes: Uint8Array, base: number): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < children.length; i += 2) {
    const k = children[i]!;
    if (k.type !== "str" || typeof k.value !== "string" || k.headerLength !== strHeaderSize(k.count!) || (k.headerLength === 1) !== (bytes[k.offset - base]! < 0xc0)) return false;
    // JSON.parse lists integer-like keys first, and drops duplicates
    if (/^(0|[1-9]\d{0,9})$/.test(k.value) && Number(k.value) < 0xffffffff) return false;
    if (seen.has(k.value)) return false;
    seen.add(k.value);
  }
  return !(seen.size === 1 && [...seen][0]!.startsWith("$"));
}

/** The first byte the encoder would write for `write` (one of the forms.ts writers). */
function firstByte(write: (b: Uint8Array, p: number) => number): number {
  const b = new Uint8Array(16);
  write(b, 0);
  return b[0]!;
}

/** The bits of a NaN, when they are not the usual quiet NaN's. */
function nanBits(bytes: Uint8Array, at: number, n: number): string | null {
  const hex = Array.from(bytes.subarray(at, at + n), (x) => x.toString(16).padStart(2, "0")).join("");
  return hex === (n === 4 ? "7fc00000" : "7ff8000000000000") ? null : "0x" + hex;
}

/**
 * One node as a JSON value (see the module doc): plain JSON where the
 * encoder would write these very bytes, else a `$` tag.
 */
function jsonOf(node: InspectNode, bytes: Uint8Array, base: number): unknown {
  const at = node.offset - base;
  const t = bytes[at]!;
  const v = node.value;
  switch (node.type) {
    case "nil":
    case "boolean":
      return v;
    case "int": {
      const canonical = typeof v === "number" && firstByte((b, p) => writeInt(b, p, v)) === t;
      if (canonical) return v;
      return { [`${t <= 0xcf ? "$uint" : "$int"}${8 * (node.length - 1)}`]: typeof v === "bigint" ? String(v) : v };
    }
    case "float": {
      const n = node.length - 1;
      const x = v as number;
      if (n === 8 && Number.isFinite(x) && !Number.isSafeInteger(x)) return x;
      const special = x !== x ? (nanBits(bytes, at + 1, n) ?? "NaN") : x === Infinity ? "Infinity" : x === -Infinity ? "-Infinity" : Object.is(x, -0) ? "-0" : x;
      return { [n === 4 ? "$float32" : "$float64"]: special };
    }
    case "str":
      return node.headerLength === strHeaderSize(node.count!) ? v : { [t < 0xc0 ? "$fixstr" : tagOf(t, "str")]: v };
    case "bin": {
      const canonical = firstByte((b, p) => writeBinHeader(b, p, node.count!)) === t;
      return { [canonical ? "$bin" : tagOf(t, "bin")]: toBase64(v as Uint8Array) };
    }
    case "array": {
      const items = node.children!.map((c) => jsonOf(c, bytes, base));
      return firstByte((b, p) => writeArrayHeader(b, p, node.count!)) === t ? items : { [tagOf(t, "array")]: items };
    }
    case "map": {
      const children = node.children!;
      const canonical = firstByte((b, p) => writeMapHeader(b, p, node.count!)) === t;
      if (canonical && plainKeys(children, bytes, base)) {
        const obj: Record<string, unknown> = {};
        for (let i = 0; i < children.length; i += 2) Object.defineProperty(obj, children[i]!.value as string, { value: jsonOf(children[i + 1]!, bytes, base), enumerable: true, writable: true, configurable: true });
        return obj;
      }
      const pairs: unknown[] = [];
      for (let i = 0; i < children.length; i += 2) pairs.push([jsonOf(children[i]!, bytes, base), jsonOf(children[i + 1]!, bytes, base)]);
      return { [canonical ? "$map" : t < 0x90 ? "$fixmap" : tagOf(t, "map")]: pairs };
    }
    case "record": {
      // a record is written as the map the decoder's object would be: its keys are strings, in the structure's order
      const children = node.children!;
      const names = new Set<string>();
      let plain = true;
      for (let i = 0; i < children.length; i += 2) {
        const k = children[i]!.value as string;
        if ((/^(0|[1-9]\d{0,9})$/.test(k) && Number(k) < 0xffffffff) || names.has(k)) plain = false;
        names.add(k);
      }
      if (plain && !(names.size === 1 && [...names][0]!.startsWith("$"))) {
        const obj: Record<string, unknown> = {};
        for (let i = 0; i < children.length; i += 2) Object.defineProperty(obj, children[i]!.value as string, { value: jsonOf(children[i + 1]!, bytes, base), enumerable: true, writable: true, configurable: true });
        return obj;
      }
      const pairs: unknown[] = [];
      for (let i = 0; i < children.length; i += 2) pairs.push([children[i]!.value, jsonOf(children[i + 1]!, bytes, base)]);
      return { $map: pairs };
    }
    case "ext": {
      const n = node.count!;
      const type = node.extType!;
      const canonicalHeader = firstByte((b, p) => writeExtHeader(b, p, type, n)) === t;
      const data = bytes.subarray(at + node.headerLength, at + node.headerLength + n);
      if (node.time && canonicalHeader) {
        const { sec, nsec } = node.time;
        const shortest = sec >= 0 && sec <= 0x3ffffffff ? (nsec === 0 && sec <= 0xffffffff ? 4 : 8) : 12;
        return { [shortest === n ? "$timestamp" : `$timestamp${n * 8}`]: isoTime(sec, nsec) };
      }
      return { [canonicalHeader ? "$ext" : t >= 0xd4 ? `$fixext${n}` : tagOf(t, "ext")]: [type, toBase64(data)] };
    }
    default:
      throw encodeError(`Cannot write the byte 0xc1 at offset ${node.offset} as JSON`, "UNSUPPORTED_TYPE");
  }
}

/**
 * MessagePack to JSON: each of the back-to-back values in `input` as one
 * line of JSON, in the lossless form described in docs/inspect.md ("JSON
 * form"), so that {@link fromJson} gives back the same bytes. With
 * `useRecords`, a record is written as a map of its field names would be
 * (so {@link fromJson} gives back a map that decodes to the same object).
 *
 * @param input the MessagePack bytes
 * @param options the decoder's limits and `useRecords` (as `inspect` takes them)
 * @returns one line of JSON per value, each ending in "\n"
 * @throws {DecodeError} for malformed input, as `decodeMulti` throws it
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { fromJson, toJson } from "@resizable/msgpack/inspect";
 * const bytes = encode({ id: 2n ** 64n - 1n, at: new Date(0), raw: new Uint8Array([1, 2]), ratio: -0 });
 * const json = toJson(bytes);
 * console.assert(json === '{"id":{"$uint64":"18446744073709551615"},"at":{"$timestamp":"1970-01-01T00:00:00Z"},"raw":{"$bin":"AQI="},"ratio":{"$float64":"-0"}}\n');
 * console.assert(fromJson(json).join() === bytes.join());
 * ```
 */
export function toJson(input: DecodeInput, options?: InspectOptions): string {
  const result = inspect(input, options);
  if (result.error) throw result.error;
  let out = "";
  for (const node of result.nodes) out += JSON.stringify(jsonOf(node, result.bytes, result.start)) + "\n";
  return out;
}

/** One node (from `inspect`, of valid bytes) as a JSON value in the lossless form; see {@link toJson}. */
export function nodeToJson(node: InspectNode, bytes: Uint8Array, start = 0): unknown {
  return jsonOf(node, bytes, start);
}

// ---- JSON -> MessagePack ----

/** A growing output. */
class Out {
  b: Uint8Array = new Uint8Array(256);
  view: DataView = new DataView(this.b.buffer);
  pos = 0;

  /** Room for `n` more bytes; returns the position to write at. */
  room(n: number): number {
    if (this.pos + n > this.b.length) {
      const grown = new Uint8Array(Math.max(this.b.length * 2, this.pos + n));
      grown.set(this.b.subarray(0, this.pos));
      this.b = grown;
      this.view = new DataView(grown.buffer);
    }
    return this.pos;
  }

  /** Writes with `f` (a forms.ts writer at `b`, `p`, returning the position after), `n` bytes of room. */
  write(n: number, f: (b: Uint8Array, p: number) => number): void {
    const p = this.room(n);
    this.pos = f(this.b, p);
  }

  /** Writes one byte. */
  put(byte: number): void {
    const p = this.room(1);
    this.b[p] = byte;
    this.pos = p + 1;
  }

  bytes(data: Uint8Array): void {
    this.room(data.length);
    this.b.set(data, this.pos);
    this.pos += data.length;
  }
}

const textEncoder = new TextEncoder();

/** An error in JSON input at `path` ($.a[2]). */
function bad(path: string, problem: string): Error {
  return encodeError(`Cannot convert JSON at ${path}: ${problem}`, "INVALID_ARGUMENT");
}

const INT_FORMS: Record<string, [number, bigint, bigint]> = {
  $uint8: [0xcc, 0n, 0xffn],
  $uint16: [0xcd, 0n, 0xffffn],
  $uint32: [0xce, 0n, 0xffffffffn],
  $uint64: [0xcf, 0n, 0xffffffffffffffffn],
  $int8: [0xd0, -0x80n, 0x7fn],
  $int16: [0xd1, -0x8000n, 0x7fffn],
  $int32: [0xd2, -0x80000000n, 0x7fffffffn],
  $int64: [0xd3, -0x8000000000000000n, 0x7fffffffffffffffn],
};

/** The size forms a tag names: "" (the encoder's choice), or the first byte of the 8 / 16 / 32 form, or "fix". */
function sized(tag: string, name: string, code8: number): number | "fix" | null | undefined {
  if (tag === `$${name}`) return null;
  if (tag === `$fix${name}`) return "fix";
  const bits = tag.startsWith(`$${name}`) ? tag.slice(name.length + 1) : "";
  return bits === "8" ? code8 : bits === "16" ? code8 + 1 : bits === "32" ? code8 + 2 : undefined;
}

/** Writes a length header of `n` in the exact form `code` (8/16/32 first byte of its family, `width` 1/2/4) or fails. */
function exactHeader(out: Out, code: number, width: number, n: number, path: string): void {
  if (n >= 2 ** (8 * width)) throw bad(path, `length ${n} does not fit its form`);
  const p = out.room(1 + width);
  out.b[p] = code;
  if (width === 1) out.b[p + 1] = n;
  else if (width === 2) ((out.b[p + 1] = n >> 8), (out.b[p + 2] = n));
  else writeU32(out.b, p + 1, n);
  out.pos = p + 1 + width;
}

function writeJson(out: Out, v: unknown, path: string, depth: number): void {
  if (depth > 10_000) throw bad(path, "nested too deep");
  if (v === null) return out.write(1, (b, p) => writeNil(b, p));
  if (typeof v === "boolean") return out.write(1, (b, p) => writeBoolean(b, p, v));
  if (typeof v === "number") {
    const p = out.room(9);
    out.pos = Number.isSafeInteger(v) && !Object.is(v, -0) ? writeInt(out.b, p, v) : writeFloat(out.view, p, v, false);
    return;
  }
  if (typeof v === "string") return writeStr(out, v, null);
  if (Array.isArray(v)) {
    out.write(5, (b, p) => writeArrayHeader(b, p, v.length));
    v.forEach((item, i) => writeJson(out, item, `${path}[${i}]`, depth + 1));
    return;
  }
  const keys = Object.keys(v as object);
  if (keys.length === 1 && keys[0]!.startsWith("$")) return writeTag(out, keys[0]!, (v as Record<string, unknown>)[keys[0]!], `${path}.${keys[0]}`, depth);
  out.write(5, (b, p) => writeMapHeader(b, p, keys.length));
  for (const k of keys) {
    writeStr(out, k, null);
    writeJson(out, (v as Record<string, unknown>)[k], `${path}.${k}`, depth + 1);
  }
}

/** A str in the encoder's form (`code` null), or the exact form `code` ("fix", or str 8 / 16 / 32's first byte). */
function writeStr(out: Out, s: string, code: number | "fix" | null, path = ""): void {
  const data = textEncoder.encode(s);
  const n = data.length;
  if (code === null) {
    const size = strHeaderSize(n);
    out.write(size, (b, p) => (writeStrHeader(b, p, n, size), p + size));
  } else if (code === "fix") {
    if (n >= 32) throw bad(path, `a fixstr holds up to 31 bytes, not ${n}`);
    out.put(0xa0 | n);
  } else {
    exactHeader(out, code, code === 0xd9 ? 1 : code === 0xda ? 2 : 4, n, path);
  }
  out.bytes(data);
}

function writeTag(out: Out, tag: string, v: unknown, path: string, depth: number): void {
  const int = INT_FORMS[tag];
  if (int) {
    let n: bigint;
    try {
      if (typeof v !== "string" && !Number.isSafeInteger(v)) throw 0;
      n = BigInt(v as string | number);
    } catch {
      throw bad(path, "not an integer (a safe integer number, or a decimal string)");
    }
    const [code, min, max] = int;
    if (n < min || n > max) throw bad(path, `${n} is out of range`);
    const width = tag.endsWith("8") ? 1 : tag.endsWith("16") ? 2 : tag.endsWith("32") ? 4 : 8;
    const p = out.room(1 + width);
    out.b[p] = code;
    for (let i = width; i >= 1; i--) {
      out.b[p + i] = Number(BigInt.asUintN(8, n));
      n >>= 8n;
    }
    out.pos = p + 1 + width;
    return;
  }
  if (tag === "$float32" || tag === "$float64") {
    const n = tag === "$float32" ? 4 : 8;
    const p = out.room(1 + n);
    if (typeof v === "string" && /^0x[0-9a-f]+$/i.test(v) && v.length === 2 + 2 * n) {
      out.b[p] = n === 4 ? 0xca : 0xcb;
      for (let i = 0; i < n; i++) out.b[p + 1 + i] = parseInt(v.slice(2 + 2 * i, 4 + 2 * i), 16);
      out.pos = p + 1 + n;
      return;
    }
    const x = typeof v === "number" ? v : v === "NaN" ? NaN : v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : v === "-0" ? -0 : undefined;
    if (x === undefined) throw bad(path, 'not a number, "NaN", "Infinity", "-Infinity", "-0" or "0x" and the bits in hex');
    out.pos = writeFloat(out.view, p, x, n === 4);
    return;
  }
  const str = sized(tag, "str", 0xd9);
  if (str !== undefined) {
    if (typeof v !== "string") throw bad(path, "not a string");
    return writeStr(out, v, str, path);
  }
  const bin = sized(tag, "bin", 0xc4);
  if (bin !== undefined && bin !== "fix") {
    const data = typeof v === "string" ? fromBase64(v) : null;
    if (data === null) throw bad(path, "not base64");
    if (bin === null) out.write(5, (b, p) => writeBinHeader(b, p, data.length));
    else exactHeader(out, bin, bin - 0xc3 === 3 ? 4 : bin - 0xc3, data.length, path);
    return out.bytes(data);
  }
  const array = sized(tag, "array", 0xdb);
  if (array !== undefined && array !== 0xdb) {
    if (!Array.isArray(v)) throw bad(path, "not an array");
    if (array === null) out.write(5, (b, p) => writeArrayHeader(b, p, v.length));
    else if (array === "fix") {
      if (v.length >= 16) throw bad(path, `a fixarray holds up to 15 items, not ${v.length}`);
      out.put(0x90 | v.length);
    } else exactHeader(out, array, array === 0xdc ? 2 : 4, v.length, path);
    v.forEach((item, i) => writeJson(out, item, `${path}[${i}]`, depth + 1));
    return;
  }
  const map = sized(tag, "map", 0xdd);
  if (map !== undefined && map !== 0xdd) {
    if (!Array.isArray(v) || !v.every((e) => Array.isArray(e) && e.length === 2)) throw bad(path, "not an array of [key, value] pairs");
    if (map === null) out.write(5, (b, p) => writeMapHeader(b, p, v.length));
    else if (map === "fix") {
      if (v.length >= 16) throw bad(path, `a fixmap holds up to 15 entries, not ${v.length}`);
      out.put(0x80 | v.length);
    } else exactHeader(out, map, map === 0xde ? 2 : 4, v.length, path);
    v.forEach((e: unknown[], i) => {
      writeJson(out, e[0], `${path}[${i}][0]`, depth + 1);
      writeJson(out, e[1], `${path}[${i}][1]`, depth + 1);
    });
    return;
  }
  const fixext = /^\$fixext(1|2|4|8|16)$/.exec(tag);
  const ext = fixext ? "fix" : tag === "$fixext" ? undefined : sized(tag, "ext", 0xc7);
  if (ext !== undefined) {
    const type = Array.isArray(v) ? v[0] : undefined;
    const data = Array.isArray(v) && v.length === 2 && typeof v[1] === "string" ? fromBase64(v[1]) : null;
    if (!Number.isInteger(type) || type < -128 || type > 127 || data === null) throw bad(path, "not [type (-128..127), base64 payload]");
    const n = data.length;
    if (ext === null) out.write(6, (b, p) => writeExtHeader(b, p, type, n));
    else {
      if (ext === "fix") {
        if (String(n) !== fixext![1]) throw bad(path, `a ${tag.slice(1)} holds ${fixext![1]} bytes, not ${n}`);
        out.put([0xd4, 0xd5, 0, 0xd6, 0, 0, 0, 0xd7][n - 1] ?? 0xd8);
      } else exactHeader(out, ext, ext === 0xc7 ? 1 : ext === 0xc8 ? 2 : 4, n, path);
      out.put(type & 0xff);
    }
    return out.bytes(data);
  }
  const ts = /^\$timestamp(32|64|96)?$/.exec(tag);
  if (ts) {
    const time = typeof v === "string" ? parseIsoTime(v) : null;
    if (time === null) throw bad(path, "not an ISO 8601 time in UTC (2024-05-01T12:00:00.123456789Z)");
    const { sec, nsec } = time;
    const fits64 = sec >= 0 && sec <= 0x3ffffffff;
    const bits = ts[1] ? Number(ts[1]) : fits64 ? (nsec === 0 && sec <= 0xffffffff ? 32 : 64) : 96;
    if ((bits === 32 && (nsec !== 0 || sec < 0 || sec > 0xffffffff)) || (bits === 64 && !fits64)) throw bad(path, `${v} does not fit a timestamp ${bits}`);
    const payload = new Uint8Array(bits / 8);
    const view = new DataView(payload.buffer);
    if (bits === 32) view.setUint32(0, sec);
    else if (bits === 64) (view.setUint32(0, nsec * 4 + Math.floor(sec / 0x100000000)), view.setUint32(4, sec >>> 0));
    else (view.setUint32(0, nsec), view.setBigInt64(4, BigInt(sec)));
    out.write(6, (b, p) => writeExtHeader(b, p, -1, payload.length));
    return out.bytes(payload);
  }
  throw bad(path, `unknown tag "${tag}" (a map with one key starting with "$" is written {"$map": [[key, value]]})`);
}

/**
 * Splits text into its back-to-back JSON texts (separated by whitespace,
 * or written one after the other as `{}{}`), without parsing them. Feed it
 * text with {@link JsonSplitter.push}; it returns the texts completed so
 * far and keeps the rest.
 */
export class JsonSplitter {
  /** The parts of the current text from earlier chunks (joined once, when it ends: linear in the input). */
  private parts: string[] = [];
  /** Whether a text has started. */
  private open = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Whether the current text is a number, true, false or null (it ends where a space or another text starts). */
  private scalar = false;

  /** Adds text; returns the JSON texts it completes. */
  push(text: string): string[] {
    const out: string[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const space = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
      if (!this.open) {
        if (space) continue;
        this.open = true;
        start = i;
        this.scalar = c !== 0x7b && c !== 0x5b && c !== 0x22;
      }
      let end = -1;
      if (this.scalar) {
        if (space || c === 0x7b || c === 0x5b || c === 0x22) end = i;
      } else if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c) this.escaped = true;
        else if (c === 0x22) {
          this.inString = false;
          if (this.depth === 0) end = i + 1;
        }
      } else if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if ((c === 0x7d || c === 0x5d) && --this.depth <= 0) end = i + 1;
      if (end >= 0) {
        this.parts.push(text.slice(start, end));
        out.push(this.parts.join(""));
        this.parts = [];
        this.open = false;
        this.depth = 0;
        // a scalar ends at the character that starts what follows: read it again
        if (end === i) i--;
      }
    }
    if (this.open) this.parts.push(text.slice(start));
    return out;
  }

  /** Ends the input; returns the last text, if any (a text cut short is returned as it is, for JSON.parse to refuse). */
  end(): string[] {
    const rest = this.parts.join("").trim();
    this.parts = [];
    this.open = false;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    return rest === "" ? [] : [rest];
  }
}

/**
 * JSON to MessagePack: each of the back-to-back JSON texts in `text`
 * (one per line, as {@link toJson} writes them, or separated by any
 * whitespace) as one MessagePack value, the values back to back. Plain
 * JSON takes the forms `encode` gives (integers as the smallest int form,
 * other numbers as float 64, objects as maps with string keys); the `$`
 * tags of the lossless JSON form (see docs/inspect.md) give the exact form.
 *
 * @param text the JSON texts
 * @returns the MessagePack bytes
 * @throws {SyntaxError} for text that is not JSON
 * @throws {EncodeError} (`INVALID_ARGUMENT`) for a tag that is unknown or
 *   holds what it cannot
 *
 * @example
 * ```ts
 * import { decode } from "@resizable/msgpack";
 * import { fromJson } from "@resizable/msgpack/inspect";
 * const bytes = fromJson('{"n": {"$uint16": 1}, "when": {"$timestamp": "2024-05-01T12:00:00.5Z"}}');
 * console.assert(bytes[3] === 0xcd && (decode(bytes) as { when: Date }).when.getTime() === Date.UTC(2024, 4, 1, 12, 0, 0, 500));
 * ```
 */
export function fromJson(text: string): Uint8Array {
  const out = new Out();
  const splitter = new JsonSplitter();
  for (const t of [...splitter.push(text), ...splitter.end()]) writeJson(out, JSON.parse(t), "$", 0);
  return out.b.slice(0, out.pos);
}

/** One parsed JSON value (in the lossless form) as MessagePack bytes; see {@link fromJson}. */
export function jsonToBytes(value: unknown): Uint8Array {
  const out = new Out();
  writeJson(out, value, "$", 0);
  return out.b.slice(0, out.pos);
}
