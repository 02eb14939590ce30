/**
 * JSON back to MessagePack, losslessly: the one-key objects whose key
 * starts with `$` that `toJson` (./to-json.ts) writes for the values JSON
 * lacks (bigints, binaries, extensions, timestamps with nanoseconds,
 * non-string keys, -0, NaN, float 32) and for every form other than the
 * one the encoder would choose (a uint 16 holding 1, a str 8 holding "a")
 * give back those exact bytes, so that `fromJson(toJson(x))` is `x`. The
 * tags are listed in the package's docs/inspect.md ("JSON form"). Also: splitting
 * a stream of text into its back-to-back JSON texts, in bounded memory.
 *
 * @module
 */

import { type EncodeError, encodeError } from "../common/errors.ts";
import { strHeaderSize, writeArrayHeader, writeBinHeader, writeBoolean, writeExtHeader, writeFloat, writeInt, writeMapHeader, writeNil, writeStrHeader, writeU32 } from "../format/forms.ts";
import { fromBase64 } from "./base64.ts";
import { parseIsoTime } from "./time.ts";

export { fromBase64, toBase64 } from "./base64.ts";
export { toJson } from "./to-json.ts";

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

/** The error for JSON input at `path` ($.a[2].$uint8) that holds what no MessagePack can be made of. */
const bad = (path: string, problem: string): EncodeError => encodeError(`Cannot convert JSON at ${path}: ${problem}`, "INVALID_ARGUMENT");

/** Makes the error for the value being written, from what is wrong with it (its path is known where it is written). */
type Fail = (problem: string) => EncodeError;

/** Nesting of JSON input refused (containers in containers), well within what the walk's own stack holds. */
export const MAX_JSON_DEPTH = 10_000;

/** Bigints made by `BigInt(...)`, not written as literals, which bundlers targeting ES2018 warn about. */
const ZERO = BigInt(0);
const EIGHT = BigInt(8);
/** The tags of exact int forms: the form's first byte, and its range. */
const INT_FORMS: Record<string, [number, bigint, bigint]> = {
  $uint8: [0xcc, ZERO, BigInt(0xff)],
  $uint16: [0xcd, ZERO, BigInt(0xffff)],
  $uint32: [0xce, ZERO, BigInt(0xffffffff)],
  $uint64: [0xcf, ZERO, BigInt("0xffffffffffffffff")],
  $int8: [0xd0, BigInt(-0x80), BigInt(0x7f)],
  $int16: [0xd1, BigInt(-0x8000), BigInt(0x7fff)],
  $int32: [0xd2, BigInt(-0x80000000), BigInt(0x7fffffff)],
  $int64: [0xd3, -BigInt("0x8000000000000000"), BigInt("0x7fffffffffffffff")],
};

/** The size forms a tag names: "" (the encoder's choice), or the first byte of the 8 / 16 / 32 form, or "fix". */
function sized(tag: string, name: string, code8: number): number | "fix" | null | undefined {
  if (tag === `$${name}`) return null;
  if (tag === `$fix${name}`) return "fix";
  const bits = tag.startsWith(`$${name}`) ? tag.slice(name.length + 1) : "";
  return bits === "8" ? code8 : bits === "16" ? code8 + 1 : bits === "32" ? code8 + 2 : undefined;
}

/** Writes a length header of `n` in the exact form `code` (8/16/32 first byte of its family, `width` 1/2/4) or fails. */
function exactHeader(out: Out, code: number, width: number, n: number, fail: Fail): void {
  if (n >= 2 ** (8 * width)) throw fail(`length ${n} does not fit its form`);
  const p = out.room(1 + width);
  out.b[p] = code;
  if (width === 1) out.b[p + 1] = n;
  else if (width === 2) ((out.b[p + 1] = n >> 8), (out.b[p + 2] = n));
  else writeU32(out.b, p + 1, n);
  out.pos = p + 1 + width;
}

/**
 * A container of JSON input whose items are being written: an array's
 * items, an object's keys and values, or the keys and values of a `$map`
 * tag's pairs (flattened). `tag` is the `$` tag it is the value of, if
 * any (for the path in an error).
 */
interface JsonFrame {
  readonly items: readonly unknown[];
  /** An object's keys (its values are `items`), or null. */
  readonly keys: readonly string[] | null;
  /** Whether `items` are the flattened pairs of a `$map` tag. */
  readonly pairs: boolean;
  readonly tag: string;
  /** The next item. */
  i: number;
}

