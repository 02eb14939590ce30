/**
 * MessagePack header forms: which first byte and length field each kind
 * takes for each size, written at a position of a byte array. Used by the
 * encoder and the chunked stream encoder.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

/**
 * Writes the fix / 16 / 32 header of an array (`fix` 0x90, `code16` 0xdc)
 * or map (0x80, 0xde) of `n` items (an integer below 2^32) at `p` in `b`,
 * which has 5 bytes of room there; returns the position after it. Shared
 * with the chunked stream encoder.
 */
export function writeContainerHeader(b: Uint8Array, p: number, n: number, fix: number, code16: number): number {
  if (n < 16) {
    b[p++] = fix | n; // fixarray / fixmap
  } else if (n < 0x10000) {
    b[p++] = code16; // array 16 / map 16
    b[p++] = n >> 8;
    b[p++] = n;
  } else {
    b[p++] = code16 + 1; // array 32 / map 32
    b[p++] = n >>> 24;
    b[p++] = n >> 16;
    b[p++] = n >> 8;
    b[p++] = n;
  }
  return p;
}

/** Writes the bin 8 / 16 / 32 header of `n` bytes (below 2^32) at `p` in `b` (5 bytes of room); returns the position after it. */
export function writeBinHeader(b: Uint8Array, p: number, n: number): number {
  if (n < 0x100) {
    b[p++] = 0xc4; // bin 8
    b[p++] = n;
  } else if (n < 0x10000) {
    b[p++] = 0xc5; // bin 16
    b[p++] = n >> 8;
    b[p++] = n;
  } else {
    b[p++] = 0xc6; // bin 32
    b[p++] = n >>> 24;
    b[p++] = n >> 16;
    b[p++] = n >> 8;
    b[p++] = n;
  }
  return p;
}

/** Header size of a str of `n` UTF-8 bytes: fixstr, str 8, str 16 or str 32. */
export function strHeaderSize(n: number): number {
  return n < 32 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5;
}

/** Writes the str header of `n` UTF-8 bytes, `size` bytes long (see {@link strHeaderSize}), at `p` in `b`. */
export function writeStrHeader(b: Uint8Array, p: number, n: number, size: number): void {
  if (size === 1) {
    b[p] = 0xa0 | n; // fixstr
  } else if (size === 2) {
    b[p] = 0xd9; // str 8
    b[p + 1] = n;
  } else if (size === 3) {
    b[p] = 0xda; // str 16
    b[p + 1] = n >> 8;
    b[p + 2] = n;
  } else {
    b[p] = 0xdb; // str 32
    b[p + 1] = n >>> 24;
    b[p + 2] = n >> 16;
    b[p + 3] = n >> 8;
    b[p + 4] = n;
  }
}

// ---- the first-byte table: what each first byte starts, for the readers ----
//
// Every reader (the decoder, the mini decoder, the stream scanner and the
// array-header reader of `decodeArrayStream`) learns from these tables what
// a first byte starts and where its length is. The main decoder's
// `readValue` writes the same dispatch as a literal `switch`, measured
// faster in V8 than a lookup; test/format.test.ts checks for all 256 bytes
// that every reader agrees with the tables.

/** The kinds of value a first byte starts (the entries of {@link FIRST_KIND}). */
export const KIND_NIL = 0;
export const KIND_FALSE = 1;
export const KIND_TRUE = 2;
/** positive fixint, uint 8 / 16 / 32 / 64 */
export const KIND_UINT = 3;
/** negative fixint, int 8 / 16 / 32 / 64 */
export const KIND_INT = 4;
/** float 32 / 64 */
export const KIND_FLOAT = 5;
export const KIND_STR = 6;
export const KIND_BIN = 7;
export const KIND_ARRAY = 8;
export const KIND_MAP = 9;
/** fixext 1 / 2 / 4 / 8 / 16, ext 8 / 16 / 32: a type byte follows the header's length field */
export const KIND_EXT = 10;
/** 0xc1, which the format reserves */
export const KIND_RESERVED = 11;

