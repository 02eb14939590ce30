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

import { decodeAt, encodeAbout } from "../common/errors.ts";

/** The extension type of timestamps. */
export const TIMESTAMP_TYPE = -1;

/** Largest |milliseconds| a `Date` can hold. */
const MAX_DATE_MS = 8.64e15;

/**
 * Writes the shortest timestamp extension for `ms` (header, type -1 and
 * payload: 6, 10 or 15 bytes) at `pos` of `view`, which has room for 15.
 * Returns the position after it; throws an `EncodeError` for an Invalid Date.
 */
export function writeTimestamp(view: DataView, pos: number, ms: number): number {
  if (ms !== ms) throw encodeAbout("an Invalid Date", "its time is NaN", "INVALID_DATE");
  const sec = Math.floor(ms / 1000);
  return writeTimeSpec(view, pos, sec, (ms - sec * 1000) * 1e6);
}

/** Writes the shortest timestamp extension for `sec` and `nsec` (not validated) at `pos` of `view` (15 bytes of room); returns the position after it. */
function writeTimeSpec(view: DataView, pos: number, sec: number, nsec: number): number {
  if (sec >= 0 && nsec >= 0 && sec <= 0x3ffffffff) {
    if (nsec === 0 && sec <= 0xffffffff) {
      view.setUint16(pos, 0xd6ff); // fixext 4, type -1: uint32 seconds
      view.setUint32(pos + 2, sec);
      return pos + 6;
    }
    view.setUint16(pos, 0xd7ff); // fixext 8, type -1: 30-bit nanoseconds, 34-bit seconds
    view.setUint32(pos + 2, (nsec << 2) | ((sec / 0x100000000) & 3));
    view.setUint32(pos + 6, sec); // the low 32 bits (setUint32 keeps them)
    return pos + 10;
  }
  view.setUint32(pos, 0xc70cff00); // ext 8 of 12 bytes, type -1: uint32 nanoseconds, int64 seconds
  view.setUint32(pos + 3, nsec);
  view.setUint32(pos + 7, Math.floor(sec / 0x100000000)); // the high word, two's complement for a negative one
  view.setUint32(pos + 11, sec);
  return pos + 15;
}

/** The seconds and nanoseconds of a timestamp payload of `n` (4, 8 or 12) bytes, not validated; else null, before any byte is read. */
function timeSpecOf(data: Uint8Array, n: number): TimeSpec | null {
  if (n !== 4 && n !== 8 && n !== 12) return null;
  const view = new DataView(data.buffer, data.byteOffset, n);
  // 32: uint32 seconds; 64: 30-bit nanoseconds, 34-bit seconds; 96: uint32 nanoseconds, int64 seconds
  if (n === 4) return { sec: view.getUint32(0), nsec: 0 };
  if (n === 8) return { sec: (view.getUint32(0) & 3) * 0x100000000 + view.getUint32(4), nsec: view.getUint32(0) >>> 2 };
  return { sec: view.getInt32(4) * 0x100000000 + view.getUint32(8), nsec: view.getUint32(0) };
}

/** Decodes a timestamp payload found at `offset` of the input into a `Date`. */
export function readTimestamp(data: Uint8Array, offset: number): Date {
  const t = timeSpecOf(data, data.length);
  let problem = badSize(data.length);
  if (t !== null) {
    const ms = t.sec * 1000 + Math.floor(t.nsec / 1e6);
    if (t.nsec >= 1e9) problem = `nanoseconds ${t.nsec} over 999999999`;
    else if (Math.abs(ms) <= MAX_DATE_MS) return new Date(ms);
    else problem = "outside the range of Date";
  }
  throw decodeAt("timestamp", offset, problem, "INVALID_EXT");
}

/** Why a timestamp payload of `n` bytes is refused, in @msgpack/msgpack's words. */
const badSize = (n: number): string => `unrecognized data size for timestamp, ${n} bytes, not 4, 8 or 12`;

// ---- the helpers @msgpack/msgpack exports, with its inputs, outputs and errors ----

/** The extension type of timestamps (-1), under @msgpack/msgpack's name. */
export const EXT_TIMESTAMP = -1;

/** A time as whole seconds since the epoch and nanoseconds (0..999999999) after them. */
export type TimeSpec = {
  sec: number;
  nsec: number;
};

