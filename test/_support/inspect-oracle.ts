/**
 * The inspector's oracle: what `decodeMulti` and `decode` give for some
 * bytes, errors included, and the check that `inspect` agrees with them.
 */

import { expect } from "vitest";
import { decode, DecodeError, decodeMulti, type DecodeOptions } from "../../src/index.ts";
import { inspect, nodeValue, type InspectOptions } from "../../src/inspect.ts";
import { expectStrictEqual } from "./equal.ts";

/** The values `decodeMulti` gives before its error, and the error (null when it reads to the end). */
export function decodeAll(bytes: Uint8Array, options?: DecodeOptions): { values: unknown[]; error: DecodeError | null } {
  const values: unknown[] = [];
  try {
    for (const v of decodeMulti(bytes, options)) values.push(v);
    return { values, error: null };
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return { values, error: e };
  }
}

/** The parts of a `DecodeError` that two readers must agree on. */
export const errorOf = (e: DecodeError | null) => e && { code: e.code, offset: e.offset, message: e.message, needed: e.needed };

/**
 * Asserts that `inspect` agrees with `decodeMulti` and `decode` on `bytes`
 * under `options`: the same first error, a node of the same value for
 * every value decoded, and, for valid input, nodes that tile the input.
 */
export function agrees(bytes: Uint8Array, options?: InspectOptions): void {
  const result = inspect(bytes, options);
  const expected = decodeAll(bytes, options);
  expect(errorOf(result.error)).toEqual(errorOf(expected.error));
  // every value decodeMulti gave is a node read without error, with the same value
  expect(result.nodes.length).toBeGreaterThanOrEqual(expected.values.length);
  expected.values.forEach((v, i) => expectStrictEqual(nodeValue(result.nodes[i]!), v));
  if (expected.error === null) {
    expect(result.nodes.length).toBe(expected.values.length);
    expect(result.end).toBe(bytes.length);
    // decode (one value) agrees too: extra bytes start at the second node
    if (result.nodes.length === 1) expectStrictEqual(nodeValue(result.nodes[0]!), decode(bytes, options));
    else if (result.nodes.length > 1) expect(() => decode(bytes, options)).toThrow(expect.objectContaining({ code: "EXTRA_BYTES", offset: result.nodes[1]!.offset }));
    // the nodes tile the input
    let at = 0;
    for (const node of result.nodes) {
      expect(node.offset).toBe(at);
      at += node.length;
    }
  }
}
