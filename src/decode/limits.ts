/**
 * The header-limit rule of `decodeArrayStream`'s array: what a decoder
 * with given limits says of a header before it reads what the header
 * declares (its readers say the same through cold.ts: `tooLong`, and
 * `badContainer` for an array or map).
 *
 * @module
 */

import { type DecodeError, overLimit, tooDeepToDecode } from "../common/errors.ts";
import type { DecodeLimits } from "../common/limits.ts";

/**
 * What a decoder with `limits` says of a header that declares `n` bytes,
 * items or entries for an item of wire kind `kind` (see
 * format/forms.ts: a string, binary, array, map or extension) at offset `at`, read at nesting depth `depth`, before
 * it reads what the header declares: the error it throws, or null when it
 * reads on. `binary`: a string read as a binary (`rawStrings`, except for a
 * map key), which `maxBinLength` bounds. (A
 * container's depth is reported once its items have a byte each: the
 * decoder checks that first.)
 *
 * @param limits the decoder's limits
 * @param kind the wire kind: 6 (WIRE_STR) to 10 (WIRE_EXT)
 * @param n the declared length or count
 * @param depth the nesting depth of the item
 * @param binary a string read as a binary
 * @param at the header's offset, for the error
 * @returns the error, or null
 */
export function headerError(limits: DecodeLimits, kind: number, n: number, depth: number, binary: boolean, at: number): DecodeError | null {
  // the kinds as literals, as in the decoder's switch (see src/format/forms.ts)
  const i = kind - 6; // WIRE_STR, WIRE_BIN, WIRE_ARRAY, WIRE_MAP, WIRE_EXT
  const name = LIMIT_NAMES[binary && i === 0 ? 1 : i]!;
  if (n > limits[name]) return overLimit(KIND_NAMES[i]!, at, n, name, limits[name]);
  return i >> 1 === 1 && depth >= limits.maxDepth ? tooDeepToDecode(at, limits.maxDepth) : null; // an array or map too deep
}

/** From WIRE_STR on: what the messages of {@link headerError} call each kind, and its limit. */
const KIND_NAMES = ["string", "binary", "array", "map", "extension"];
const LIMIT_NAMES: readonly (keyof DecodeLimits)[] = ["maxStrLength", "maxBinLength", "maxArrayLength", "maxMapLength", "maxExtLength"];
