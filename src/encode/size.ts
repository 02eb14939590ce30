/**
 * Sizes before encoding: {@link estimateSize}, a cheap bounded guess the
 * encoder uses to size its store, and {@link sizeUpTo}, a bound walked only
 * up to a limit, with which the streaming encoder decides what to split.
 * (The exact size, `encodedSize`, is counted by the encoder itself:
 * encoder.ts.) Values are sorted into kinds by kind.ts, as the encoder
 * sorts them.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { detachedBinary } from "../common/errors.ts";
import type { ExtData } from "../format/extensions.ts";
import { bytesOf, isDetached } from "../common/input.ts";
import { writeInt } from "../format/forms.ts";
import { KIND_ARRAY, KIND_BIGINT, KIND_BINARY, KIND_BOXED, KIND_DATE, KIND_EXT, KIND_MAP, KIND_NUMBER, KIND_SET, KIND_STRING, kindOf, objectKind, unbox } from "../format/kind.ts";

/**
 * How many values the estimate may look at, in all. Long arrays and large
 * objects are sampled, and the samples extrapolated, so the estimate of any
 * value costs about as much as encoding a few kilobytes. 64 samples of an
 * array of records estimate it within ~1% (the store's ceiling is twice the
 * estimate), at ~35 µs for 100k records on Node 20: less than 256 samples
 * read through property reads cost before the estimate stopped running getters.
 */
export const ESTIMATE_BUDGET: number = 64;

/** Past this depth the estimate stops descending and guesses. */
const ESTIMATE_MAX_DEPTH = 64;

/** Guessed size of a value the estimate does not look at. */
const UNSEEN_GUESS = 9;

/**
 * A cheap guess of the encoded size of `value`, in bytes, with bounded work
 * however large the value (long arrays and large objects are sampled).
 * Strings count one byte per UTF-16 unit; binaries count exactly. Use it to
 * size buffers; use `encodedSize` for the exact count.
 *
 * It runs no getter: it looks only at data properties (an accessor property
 * counts as a guess, its getter is not called) and reads `Map`s and `Set`s
 * through the built-in iterators, so `encode`, which may run it mid-call,
 * still reads every property once.
 *
 * @param value any value `encode` accepts
 * @returns the guessed encoded size in bytes
 *
 * @example
 * ```ts
 * import { estimateSize } from "@resizable/msgpack";
 * const guess = estimateSize(new Array(1e6).fill(0.5));
 * console.assert(guess >= 9e6 && guess < 1e7);
 * ```
 */
export function estimateSize(value: unknown): number {
  return Math.ceil(estimate(value, ESTIMATE_BUDGET, 0, { visits: 0 }));
}

/** Stands for a property the estimate does not read: an accessor (its getter is not called). */
const ACCESSOR: unique symbol = Symbol("accessor");

/** The value of own data property `key`, read without running a getter; {@link ACCESSOR} for an accessor. */
function dataValue(obj: object, key: PropertyKey): unknown {
  const d = Reflect.getOwnPropertyDescriptor(obj, key);
  return d === undefined ? undefined : "value" in d ? d.value : ACCESSOR;
}

// the built-in iterators as the module loads (a later patch of the prototypes runs no user code here)
const mapEntries = /* @__PURE__ */ (() => Map.prototype.entries)();
const setValues = /* @__PURE__ */ (() => Set.prototype.values)();

/** Per-call state of the estimate: values looked at. */
interface EstimateState {
  visits: number;
}

/** Where the estimate writes a number to see its size. */
const INT_SCRATCH = /* @__PURE__ */ new Uint8Array(9);

/** Objects with more keys than this are sampled. */
const ESTIMATE_KEYS = 16;

/**
 * `budget` is split among the samples of an array (so long arrays and
 * arrays of arrays stay cheap); an object's values share its budget (records
 * are estimated field by field). `state.visits` is a hard cap on the total.
 */
function estimate(value: unknown, budget: number, depth: number, state: EstimateState): number {
  if (value === ACCESSOR) return UNSEEN_GUESS;
  const kind = kindOf(value);
  switch (kind) {
    case KIND_STRING:
      return (value as string).length + ((value as string).length < 32 ? 1 : 5);
    case KIND_NUMBER:
      // the smallest integer form (what writeInt writes), else 9: a guess, the encoder decides the exact form
      return Number.isSafeInteger(value) && (value !== 0 || 1 / (value as number) > 0) ? writeInt(INT_SCRATCH, 0, value as number) : 9;
    case KIND_BIGINT:
      return 9;
    case KIND_BINARY: {
      const n = (value as ArrayBufferView | ArrayBufferLike).byteLength;
      return n + 5;
    }
    default:
      if (typeof value !== "object" || value === null) return 1; // nil, boolean; a function or symbol (an extension's, or an error)
  }
  if (depth >= ESTIMATE_MAX_DEPTH || ++state.visits > 4 * ESTIMATE_BUDGET) return UNSEEN_GUESS;
  if (kind === KIND_ARRAY) {
    const n = dataValue(value, "length");
    if (typeof n !== "number") return UNSEEN_GUESS;
    return 5 + sampleSum(n, budget, (i, share) => estimate(dataValue(value, i), share, depth + 1, state));
  }
  if (kind === KIND_MAP || kind === KIND_SET) {
    // the first items, not spread ones (reaching item i takes i steps), through the built-in
    // iterator: a subclass's own iterator is not run
    const isMap = kind === KIND_MAP;
    const iterator = isMap ? mapEntries.call(value as Map<unknown, unknown>) : setValues.call(value as Set<unknown>);
    const items: unknown[] = [];
    for (let r = iterator.next(); !r.done && items.length < Math.max(1, Math.floor(budget)); r = iterator.next()) items.push(r.value);
    const sum = sampleSum(items.length, budget, (i, share) => {
      const item = items[i];
      return isMap ? estimate((item as unknown[])[0], share, depth + 1, state) + estimate((item as unknown[])[1], share, depth + 1, state) : estimate(item, share, depth + 1, state);
    });
    return 5 + (sum * (value as Set<unknown>).size) / Math.max(1, items.length);
  }
  if (kind === KIND_DATE) return 15;
  if (kind === KIND_BOXED) return estimate(unbox(value as object), budget, depth, state);
  if (kind === KIND_EXT) {
    const data = dataValue(value, "data");
    const n = data instanceof Uint8Array ? data.length : 0;
    return n + 6;
  }
  const keys = Object.keys(value);
  // every value gets the whole budget: the keys are sampled, not the budget split
  return 5 + sampleSum(keys.length, ESTIMATE_KEYS, (i) => keys[i]!.length + 1 + estimate(dataValue(value, keys[i]!), budget, depth + 1, state));
}

