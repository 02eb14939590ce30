/**
 * The fuzz engine shared by test/fuzz.test.ts (a short pass in `npm test`)
 * and `npm run fuzz` (a long pass, see test/tools/fuzz.mjs).
 *
 * Every case is built from one seed only, so a failure replays from the
 * seed it prints. A target takes a `Random` and returns null when the case
 * holds, or a {@link Failure} after shrinking the input to a small
 * reproducer (bytes: chunks dropped and the tail trimmed while it still
 * fails; values: subtrees replaced by smaller ones).
 *
 * Targets:
 * - `decode`: random, mutated, truncated, length-inflated and deep inputs
 *   through `decode`, `decodeMulti` and a reused `Decoder`, under random
 *   options. Only `DecodeError` (a known `code`, an integer `offset`
 *   within the input) may be thrown, nothing hangs, and a reused decoder
 *   gives the same outcome as a fresh one and stays usable.
 * - `stream`: the same inputs cut into random chunks (1-byte ones too)
 *   through `decodeAsync`, `decodeMultiStream`, `decodeArrayStream` and
 *   `DecoderStream`: the same values, or the same error code and offset,
 *   as `decode`/`decodeMulti` of the whole bytes.
 * - `encode`: values with side-effecting getters, containers that change
 *   while they are encoded and Proxies, through every encode entry: the
 *   result is an `EncodeError` with a justified code, or bytes that decode
 *   to a value consistent with one read of each property.
 * - `size`: `encodedSize(x, o)` equals `encode(x, o).length`, or both throw
 *   an `EncodeError` with the same code.
 */

import { isDeepStrictEqual } from "node:util";
import { Worker } from "node:worker_threads";
import {
  decode,
  DecodeError,
  DecodeErrorCode,
  decodeMulti,
  Decoder,
  encode,
  EncodeError,
  EncodeErrorCode,
  encodedSize,
  Encoder,
  ExtData,
  ExtensionCodec,
  type DecodeOptions,
  type EncodeOptions,
} from "../../src/index.ts";
import { decodeArrayStream, decodeAsync, decodeMultiStream, DecoderStream, encodeIterable } from "../../src/streams.ts";
import { hex, Random, string, value } from "./arbitrary.ts";
import { type StrategyName, withStrategy } from "./strategy.ts";

// ---------------------------------------------------------------------------
// Reporting

/** A failing case, shrunk: what went wrong and everything needed to replay it. */
export interface Failure {
  target: string;
  seed: number;
  problem: string;
  /** Lines describing the input: hex bytes or the value, options, chunking. */
  details: string[];
}

/** The text printed for a failure: the seed, the command that replays it, the reproducer. */
export function formatFailure(f: Failure): string {
  return [
    `fuzz target "${f.target}" failed at seed ${f.seed}: ${f.problem}`,
    `  replay: npm run fuzz -- --target ${f.target} --seed ${f.seed} --runs 1`,
    ...f.details.map((d) => "  " + d),
  ].join("\n");
}

/** Renders a value for a reproducer: bytes as hex, Maps, Sets, bigints, -0, NaN and undefined visible. */
export function show(v: unknown, depth = 0): string {
  if (depth > 12) return "…";
  if (v === undefined) return "undefined";
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (typeof v === "string") return JSON.stringify(v.length > 80 ? v.slice(0, 80) + "…" : v);
  if (typeof v !== "object" || v === null) return String(v);
  if (v instanceof Uint8Array) return `bytes(${hex(v.subarray(0, 64))}${v.length > 64 ? "…" : ""})`;
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (v instanceof ExtData) return `new ExtData(${v.type}, bytes(${hex(v.data)}))`;
  if (v instanceof Set) return `new Set([${[...v].map((x) => show(x, depth + 1)).join(", ")}])`;
  if (v instanceof Map) return `new Map([${[...v].map(([k, x]) => `[${show(k, depth + 1)}, ${show(x, depth + 1)}]`).join(", ")}])`;
  if (Array.isArray(v)) return `[${v.map((x) => show(x, depth + 1)).join(", ")}]`;
  return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${show(x, depth + 1)}`).join(", ")}}`;
}

