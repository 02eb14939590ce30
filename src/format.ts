/**
 * MessagePack header forms: which first byte and length field each kind
 * takes for each size, written at a position of a byte array. Used by the
 * encoder, the chunked stream encoder and stream framing; the value writers
 * (nil, booleans, numbers, bigints, array, map and extension headers) are
 * shared by the main and the mini encoder.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

/** Writes `n` (below 2^32) as a u32 big-endian at `p` in `b`; returns the position after it. */
export function writeU32(b: Uint8Array, p: number, n: number): number {
  b[p] = n >>> 24;
  b[p + 1] = n >> 16;
  b[p + 2] = n >> 8;
  b[p + 3] = n;
  return p + 4;
}

/**
 * Writes the 8 / 16 / 32-bit length form for `n` (below 2^32) at `p` in
 * `b` (5 bytes of room): `code8` and one length byte, `code8 + 1` and two,
 * or `code8 + 2` and four; bin 8 / 16 / 32 are 0xc4..0xc6, ext 8 / 16 / 32
 * 0xc7..0xc9, str 8 / 16 / 32 0xd9..0xdb. Returns the position after it.
 */
export function writeSized(b: Uint8Array, p: number, n: number, code8: number): number {
  if (n < 0x100) {
    b[p] = code8;
    b[p + 1] = n;
    return p + 2;
  }
  if (n < 0x10000) {
    b[p] = code8 + 1;
    b[p + 1] = n >> 8;
    b[p + 2] = n;
    return p + 3;
  }
  b[p] = code8 + 2;
  return writeU32(b, p + 1, n);
}

/** Writes the ext 32 header (whatever the size: a payload written after its position is known) at `p` in `b`; returns the position after it. */
export function writeExt32Header(b: Uint8Array, p: number, type: number, n: number): number {
  b[p] = 0xc9; // ext 32
  p = writeU32(b, p + 1, n);
  b[p++] = type & 0xff;
  return p;
}

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
  return writeSized(b, p, n, 0xc4); // bin 8 / 16 / 32
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

// ---- value writers: each writes one value's bytes at `p` of `b` (room ensured by the caller) and returns the position after them ----

/** Writes nil (0xc0) at `p` in `b`; returns the position after it. */
export function writeNil(b: Uint8Array, p: number): number {
  b[p] = 0xc0; // nil
  return p + 1;
}

/** Writes `true` (0xc3) or `false` (0xc2) at `p` in `b`; returns the position after it. */
export function writeBoolean(b: Uint8Array, p: number, v: boolean): number {
  b[p] = v ? 0xc3 : 0xc2; // true / false
  return p + 1;
}

/**
 * Writes the smallest int form of `n`, a safe integer other than -0 (which
 * only a float holds), at `p` in `b` (9 bytes of room): positive or
 * negative fixint, uint 8/16/32/64 for `n >= 0`, int 8/16/32/64 below.
 * Returns the position after it.
 */
export function writeInt(b: Uint8Array, p: number, n: number): number {
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
    } else if (n <= 0xffffffff) {
      b[p++] = 0xce; // uint 32
      b[p++] = n >>> 24;
      b[p++] = n >> 16;
      b[p++] = n >> 8;
      b[p++] = n;
    } else {
      return writeInt64(b, p, 0xcf, n); // uint 64
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
  } else if (n >= -0x80000000) {
    b[p++] = 0xd2; // int 32
    b[p++] = n >> 24;
    b[p++] = n >> 16;
    b[p++] = n >> 8;
    b[p++] = n;
  } else {
    return writeInt64(b, p, 0xd3, n); // int 64
  }
  return p;
}

/** Writes type byte `code` (uint 64 0xcf or int 64 0xd3) and the safe integer `n` in 8 big-endian two's-complement bytes. */
function writeInt64(b: Uint8Array, p: number, code: number, n: number): number {
  const hi = Math.floor(n / 0x100000000);
  const lo = n >>> 0;
  b[p] = code;
  b[p + 1] = hi >> 24;
  b[p + 2] = hi >> 16;
  b[p + 3] = hi >> 8;
  b[p + 4] = hi;
  b[p + 5] = lo >>> 24;
  b[p + 6] = lo >> 16;
  b[p + 7] = lo >> 8;
  b[p + 8] = lo;
  return p + 9;
}

/**
 * Writes `n` as float 64, or as float 32 when `float32` (the
 * `forceFloat32` option), at `p` of `view` (9 bytes of room); returns the
 * position after it. Takes the caller's `DataView` over its bytes: a
 * cached `DataView` writes a float about 2.5x faster than copying one out
 * of a scratch `Float64Array` (Node 20).
 */
export function writeFloat(view: DataView, p: number, n: number, float32: boolean): number {
  if (float32) {
    view.setUint8(p, 0xca); // float 32
    view.setFloat32(p + 1, n);
    return p + 5;
  }
  view.setUint8(p, 0xcb); // float 64
  view.setFloat64(p + 1, n);
  return p + 9;
}

/**
 * Writes `n`, a bigint in -2^63..2^64-1 (the caller checks), as uint 64
 * (`n >= 0`) or int 64 at `p` of `view` (9 bytes of room); returns the
 * position after it.
 */
export function writeBigInt(view: DataView, p: number, n: bigint): number {
  if (n >= 0n) {
    view.setUint8(p, 0xcf); // uint 64
    view.setBigUint64(p + 1, n);
  } else {
    view.setUint8(p, 0xd3); // int 64
    view.setBigInt64(p + 1, n);
  }
  return p + 9;
}

/** Writes the header of an array of `n` items (below 2^32) at `p` in `b` (5 bytes of room); returns the position after it. */
export function writeArrayHeader(b: Uint8Array, p: number, n: number): number {
  return writeContainerHeader(b, p, n, 0x90, 0xdc); // fixarray / array 16 / array 32
}

/** Writes the header of a map of `n` entries (below 2^32) at `p` in `b` (5 bytes of room); returns the position after it. */
export function writeMapHeader(b: Uint8Array, p: number, n: number): number {
  return writeContainerHeader(b, p, n, 0x80, 0xde); // fixmap / map 16 / map 32
}

/**
 * Writes the header of an extension of `type` (-128..127, checked by the
 * caller) with an `n`-byte payload (below 2^32) at `p` in `b` (6 bytes of
 * room): fixext 1/2/4/8/16 for those sizes, else ext 8/16/32; then the
 * type byte. Returns the position where the payload goes.
 */
export function writeExtHeader(b: Uint8Array, p: number, type: number, n: number): number {
  if (n === 1 || n === 2 || n === 4 || n === 8 || n === 16) {
    b[p++] = n === 1 ? 0xd4 : n === 2 ? 0xd5 : n === 4 ? 0xd6 : n === 8 ? 0xd7 : 0xd8; // fixext 1/2/4/8/16
  } else {
    p = writeSized(b, p, n, 0xc7); // ext 8/16/32
  }
  b[p++] = type & 0xff;
  return p;
}
