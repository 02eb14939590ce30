/**
 * MessagePack header forms: which first byte and length field each kind
 * takes for each size, written at a position of a byte array. Used by the
 * encoder, the chunked stream encoder and stream framing; the value writers
 * (nil, booleans, array and map headers) also serve the inspector's JSON form.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

/** Writes the low 32 bits of `n` (an integer in -2^31..2^32-1) big-endian at `p` in `b`; returns the position after it. */
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
    b[p] = code16 + 1; // array 32 / map 32
    return writeU32(b, p + 1, n);
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

/**
 * Writes the str header of `n` UTF-8 bytes, `size` bytes long (which must be
 * {@link strHeaderSize} of `n`), at `p` in `b`: fixstr, else str 8 / 16 / 32
 * (0xd9..0xdb).
 */
export function writeStrHeader(b: Uint8Array, p: number, n: number, size: number): void {
  if (size === 1) b[p] = 0xa0 | n; // fixstr
  else writeSized(b, p, n, 0xd9); // str 8 / 16 / 32
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
  if ((n | 0) === n) return writeInt32(b, p, n);
  if (n > 0 && n <= 0xffffffff) {
    b[p] = 0xce; // uint 32
    return writeU32(b, p + 1, n);
  }
  b[p] = n > 0 ? 0xcf : 0xd3; // uint 64 / int 64: 8 big-endian bytes
  writeU32(b, p + 1, Math.floor(n / 0x100000000)); // the high word's bytes, two's complement for a negative one
  return writeU32(b, p + 5, n >>> 0);
}

/**
 * {@link writeInt} for an int32 (`(n | 0) === n`; 5 bytes of room), small
 * enough for engines to inline into a hot number writer.
 */
export function writeInt32(b: Uint8Array, p: number, n: number): number {
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
      b[p] = 0xce; // uint 32
      return writeU32(b, p + 1, n);
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
    b[p] = 0xd2; // int 32
    return writeU32(b, p + 1, n);
  }
  return p;
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
  view.setUint8(p, n >= 0 ? 0xcf : 0xd3); // uint 64 / int 64 (a bigint compares with a number: no literal a bundler at ES2018 warns about)
  view.setBigUint64(p + 1, n); // a negative n as its 64-bit two's complement, as setBigInt64 writes it
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
  if (n > 0 && n <= 16 && (n & (n - 1)) === 0) {
    b[p++] = 0xd4 + Math.log2(n); // fixext 1/2/4/8/16: 0xd4..0xd8
  } else {
    p = writeSized(b, p, n, 0xc7); // ext 8/16/32
  }
  b[p++] = type & 0xff;
  return p;
}

// ---- the first-byte table: what each first byte starts, for the readers ----
//
// Every reader (the decoder, the stream scanner and the
// array-header reader of `decodeArrayStream`) learns from this table what
// a first byte starts and where its length is (the decoder after its
// fast paths for the fix forms and the commonest numbers);
// test/format.test.ts checks for all 256 bytes that every reader agrees
// with the table.

/** The kinds of value a first byte starts (see {@link FIRST_BYTE}). */
export const WIRE_NIL = 0;
export const WIRE_FALSE = 1;
export const WIRE_TRUE = 2;
/** positive fixint, uint 8 / 16 / 32 / 64 */
export const WIRE_UINT = 3;
/** negative fixint, int 8 / 16 / 32 / 64 */
export const WIRE_INT = 4;
/** float 32 / 64 */
export const WIRE_FLOAT = 5;
export const WIRE_STR = 6;
export const WIRE_BIN = 7;
export const WIRE_ARRAY = 8;
export const WIRE_MAP = 9;
/** fixext 1 / 2 / 4 / 8 / 16, ext 8 / 16 / 32: a type byte follows the header's length field */
export const WIRE_EXT = 10;
/** 0xc1, which the format reserves */
export const WIRE_RESERVED = 11;

/** The kind of value a form of {@link FIRST_BYTE} starts. */
export function wireKindOf(form: number): number {
  return form & 0x0f;
}

/** The bytes of big-endian length after the first byte, of a form of {@link FIRST_BYTE}: 0, 1, 2 or 4. */
export function lengthFieldOf(form: number): number {
  return (form >> 4) & 0x07;
}

/** The size the first byte says itself (when {@link lengthFieldOf} is 0), of a form of {@link FIRST_BYTE}. */
export function fixedSizeOf(form: number): number {
  return form >> 8;
}