function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.constructor.name}(${(e as { code?: string }).code ?? ""}) ${e.message}`;
  return `non-error ${show(e)}`;
}

// ---------------------------------------------------------------------------
// Shrinking

let shrinking = true;

/** Turns shrinking off (to see failures faster) or on. */
export function setShrinking(on: boolean): void {
  shrinking = on;
}

/** Greedy delta debugging on bytes: drop chunks, then trim, while `fails` holds. */
export async function shrinkBytes(bytes: Uint8Array, fails: (b: Uint8Array) => boolean | Promise<boolean>, budget = 400): Promise<Uint8Array> {
  let best = bytes;
  if (!shrinking) return best;
  let tries = 0;
  for (let size = Math.max(1, best.length >> 1); size >= 1 && tries < budget; size = size === 1 ? 0 : size >> 1) {
    for (let at = 0; at + size <= best.length && tries < budget; ) {
      const candidate = new Uint8Array(best.length - size);
      candidate.set(best.subarray(0, at));
      candidate.set(best.subarray(at + size), at);
      tries++;
      if (await fails(candidate)) best = candidate;
      else at += size;
    }
  }
  return best;
}

/** Smaller versions of a plain value: its children, then the value with one part removed or shrunk. */
function* smallerValues(v: unknown): Generator<unknown> {
  if (v instanceof Uint8Array && v.length > 0) {
    yield v.subarray(0, v.length >> 1);
    return;
  }
  if (typeof v === "string" && v.length > 0) {
    const chars = [...v]; // whole code points: never a lone surrogate
    yield chars.slice(0, chars.length >> 1).join("");
    return;
  }
  if (Array.isArray(v)) {
    yield* v;
    for (let i = 0; i < v.length; i++) yield [...v.slice(0, i), ...v.slice(i + 1)];
    for (let i = 0; i < v.length; i++) for (const s of smallerValues(v[i])) yield v.map((x, j) => (j === i ? s : x));
  } else if (v instanceof Map) {
    const entries = [...v];
    yield* entries.map(([, x]) => x);
    for (let i = 0; i < entries.length; i++) yield new Map(entries.filter((_, j) => j !== i));
    for (let i = 0; i < entries.length; i++) for (const s of smallerValues(entries[i]![1])) yield new Map(entries.map(([k, x], j) => [k, j === i ? s : x]));
  } else if (v instanceof Set) {
    yield* v;
    const items = [...v];
    for (let i = 0; i < items.length; i++) yield new Set(items.filter((_, j) => j !== i));
  } else if (v !== null && typeof v === "object" && !(v instanceof Date) && !(v instanceof ExtData) && !ArrayBuffer.isView(v)) {
    const entries = Object.entries(v);
    yield* entries.map(([, x]) => x);
    for (let i = 0; i < entries.length; i++) yield Object.fromEntries(entries.filter((_, j) => j !== i));
    for (let i = 0; i < entries.length; i++) for (const s of smallerValues(entries[i]![1])) yield Object.fromEntries(entries.map(([k, x], j) => [k, j === i ? s : x]));
  } else if (v !== null && v !== 0) {
    yield null;
  }
}

/** Greedy shrinking of a plain value (or a spec tree) while `fails` holds. */
export async function shrinkValue<T>(v: T, fails: (x: T) => boolean | Promise<boolean>, smaller: (x: T) => Iterable<T> = smallerValues as (x: T) => Iterable<T>, budget = 600): Promise<T> {
  let best = v;
  if (!shrinking) return best;
  let tries = 0;
  let progress = true;
  while (progress && tries < budget) {
    progress = false;
    for (const candidate of smaller(best)) {
      if (++tries > budget) break;
      if (await fails(candidate)) {
        best = candidate;
        progress = true;
        break;
      }
    }
  }
  return best;
}

// ---------------------------------------------------------------------------
// Inputs

/** Bytes that start a header with a length or a count, and the width of that length. */
function lengthField(t: number): { nibble?: number; width?: number } | null {
  if (t >= 0x80 && t <= 0x9f) return { nibble: 15 }; // fixmap, fixarray
  if (t >= 0xa0 && t <= 0xbf) return { nibble: 31 }; // fixstr
  const w: Record<number, number> = { 0xc4: 1, 0xc5: 2, 0xc6: 4, 0xc7: 1, 0xc8: 2, 0xc9: 4, 0xd9: 1, 0xda: 2, 0xdb: 4, 0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4 };
  return w[t] ? { width: w[t] } : null;
}

/**
 * Offsets of the item headers in a valid encoding (a minimal walker over
 * the first-byte table), so mutations can target real headers.
 */
export function headerOffsets(b: Uint8Array): number[] {
  const out: number[] = [];
  let pos = 0;
  let pending = 1;
  const len = (at: number, w: number) => (w === 1 ? b[at]! : w === 2 ? (b[at]! << 8) | b[at + 1]! : ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0);
  while (pending > 0 && pos < b.length && out.length < 10000) {
    const t = b[pos]!;
    out.push(pos);
    pending--;
    pos++;
    if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) continue;
    if (t <= 0x8f) pending += 2 * (t & 15);
    else if (t <= 0x9f) pending += t & 15;
    else if (t <= 0xbf) pos += t & 31;
    else if (t === 0xc4 || t === 0xd9) pos += 1 + len(pos, 1);
    else if (t === 0xc5 || t === 0xda) pos += 2 + len(pos, 2);
    else if (t === 0xc6 || t === 0xdb) pos += 4 + len(pos, 4);
    else if (t === 0xc7) pos += 2 + len(pos, 1);
    else if (t === 0xc8) pos += 3 + len(pos, 2);
    else if (t === 0xc9) pos += 5 + len(pos, 4);
    else if (t === 0xca) pos += 4;
    else if (t === 0xcb) pos += 8;
    else if (t >= 0xcc && t <= 0xd3) pos += 1 << ((t - 0xcc) & 3);
    else if (t >= 0xd4 && t <= 0xd8) pos += 1 + (1 << (t - 0xd4));
    else if (t === 0xdc) (pending += len(pos, 2)), (pos += 2);
    else if (t === 0xdd) (pending += len(pos, 4)), (pos += 4);
    else if (t === 0xde) (pending += 2 * len(pos, 2)), (pos += 2);
    else if (t === 0xdf) (pending += 2 * len(pos, 4)), (pos += 4);
    else break;
  }
  return out;
}

/** Extension type of the test `Set` extension, whose payload is an encoded array. */
export const SET_EXT = 1;

/** A random valid encoding, sometimes with a `Set` extension (an ext whose payload is an encoded array). */
function validBytes(r: Random): Uint8Array {
  const v = value(r, { rich: true, maxDepth: r.int(0, 4), maxItems: 6 });
  if (r.bool(0.2)) {
    const inner = encode([v, value(r, { maxDepth: 1 })]);
    return encode([new ExtData(SET_EXT, inner), r.bool() ? new ExtData(SET_EXT, encode([new ExtData(SET_EXT, encode([]))])) : 0]);
  }
  return encode(v);
}

const INTERESTING = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc4, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcf, 0xd3, 0xd4, 0xd8, 0xd9, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff];

/** Nested containers and extensions, `levels` deep, possibly cut short. */
function deepBytes(r: Random, levels: number): Uint8Array {
  const kind = r.int(0, 3);
  if (kind === 3) {
    // Set extensions holding arrays holding Set extensions...: 0x91, ext 32 (len, type 1), 0x91, ...
    let inner = new Uint8Array([0x90]);
    for (let i = 0; i < Math.min(levels, 2000); i++) {
      const next = new Uint8Array(inner.length + 7);
      next.set([0x91, 0xc9, 0, 0, 0, 0, SET_EXT]);
      new DataView(next.buffer).setUint32(2, inner.length);
      next.set(inner, 7);
      inner = next;
    }
    return inner;
  }
  const unit = kind === 0 ? [0x91] : kind === 1 ? [0x81, 0xa0] : [0xdc, 0x00, 0x01];
  const out = new Uint8Array(unit.length * levels + 1);
  for (let i = 0; i < levels; i++) out.set(unit, i * unit.length);
  out[out.length - 1] = 0xc0;
  return out;
}

/**
 * A random item written header by header rather than from a value, so it
 * has what encoders never write: non-shortest forms (uint 32 for 1, str 32
 * for "a"), map keys of every kind (nil, booleans, floats, bin, arrays,
 * maps, extensions), duplicate and `__proto__` keys, timestamps of every
 * length with out-of-range nanoseconds, 64-bit integers at the safe-integer
 * edges, invalid UTF-8 and surrogates.
 */
function structured(r: Random, depth = 0, out: number[] = []): number[] {
  const u = (n: number, bytes: number) => {
    for (let i = bytes - 1; i >= 0; i--) out.push(Math.floor(n / 2 ** (8 * i)) & 0xff);
  };
  const payload = (n: number) => {
    for (let i = 0; i < n; i++) out.push(r.bool(0.8) ? r.int(0x20, 0x7e) : r.pick([0xc3, 0xa9, 0xed, 0xa0, 0x80, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0xc0, 0x00]));
  };
  const kind = depth >= 4 ? r.int(0, 5) : r.int(0, 8);
  switch (kind) {
    case 0: // small ints in every width
      out.push(r.pick([0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd1, 0xd2, 0xd3]));
      u(r.int(0, 255), 1);
      for (let i = 1; i < [1, 2, 4, 8, 1, 2, 4, 8][out[out.length - 2]! - 0xcc]!; i++) out.push(r.pick([0x00, 0xff, 0x1f, 0x20, 0x80]));
      break;
    case 1: // floats, including NaN payloads and -0
      if (r.bool()) out.push(0xca, ...r.bytes(4));
      else out.push(0xcb, ...r.pick([[0x7f, 0xf8, 0, 0, 0, 0, 0, 1], [0x80, 0, 0, 0, 0, 0, 0, 0], [0x43, 0x3f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [...r.bytes(8)]]));
      break;
    case 2: {
      // strings in any width, sometimes invalid UTF-8 or "__proto__"
      const text = r.bool(0.1) ? [...new TextEncoder().encode(r.pick(["__proto__", "constructor", "toString", "0", "-1", "1e3"]))] : null;
      const n = text ? text.length : r.int(0, 20);
      const form = r.int(0, 3);
      if (form === 0 && n < 32) out.push(0xa0 | n);
      else if (form === 1) out.push(0xd9, n);
      else if (form === 2) (out.push(0xda), u(n, 2));
      else (out.push(0xdb), u(n, 4));
      if (text) out.push(...text);
      else payload(n);
      break;
    }
    case 3: {
      // bin and ext in any width; type -1 (timestamp) with any length
      const n = r.pick([0, 1, 2, 4, 8, 12, 16, r.int(0, 20)]);
      if (r.bool()) {
        out.push(...r.pick([[0xc4, n], [0xc5, 0, n], [0xc6, 0, 0, 0, n]]));
      } else {
        const type = r.pick([-1, -1, 1, 0, 127, -128]) & 0xff;
        const fixed = { 1: 0xd4, 2: 0xd5, 4: 0xd6, 8: 0xd7, 16: 0xd8 }[n];
        if (fixed !== undefined && r.bool()) out.push(fixed, type);
        else out.push(...r.pick([[0xc7, n], [0xc8, 0, n], [0xc9, 0, 0, 0, n]]), type);
      }
      for (let i = 0; i < n; i++) out.push(r.pick([0x00, 0xff, 0x3b, 0x9a, 0xca, 0x00, r.int(0, 255)]));
      break;
    }
    case 4:
      out.push(r.pick([0xc0, 0xc2, 0xc3, 0x00, 0x7f, 0xe0, 0xff]));
      break;
    case 5: // 64-bit integers at the edges
      out.push(r.pick([0xcf, 0xd3]), ...r.pick([[0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [0, 0x20, 0, 0, 0, 0, 0, 0], [0xff, 0xe0, 0, 0, 0, 0, 0, 1], [0x80, 0, 0, 0, 0, 0, 0, 0], [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], [...r.bytes(8)]]));
      break;
    case 6:
    case 7: {
      // maps with keys of any kind
      const n = r.int(0, 5);
      out.push(...r.pick([[0x80 | n], [0xde, 0, n], [0xdf, 0, 0, 0, n]]));
      for (let i = 0; i < n; i++) {
        if (r.bool(0.6)) structured(r, 4, out); // a scalar key
        else structured(r, depth + 1, out);
        structured(r, depth + 1, out);
      }
      break;
    }
    default: {
      const n = r.int(0, 5);
      out.push(...r.pick([[0x90 | n], [0xdc, 0, n], [0xdd, 0, 0, 0, n]]));
      for (let i = 0; i < n; i++) structured(r, depth + 1, out);
    }
  }
  return out;
}

export type InputKind = "random" | "valid" | "structured" | "multi" | "mutated" | "truncated" | "inflated" | "deep";
export const INPUT_KINDS: readonly InputKind[] = ["random", "valid", "structured", "structured", "multi", "mutated", "truncated", "inflated", "deep"];

/** A random input of a random kind (or of `kind`). */
export function genInput(r: Random, kind: InputKind = r.pick(INPUT_KINDS), maxDeep = 100_000): { kind: InputKind; bytes: Uint8Array } {
  switch (kind) {
    case "random": {
      const b = r.bytes(r.int(0, 48));
      for (let i = 0; i < b.length; i++) if (r.bool(0.3)) b[i] = r.pick(INTERESTING);
      return { kind, bytes: b };
    }
    case "valid":
      return { kind, bytes: validBytes(r) };
    case "structured": {
      const b = new Uint8Array(structured(r));
      if (r.bool(0.2) && b.length > 0) b[r.int(0, b.length - 1)] = r.pick(INTERESTING);
      return { kind, bytes: b };
    }
    case "multi": {
      const parts = Array.from({ length: r.int(1, 4) }, () => validBytes(r));
      return { kind, bytes: concat(parts) };
    }
    case "mutated": {
      let b = validBytes(r);
      for (let k = r.int(1, 3); k > 0 && b.length > 0; k--) {
        const i = r.int(0, b.length - 1);
        switch (r.int(0, 3)) {
          case 0:
            b[i] = r.pick(INTERESTING);
            break;
          case 1:
            b[i] = (r.next() * 256) | 0;
            break;
          case 2:
            b = concat([b.subarray(0, i), b.subarray(i + 1)]);
            break;
          default:
            b = concat([b.subarray(0, i), new Uint8Array([r.pick(INTERESTING)]), b.subarray(i)]);
        }
      }
      return { kind, bytes: b };
    }
    case "truncated": {
      const b = r.bool(0.5) ? validBytes(r) : genInput(r, "multi").bytes;
      return { kind, bytes: b.slice(0, r.int(0, Math.max(0, b.length - 1))) };
    }
    case "inflated": {
      const b = validBytes(r);
      const heads = headerOffsets(b).filter((at) => lengthField(b[at]!) !== null);
      if (heads.length === 0) return { kind, bytes: b };
      const at = r.pick(heads);
      const f = lengthField(b[at]!)!;
      if (f.nibble !== undefined) {
        const n = b[at]! & f.nibble;
        b[at] = (b[at]! & ~f.nibble) | Math.min(f.nibble, n + r.int(1, 3));
      } else {
        const dv = new DataView(b.buffer, b.byteOffset + at + 1);
        const max = 2 ** (8 * f.width!) - 1;
        const n = f.width === 1 ? dv.getUint8(0) : f.width === 2 ? dv.getUint16(0) : dv.getUint32(0);
        const raised = Math.min(max, r.pick([n + 1, n + r.int(2, 100), max, max - 1, Math.floor(max / 2)]));
        if (f.width === 1) dv.setUint8(0, raised);
        else if (f.width === 2) dv.setUint16(0, raised);
        else dv.setUint32(0, raised);
      }
      return { kind, bytes: b };
    }
    default: {
      const levels = Math.min(maxDeep, r.pick([1, 2, 5, 8, 63, 64, 65, 511, 512, 513, 1000, 100_000]));
      const b = deepBytes(r, levels);
      return { kind: "deep", bytes: r.bool(0.3) ? b.subarray(0, r.int(0, b.length)) : b };
    }
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

// ---------------------------------------------------------------------------
// Decode options

/** Decode options and their printable description. */
export interface DecodeCase {
  label: string;
  options: DecodeOptions<unknown> | undefined;
}

/**
 * A codec with a `Set` extension whose encoder and decoder call `encode`
 * and `decode` re-entrantly on the items, with the same options (so limits
 * and depth carry through).
 */
export function setCodec(getOptions: () => DecodeOptions<unknown> | undefined): ExtensionCodec<unknown> {
  const codec = new ExtensionCodec<unknown>();
  codec.register({
    type: SET_EXT,
    encode: (v) => (v instanceof Set ? encode([...v], getOptions() as EncodeOptions<unknown>) : null),
    decode: (data) => {
      const items = decode(data, getOptions());
      if (!Array.isArray(items)) throw new DecodeError("Set payload is not an array", 0, "INVALID_EXT");
      return new Set(items);
    },
  });
  return codec;
}

/** Random decode options (limits near the inputs' sizes, every mode, the re-entrant Set extension). */
export function genDecodeOptions(r: Random): DecodeCase {
  if (r.bool(0.25)) return { label: "none", options: undefined };
  const o: Record<string, unknown> = {};
  if (r.bool(0.3)) o.useMap = true;
  if (r.bool(0.3)) o.int64 = r.pick(["auto", "number", "bigint"]);
  if (r.bool(0.1)) o.useBigInt64 = true;
  if (r.bool(0.3)) o.binaryAsView = true;
  if (r.bool(0.3)) o.maxDepth = r.int(0, 8);
  for (const name of ["maxStrLength", "maxBinLength", "maxArrayLength", "maxMapLength", "maxExtLength"]) if (r.bool(0.15)) o[name] = r.int(0, 40);
  const label = JSON.stringify(o);
  if (r.bool(0.35)) {
    const options = { ...o } as DecodeOptions<unknown>;
    options.extensionCodec = setCodec(() => options);
    return { label: `${label} + extensionCodec: Set extension (type ${SET_EXT}) decoding its payload with decode(data, sameOptions)`, options };
  }
  return { label, options: o as DecodeOptions<unknown> };
}

// ---------------------------------------------------------------------------
// Decode outcomes

/** What one decode gave: the values decoded before any error, and the error. */
export interface Outcome {
  values: unknown[];
  error?: unknown;
}

const DECODE_CODES = new Set<string>(Object.values(DecodeErrorCode));

/** Why `e` is not an acceptable decode error for `input`, or null when it is. */
export function badDecodeError(e: unknown, inputLength: number): string | null {
  if (!(e instanceof DecodeError)) return `threw ${describeError(e)}, not a DecodeError`;
  if (!DECODE_CODES.has(e.code)) return `DecodeError with unknown code ${String(e.code)}`;
  if (!Number.isInteger(e.offset) || e.offset < 0 || e.offset > inputLength) return `DecodeError offset ${e.offset} outside 0..${inputLength} (${e.code})`;
  if (typeof e.message !== "string" || e.message.length === 0) return "DecodeError without a message";
  return null;
}

function sameOutcome(a: Outcome, b: Outcome): string | null {
  const n = Math.min(a.values.length, b.values.length);
  for (let i = 0; i < n; i++) if (!isDeepStrictEqual(a.values[i], b.values[i])) return `value ${i} differs: ${show(a.values[i])} vs ${show(b.values[i])}`;
  if (a.values.length !== b.values.length) return `${a.values.length} vs ${b.values.length} values`;
  const ea = a.error as DecodeError | undefined;
  const eb = b.error as DecodeError | undefined;
  if (!ea !== !eb) return `${ea ? "error " + describeError(ea) : "no error"} vs ${eb ? "error " + describeError(eb) : "no error"}`;
  if (ea && eb && (ea.code !== eb.code || ea.offset !== eb.offset)) return `error ${ea.code} at ${ea.offset} vs ${eb.code} at ${eb.offset} (${ea.message} | ${eb.message})`;
  return null;
}

function outcomeOf(run: () => unknown[]): Outcome {
  const values: unknown[] = [];
  try {
    for (const v of run()) values.push(v);
    return { values };
  } catch (error) {
    return { values, error };
  }
}

function multiOutcome(gen: () => Iterable<unknown>): Outcome {
  const values: unknown[] = [];
  try {
    for (const v of gen()) values.push(v);
    return { values };
  } catch (error) {
    return { values, error };
  }
}

/** Longest one decode of a fuzz input may take: only a hang or a blow-up gets near it. */
export const SLOW_MS = 2000;

/** A valid probe that a reused decoder must decode after any input as a fresh one does. */
const PROBE = encode({ probe: [1, "two", new Uint8Array([3])] });

/**
 * Checks one input against every synchronous decode entry; returns the
 * first problem found, or null.
 */
export function decodeProblem(bytes: Uint8Array, dc: DecodeCase, reused?: Decoder<unknown>): string | null {
  const opts = dc.options;
  const t0 = performance.now();
  const main = outcomeOf(() => [decode(bytes, opts)]);
  const multi = multiOutcome(() => decodeMulti(bytes, opts));
  const fresh = outcomeOf(() => [new Decoder(opts).decode(bytes)]);
  const decoder = reused ?? new Decoder(opts);
  const again = outcomeOf(() => [decoder.decode(bytes)]);
  const ms = performance.now() - t0;
  if (ms > SLOW_MS * 4) return `4 decodes of ${bytes.length} bytes took ${ms.toFixed(0)} ms`;
  for (const [name, o] of [["decode", main], ["decodeMulti", multi], ["new Decoder().decode", fresh], ["reused Decoder.decode", again]] as const) {
    if (o.error !== undefined) {
      const bad = badDecodeError(o.error, bytes.length);
      if (bad) return `${name}: ${bad}`;
    }
  }
  let diff = sameOutcome(main, fresh);
  if (diff) return `decode() and new Decoder().decode() disagree: ${diff}`;
  diff = sameOutcome(main, again);
  if (diff) return `a reused Decoder disagrees with a fresh one: ${diff}`;
  // decodeMulti: the same first value; the same error when the first value fails
  const mainError = main.error as DecodeError | undefined;
  if (!mainError && !isDeepStrictEqual(multi.values[0], main.values[0])) return `decodeMulti's first value differs from decode's: ${show(multi.values[0])} vs ${show(main.values[0])}`;
  if (mainError && mainError.code !== "EXTRA_BYTES" && bytes.length > 0) {
    diff = sameOutcome({ values: [], error: mainError }, { values: multi.values.slice(0, 1), error: multi.error });
    if (diff) return `decodeMulti disagrees with decode on the first value: ${diff}`;
  }
  diff = sameOutcome(outcomeOf(() => [decoder.decode(PROBE)]), outcomeOf(() => [new Decoder(opts).decode(PROBE)]));
  if (diff) return `the reused Decoder decodes a probe differently after this input: ${diff}`;
  return null;
}

// ---------------------------------------------------------------------------
// Streams

/** How an input is cut into chunks, as a pure function of its length (so a shrunk input is cut alike). */
export interface Chunking {
  label: string;
  cut(n: number): number[];
  readable: boolean;
}

/** A random chunking: whole, 1-byte, random sizes (with empty chunks), or two pieces. */
export function genChunking(r: Random): Chunking {
  const readable = r.bool(0.4);
  const via = readable ? "ReadableStream" : "async generator";
  const kind = r.int(0, 4);
  const seed = r.int(0, 2 ** 31);
  if (kind === 0) return { label: `one chunk (${via})`, cut: (n) => [n], readable };
  if (kind === 1) return { label: `1-byte chunks (${via})`, cut: (n) => Array.from({ length: n }, () => 1), readable };
  if (kind === 2) {
    const at = r.next();
    return { label: `two chunks split at ${at.toFixed(3)} of the length (${via})`, cut: (n) => [Math.floor(n * at), n - Math.floor(n * at)], readable };
  }
  const withEmpty = kind === 4;
  return {
    label: `random chunks of 1-9 bytes${withEmpty ? " with empty chunks" : ""} (chunk seed ${seed}, ${via})`,
    cut(n) {
      const cr = new Random(seed);
      const out: number[] = [];
      for (let left = n; left > 0; ) {
        if (withEmpty && cr.bool(0.2)) out.push(0);
        const k = Math.min(left, cr.int(1, 9));
        out.push(k);
        left -= k;
      }
      return out;
    },
    readable,
  };
}

/** The input as a stream of chunks cut by `chunking`; each chunk is a copy, as a socket would give. */
export function chunked(bytes: Uint8Array, chunking: Chunking): ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> {
  const sizes = chunking.cut(bytes.length);
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (const k of sizes) (chunks.push(bytes.slice(at, at + k)), (at += k));
  if (chunking.readable) {
    return new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.shift();
        if (next === undefined) c.close();
        else c.enqueue(next);
      },
    });
  }
  return (async function* () {
    yield* chunks;
  })();
}

async function asyncOutcome(run: () => AsyncIterable<unknown> | Promise<unknown>): Promise<Outcome> {
  const values: unknown[] = [];
  try {
    const it = run();
    if (it instanceof Promise) values.push(await it);
    else for await (const v of it) values.push(v);
    return { values };
  } catch (error) {
    return { values, error };
  }
}

function readableOf(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      const r = await it.next();
      if (r.done) c.close();
      else c.enqueue(r.value);
    },
  });
}

async function decoderStreamOutcome(bytes: Uint8Array, chunking: Chunking, opts: DecodeOptions<unknown> | undefined): Promise<Outcome> {
  const values: unknown[] = [];
  try {
    const source = chunked(bytes, chunking);
    const readable = source instanceof ReadableStream ? source : readableOf(source);
    const reader = readable.pipeThrough(new DecoderStream(opts)).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) values.push(r.value);
    return { values };
  } catch (error) {
    return { values, error };
  }
}

/** Which stream entries {@link streamProblem} checks. */
export const STREAM_ENTRIES = ["decodeAsync", "decodeMultiStream", "decodeArrayStream", "DecoderStream"] as const;
export type StreamEntry = (typeof STREAM_ENTRIES)[number];

/** Checks one stream entry against the whole-buffer decoders; returns the problem or null. */
export async function streamProblem(bytes: Uint8Array, dc: DecodeCase, chunking: Chunking, entry: StreamEntry): Promise<string | null> {
  const opts = dc.options;
  const t0 = performance.now();
  let got: Outcome;
  let want: Outcome;
  if (entry === "decodeAsync") {
    got = await asyncOutcome(() => decodeAsync(chunked(bytes, chunking), opts));
    want = outcomeOf(() => [decode(bytes, opts)]);
  } else if (entry === "decodeMultiStream" || entry === "DecoderStream") {
    got = entry === "DecoderStream" ? await decoderStreamOutcome(bytes, chunking, opts) : await asyncOutcome(() => decodeMultiStream(chunked(bytes, chunking), opts));
    want = multiOutcome(() => decodeMulti(bytes, opts));
  } else {
    got = await asyncOutcome(() => decodeArrayStream(chunked(bytes, chunking), opts));
    const whole = outcomeOf(() => [decode(bytes, opts)]);
    const isArray = bytes.length > 0 && ((bytes[0]! >= 0x90 && bytes[0]! <= 0x9f) || bytes[0] === 0xdc || bytes[0] === 0xdd);
    if (!isArray || (whole.error === undefined && !Array.isArray(whole.values[0]))) {
      // not an array: the stream must refuse it with a DecodeError, whatever the code
      if (got.error === undefined) return `${entry} accepted an input that is not an array, yielding ${show(got.values)}`;
      return badDecodeError(got.error, bytes.length) && `${entry}: ${badDecodeError(got.error, bytes.length)}`;
    }
    if (whole.error === undefined) want = { values: whole.values[0] as unknown[] };
    else {
      // the items before the failing one are yielded: compare the error, and the items as far as the stream got
      if (got.error === undefined) return `${entry} yielded ${got.values.length} items and no error; decode threw ${describeError(whole.error)}`;
      want = { values: got.values, error: whole.error };
    }
  }
  const ms = performance.now() - t0;
  if (ms > SLOW_MS * 5) return `${entry} took ${ms.toFixed(0)} ms for ${bytes.length} bytes`;
  if (got.error !== undefined) {
    const bad = badDecodeError(got.error, bytes.length);
    if (bad) return `${entry}: ${bad}`;
  }
  const diff = sameOutcome(got, want);
  return diff && `${entry} (${chunking.label}) vs whole-buffer decode: ${diff}`;
}

// ---------------------------------------------------------------------------
// Encode: hostile values described by a spec tree (printable and shrinkable)

/** A plain-data description of a hostile value; {@link build} makes the live value. */
export type Spec =
  | { t: "leaf"; v: unknown }
  | { t: "arr"; items: Spec[] }
  | { t: "obj"; entries: [string, Spec][] }
  | { t: "map"; entries: [string | number, Spec][] }
  /** An accessor property returning `values[i % n]` on its i-th read (only as an entry of obj or proxy). */
  | { t: "get"; values: unknown[] }
  /** An object `{ x }` whose getter `x` changes the container holding this object, then returns `then`. */
  | { t: "mut"; op: "grow" | "shrink" | "swap" | "clear"; then: Spec }
  /** A Proxy over an array or object whose `ownKeys` (objects) or `length` (arrays) varies from read to read. */
  | { t: "proxy"; target: Spec; vary: boolean };

/** What happened while a built value was encoded. */
interface Trace {
  /** Per container node: its size (length or key count) at every moment recorded. */
  sizes: Map<Spec, Set<number>>;
  /** Per container node: every key it ever had. */
  keys: Map<Spec, Set<string>>;
  /** Per `get` node: every value it returned. */
  returned: Map<Spec, unknown[]>;
  /** Per proxy node: every length its `length` read returned. */
  lengths: Map<Spec, Set<number>>;
  /** Per map node: keys deleted from it while it was encoded. */
  deleted: Map<Spec, Set<string>>;
  /** Whether a container was changed (entries added, deleted or replaced). */
  changed: boolean;
}

/** The marker value written by `grow` mutations. */
export const ADDED = "added-during-encode";

const mutKey = (n: number) => `+${n}`;

function addAll<K, V>(m: Map<K, Set<V>>, k: K, vs: Iterable<V>): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  for (const v of vs) s.add(v);
}

/** Builds the live value of `spec`, recording what happens to it in `trace`. */
export function build(spec: Spec, trace: Trace): unknown {
  switch (spec.t) {
    case "leaf":
      return spec.v;
    case "arr": {
      const a: unknown[] = [];
      addAll(trace.sizes, spec, [spec.items.length]);
      for (const item of spec.items) a.push(item.t === "mut" ? mutator(item, spec, a, trace) : build(item, trace));
      return a;
    }
    case "obj": {
      const o: Record<string, unknown> = {};
      addAll(trace.keys, spec, spec.entries.map(([k]) => k));
      addAll(trace.sizes, spec, [spec.entries.length]);
      for (const [k, item] of spec.entries) defineEntry(o, k, item, spec, trace);
      return o;
    }
    case "map": {
      const m = new Map<unknown, unknown>();
      addAll(trace.sizes, spec, [spec.entries.length]);
      addAll(trace.keys, spec, spec.entries.map(([k]) => String(k)));
      for (const [k, item] of spec.entries) m.set(k, item.t === "mut" ? mutator(item, spec, m, trace) : build(item, trace));
      return m;
    }
    case "get":
    case "mut":
      return build({ t: "obj", entries: [["x", spec]] }, trace);
    case "proxy": {
      const target = build(spec.target, trace) as object;
      let reads = 0;
      const handler: ProxyHandler<object> = {};
      if (spec.vary && Array.isArray(target)) {
        handler.get = (t, p, recv) => {
          if (p !== "length") return Reflect.get(t, p, recv);
          const n = (t as unknown[]).length + (reads++ % 3 === 1 ? 1 : 0);
          addAll(trace.lengths, spec, [n]);
          return n;
        };
      } else if (spec.vary) {
        handler.ownKeys = (t) => {
          const keys = Reflect.ownKeys(t);
          return reads++ % 2 === 1 ? keys.slice(0, keys.length >> 1) : keys;
        };
      }
      if (Array.isArray(target)) addAll(trace.lengths, spec, [target.length]);
      return new Proxy(target, handler);
    }
  }
}

function defineEntry(o: Record<string, unknown>, k: string, item: Spec, parent: Spec, trace: Trace): void {
  if (item.t === "get") {
    let i = 0;
    const returned: unknown[] = [];
    trace.returned.set(item, returned);
    Object.defineProperty(o, k, {
      enumerable: true,
      configurable: true,
      get() {
        const v = item.values[i++ % item.values.length];
        returned.push(v);
        return v;
      },
    });
  } else {
    o[k] = item.t === "mut" ? mutator(item, parent, o, trace) : build(item, trace);
  }
}

/** The object `{ x }` whose getter changes `container` (the live value of `parent`). */
function mutator(spec: Extract<Spec, { t: "mut" }>, parent: Spec, container: unknown, trace: Trace): unknown {
  let added = 0;
  const record = () => {
    const size = container instanceof Map ? container.size : Array.isArray(container) ? container.length : Object.keys(container as object).length;
    const before = trace.sizes.get(parent);
    if (before && !before.has(size)) trace.changed = true;
    addAll(trace.sizes, parent, [size]);
  };
  const holder: Record<string, unknown> = {};
  Object.defineProperty(holder, "x", {
    enumerable: true,
    configurable: true,
    get() {
      const c = container;
      const op = spec.op;
      if (Array.isArray(c)) {
        if (op === "grow") c.push(ADDED);
        else if (op === "shrink") c.pop();
        else if (op === "clear") c.length = 0;
        else if (c.length > 0) c[c.length - 1] = ADDED; // swap: replace the last item
      } else if (c instanceof Map) {
        const keys = [...c.keys()];
        addAll(trace.deleted, parent, (op === "grow" ? [] : op === "clear" ? keys : keys.slice(-1)).map(String));
        if (op === "grow") c.set(mutKey(added++), ADDED);
        else if (op === "shrink") c.delete(keys[keys.length - 1]);
        else if (op === "clear") c.clear();
        else (c.delete(keys[keys.length - 1]), c.set(mutKey(added++), ADDED));
      } else {
        const o = c as Record<string, unknown>;
        const keys = Object.keys(o);
        addAll(trace.deleted, parent, op === "grow" ? [] : op === "clear" ? keys : keys.slice(-1));
        if (op === "grow") o[mutKey(added++)] = ADDED;
        else if (op === "shrink") delete o[keys[keys.length - 1]!];
        else if (op === "clear") for (const k of keys) delete o[k];
        else (delete o[keys[keys.length - 1]!], (o[mutKey(added++)] = ADDED));
      }
      addAll(trace.keys, parent, Array.from({ length: added }, (_, i) => mutKey(i)));
      record();
      trace.changed = true; // even at the same size (swap), a count taken before no longer matches the entries
      return build(spec.then, trace);
    },
  });
  return holder;
}

/** Entries of a decoded map (object or Map), keys as strings. */
function entriesOf(v: unknown): [string, unknown][] | null {
  if (v instanceof Map) return [...v].map(([k, x]) => [String(k), x]);
  if (v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array)) return Object.entries(v);
  return null;
}

/** Why `decoded` is not a value that one read of each part of `spec` could give, or null. */
function conforms(decoded: unknown, spec: Spec, trace: Trace, ignoreUndefined: boolean, path: string): string | null {
  const expectLeaf = (v: unknown) => (v === undefined ? null : v);
  switch (spec.t) {
    case "leaf": {
      const want = expectLeaf(spec.v);
      return isDeepStrictEqual(decoded, want) || (want === ADDED && decoded === ADDED) ? null : `${path}: decoded ${show(decoded)}, encoded ${show(want)}`;
    }
    case "get": {
      const returned = trace.returned.get(spec) ?? [];
      return returned.some((v) => isDeepStrictEqual(expectLeaf(v), decoded)) ? null : `${path}: decoded ${show(decoded)}, but the getter returned only ${show(returned)}`;
    }
    case "mut":
    case "arr":
    case "proxy": {
      if (spec.t === "mut") return conformsMut(decoded, spec, trace, ignoreUndefined, path);
      const target = spec.t === "proxy" ? spec.target : spec;
      if (target.t === "obj") return conformsEntries(decoded, target.entries, target, trace, ignoreUndefined, path);
      if (target.t !== "arr") return conforms(decoded, target, trace, ignoreUndefined, path);
      if (!Array.isArray(decoded)) return `${path}: decoded ${show(decoded)}, encoded an array`;
      const lengths = new Set([...(trace.sizes.get(target) ?? []), ...(spec.t === "proxy" ? (trace.lengths.get(spec) ?? []) : [])]);
      if (!lengths.has(decoded.length)) return `${path}: decoded an array of ${decoded.length}, but its length was only ever ${[...lengths].join("/")}`;
      const changed = lengths.size > 1 ? ` (its length changed from ${[...lengths].join(" to ")} while it was encoded: an EncodeError CHANGED is expected)` : "";
      for (let i = 0; i < decoded.length; i++) {
        const item = target.items[i];
        const d = decoded[i];
        if (d === ADDED || (d === null && spec.t === "proxy" && i >= target.items.length)) continue;
        if (!item) return `${path}[${i}]: decoded ${show(d)} past the items`;
        const problem = conforms(d, item, trace, ignoreUndefined, `${path}[${i}]`);
        if (problem) return problem + changed;
      }
      return null;
    }
    case "obj":
    case "map":
      return conformsEntries(decoded, spec.entries, spec, trace, ignoreUndefined, path);
  }
}

/** A `mut` node decodes as the holder `{ x: then }`. */
function conformsMut(decoded: unknown, spec: Extract<Spec, { t: "mut" }>, trace: Trace, ignoreUndefined: boolean, path: string): string | null {
  const got = entriesOf(decoded);
  if (!got || got.length > 1 || (got.length === 1 && got[0]![0] !== "x")) return `${path}: decoded ${show(decoded)}, encoded an object { x }`;
  if (got.length === 0) return ignoreUndefined && spec.then.t === "leaf" && spec.then.v === undefined ? null : `${path}: decoded {}, encoded an object { x }`;
  return conforms(got[0]![1], spec.then, trace, ignoreUndefined, `${path}.x`);
}

function conformsEntries(decoded: unknown, entries: [string | number, Spec][], spec: Spec, trace: Trace, ignoreUndefined: boolean, path: string): string | null {
  const got = entriesOf(decoded);
  if (!got) return `${path}: decoded ${show(decoded)}, encoded a map`;
  const everKeys = trace.keys.get(spec) ?? new Set(entries.map(([k]) => String(k)));
  const seen = new Set<string>();
  for (const [k, d] of got) {
    if (seen.has(k)) return `${path}: key ${JSON.stringify(k)} twice`;
    seen.add(k);
    if (!everKeys.has(k)) return `${path}: decoded key ${JSON.stringify(k)} that the value never had`;
    if (d === ADDED && k.startsWith("+")) continue;
    const item = entries.find(([key]) => String(key) === k)?.[1];
    if (!item) return `${path}.${k}: decoded ${show(d)} for a key that was not written`;
    // a key deleted while its map was written may read as undefined (nil)
    if (d === null && trace.deleted.get(spec)?.has(k)) continue;
    const problem = conforms(d, item, trace, ignoreUndefined, `${path}.${k}`);
    if (problem) return problem;
  }
  if (spec.t === "map" && !trace.changed) {
    const n = entries.length;
    if (got.length !== n) return `${path}: decoded ${got.length} entries of a Map of ${n} that did not change`;
  }
  return null;
}

/** A random leaf: JSON-like values and bytes, so decode gives them back exactly. */
function leaf(r: Random): Spec {
  return { t: "leaf", v: r.bool(0.1) ? undefined : value(r, { maxDepth: r.int(0, 2), maxItems: 4 }) };
}

/** A random hostile spec. */
export function genSpec(r: Random, depth = 0): Spec {
  const n = r.int(0, 5);
  const child = (): Spec => (depth >= 3 || r.bool(0.3) ? leaf(r) : genSpec(r, depth + 1));
  const maybeMut = (): Spec => (r.bool(0.25) ? { t: "mut", op: r.pick(["grow", "shrink", "swap", "clear"] as const), then: child() } : child());
  switch (r.int(0, 4)) {
    case 0:
      return { t: "arr", items: Array.from({ length: n }, maybeMut) };
    case 1: {
      const entries: [string, Spec][] = Array.from({ length: n }, (_, i) => [`k${i}`, r.bool(0.3) ? getter(r) : maybeMut()]);
      return { t: "obj", entries };
    }
    case 2: {
      const entries: [string | number, Spec][] = Array.from({ length: n }, (_, i) => [r.bool(0.5) ? i : `m${i}`, maybeMut()]);
      return { t: "map", entries };
    }
    case 3:
      return { t: "proxy", vary: r.bool(0.7), target: r.bool() ? { t: "arr", items: Array.from({ length: n }, child) } : { t: "obj", entries: Array.from({ length: n }, (_, i): [string, Spec] => [`p${i}`, r.bool(0.3) ? getter(r) : child()]) } };
    default:
      return { t: "obj", entries: Array.from({ length: r.int(1, 3) }, (_, i): [string, Spec] => [`g${i}`, getter(r)]) };
  }
}

/** A getter whose reads return values of different kinds and sizes (or undefined), so two reads seldom encode alike. */
function getter(r: Random): Spec {
  const values = Array.from({ length: r.int(1, 3) }, () => (r.bool(0.2) ? undefined : r.pick([() => r.int(0, 2 ** 20), () => string(r, 40), () => [1, 2, 3], () => ({ a: 1 })])()));
  return { t: "get", values };
}

function* smallerSpecs(s: Spec): Generator<Spec> {
  switch (s.t) {
    case "leaf":
      for (const v of smallerValues(s.v)) yield { t: "leaf", v };
      return;
    case "get":
      if (s.values.length > 1) for (let i = 0; i < s.values.length; i++) yield { t: "get", values: s.values.filter((_, j) => j !== i) };
      return;
    case "mut":
      yield s.then;
      for (const then of smallerSpecs(s.then)) yield { ...s, then };
      return;
    case "proxy":
      yield s.target;
      if (s.vary) yield { ...s, vary: false };
      for (const target of smallerSpecs(s.target)) yield { ...s, target };
      return;
    case "arr":
      yield* s.items.filter((x) => x.t !== "get" && x.t !== "mut");
      for (let i = 0; i < s.items.length; i++) yield { t: "arr", items: s.items.filter((_, j) => j !== i) };
      for (let i = 0; i < s.items.length; i++) for (const c of smallerSpecs(s.items[i]!)) yield { t: "arr", items: s.items.map((x, j) => (j === i ? c : x)) };
      return;
    case "obj":
    case "map": {
      const entries = s.entries as [string | number, Spec][];
      yield* entries.map(([, x]) => x).filter((x) => x.t !== "get" && x.t !== "mut");
      for (let i = 0; i < entries.length; i++) yield { ...s, entries: entries.filter((_, j) => j !== i) } as Spec;
      for (let i = 0; i < entries.length; i++) for (const c of smallerSpecs(entries[i]![1])) yield { ...s, entries: entries.map(([k, x], j) => [k, j === i ? c : x]) } as Spec;
      return;
    }
  }
}

/** Printable spec, as JSON with bytes in hex. */
export function showSpec(s: Spec): string {
  const mark = "\u0000";
  const json = JSON.stringify(s, (_, v) => (v instanceof Uint8Array ? `${mark}bytes(${hex(v)})` : v === undefined ? `${mark}undefined` : typeof v === "bigint" ? `${mark}${v}n` : v));
  return json.replace(/"\\u0000([^"]*)"/g, "$1");
}

export interface EncodeCase {
  label: string;
  options: EncodeOptions<unknown> | undefined;
  entry: "encode" | "Encoder.encode" | "Encoder.encodeChunks" | "Encoder.encodeInto" | "encodeIterable";
}

/** Random encode options and entry. */
export function genEncodeCase(r: Random): EncodeCase {
  const o: Record<string, unknown> = {};
  let strategy: StrategyName | null = null;
  if (r.bool(0.3)) o.sortKeys = true;
  if (r.bool(0.4)) o.ignoreUndefined = true;
  if (r.bool(0.2)) o.maxDepth = r.int(1, 6);
  const entry = r.pick(["encode", "Encoder.encode", "Encoder.encodeChunks", "Encoder.encodeInto", "encodeIterable"] as const);
  if (entry.startsWith("Encoder") || entry === "encode") {
    // an output path (through maxByteLength, see strategy.ts)
    if (r.bool(0.3)) strategy = r.pick(["default", "default", "ceiling", "chunks"]);
    if (r.bool(0.3)) o.initialBufferSize = r.pick([64, 128, 1024]);
    if (r.bool(0.2)) o.maxByteLength = Math.max(r.pick([256, 4096]), (o.initialBufferSize as number | undefined) ?? 0);
  }
  if (entry === "encodeIterable") o.chunkSize = r.pick([16, 64, 4096]);
  const label = JSON.stringify(strategy === null ? o : { ...o, strategy });
  const options = strategy === null ? o : withStrategy(strategy, o);
  return { label, options: Object.keys(o).length || strategy !== null ? (options as EncodeOptions<unknown>) : undefined, entry };
}

const ENCODE_CODES = new Set<string>(Object.values(EncodeErrorCode));

function encodeWith(c: EncodeCase, v: unknown): Uint8Array {
  switch (c.entry) {
    case "encode":
      return encode(v, c.options);
    case "Encoder.encode": {
      const e = new Encoder(c.options);
      e.encode({ warm: [1, 2, 3] });
      return e.encode(v);
    }
    case "Encoder.encodeChunks":
      return concat(new Encoder(c.options).encodeChunks(v));
    case "Encoder.encodeInto": {
      const target = new Uint8Array(1 << 16);
      const n = new Encoder(c.options).encodeInto(v, target, 3);
      return target.slice(3, 3 + n);
    }
    case "encodeIterable":
      return concat([...encodeIterable(v, c.options as never)].map((b) => b.slice()));
  }
}

function specDepth(s: Spec): number {
  switch (s.t) {
    case "leaf":
      return valueDepth(s.v);
    case "get":
      return 1 + Math.max(0, ...s.values.map(valueDepth));
    case "mut":
      return 1 + specDepth(s.then);
    case "proxy":
      return specDepth(s.target);
    case "arr":
      return 1 + Math.max(0, ...s.items.map((x) => (x.t === "mut" ? 1 : 0) + specDepth(x)));
    default:
      return 1 + Math.max(0, ...(s.entries as [unknown, Spec][]).map(([, x]) => (x.t === "mut" ? 1 : 0) + specDepth(x)));
  }
}

function valueDepth(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(valueDepth));
  if (v !== null && typeof v === "object" && !(v instanceof Uint8Array)) return 1 + Math.max(0, ...Object.values(v).map(valueDepth));
  return 0;
}

/** Whether the entry refuses the options themselves (it throws INVALID_ARGUMENT for null too). */
function invalidOptions(c: EncodeCase, encoder: (c: EncodeCase, v: unknown) => Uint8Array): boolean {
  try {
    encoder(c, null);
    return false;
  } catch (e) {
    return e instanceof EncodeError && e.code === "INVALID_ARGUMENT";
  }
}

/** Encodes a fresh build of `spec` (with `encoder`, by default the entry `c` names); returns the problem or null. */
export function encodeProblem(spec: Spec, c: EncodeCase, encoder: (c: EncodeCase, v: unknown) => Uint8Array = encodeWith): string | null {
  const trace: Trace = { sizes: new Map(), keys: new Map(), returned: new Map(), lengths: new Map(), deleted: new Map(), changed: false };
  const live = build(spec, trace);
  let bytes: Uint8Array;
  try {
    bytes = encoder(c, live);
  } catch (e) {
    if (!(e instanceof EncodeError)) return `${c.entry}: threw ${describeError(e)}, not an EncodeError`;
    if (!ENCODE_CODES.has(e.code)) return `${c.entry}: threw an EncodeError with unknown code ${e.code}`;
    if (e.code === "INVALID_ARGUMENT" && invalidOptions(c, encoder)) return null; // options this version refuses: nothing to check
    if (e.code === "CHANGED" && (trace.changed || trace.lengths.size > 0 || trace.returned.size > 0 || JSON.stringify(spec).includes('"proxy"'))) return null;
    if (e.code === "MAX_DEPTH" && c.options?.maxDepth !== undefined && specDepth(spec) + 1 > c.options.maxDepth) return null;
    return `${c.entry}: threw ${describeError(e)} for a value it should encode`;
  }
  let decoded: unknown;
  try {
    decoded = decode(bytes);
  } catch (e) {
    return `${c.entry}: wrote invalid MessagePack: decode threw ${describeError(e)} (bytes ${hex(bytes.subarray(0, 200))})`;
  }
  const problem = conforms(decoded, spec, trace, c.options?.ignoreUndefined ?? false, "value");
  return problem && `${c.entry}: wrote a value that one read of each part cannot give: ${problem} (it decodes to ${show(decoded)})`;
}

// ---------------------------------------------------------------------------
// Size

export interface SizeCase {
  label: string;
  options: (EncodeOptions<unknown> & Record<string, unknown>) | undefined;
}

/** Random options that change sizes, with a Set extension that encodes re-entrantly. */
export function genSizeCase(r: Random): SizeCase {
  if (r.bool(0.2)) return { label: "none", options: undefined };
  const o: Record<string, unknown> = {};
  if (r.bool(0.4)) o.forceFloat32 = true;
  if (r.bool(0.4)) o.ignoreUndefined = true;
  if (r.bool(0.2)) o.maxDepth = r.int(0, 5);
  if (r.bool(0.2)) o.sortKeys = true;
  const label = JSON.stringify(o);
  if (r.bool(0.4)) {
    const options = { ...o } as EncodeOptions<unknown>;
    options.extensionCodec = setCodec(() => options as DecodeOptions<unknown>);
    return { label: label + " + extensionCodec: Set extension encoding [...set] with encode(items, sameOptions)", options: options as SizeCase["options"] };
  }
  return { label, options: o as SizeCase["options"] };
}

/** A random value for the size target: rich values with undefined, Sets, ExtData and floats. */
export function genSizeValue(r: Random, depth = 0): unknown {
  switch (r.int(0, 9)) {
    case 0:
      return undefined;
    case 1:
      return new Set(Array.from({ length: r.int(0, 3) }, () => genSizeValue(r, depth + 1)));
    case 2:
      return new ExtData(r.int(0, 100), r.bytes(r.pick([0, 1, 2, 4, 8, 16, 17, 255, 256, 300])));
    case 3:
      return r.pick([1.5, -0.1, 3.4e38, 1e-46, 2 ** 24 + 1, 0.1, -1e300]);
    case 4:
      return depth < 3 ? Array.from({ length: r.int(0, 4) }, () => genSizeValue(r, depth + 1)) : null;
    case 5:
      return depth < 3 ? Object.fromEntries(Array.from({ length: r.int(0, 4) }, (_, i) => [`k${i}`, genSizeValue(r, depth + 1)])) : null;
    case 6:
      return new Date(r.pick([0, -1, 1e12, 2 ** 34 * 1000, -(2 ** 40), 1.5]));
    default:
      return value(r, { rich: true, maxDepth: Math.max(0, 3 - depth), maxItems: 4 });
  }
}

function attempt<T>(f: () => T): { ok: T } | { error: unknown } {
  try {
    return { ok: f() };
  } catch (error) {
    return { error };
  }
}

/** Compares encodedSize with encode; returns the problem or null. */
export function sizeProblem(v: unknown, c: SizeCase): string | null {
  const bytes = attempt(() => encode(v, c.options));
  const size = attempt(() => encodedSize(v, c.options));
  for (const [name, a] of [["encode", bytes], ["encodedSize", size]] as const) {
    if ("error" in a && !(a.error instanceof EncodeError)) return `${name} threw ${describeError(a.error)}, not an EncodeError`;
  }
  if ("ok" in bytes && "ok" in size && bytes.ok.length !== size.ok) return `encodedSize ${size.ok} but encode wrote ${bytes.ok.length} bytes`;
  if ("ok" in bytes !== "ok" in size) return "ok" in bytes ? `encodedSize threw ${describeError((size as { error: unknown }).error)}; encode wrote ${bytes.ok.length} bytes` : `encode threw ${describeError((bytes as { error: unknown }).error)}; encodedSize gave ${(size as { ok: number }).ok}`;
  if ("error" in bytes && "error" in size && (bytes.error as EncodeError).code !== (size.error as EncodeError).code) return `encode threw ${(bytes.error as EncodeError).code}, encodedSize ${(size.error as EncodeError).code}`;
  return null;
}

// ---------------------------------------------------------------------------
// Targets

/**
 * The kind of a problem: its first two `: `-separated parts without
 * details in parentheses, numbers or bytes, so that shrinking keeps the
 * same failure instead of drifting to another.
 */
export function category(problem: string | null): string | null {
  if (problem === null) return null;
  return problem
    .split(": ")
    .slice(0, 2)
    .map((part) => part.replace(/ \(.*$/s, ""))
    .join(": ")
    .replace(/[0-9a-f]{2}(-[0-9a-f]{2})+/g, "HEX")
    .replace(/\d+/g, "N");
}

/** One fuzz target: runs the case of one seed; returns the shrunk failure or null. */
export type Target = (seed: number) => Promise<Failure | null>;

export const TARGETS: Record<string, Target> = {
  async decode(seed) {
    const r = new Random(seed);
    const { kind, bytes } = genInput(r);
    const dc = genDecodeOptions(r);
    const problem = decodeProblem(bytes, dc);
    if (!problem) return null;
    const small = await shrinkBytes(bytes, (b) => category(decodeProblem(b, dc)) === category(problem));
    return {
      target: "decode",
      seed,
      problem: decodeProblem(small, dc) ?? problem,
      details: [`input (${kind}, shrunk from ${bytes.length} to ${small.length} bytes): ${hex(small)}`, `options: ${dc.label}`],
    };
  },

  async stream(seed) {
    const r = new Random(seed);
    const { kind, bytes } = genInput(r, undefined, 3000);
    const dc = genDecodeOptions(r);
    const chunking = genChunking(r);
    const entry = r.pick(STREAM_ENTRIES);
    const problem = await streamProblem(bytes, dc, chunking, entry);
    if (!problem) return null;
    const small = await shrinkBytes(bytes, async (b) => category(await streamProblem(b, dc, chunking, entry)) === category(problem), 200);
    return {
      target: "stream",
      seed,
      problem: (await streamProblem(small, dc, chunking, entry)) ?? problem,
      details: [`entry: ${entry}`, `input (${kind}, shrunk from ${bytes.length} to ${small.length} bytes): ${hex(small)}`, `chunking: ${chunking.label}`, `options: ${dc.label}`],
    };
  },

  async encode(seed) {
    const r = new Random(seed);
    const spec = genSpec(r);
    const c = genEncodeCase(r);
    const problem = encodeProblem(spec, c);
    if (!problem) return null;
    const small = await shrinkValue(spec, (s) => category(encodeProblem(s, c)) === category(problem), smallerSpecs);
    return {
      target: "encode",
      seed,
      problem: encodeProblem(small, c) ?? problem,
      details: [`entry: ${c.entry}`, `options: ${c.label}`, `value spec (see test/_support/fuzz.ts build()): ${showSpec(small)}`],
    };
  },

  async size(seed) {
    const r = new Random(seed);
    const v = genSizeValue(r);
    const c = genSizeCase(r);
    const problem = sizeProblem(v, c);
    if (!problem) return null;
    const small = await shrinkValue(v, (x) => category(sizeProblem(x, c)) === category(problem));
    return { target: "size", seed, problem: sizeProblem(small, c) ?? problem, details: [`value: ${show(small)}`, `options: ${c.label}`] };
  },
};

/** Longest one seed may run before the watchdog calls it a hang, prints it and ends the process. */
export const HANG_MS = Number(process.env.FUZZ_HANG_MS ?? 60_000);

/** Shared with the watchdog: the seed running (a float64), then int32s: busy (0/1), target index, a counter bumped per seed. */
const heartbeat = new SharedArrayBuffer(24);
const beatSeed = new Float64Array(heartbeat, 0, 1);
const beat = new Int32Array(heartbeat, 8, 4);
let watchdog: Promise<unknown> | null = null;

/**
 * Starts (once) a worker thread that watches the seeds go by. A seed still
 * running after {@link HANG_MS} (an endless loop in synchronous code, which
 * no test timeout can interrupt) gets its replay command written straight
 * to stderr, and the process is ended so the run does not hang forever.
 */
function startWatchdog(): Promise<unknown> {
  if (watchdog) return watchdog;
  const names = Object.keys(TARGETS);
  const worker = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
    const fs = require("node:fs");
    const seed = new Float64Array(workerData.heartbeat, 0, 1);
    const beat = new Int32Array(workerData.heartbeat, 8, 4);
    let last = -1, since = Date.now();
    setInterval(() => {
      const n = Atomics.load(beat, 2);
      if (n !== last || Atomics.load(beat, 0) === 0) { last = n; since = Date.now(); return; }
      if (Date.now() - since < workerData.hangMs) return;
      const target = workerData.names[Atomics.load(beat, 1)];
      fs.writeSync(2, "\\nfuzz target \\"" + target + "\\" hangs at seed " + seed[0] + ": it has run for " + Math.round((Date.now() - since) / 1000) + " s\\n  replay: npm run fuzz -- --target " + target + " --seed " + seed[0] + " --runs 1\\n");
      process.kill(process.pid, "SIGKILL");
    }, 250);
    parentPort.postMessage("ready");`,
    // no inherited loader flags: the watchdog must start and run while the main thread is stuck
    { eval: true, execArgv: [], workerData: { heartbeat, hangMs: HANG_MS, names } },
  );
  worker.unref();
  watchdog = new Promise((resolve) => {
    worker.once("message", resolve);
    worker.once("error", resolve); // no watchdog then; the fuzzing still runs
  });
  return watchdog;
}

