/**
 * The decoder's readers off its hot path, over its {@link Cursor}: the
 * errors of headers (the input ends, a limit refuses), extensions (an
 * extension decoder run one level of nesting down; timestamps; `ExtData`),
 * and the map forms off the plain object (a `Map`, a `mapKeyConverter`). Kept apart so that the hot readers stay small
 * enough for the engine to inline them into each other.
 *
 * @module
 */

import { badKey, type DecodeError, fromExtension, inputShrank, overLimit, tooDeepToDecode, truncated } from "../common/errors.ts";
import type { DecodeLimits } from "../common/limits.ts";
import { ExtData, type ExtensionDecoderType } from "../format/extensions.ts";
import { TIMESTAMP_TYPE, readTimestamp } from "../format/timestamp.ts";
import type { Cursor } from "./cursor.ts";

/** A TRUNCATED error: the input ends, but the item at `start` needs `need` bytes from `start`. */
export function short(d: Cursor, start: number, need: number, what: string): DecodeError {
  return truncated(d.base + start, need, d.base + d.end, what, d.ended);
}

/** A MAX_LENGTH error: the `what` whose header is at `start` declares `n` bytes, items or entries, over the limit `name`. */
export function tooLong(d: Cursor, what: string, n: number, start: number, name: keyof DecodeLimits): DecodeError {
  return overLimit(what, d.base + start, n, name, d.limits[name]);
}

/**
 * The error for an array (`kind` 8, WIRE_ARRAY) or map (9, WIRE_MAP)
 * header of `n` items at `start` that is over the length limit, longer
 * than the bytes left (every item takes at least one byte, every map entry
 * two) or too deep: the readers test all three in one condition, before
 * anything is allocated, and call this only to throw.
 */
export function badContainer(d: Cursor, kind: 8 | 9, n: number, depth: number, start: number): DecodeError {
  const map = kind === 9;
  const limit = map ? "maxMapLength" : "maxArrayLength";
  if (n > d.limits[limit]) return tooLong(d, map ? "map" : "array", n, start, limit);
  const need = map ? 2 * n : n;
  if (d.pos + need > d.end) return short(d, start, d.pos - start + need, map ? `map of ${n} entries` : `array of ${n} items`);
  return tooDeepToDecode(d.base + start, d.limits.maxDepth);
}

/** What a decode of a payload handed to an extension decoder continues from: the payload's nesting depth and its base. */
export interface Outer {
  readonly depth: number;
  readonly base: number;
}

/** Where a decode of any other input starts. */
const TOP: Outer = { depth: 0, base: 0 };

/**
 * The payloads handed to extension decoders that are running, each with
 * its {@link Outer}: the depth and base travel with the payload, so that a
 * decode of it (by any decoder, with any options) continues the nesting of
 * the decode that found it (`maxDepth` bounds nesting through extensions)
 * and reports offsets in the outer input. An entry lives while its
 * extension decoder runs; a copy of a payload is an input of its own.
 */
const PAYLOADS = /* @__PURE__ */ new WeakMap<object, Outer>();

/** Where a decode of `input` starts: a payload's {@link Outer} while its extension decoder runs, else depth 0 and base 0. */
export function outerOf(input: object): Outer {
  // a payload is never at byte 0 of its buffer: its header comes first
  return ((input as Uint8Array).byteOffset > 0 && PAYLOADS.get(input)) || TOP;
}

/**
 * An extension of `n` payload bytes whose header is at `start` (the cursor
 * after its length field): the decoder of its type in `codec`, run on a
 * view of the payload one level down; else a timestamp, `undefined` with
 * `undefinedAsExtension`, or an `ExtData` of a copy of the payload.
 */
export function readExt<C>(d: Cursor, codec: { get(type: number): ExtensionDecoderType<C> | undefined }, n: number, start: number, depth: number): unknown {
  if (n > d.limits.maxExtLength) throw tooLong(d, "extension", n, start, "maxExtLength");
  const p = d.pos;
  if (p >= d.end) throw short(d, start, p - start + 1, "extension type");
  const type = (d.bytes[p]! << 24) >> 24;
  const at = p + 1;
  if (at + n > d.end) throw short(d, start, at - start + n, "extension");
  d.pos = at + n;
  const decodeExt = codec.get(type);
  if (decodeExt === undefined) {
    if (type === TIMESTAMP_TYPE) return readTimestamp(d.bytes.subarray(at, at + n), d.base + start);
    if (type === 0 && n === 1 && d.options.undefinedAsExtension) return undefined; // msgpackr's and notepack.io's undefined
    return new ExtData(type, d.bytes.slice(at, at + n));
  }
  // the extension decoder, run on a view of its payload as one more level of nesting
  // (in this function: one frame less per level of nesting through extensions)
  if (depth >= d.limits.maxDepth) throw tooDeepToDecode(d.base + start, d.limits.maxDepth);
  const data = d.bytes.subarray(at, at + n);
  PAYLOADS.set(data, { depth: depth + 1, base: d.base + at });
  try {
    const value = decodeExt(data, type, d.options.context as C);
    // the extension decoder may have shrunk (or detached) the input's buffer: its missing bytes must not read as values
    if (d.bytes.length < d.end) throw inputShrank(d.base + at + n, d.base + d.end, d.bytes.length);
    return value;
  } catch (e) {
    throw fromExtension(e, type, d.base + start);
  } finally {
    PAYLOADS.delete(data);
    d.window.reset(); // the extension decoder may have written into the input
  }
}

/** The next map key (at nesting `depth`) as the `mapKeyConverter` returns it: a string or a number, else an INVALID_KEY error. */
export function convertKey(d: Cursor, depth: number): unknown {
  const at = d.pos;
  const converted: unknown = d.options.mapKeyConverter!(d.readKey(depth));
  d.window.reset(); // the converter may have written into the input, or shrunk it
  if (d.bytes.length < d.end) throw inputShrank(d.base + d.pos, d.base + d.end, d.bytes.length);
  if (typeof converted !== "string" && typeof converted !== "number") throw badKey(d.base + at, converted);
  return converted;
}

/**
 * The next `n` entries of a map into `map`: with `useMap` (`asIs`, keys
 * as decoded), or after a key that is no property name (numbers and
 * bigints stay property names, as the entries before it).
 */
export function readIntoMap(d: Cursor, map: Map<unknown, unknown>, n: number, depth: number, asIs: boolean): Map<unknown, unknown> {
  const convert = d.options.mapKeyConverter !== undefined;
  for (let i = 0; i < n; i++) {
    let key = convert ? convertKey(d, depth + 1) : d.readKey(depth + 1);
    if (!asIs && (typeof key === "number" || typeof key === "bigint")) key = String(key);
    map.set(key, d.readValue(depth + 1));
  }
  return map;
}

/**
 * A map read as the plain object `obj` so far, on as a `Map` from `key`,
 * which is no property name: the entries of `obj` in wire order (`order`
 * when the keys were kept, as objects list array-index keys first), then
 * `key` and its value, then the `n` entries after it.
 */
export function toMap(d: Cursor, obj: Record<string, unknown>, order: string[] | null, key: unknown, n: number, depth: number): Map<unknown, unknown> {
  const map = new Map<unknown, unknown>();
  for (const k of order ?? Object.keys(obj)) map.set(k, obj[k]);
  map.set(key, d.readValue(depth + 1));
  return readIntoMap(d, map, n, depth, false);
}
