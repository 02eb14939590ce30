/**
 * The encoder's writers of values without items: numbers (int and float
 * forms), bigints (int 64 / uint 64), binaries and dates (timestamp). Each
 * reserves its worst case in the sink once, then writes with plain indexed
 * stores.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { bigintOutOfRange, tooLong } from "./errors.ts";
import { writeBinHeader } from "./format.ts";
import type { Sink } from "./sink.ts";
import { writeTimestamp } from "./timestamp.ts";

/**
 * Writes `n` in its shortest exact form: an int form for integers (not
 * -0), float 64 otherwise (float 32 with `forceFloat32`). With
 * `useBigInt64`, safe integers past 32 bits that are not uint 32 go as
 * float 64, since those decode to bigints.
 */
export function encodeNumber(s: Sink, n: number, forceFloat32: boolean, useBigInt64: boolean): void {
  if (s.pos + 9 > s.bytes.length) s.grow(9);
  const b = s.bytes;
  let p = s.pos;
  if ((n | 0) === n && (n !== 0 || 1 / n > 0)) {
    if (n >= 0) {
      if (n < 0x80) {
        b[p++] = n; // positive fixint
      } else if (n < 0x100) {
        b[p++] = 0xcc; // uint 8
        b[p++] = n;
      } else if (n < 0x10000) {
        b[p++] = 0xcd; // uint 16
        b[p++] = n >> 8;
        b[p++] = n;
      } else {
        b[p++] = 0xce; // uint 32
        b[p++] = n >>> 24;
        b[p++] = n >> 16;
        b[p++] = n >> 8;
        b[p++] = n;
      }
    } else if (n >= -0x20) {
      b[p++] = n & 0xff; // negative fixint
    } else if (n >= -0x80) {
      b[p++] = 0xd0; // int 8
      b[p++] = n;
    } else if (n >= -0x8000) {
      b[p++] = 0xd1; // int 16
      b[p++] = n >> 8;
      b[p++] = n;
    } else {
      b[p++] = 0xd2; // int 32
      b[p++] = n >> 24;
      b[p++] = n >> 16;
      b[p++] = n >> 8;
      b[p++] = n;
    }
  } else if (Number.isSafeInteger(n) && n !== 0 && (!useBigInt64 || (n > 0 && n <= 0xffffffff))) {
    // outside int32 (and not -0): uint 32, uint 64 or int 64 (with useBigInt64, float 64 past 32 bits)
    if (n > 0 && n <= 0xffffffff) {
      b[p++] = 0xce; // uint 32
      b[p++] = n >>> 24;
      b[p++] = n >> 16;
      b[p++] = n >> 8;
      b[p++] = n;
    } else {
      b[p] = n > 0 ? 0xcf : 0xd3; // uint 64 / int 64
      const hi = Math.floor(n / 0x100000000);
      const lo = n >>> 0;
      b[p + 1] = hi >> 24;
      b[p + 2] = hi >> 16;
      b[p + 3] = hi >> 8;
      b[p + 4] = hi;
      b[p + 5] = lo >>> 24;
      b[p + 6] = lo >> 16;
      b[p + 7] = lo >> 8;
      b[p + 8] = lo;
      p += 9;
    }
  } else if (forceFloat32) {
    b[p] = 0xca; // float 32
    s.view.setFloat32(p + 1, n);
    p += 5;
  } else {
    b[p] = 0xcb; // float 64
    s.view.setFloat64(p + 1, n);
    p += 9;
  }
  s.pos = p;
}

/** Writes `n` as float 64 (float 32 with `forceFloat32`) whatever it is: numbers with `forceIntegerToFloat`. */
export function encodeFloat(s: Sink, n: number, forceFloat32: boolean): void {
  if (s.pos + 9 > s.bytes.length) s.grow(9);
  const p = s.pos;
  if (forceFloat32) {
    s.bytes[p] = 0xca; // float 32
    s.view.setFloat32(p + 1, n);
    s.pos = p + 5;
  } else {
    s.bytes[p] = 0xcb; // float 64
    s.view.setFloat64(p + 1, n);
    s.pos = p + 9;
  }
}

/** Writes a bigint as uint 64 (0 and up) or int 64; `EncodeError` outside both ranges. */
export function encodeBigInt64(s: Sink, n: bigint): void {
  if (n < -0x8000000000000000n || n > 0xffffffffffffffffn) throw bigintOutOfRange(n);
  if (s.pos + 9 > s.bytes.length) s.grow(9);
  const p = s.pos;
  if (n >= 0n) {
    s.bytes[p] = 0xcf; // uint 64
    s.view.setBigUint64(p + 1, n);
  } else {
    s.bytes[p] = 0xd3; // int 64
    s.view.setBigInt64(p + 1, n);
  }
  s.pos = p + 9;
}

/** Writes the bin header of `bytes`, then the bytes in bulk (large ones may be referenced, not copied). */
export function encodeBinary(s: Sink, bytes: Uint8Array): void {
  const n = bytes.length;
  if (n > 0xffffffff) throw tooLong("binary", n);
  if (s.pos + 5 > s.bytes.length) s.grow(5);
  s.pos = writeBinHeader(s.bytes, s.pos, n);
  s.append(bytes);
}

/** Writes a `Date` as the timestamp extension (type -1) in its shortest form. */
export function encodeDate(s: Sink, date: Date): void {
  if (s.pos + 15 > s.bytes.length) s.grow(15);
  s.pos = writeTimestamp(s.view, s.pos, date.getTime());
}
