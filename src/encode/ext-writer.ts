/**
 * The encoder's extensions: trying the registered extension encoders on a
 * value, and writing an extension payload (`ExtData`, a registered type's
 * bytes, or a payload computed from its output position).
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { badCodecResult, badExtPayload, encodeError, tooLong } from "../common/errors.ts";
import { checkExtType, ExtData, timestampFirst, WHOLE_CODEC } from "../format/extensions.ts";
import { writeExt32Header, writeExtHeader } from "../format/forms.ts";
import { bytesOf } from "../common/input.ts";
import type { ValueWriter } from "./walk.ts";

/**
 * The depth at which an `encode` called from inside an extension encoder
 * starts: the depth of that extension's payload; 0 outside extensions.
 * Set around each extension call and restored after it, so any encoder
 * (another `Encoder`, another options object) continues the count.
 */
let extensionDepth = 0;

/** The depth a call starting now starts at: see {@link extensionDepth}. */
export function startDepth(): number {
  return extensionDepth;
}

/** The extension type msgpackr's records declare structures with ("r"), reserved while records are written. */
const RECORD_EXT_TYPE = 0x72;

/**
 * Tries the registered extensions on `value` (at `depth`) and writes the
 * first one's payload; false when none claims it. An `encode` they call
 * continues at `depth + 1`.
 */
export function encodeExtension(w: ValueWriter, value: unknown, depth: number): boolean {
  if (timestampFirst(w.extensions, value)) return false; // the built-in timestamp (-1) comes first
  const saved = extensionDepth;
  extensionDepth = depth + 1;
  try {
    for (const ext of w.extensions) {
      const data = ext.encode(value, w.context);
      if (data == null) continue;
      if (ext.type === WHOLE_CODEC) {
        // a codec of another kind: its tryToEncode gave an ExtData
        if (!(data instanceof ExtData)) throw badCodecResult(data);
        writeAnyExt(w, data.type, data.data);
      } else {
        writeAnyExt(w, ext.type, data);
      }
      return true;
    }
    return false;
  } finally {
    extensionDepth = saved;
  }
}

/**
 * An extension payload as an extension may give it: a `Uint8Array`, any
 * other view (its bytes, `byteLength` of them), or a function of the
 * output position where the payload will start (written as ext 32).
 */
export function writeAnyExt(w: ValueWriter, type: number, data: unknown): void {
  if (type === RECORD_EXT_TYPE && w.records !== null) {
    throw encodeError("Cannot encode extension type 114 (0x72) with useRecords: msgpackr's records declare their structures with it (use another type)", "INVALID_EXT");
  }
  const ext32 = typeof data === "function";
  if (ext32) {
    checkExtType(type); // before the function runs
    // ext 32: 1 + 4 + 1 header bytes, then the payload
    data = (data as (dataPos: number) => unknown)(w.base + w.out.offset() + 6);
  }
  const bytes = data instanceof Uint8Array ? data : bytesOf(data);
  if (bytes === undefined) throw badExtPayload(type);
  // the header (ext 32 for a computed payload, whatever its size), then the payload
  checkExtType(type);
  const n = bytes.length;
  if (n > 0xffffffff) throw tooLong("extension", n);
  const s = w.out;
  if (s.pos + 6 > s.bytes.length) s.room(6);
  s.pos = ext32 ? writeExt32Header(s.bytes, s.pos, type, n) : writeExtHeader(s.bytes, s.pos, type, n);
  s.put(bytes);
}