/**
 * Runs `target` on seeds `base`, `base + 1`, ... until `runs` seeds or
 * `ms` milliseconds are done, stopping at the first failure (or collecting
 * up to `maxFailures`). Returns the failures and the number of seeds run.
 */
export async function runTarget(name: string, base: number, limits: { runs?: number; ms?: number; maxFailures?: number }): Promise<{ failures: Failure[]; runs: number }> {
  const target = TARGETS[name];
  if (!target) throw new Error(`unknown fuzz target ${name}; one of ${Object.keys(TARGETS).join(", ")}`);
  const failures: Failure[] = [];
  const end = performance.now() + (limits.ms ?? Infinity);
  let runs = 0;
  await startWatchdog();
  Atomics.store(beat, 1, Object.keys(TARGETS).indexOf(name));
  for (let seed = base; runs < (limits.runs ?? Infinity) && performance.now() < end; seed++, runs++) {
    let failure: Failure | null;
    beatSeed[0] = seed;
    Atomics.add(beat, 2, 1);
    Atomics.store(beat, 0, 1);
    try {
      failure = await target(seed);
    } catch (e) {
      failure = { target: name, seed, problem: `the harness threw ${describeError(e)}`, details: [String((e as Error)?.stack ?? "")] };
    } finally {
      Atomics.store(beat, 0, 0);
    }
    if (failure) {
      failures.push(failure);
      if (failures.length >= (limits.maxFailures ?? 1)) break;
    }
  }
  return { failures, runs };
}