/** The path of the value being written ($.a[2].$uint8), from the open containers; the middle of a path deeper than 40 is left out. */
function pathOf(stack: readonly JsonFrame[], tag: string): string {
  let path = "$";
  for (let d = 0; d < stack.length; d++) {
    if (stack.length > 40 && d === 20) {
      path += `(${stack.length - 40} levels)`;
      d = stack.length - 20;
    }
    const f = stack[d]!;
    if (f.tag !== "") path += "." + f.tag;
    const i = f.i - 1;
    path += f.keys !== null ? "." + f.keys[i]! : f.pairs ? `[${i >> 1}][${i & 1}]` : `[${i}]`;
  }
  return tag === "" ? path : `${path}.${tag}`;
}

/**
 * Writes one parsed JSON value in the lossless form, with a stack of its
 * own (JSON input may nest far deeper than the call stack allows): a
 * nesting past {@link MAX_JSON_DEPTH} is an `INVALID_ARGUMENT` error.
 */
function writeJson(out: Out, root: unknown): void {
  const stack: JsonFrame[] = [];
  let v = root;
  for (;;) {
    if (stack.length >= MAX_JSON_DEPTH && typeof v === "object" && v !== null) throw bad(pathOf(stack, ""), `nested too deep (more than ${MAX_JSON_DEPTH} levels)`);
    const frame = writeOne(out, v, stack);
    if (frame !== null) stack.push(frame);
    // the next item to write, closing containers that are done
    let top = stack[stack.length - 1];
    while (top !== undefined && top.i >= top.items.length) {
      stack.pop();
      top = stack[stack.length - 1];
    }
    if (top === undefined) return;
    if (top.keys !== null) writeStr(out, top.keys[top.i]!, null);
    v = top.items[top.i++];
  }
}

/** Writes `v`, the next value under the containers of `stack`: a scalar whole, or a container's header, returning the frame of its items (null when it has none to write). */
function writeOne(out: Out, v: unknown, stack: readonly JsonFrame[]): JsonFrame | null {
  if (v === null) return (out.write(1, (b, p) => writeNil(b, p)), null);
  if (typeof v === "boolean") return (out.write(1, (b, p) => writeBoolean(b, p, v)), null);
  if (typeof v === "number") {
    const p = out.room(9);
    out.pos = Number.isSafeInteger(v) && !Object.is(v, -0) ? writeInt(out.b, p, v) : writeFloat(out.view, p, v, false);
    return null;
  }
  if (typeof v === "string") return (writeStr(out, v, null), null);
  if (Array.isArray(v)) {
    out.write(5, (b, p) => writeArrayHeader(b, p, v.length));
    return v.length === 0 ? null : { items: v, keys: null, pairs: false, tag: "", i: 0 };
  }
  const keys = Object.keys(v as object);
  const tag = keys[0]!;
  // a tag's own problem: its path ends in the tag
  if (keys.length === 1 && tag.startsWith("$")) return writeTag(out, tag, (v as Record<string, unknown>)[tag], (problem) => bad(pathOf(stack, tag), problem));
  out.write(5, (b, p) => writeMapHeader(b, p, keys.length));
  return keys.length === 0 ? null : { items: keys.map((k) => (v as Record<string, unknown>)[k]), keys, pairs: false, tag: "", i: 0 };
}

/** A str in the encoder's form (`code` null), or the exact form `code` ("fix", or str 8 / 16 / 32's first byte). */
function writeStr(out: Out, s: string, code: number | "fix" | null, fail?: Fail): void {
  const data = textEncoder.encode(s);
  const n = data.length;
  if (code === null) {
    const size = strHeaderSize(n);
    out.write(size, (b, p) => (writeStrHeader(b, p, n, size), p + size));
  } else if (code === "fix") {
    if (n >= 32) throw fail!(`a fixstr holds up to 31 bytes, not ${n}`);
    out.put(0xa0 | n);
  } else {
    exactHeader(out, code, code === 0xd9 ? 1 : code === 0xda ? 2 : 4, n, fail!);
  }
  out.bytes(data);
}

/** A decimal integer as a tag holds it in a string: digits, an optional minus, no spaces, no other base. */
const DECIMAL = /^-?\d{1,20}$/;

