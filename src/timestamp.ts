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

import { decodeError, encodeError, type DecodeError } from "./errors.ts";

/** The extension type of timestamps. */
export const TIMESTAMP_TYPE = -1;

/** Largest |milliseconds| a `Date` can hold. */
const MAX_DATE_MS = 8.64e15;

/** The timestamp `length()` and `write()` are about; throws for an Invalid Date. */
function seconds(ms: number): number {
  if (ms !== ms) throw encodeError("Cannot encode an Invalid Date", "INVALID_DATE");
  return Math.floor(ms / 1000);
}

/**
 * Writes the shortest timestamp extension for `ms` (header, type -1 and
 * payload: 6, 10 or 15 bytes) at `pos` of `view`, which has room for 15.
 * Returns the position after it.
 */
export function writeTimestamp(view: DataView, pos: number, ms: number): number {
  const sec = seconds(ms);
  const nsec = (ms - sec * 1000) * 1e6;
  if (sec >= 0 && sec < 0x400000000) {
    if (nsec === 0 && sec <= 0xffffffff) {
      view.setUint16(pos, 0xd6ff); // fixext 4, type -1: uint32 seconds
      view.setUint32(pos + 2, sec);
      return pos + 6;
    }
    view.setUint16(pos, 0xd7ff); // fixext 8, type -1: 30-bit nanoseconds, 34-bit seconds
    view.setUint32(pos + 2, nsec * 4 + Math.floor(sec / 0x100000000));
    view.setUint32(pos + 6, sec >>> 0);
    return pos + 10;
  }
  view.setUint32(pos, 0xc70cff00); // ext 8 of 12 bytes, type -1: uint32 nanoseconds, int64 seconds
  view.setUint32(pos + 3, nsec);
  view.setBigInt64(pos + 7, BigInt(sec));
  return pos + 15;
}

/** Payload length (4, 8 or 12) of the shortest timestamp for `ms`, after validating it. */
export function timestampLength(ms: number): number {
  const sec = seconds(ms);
  if (sec >= 0 && sec < 0x400000000) return ms % 1000 === 0 && sec <= 0xffffffff ? 4 : 8;
  return 12;
}

/** Decodes a timestamp payload found at `offset` of the input into a `Date`. */
export function readTimestamp(data: Uint8Array, offset: number): Date {
  const n = data.length;
  const fail = (problem: string): DecodeError =>
    decodeError(`Cannot decode timestamp at offset ${offset}: ${problem}`, offset, "INVALID_EXT");
  if (n !== 4 && n !== 8 && n !== 12) throw fail(`${n} bytes, not 4, 8 or 12`);
  const view = new DataView(data.buffer, data.byteOffset, n);
  const first = view.getUint32(0);
  // 32: uint32 seconds; 64: 30-bit nanoseconds, 34-bit seconds; 96: uint32 nanoseconds, int64 seconds
  const nsec = n === 4 ? 0 : n === 8 ? first >>> 2 : first;
  const sec = n === 4 ? first : n === 8 ? (first & 3) * 0x100000000 + view.getUint32(4) : Number(view.getBigInt64(4));
  if (nsec >= 1e9) throw fail(`nanoseconds ${nsec} over 999999999`);
  const ms = sec * 1000 + Math.floor(nsec / 1e6);
  if (Math.abs(ms) > MAX_DATE_MS) throw fail("outside the range of Date");
  return new Date(ms);
}
