/**
 * MessagePack header forms: which first byte and length field each kind
 * takes for each size, written at a position of a byte array. Used by the
 * encoder, the chunked stream encoder and stream framing.
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

/**
 * Writes the header of an extension of `type` (-128..127) with an `n`-byte
 * payload (below 2^32) at `p` in `b` (6 bytes of room): fixext 1 / 2 / 4 /
 * 8 / 16 for those sizes, else ext 8 / 16 / 32; returns the position after it.
 */
export function writeExtHeader(b: Uint8Array, p: number, type: number, n: number): number {
  const fix = n === 1 ? 0xd4 : n === 2 ? 0xd5 : n === 4 ? 0xd6 : n === 8 ? 0xd7 : n === 16 ? 0xd8 : 0;
  if (fix !== 0) b[p++] = fix; // fixext 1/2/4/8/16
  else p = writeSized(b, p, n, 0xc7); // ext 8/16/32
  b[p++] = type & 0xff;
  return p;
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
