/**
 * The timestamp extension (type -1) in its 32, 64 and 96-bit forms, mapped
 * to `Date`. The encoder always picks the shortest form; `Date` holds
 * milliseconds, so nanoseconds below a millisecond are dropped on decode
 * (register your own type -1 decoder to keep them).
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md#timestamp-extension-type
 *
 * @module
 */

import { decodeError, encodeError } from "./errors.ts";

/** The extension type of timestamps. */
export const TIMESTAMP_TYPE = -1;

/** Largest |milliseconds| a `Date` can hold. */
const MAX_DATE_MS = 8.64e15;

/**
 * Writes the payload of the shortest timestamp for `date` into `out` at
 * `pos` (4, 8 or 12 bytes; the caller writes the ext header from the length
 * returned by {@link timestampLength}). Returns the position after it.
 */
export function writeTimestamp(out: Uint8Array, view: DataView, pos: number, ms: number): number {
  const sec = Math.floor(ms / 1000);
  const nsec = (ms - sec * 1000) * 1e6;
  if (sec >= 0 && sec < 0x400000000) {
    if (nsec === 0 && sec <= 0xffffffff) {
      // timestamp 32: uint32 seconds
      view.setUint32(pos, sec);
      return pos + 4;
    }
    // timestamp 64: 30-bit nanoseconds, 34-bit seconds
    view.setUint32(pos, nsec * 4 + Math.floor(sec / 0x100000000));
    view.setUint32(pos + 4, sec >>> 0);
    return pos + 8;
  }
  // timestamp 96: uint32 nanoseconds, int64 seconds
  view.setUint32(pos, nsec);
  view.setBigInt64(pos + 4, BigInt(sec));
  return pos + 12;
}

/** Payload length (4, 8 or 12) of the shortest timestamp for `ms`, after validating it. */
export function timestampLength(ms: number): number {
  if (ms !== ms) throw encodeError("Cannot encode Date: it is an Invalid Date (time is NaN)", "INVALID_DATE");
  const sec = Math.floor(ms / 1000);
  if (sec >= 0 && sec < 0x400000000) return ms % 1000 === 0 && sec <= 0xffffffff ? 4 : 8;
  return 12;
}

/** Decodes a timestamp payload found at `offset` of the input into a `Date`. */
export function readTimestamp(data: Uint8Array, offset: number): Date {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let sec: number;
  let nsec: number;
  switch (data.byteLength) {
    case 4:
      sec = view.getUint32(0);
      nsec = 0;
      break;
    case 8: {
      const hi = view.getUint32(0);
      nsec = hi >>> 2;
      sec = (hi & 3) * 0x100000000 + view.getUint32(4);
      break;
    }
    case 12:
      nsec = view.getUint32(0);
      sec = Number(view.getBigInt64(4));
      break;
    default:
      throw decodeError(
        `Cannot decode timestamp at offset ${offset}: payload is ${data.byteLength} bytes, expected 4, 8 or 12`,
        offset,
        "INVALID_EXT",
      );
  }
  if (nsec >= 1e9) {
    throw decodeError(
      `Cannot decode timestamp at offset ${offset}: nanoseconds ${nsec} must be below 1000000000`,
      offset,
      "INVALID_EXT",
    );
  }
  const ms = sec * 1000 + Math.floor(nsec / 1e6);
  if (Math.abs(ms) > MAX_DATE_MS) {
    throw decodeError(
      `Cannot decode timestamp at offset ${offset}: ${sec} seconds is outside the range of Date`,
      offset,
      "INVALID_EXT",
    );
  }
  return new Date(ms);
}