/** Writes the value of tag `tag` (`fail` makes its errors); returns the frame of its items for an array or map tag (else null). */
function writeTag(out: Out, tag: string, v: unknown, fail: Fail): JsonFrame | null {
  const int = INT_FORMS[tag];
  if (int) {
    if (!(typeof v === "string" ? DECIMAL.test(v) : Number.isSafeInteger(v))) throw fail("not an integer (a safe integer number, or a decimal string)");
    let n = BigInt(v as string | number);
    const [code, min, max] = int;
    if (n < min || n > max) throw fail(`${n} is out of range`);
    const width = tag.endsWith("8") ? 1 : tag.endsWith("16") ? 2 : tag.endsWith("32") ? 4 : 8;
    const p = out.room(1 + width);
    out.b[p] = code;
    for (let i = width; i >= 1; i--) {
      out.b[p + i] = Number(BigInt.asUintN(8, n));
      n >>= EIGHT;
    }
    out.pos = p + 1 + width;
    return null;
  }
  if (tag === "$float32" || tag === "$float64") {
    const n = tag === "$float32" ? 4 : 8;
    const p = out.room(1 + n);
    if (typeof v === "string" && /^0x[0-9a-f]+$/i.test(v) && v.length === 2 + 2 * n) {
      out.b[p] = n === 4 ? 0xca : 0xcb;
      for (let i = 0; i < n; i++) out.b[p + 1 + i] = parseInt(v.slice(2 + 2 * i, 4 + 2 * i), 16);
      out.pos = p + 1 + n;
      return null;
    }
    const x = typeof v === "number" ? v : v === "NaN" ? NaN : v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : v === "-0" ? -0 : undefined;
    if (x === undefined) throw fail('not a number, "NaN", "Infinity", "-Infinity", "-0" or "0x" and the bits in hex');
    out.pos = writeFloat(out.view, p, x, n === 4);
    return null;
  }
  const str = sized(tag, "str", 0xd9);
  if (str !== undefined) {
    if (typeof v !== "string") throw fail("not a string");
    writeStr(out, v, str, fail);
    return null;
  }
  const bin = sized(tag, "bin", 0xc4);
  if (bin !== undefined && bin !== "fix") {
    const data = typeof v === "string" ? fromBase64(v) : null;
    if (data === null) throw fail("not base64");
    if (bin === null) out.write(5, (b, p) => writeBinHeader(b, p, data.length));
    else exactHeader(out, bin, bin - 0xc3 === 3 ? 4 : bin - 0xc3, data.length, fail);
    out.bytes(data);
    return null;
  }
  const array = sized(tag, "array", 0xdb);
  if (array !== undefined && array !== 0xdb) {
    if (!Array.isArray(v)) throw fail("not an array");
    if (array === null) out.write(5, (b, p) => writeArrayHeader(b, p, v.length));
    else if (array === "fix") {
      if (v.length >= 16) throw fail(`a fixarray holds up to 15 items, not ${v.length}`);
      out.put(0x90 | v.length);
    } else exactHeader(out, array, array === 0xdc ? 2 : 4, v.length, fail);
    return v.length === 0 ? null : { items: v, keys: null, pairs: false, tag, i: 0 };
  }
  const map = sized(tag, "map", 0xdd);
  if (map !== undefined && map !== 0xdd) {
    if (!Array.isArray(v) || !v.every((e) => Array.isArray(e) && e.length === 2)) throw fail("not an array of [key, value] pairs");
    if (map === null) out.write(5, (b, p) => writeMapHeader(b, p, v.length));
    else if (map === "fix") {
      if (v.length >= 16) throw fail(`a fixmap holds up to 15 entries, not ${v.length}`);
      out.put(0x80 | v.length);
    } else exactHeader(out, map, map === 0xde ? 2 : 4, v.length, fail);
    return v.length === 0 ? null : { items: (v as unknown[][]).flat(), keys: null, pairs: true, tag, i: 0 };
  }
  const fixext = /^\$fixext(1|2|4|8|16)$/.exec(tag);
  const ext = fixext ? "fix" : tag === "$fixext" ? undefined : sized(tag, "ext", 0xc7);
  if (ext !== undefined) {
    const type = Array.isArray(v) ? v[0] : undefined;
    const data = Array.isArray(v) && v.length === 2 && typeof v[1] === "string" ? fromBase64(v[1]) : null;
    if (!Number.isInteger(type) || type < -128 || type > 127 || data === null) throw fail("not [type (-128..127), base64 payload]");
    const n = data.length;
    if (ext === null) out.write(6, (b, p) => writeExtHeader(b, p, type, n));
    else {
      if (ext === "fix") {
        if (String(n) !== fixext![1]) throw fail(`a ${tag.slice(1)} holds ${fixext![1]} bytes, not ${n}`);
        out.put([0xd4, 0xd5, 0, 0xd6, 0, 0, 0, 0xd7][n - 1] ?? 0xd8);
      } else exactHeader(out, ext, ext === 0xc7 ? 1 : ext === 0xc8 ? 2 : 4, n, fail);
      out.put(type & 0xff);
    }
    out.bytes(data);
    return null;
  }
  const ts = /^\$timestamp(32|64|96)?$/.exec(tag);
  if (ts) {
    const time = typeof v === "string" ? parseIsoTime(v) : null;
    if (time === null) throw fail("not an ISO 8601 time in UTC that exists (2024-05-01T12:00:00.123456789Z)");
    const { sec, nsec } = time;
    const fits64 = sec >= 0 && sec <= 0x3ffffffff;
    const bits = ts[1] ? Number(ts[1]) : fits64 ? (nsec === 0 && sec <= 0xffffffff ? 32 : 64) : 96;
    if ((bits === 32 && (nsec !== 0 || sec < 0 || sec > 0xffffffff)) || (bits === 64 && !fits64)) throw fail(`${v} does not fit a timestamp ${bits}`);
    const payload = new Uint8Array(bits / 8);
    const view = new DataView(payload.buffer);
    if (bits === 32) view.setUint32(0, sec);
    else if (bits === 64) (view.setUint32(0, nsec * 4 + Math.floor(sec / 0x100000000)), view.setUint32(4, sec >>> 0));
    else (view.setUint32(0, nsec), view.setBigInt64(4, BigInt(sec)));
    out.write(6, (b, p) => writeExtHeader(b, p, -1, payload.length));
    out.bytes(payload);
    return null;
  }
  throw fail(`unknown tag "${tag}" (a map with one key starting with "$" is written {"$map": [[key, value]]})`);
}