/** The kind of value each first byte starts. */
export const FIRST_KIND: Uint8Array = new Uint8Array(256);

/**
 * For each first byte: how many bytes of big-endian length (bytes of a
 * str or bin, of an ext's data, items of an array, entries of a map)
 * follow it: 1, 2 or 4 for the 8 / 16 / 32 forms, 0 when the first byte
 * alone says the size ({@link FIXED_SIZE}).
 */
export const LENGTH_FIELD: Uint8Array = new Uint8Array(256);

/**
 * For each first byte without a length field: the size it says. The
 * length of a fixstr, the items of a fixarray, the entries of a fixmap,
 * the data bytes of a fixext, the bytes of a number after its first byte
 * (uint 16: 2, float 64: 8); 0 for fixints (the first byte is the value),
 * nil, booleans and 0xc1.
 */
export const FIXED_SIZE: Uint8Array = new Uint8Array(256);

/**
 * The first bytes 0xc0-0xdf in runs of one kind: how many bytes the run
 * has, their kind, and the length field and fixed size of its first byte,
 * which double from each byte of the run to the next.
 */
const RUNS_C0: readonly (readonly [count: number, kind: number, lengthField: number, fixedSize: number])[] = [
  [1, KIND_NIL, 0, 0], // c0 nil
  [1, KIND_RESERVED, 0, 0], // c1 (never used)
  [1, KIND_FALSE, 0, 0], // c2 false
  [1, KIND_TRUE, 0, 0], // c3 true
  [3, KIND_BIN, 1, 0], // c4-c6 bin 8 / 16 / 32
  [3, KIND_EXT, 1, 0], // c7-c9 ext 8 / 16 / 32
  [2, KIND_FLOAT, 0, 4], // ca-cb float 32 / 64
  [4, KIND_UINT, 0, 1], // cc-cf uint 8 / 16 / 32 / 64
  [4, KIND_INT, 0, 1], // d0-d3 int 8 / 16 / 32 / 64
  [5, KIND_EXT, 0, 1], // d4-d8 fixext 1 / 2 / 4 / 8 / 16
  [3, KIND_STR, 1, 0], // d9-db str 8 / 16 / 32
  [2, KIND_ARRAY, 2, 0], // dc-dd array 16 / 32
  [2, KIND_MAP, 2, 0], // de-df map 16 / 32
];

for (let t = 0; t < 256; t++) {
  // fixints, then fixmap 0x80-0x8f, fixarray 0x90-0x9f, fixstr 0xa0-0xbf: the size in the low bits
  FIRST_KIND[t] = t < 0x80 ? KIND_UINT : t < 0x90 ? KIND_MAP : t < 0xa0 ? KIND_ARRAY : t < 0xc0 ? KIND_STR : KIND_INT;
  if (t >= 0x80 && t < 0xc0) FIXED_SIZE[t] = t & (t < 0xa0 ? 0x0f : 0x1f);
}
for (let t = 0xc0, r = 0; r < RUNS_C0.length; r++) {
  const [count, kind, lengthField, fixedSize] = RUNS_C0[r]!;
  for (let i = 0; i < count; i++, t++) {
    FIRST_KIND[t] = kind;
    LENGTH_FIELD[t] = lengthField << i;
    FIXED_SIZE[t] = fixedSize << i;
  }
}

/**
 * The bytes of the header a first byte `t` starts: itself, its length
 * field, and an ext's type byte. A number's bytes after the first are its
 * payload ({@link FIXED_SIZE}), not header.
 */
export function headerLength(t: number): number {
  return 1 + LENGTH_FIELD[t]! + (FIRST_KIND[t] === KIND_EXT ? 1 : 0);
}

/** The big-endian unsigned integer of `size` (0 to 4, or up to 6 exactly) bytes at `at` of `b` (bounds already checked). */
export function readLength(b: Uint8Array, at: number, size: number): number {
  let n = 0;
  for (let i = 0; i < size; i++) n = n * 256 + b[at + i]!;
  return n;
}
