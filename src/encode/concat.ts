/**
 * Joining output parts into one result: the last step of the encoder's
 * output when it left a single buffer.
 *
 * @module
 */

import { encodeError } from "../common/errors.ts";

/** The largest result one `Uint8Array` may hold here: 2^32 bytes. */
export const MAX_RESULT_BYTES: number = 4_294_967_296; // 2^32

/**
 * Copies `parts` into one plain buffer of `total` bytes, or throws an
 * `EncodeError` (`OUT_OF_SPACE`) past {@link MAX_RESULT_BYTES}, `hint`
 * ending its message.
 */
export function concat(parts: readonly Uint8Array[], total: number, hint = ""): Uint8Array<ArrayBuffer> {
  if (total > MAX_RESULT_BYTES) {
    throw encodeError(`Cannot return ${total} bytes: over 4 GiB${hint}`, "OUT_OF_SPACE");
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
