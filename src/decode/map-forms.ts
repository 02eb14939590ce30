/**
 * The map forms off the decoder's hot path: a map that turns into a `Map`
 * at its first key that is no property name, and the maps of `useMap` and
 * `mapKeyConverter`.
 *
 * @module
 */

import { badKey, inputShrank } from "../common/errors.ts";
import { setOwn } from "../common/objects.ts";
import type { DecodeCursor } from "./record-hook.ts";

/**
 * Continues a map as a `Map` from its first key that is not a string,
 * number or bigint (`key`; its value comes next): the entries so far
 * (`obj`, in wire order: `order` when the keys were kept, as objects list
 * array-index keys first), then the `n` left, number keys still as strings.
 */
export function continueAsMap(d: DecodeCursor, obj: Record<string, unknown>, order: string[] | null, key: unknown, n: number, depth: number): Map<unknown, unknown> {
  const map = new Map<unknown, unknown>();
  for (const k of order ?? Object.keys(obj)) map.set(k, obj[k]);
  map.set(key, d.readValue(depth + 1));
  for (let i = 0; i < n; i++) {
    let k = d.readKey(depth + 1);
    if (typeof k === "number" || typeof k === "bigint") k = String(k);
    map.set(k, d.readValue(depth + 1));
  }
  return map;
}

/** A map of `n` entries with `useMap` (a `Map`, keys as decoded) or a `mapKeyConverter` (`convert`: keys as it returns them). */
export function readMapWith(d: DecodeCursor, n: number, depth: number, useMap: boolean, convert: ((key: unknown) => unknown) | null): unknown {
  const map = useMap ? new Map<unknown, unknown>() : null;
  const obj: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    const at = d.pos;
    let key = d.readKey(depth + 1);
    if (convert !== null) {
      key = convert(key);
      d.window.reset(); // the converter may have written into the input, or shrunk it
      if (d.bytes.length < d.end) throw inputShrank(d.base + d.pos, d.base + d.end, d.bytes.length);
      if (typeof key !== "string" && typeof key !== "number") throw badKey(d.base + at, key);
    }
    const value = d.readValue(depth + 1);
    if (map !== null) map.set(key, value);
    else setOwn(obj, String(key), value);
  }
  return map ?? obj;
}
