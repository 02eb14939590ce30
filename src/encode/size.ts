/**
 * Sizes before encoding: {@link estimateSize}, a cheap bounded guess the
 * encoder uses to size its store; the same estimate, looking at every item
 * up to a limit ({@link estimateUpTo}), decides what the streaming encoder
 * splits.
 * (The exact size, `encodedSize`, is counted by the encoder itself:
 * encoder.ts.) Values are sorted into kinds by kind.ts, as the encoder
 * sorts them.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { detachedBinary } from "../common/errors.ts";
import { bytesOf, isDetached } from "../common/input.ts";
import { writeInt } from "../format/forms.ts";
import { KIND_ARRAY, KIND_BIGINT, KIND_BINARY, KIND_BOXED, KIND_DATE, KIND_EXT, KIND_MAP, KIND_NUMBER, KIND_SET, KIND_STRING, kindOf, unbox } from "../format/kind.ts";

/**
 * How many values the estimate may look at, in all. Long arrays and large
 * objects are sampled, and the samples extrapolated, so the estimate of any
 * value costs about as much as encoding a few kilobytes. 64 samples of an
 * array of records estimate it within ~1% (the store's ceiling is twice the
 * estimate), at ~35 µs for 100k records on Node 20: less than 256 samples
 * read through property reads cost before the estimate stopped running getters.
 */
export const ESTIMATE_BUDGET: number = 64;

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
  // past 64 levels it stops descending; what it does not look at counts 9 bytes
  return Math.ceil(estimate(value, ESTIMATE_BUDGET, Infinity, 0, { left: 4 * ESTIMATE_BUDGET, maxDepth: 64, unseen: 9 }));
}

/**
 * The estimate with every item looked at, until it reaches `limit` (then
 * any number from `limit` up is returned): what the streaming encoder
 * decides with whether a container is written whole (under `limit`) or in
 * parts. Costs at most about `limit` steps, never more than the value has
 * nodes. What it does not look at counts as `limit`: an accessor (so its
 * object is split down to it, and the getter runs once, when its entry is
 * written), or a value more than `levels` containers deep (a cycle, say).
 * A value it cannot look into (a revoked Proxy) counts as 0: the walk
 * reports what is wrong with it.
 */
export function estimateUpTo(value: unknown, limit: number, levels: number): number {
  try {
    return estimate(value, Infinity, limit, 0, { left: Infinity, maxDepth: levels, unseen: limit });
  } catch {
    return 0;
  }
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

/** Where the estimate writes a number to see its size. */
const INT_SCRATCH = /* @__PURE__ */ new Uint8Array(9);

/**
 * `budget` is split among the samples of an array (so long arrays and
 * arrays of arrays stay cheap; Infinity: every item); an object's values
 * share its budget (records are estimated field by field). It stops
 * adding once the sum reaches `limit`. `state`, for the whole estimate:
 * how many containers it may still look into, how many levels deep, and
 * what a value it does not look at counts (an accessor, a container too
 * deep or past `left`).
 */
function estimate(value: unknown, budget: number, limit: number, depth: number, state: { left: number; readonly maxDepth: number; readonly unseen: number }): number {
  if (value === ACCESSOR) return state.unseen;
  const kind = kindOf(value);
  switch (kind) {
    case KIND_STRING:
      return (value as string).length + ((value as string).length < 32 ? 1 : 5);
    case KIND_NUMBER:
      // the smallest integer form (what writeInt writes), else 9: a guess, the encoder decides the exact form
      return Number.isSafeInteger(value) && (value !== 0 || 1 / (value as number) > 0) ? writeInt(INT_SCRATCH, 0, value as number) : 9;
    case KIND_BIGINT:
      return 9;
    case KIND_BINARY:
      return (value as ArrayBufferView | ArrayBufferLike).byteLength + 5;
    default:
      if (typeof value !== "object" || value === null) return 1; // nil, boolean; a function or symbol (an extension's, or an error)
  }
  if (kind === KIND_DATE) return 15;
  if (kind === KIND_BOXED) return estimate(unbox(value as object), budget, limit, depth, state);
  if (kind === KIND_EXT) {
    const data = dataValue(value, "data");
    return data instanceof Uint8Array ? data.length + 6 : state.unseen; // else a payload computed later
  }
  if (depth >= state.maxDepth || --state.left < 0) return state.unseen;
  // a Map's or a Set's first items (reaching item i takes i steps), through the built-in iterator
  // (a subclass's own is not run); an array's items or an object's keys: evenly spaced samples
  const iterator = kind === KIND_MAP ? mapEntries.call(value as Map<unknown, unknown>) : kind === KIND_SET ? setValues.call(value as Set<unknown>) : null;
  const keys = iterator !== null || kind === KIND_ARRAY ? null : Object.keys(value);
  const n = iterator !== null ? (value as Set<unknown>).size : keys === null ? dataValue(value, "length") : keys.length;
  if (typeof n !== "number") return state.unseen;
  if (n === 0) return 5;
  // a list's budget is split among its samples; an object's keys are sampled like an array's items, but at least 16,
  // and its values each get the whole budget (records are estimated field by field)
  const samples = Math.max(1, Math.min(n, Math.floor(keys === null ? budget : Math.max(16, budget))));
  const share = keys === null ? Math.max(1, budget / samples) : budget;
  const step = n / samples;
  let sum = 0;
  let k = 0;
  for (; k < samples && 5 + sum < limit; k++) {
    const left = limit - 5 - sum;
    if (iterator !== null) {
      const r = iterator.next();
      if (r.done) break;
      const item = r.value as unknown[];
      sum += kind === KIND_MAP ? estimate(item[0], share, left, depth + 1, state) + estimate(item[1], share, left, depth + 1, state) : estimate(item, share, left, depth + 1, state);
    } else {
      const i = Math.floor(k * step);
      sum += keys === null ? estimate(dataValue(value, i), share, left, depth + 1, state) : keys[i]!.length + 1 + estimate(dataValue(value, keys[i]!), share, left, depth + 1, state);
    }
  }
  return 5 + (k === 0 ? 0 : (sum * n) / k);
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
