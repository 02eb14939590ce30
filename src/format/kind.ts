/**
 * What MessagePack kind a JS value is written as: the one classification
 * that the encoder, the size functions, the streaming encoder and error
 * paths share, so that a new type or policy is one edit.
 *
 * Extensions are tried by the callers before an object is classified (an
 * extension may claim any object, and bigints, functions and symbols).
 *
 * @module
 */

import { ExtData } from "./extensions.ts";
import { isBinary } from "../common/input.ts";

/** `null` and `undefined`: nil. */
export const KIND_NIL = 0;
/** `true` / `false`. */
export const KIND_BOOLEAN = 1;
/** A number: an int or a float, the encoder picks the form. */
export const KIND_NUMBER = 2;
/** A string: str. */
export const KIND_STRING = 3;
/** A bigint: int 64 / uint 64. */
export const KIND_BIGINT = 4;
/** A function or a symbol: written only when an extension claims it. */
export const KIND_UNSUPPORTED = 5;
/** An array: array. */
export const KIND_ARRAY = 6;
/** A plain object, an object without a prototype, or a class instance: a map of its own enumerable string-keyed properties. */
export const KIND_RECORD = 7;
/** A typed array, `DataView`, `ArrayBuffer` or `SharedArrayBuffer`: bin. */
export const KIND_BINARY = 8;
/** A `Map`: map, keys of any kind. */
export const KIND_MAP = 9;
/** A `Set`: an array of its values. */
export const KIND_SET = 10;
/** A `Date`: the timestamp extension. */
export const KIND_DATE = 11;
/** An `ExtData`: ext of its type. */
export const KIND_EXT = 12;
/**
 * A boxed primitive (`new Number(5)`, `new String("s")`, `new Boolean(false)`):
 * its primitive value (`valueOf()`), as `JSON.stringify` writes it.
 */
export const KIND_BOXED = 13;

/** One of the `KIND_*` numbers. */
export type Kind = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13;
/** The kinds an object can be. */
export type ObjectKind = 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13;

/** What `value` is written as (before extensions, which callers try first). */
export function kindOf(value: unknown): Kind {
  switch (typeof value) {
    case "string":
      return KIND_STRING;
    case "number":
      return KIND_NUMBER;
    case "boolean":
      return KIND_BOOLEAN;
    case "undefined":
      return KIND_NIL;
    case "bigint":
      return KIND_BIGINT;
    case "object":
      return value === null ? KIND_NIL : objectKind(value);
    default:
      return KIND_UNSUPPORTED; // function, symbol
  }
}

/**
 * What an object is written as. Arrays and plain objects, the common
 * cases, are answered here, small enough for the walk to inline;
 * everything else by {@link otherObjectKind}.
 */
export function objectKind(obj: object): ObjectKind {
  if (Array.isArray(obj)) return KIND_ARRAY;
  const proto: unknown = Object.getPrototypeOf(obj);
  if (proto === Object.prototype || proto === null) return KIND_RECORD;
  return otherObjectKind(obj);
}

/** What an object that is neither an array nor a plain object is written as. */
function otherObjectKind(obj: object): ObjectKind {
  if (isBinary(obj)) return KIND_BINARY;
  if (obj instanceof Map) return KIND_MAP;
  if (obj instanceof Date) return KIND_DATE;
  if (obj instanceof Set) return KIND_SET;
  if (obj instanceof ExtData) return KIND_EXT;
  // a boxed primitive, if it really holds one (not an object that only inherits from Number.prototype, say)
  if (obj instanceof Number || obj instanceof String || obj instanceof Boolean) {
    try {
      unbox(obj);
      return KIND_BOXED;
    } catch {}
  }
  return KIND_RECORD; // a class instance: its own enumerable properties
}

/**
 * The primitive inside a boxed number, string or boolean, read with the
 * built-in `valueOf` of its class, so no user code runs (an overridden
 * `valueOf` or `toString` is not called, where `JSON.stringify` calls it
 * for numbers and strings).
 */
export function unbox(obj: object): number | string | boolean {
  const box: { prototype: { valueOf(): number | string | boolean } } = obj instanceof Number ? Number : obj instanceof String ? String : Boolean;
  return box.prototype.valueOf.call(obj);
}