/**
 * Splits text into its back-to-back JSON texts (separated by whitespace,
 * or written one after the other as `{}{}`), without parsing them. Feed it
 * text with {@link JsonSplitter.push}; it returns the texts completed so
 * far and keeps the rest. A text that cannot be JSON from its first
 * character on (not `{`, `[`, `"`, a digit, `-`, `t`, `f` or `n`) ends at
 * that character, for `JSON.parse` to refuse at once; a text longer than
 * `maxText` characters is a {@link JsonTooLong} error, so that input that
 * never ends a text (`/dev/zero`, an unclosed string) is not held whole.
 */
export class JsonSplitter {
  /** The parts of the current text from earlier chunks (joined once, when it ends: linear in the input). */
  private parts: string[] = [];
  /** Characters in `parts`. */
  private held = 0;
  /** Whether a text has started. */
  private open = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Whether the current text is a number, true, false or null (it ends where a space or another text starts). */
  private scalar = false;
  /** Texts completed so far. */
  private texts = 0;

  private readonly maxText: number;

  /** @param maxText the longest text taken, in characters */
  constructor(maxText: number = Infinity) {
    this.maxText = maxText;
  }

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
        if (this.scalar && !(c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e)) {
          // no JSON text starts so: this character alone, for JSON.parse to name
          this.emit(out, text.slice(i, i + 1));
          continue;
        }
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
        if (this.held + end - start > this.maxText) throw this.tooLong();
        this.parts.push(text.slice(start, end));
        this.emit(out, this.parts.join(""));
        // a scalar ends at the character that starts what follows: read it again
        if (end === i) i--;
      }
    }
    if (this.open) {
      this.held += text.length - start;
      if (this.held > this.maxText) throw this.tooLong();
      this.parts.push(text.slice(start));
    }
    return out;
  }

  /** Ends the input; returns the last text, if any (a text cut short is returned as it is, for JSON.parse to refuse). */
  end(): string[] {
    const rest = this.parts.join("").trim();
    this.parts = [];
    this.held = 0;
    this.open = false;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    return rest === "" ? [] : [rest];
  }

  /** Completes a text: `out` gets it, and the next one starts. */
  private emit(out: string[], text: string): void {
    out.push(text);
    this.texts++;
    this.parts = [];
    this.held = 0;
    this.open = false;
    this.depth = 0;
  }

  private tooLong(): JsonTooLong {
    this.parts = [];
    return new JsonTooLong(this.texts + 1, this.maxText);
  }
}

/** A JSON text longer than a {@link JsonSplitter} takes. */
export class JsonTooLong extends Error {
  /** Which text (from 1). */
  readonly text: number;
  constructor(text: number, maxText: number) {
    super(`JSON text ${text} is longer than ${maxText} characters`);
    this.text = text;
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
  for (const t of [...splitter.push(text), ...splitter.end()]) writeJson(out, JSON.parse(t));
  return out.b.slice(0, out.pos);
}

/** One parsed JSON value (in the lossless form) as MessagePack bytes; see {@link fromJson}. */
export function jsonToBytes(value: unknown): Uint8Array {
  const out = new Out();
  writeJson(out, value);
  return out.b.slice(0, out.pos);
}
