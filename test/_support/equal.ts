/**
 * Deep equality for large values: vitest's `toEqual` walks a value of a
 * million items in tens of seconds, Node's `isDeepStrictEqual` in
 * milliseconds. `isDeepStrictEqual` is the stricter of the two (it also
 * tells `0` from `-0`, a missing property from an `undefined` one, a hole
 * from `undefined`, and prototypes apart; errors by name and message), so
 * where it holds `toEqual` and `toStrictEqual` hold too. Only a mismatch
 * pays for vitest's comparison, which then decides and prints the diff.
 */
import { isDeepStrictEqual } from "node:util";
import { expect } from "vitest";

/** `expect(actual, message).toEqual(expected)`, fast when they are deep-strict-equal. */
export function expectEqual(actual: unknown, expected: unknown, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, message).toEqual(expected);
}

/** `expect(actual, message).toStrictEqual(expected)`, fast when they are deep-strict-equal. */
export function expectStrictEqual(actual: unknown, expected: unknown, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, message).toStrictEqual(expected);
}
