/**
 * What `decodeMulti` gives for some bytes, errors included: the oracle the
 * inspector's tests compare `inspect` with.
 */

import { DecodeError, decodeMulti, type DecodeOptions } from "../../src/index.ts";

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