/**
 * The payload (4, 8 or 12 bytes) of the shortest timestamp for a
 * {@link TimeSpec}. Like @msgpack/msgpack, it does not validate: keep
 * `nsec` in 0..999999999 and `sec` a safe integer.
 *
 * @param timeSpec seconds and nanoseconds
 * @returns the timestamp payload
 *
 * @example
 * ```ts
 * import { encodeTimeSpecToTimestamp } from "@resizable/msgpack";
 * console.assert(encodeTimeSpecToTimestamp({ sec: 1, nsec: 0 }).length === 4);
 * console.assert(encodeTimeSpecToTimestamp({ sec: -1, nsec: 0 }).length === 12);
 * ```
 */
export function encodeTimeSpecToTimestamp({ sec, nsec }: TimeSpec): Uint8Array {
  const out = new Uint8Array(15);
  const end = writeTimeSpec(new DataView(out.buffer), 0, sec, nsec);
  return out.slice(end === 15 ? 3 : 2, end); // the payload, after the header and type
}

/**
 * The {@link TimeSpec} of a `Date`: `nsec` is never negative, so times
 * before 1970 have a `sec` one lower (an Invalid Date gives NaNs).
 *
 * @param date the date
 * @returns its seconds and nanoseconds
 *
 * @example
 * ```ts
 * import { encodeDateToTimeSpec } from "@resizable/msgpack";
 * const t = encodeDateToTimeSpec(new Date(-1));
 * console.assert(t.sec === -1 && t.nsec === 999000000);
 * ```
 */
export function encodeDateToTimeSpec(date: Date): TimeSpec {
  const ms = date.getTime();
  // ms is an integer (or NaN): nsec is a whole number of milliseconds below 1e9
  const sec = Math.floor(ms / 1000);
  return { sec, nsec: (ms - sec * 1000) * 1e6 };
}

/**
 * The timestamp payload of `object` when it is a `Date`, else null: the
 * encoder of type -1.
 *
 * @param object any value
 * @returns the payload, or null
 *
 * @example
 * ```ts
 * import { encodeTimestampExtension } from "@resizable/msgpack";
 * console.assert(encodeTimestampExtension(new Date(0))!.length === 4 && encodeTimestampExtension("x") === null);
 * ```
 */
export function encodeTimestampExtension(object: unknown): Uint8Array | null {
  return object instanceof Date ? encodeTimeSpecToTimestamp(encodeDateToTimeSpec(object)) : null;
}

/**
 * The {@link TimeSpec} in a timestamp payload of 4, 8 or 12 bytes.
 *
 * @param data the payload
 * @returns its seconds and nanoseconds (not validated, as in @msgpack/msgpack)
 * @throws {DecodeError} (code `INVALID_EXT`) for any other length
 *
 * @example
 * ```ts
 * import { decodeTimestampToTimeSpec } from "@resizable/msgpack";
 * const t = decodeTimestampToTimeSpec(new Uint8Array([0, 0, 0, 5]));
 * console.assert(t.sec === 5 && t.nsec === 0);
 * ```
 */
export function decodeTimestampToTimeSpec(data: Uint8Array): TimeSpec {
  const t = timeSpecOf(data, data.byteLength); // of any view, as @msgpack/msgpack reads it
  if (t === null) throw decodeAt("timestamp", 0, badSize(data.byteLength), "INVALID_EXT");
  return t;
}

/**
 * The `Date` of a timestamp payload: the decoder of type -1, as in
 * @msgpack/msgpack (nanoseconds below a millisecond are dropped; a time
 * out of `Date`'s range gives an Invalid Date).
 *
 * @param data the payload
 * @returns the date
 * @throws {DecodeError} (code `INVALID_EXT`) for a length other than 4, 8 or 12
 *
 * @example
 * ```ts
 * import { decodeTimestampExtension, encodeTimestampExtension } from "@resizable/msgpack";
 * const date = new Date(1_700_000_000_123);
 * console.assert(decodeTimestampExtension(encodeTimestampExtension(date)!).getTime() === date.getTime());
 * ```
 */
export function decodeTimestampExtension(data: Uint8Array): Date {
  const { sec, nsec } = decodeTimestampToTimeSpec(data);
  return new Date(sec * 1e3 + nsec / 1e6);
}