/**
 * Sums `size(i)` over `n` items, looking at no more items than the budget
 * allows and extrapolating from evenly spaced samples; each sample gets an
 * equal share of the budget for its own contents.
 */
function sampleSum(n: number, budget: number, size: (i: number, share: number) => number): number {
  if (n === 0) return 0;
  const samples = Math.max(1, Math.min(n, Math.floor(budget)));
  const share = Math.max(1, budget / samples);
  const step = n / samples;
  let sum = 0;
  for (let k = 0; k < samples; k++) sum += size(Math.floor(k * step), share);
  return (sum * n) / samples;
}

/**
 * An upper bound of the encoded size of `value`, walked only until it
 * reaches `limit` (then any number from `limit` up is returned): what the
 * streaming encoder decides with whether a part is written whole (under
 * `limit`) or split. Costs at most about `limit` steps, never more than
 * the value has nodes.
 *
 * Reads only data properties and the built-in `Map` / `Set` iterators,
 * never a getter: an accessor counts as `limit` (so its object is split
 * down to it and the getter runs once, when its entry is written). Past
 * `maxDepth` levels (a cycle, say) it returns `limit` too.
 *
 * @param value any value `encode` accepts
 * @param limit where to stop walking
 * @param maxDepth how many levels of containers to walk into
 * @returns the bound, or at least `limit`
 */
export function sizeUpTo(value: unknown, limit: number, maxDepth: number): number {
  return boundOf(value, limit, maxDepth);
}

function boundOf(value: unknown, limit: number, levels: number): number {
  if (typeof value === "string") return 3 * value.length + 5; // up to 3 bytes per UTF-16 unit
  if (typeof value !== "object" || value === null) return 9;
  const kind = objectKind(value);
  switch (kind) {
    case KIND_BINARY:
      return (value as ArrayBufferView | ArrayBufferLike).byteLength + 5;
    case KIND_DATE:
      return 15;
    case KIND_BOXED:
      return boundOf(unbox(value), limit, levels);
    case KIND_EXT: {
      const data = dataValue(value, "data");
      return data instanceof Uint8Array ? data.length + 6 : limit; // a payload computed later: unknown
    }
  }
  if (levels <= 0) return limit; // deeper than allowed (a cycle): split it, and let the encoder report it
  let size = 5;
  const add = (v: unknown): boolean => {
    // strings and other leaves here, as boundOf would: a call per leaf costs a third more
    size += typeof v === "string" ? 3 * v.length + 5 : typeof v === "object" && v !== null ? boundOf(v, limit - size, levels - 1) : 9;
    return size >= limit;
  };
  if (kind === KIND_MAP || kind === KIND_SET) {
    try {
      const isMap = kind === KIND_MAP;
      const iterator = isMap ? mapEntries.call(value as Map<unknown, unknown>) : setValues.call(value as Set<unknown>);
      for (let r = iterator.next(); !r.done; r = iterator.next()) {
        if (isMap ? add((r.value as unknown[])[0]) || add((r.value as unknown[])[1]) : add(r.value)) return size;
      }
    } catch {
      // unreadable (a Proxy around a Map, say): small, so that the encoder writes it whole and reports it
    }
    return size;
  }
  const obj = value as Record<string, unknown>;
  const isArray = kind === KIND_ARRAY;
  const keys = isArray ? null : Object.keys(obj);
  const n = isArray ? dataValue(obj, "length") : keys!.length;
  if (typeof n !== "number") return limit;
  for (let i = 0; i < n; i++) {
    const key = isArray ? i : keys![i]!;
    const d = Reflect.getOwnPropertyDescriptor(obj, key);
    if (d === undefined) {
      if (isArray && add(undefined)) return size; // a hole
      continue; // a key deleted since
    }
    if (!("value" in d)) return Math.max(size, limit); // an accessor: split down to it
    if ((!isArray && add(key)) || add(d.value)) return size;
  }
  return size;
}

/**
 * `value` viewed as bytes when it is a binary (a typed array, `DataView`,
 * `ArrayBuffer` or `SharedArrayBuffer`), else undefined; an `EncodeError`
 * (`INVALID_ARGUMENT`) when its buffer was detached by a transfer, where
 * engines would throw a bare `TypeError` or see an empty binary.
 */
export function binaryBytes(value: object): Uint8Array | undefined {
  const buffer = ArrayBuffer.isView(value) ? value.buffer : value;
  if (buffer instanceof ArrayBuffer && buffer.byteLength === 0 && isDetached(buffer)) {
    throw detachedBinary(buffer === value ? "an ArrayBuffer" : `a ${value.constructor?.name ?? "view"} over an ArrayBuffer`);
  }
  return bytesOf(value);
}