/**
 * The forms of the first bytes 0xc0-0xdf, one per byte, as in
 * {@link FIRST_BYTE}: `kind | field << 4 | size << 8`, written in hex so
 * that the digits read from the right as the kind, the length field and
 * the fixed size. The kinds are numbers (named in the comments): esbuild
 * does not inline the `WIRE_*` constants here. test/format.test.ts reads
 * every byte back through the decoders.
 */
const FORMS_C0: readonly number[] = [
  0x000, // c0 nil (WIRE_NIL)
  0x00b, // c1 never used (WIRE_RESERVED)
  0x001, // c2 false (WIRE_FALSE)
  0x002, // c3 true (WIRE_TRUE)
  0x017, 0x027, 0x047, // c4-c6 bin 8 / 16 / 32 (WIRE_BIN)
  0x01a, 0x02a, 0x04a, // c7-c9 ext 8 / 16 / 32 (WIRE_EXT)
  0x405, 0x805, // ca-cb float 32 / 64 (WIRE_FLOAT)
  0x103, 0x203, 0x403, 0x803, // cc-cf uint 8 / 16 / 32 / 64 (WIRE_UINT)
  0x104, 0x204, 0x404, 0x804, // d0-d3 int 8 / 16 / 32 / 64 (WIRE_INT)
  0x10a, 0x20a, 0x40a, 0x80a, 0x100a, // d4-d8 fixext 1 / 2 / 4 / 8 / 16 (WIRE_EXT)
  0x016, 0x026, 0x046, // d9-db str 8 / 16 / 32 (WIRE_STR)
  0x028, 0x048, // dc-dd array 16 / 32 (WIRE_ARRAY)
  0x029, 0x049, // de-df map 16 / 32 (WIRE_MAP)
];

/** Builds {@link FIRST_BYTE} (a function, so that a bundle without a reader drops it). */
function firstByteTable(): Uint16Array {
  const table = new Uint16Array(256);
  for (let t = 0; t < 256; t++) {
    // positive fixint 0x00-0x7f (WIRE_UINT), fixmap 0x80-0x8f (WIRE_MAP), fixarray 0x90-0x9f
    // (WIRE_ARRAY), fixstr 0xa0-0xbf (WIRE_STR) with the size in the low bits, negative fixint
    // 0xe0-0xff (WIRE_INT); 0xc0-0xdf are set from FORMS_C0 below
    const kind = t < 0x80 ? 3 : t < 0x90 ? 9 : t < 0xa0 ? 8 : t < 0xc0 ? 6 : 4;
    table[t] = t >= 0x80 && t < 0xc0 ? kind | ((t & (t < 0xa0 ? 0x0f : 0x1f)) << 8) : kind;
  }
  table.set(FORMS_C0, 0xc0);
  return table;
}

/**
 * The first-byte table: for each first byte, packed in one number (one
 * load in a reader's hot path), the kind of value it starts
 * (`form & 0x0f`), the bytes of big-endian length that follow it
 * (`(form >> 4) & 0x07`: 1, 2 or 4 for the 8 / 16 / 32 forms of str, bin,
 * ext, array and map; 0 when the first byte alone says the size) and the
 * size it says itself (`form >> 8`): the length of a fixstr, the items of
 * a fixarray, the entries of a fixmap, the data bytes of a fixext, the
 * bytes of a number after its first byte (uint 16: 2, float 64: 8); 0 for
 * fixints (the first byte is the value), nil, booleans and 0xc1. See
 * {@link wireKindOf}, {@link lengthFieldOf} and {@link fixedSizeOf}.
 */
export const FIRST_BYTE: Uint16Array = /* @__PURE__ */ firstByteTable();

/**
 * The bytes of the header a first byte `t` starts: itself, its length
 * field, and an ext's type byte. A number's bytes after the first are its
 * payload ({@link fixedSizeOf}), not header.
 */
export function headerLength(t: number): number {
  const form = FIRST_BYTE[t]!;
  return 1 + lengthFieldOf(form) + (wireKindOf(form) === WIRE_EXT ? 1 : 0);
}

/** The name of the form a first byte `t` (not a fix form) starts, for messages: "str 8", "uint 16", "array 32". */
export function formName(t: number): string {
  const form = FIRST_BYTE[t]!;
  // the kind, and the bits of the length field or else of the fixed size (see FIRST_BYTE)
  return "nil false true uint int float str bin array map ext reserved".split(" ")[form & 0x0f] + " " + 8 * ((form >> 4) & 0x07 || form >> 8);
}

/** The big-endian unsigned integer of `size` (0 to 4, or up to 6 exactly) bytes at `at` of `b` (bounds already checked). */
export function readLength(b: Uint8Array, at: number, size: number): number {
  let n = 0;
  for (let i = 0; i < size; i++) n = n * 256 + b[at + i]!;
  return n;
}
