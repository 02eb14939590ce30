/**
 * The encoder's writers of values without items: numbers (int and float
 * forms), bigints (int 64 / uint 64), binaries and dates (timestamp). Each
 * reserves its worst case in the output once, then writes with plain indexed
 * stores.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { bigintOutOfRange, tooLong } from "../common/errors.ts";
import { writeBigInt, writeBinHeader, writeFloat, writeInt, writeInt32, writeU32 } from "../format/forms.ts";
import type { Output } from "./output.ts";
import { writeTimestamp } from "../format/timestamp.ts";

/**
 * Writes `n`, an integer in 2^32..2^53-1 (millisecond timestamps and the
 * like), as uint 64 (9 bytes of room), its halves as two uint 32 byte
 * stores (JavaScriptCore's fast form; on V8, 0.5% more instructions than
 * two DataView stores for encode of the events set). Time series encoded
 * 1.12x as fast on Node 20 and 1.07x on Deno as through `writeInt`
 * (ab.js, 4 processes, with the DataView stores). A function of its own:
 * inlined into `encodeNumber`, it made V8 stop inlining that into the
 * array loop (1e6 small integers encoded 0.81x as fast).
 */
function writeUint64(s: Output, n: number): void {
  const p = s.pos;
  s.bytes[p] = 0xcf;
  writeU32(s.bytes, p + 1, (n / 0x100000000) >>> 0);
  s.pos = writeU32(s.bytes, p + 5, n >>> 0);
}

/**
 * Writes `n` in its shortest exact form: an int form for integers (not
 * -0), float 64 otherwise (float 32 with `forceFloat32`). With
 * `useBigInt64`, safe integers past 32 bits that are not uint 32 go as
 * float 64, since those decode to bigints.
 */
export function encodeNumber(s: Output, n: number, forceFloat32: boolean, useBigInt64: boolean): void {
  if (s.pos + 9 > s.bytes.length) s.room(9);
  if ((n | 0) === n && (n !== 0 || 1 / n > 0)) {
    s.pos = writeInt32(s.bytes, s.pos, n); // int32, not -0
  } else if (Number.isSafeInteger(n) && n !== 0 && (!useBigInt64 || (n > 0 && n <= 0xffffffff))) {
    // outside int32 (and not -0): uint 32, uint 64 or int 64 (with useBigInt64, float 64 past 32 bits: those decode to bigints)
    if (n > 0xffffffff) writeUint64(s, n);
    else s.pos = writeInt(s.bytes, s.pos, n);
  } else {
    s.pos = writeFloat(s.view, s.pos, n, forceFloat32);
  }
}

// made by BigInt() rather than written as literals, which bundlers targeting ES2018 reject
const INT64_MIN = /* @__PURE__ */ BigInt("-9223372036854775808");
const UINT64_MAX = /* @__PURE__ */ BigInt("18446744073709551615");

/** Writes a bigint as uint 64 (0 and up) or int 64; `EncodeError` outside both ranges. */
export function encodeBigInt64(s: Output, n: bigint): void {
  if (n < INT64_MIN || n > UINT64_MAX) throw bigintOutOfRange(n);
  if (s.pos + 9 > s.bytes.length) s.room(9);
  s.pos = writeBigInt(s.view, s.pos, n);
}

/** Writes the bin header of `bytes`, then copies the bytes in bulk. */
export function encodeBinary(s: Output, bytes: Uint8Array): void {
  const n = bytes.length;
  if (n > 0xffffffff) throw tooLong("binary", n);
  if (s.pos + 5 > s.bytes.length) s.room(5);
  s.pos = writeBinHeader(s.bytes, s.pos, n);
  s.put(bytes);
}

/** Writes a `Date` as the timestamp extension (type -1) in its shortest form. */
export function encodeDate(s: Output, date: Date): void {
  if (s.pos + 15 > s.bytes.length) s.room(15);
  s.pos = writeTimestamp(s.view, s.pos, date.getTime());
}
