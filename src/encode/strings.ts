/**
 * The encoder's string writers: short strings through a JS UTF-8 loop into
 * the output's scratch, long ones through `TextEncoder.encodeInto` (in the
 * scratch, or straight into the store), and a long string that is the
 * whole value straight into its exact-size result.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { tooLong } from "../common/errors.ts";
import { strHeaderSize, writeStrHeader } from "../format/forms.ts";
import { readWithoutFlattening } from "./rope.ts";
import type { Output } from "./output.ts";
import { ENCODE_JS_MAX_CHARS, encodeUtf8Exact, encodeUtf8Into, utf8Length, writeUtf8 } from "../format/utf8.ts";

/**
 * A string at least this long, encoded on its own and starting with ASCII,
 * goes straight into its exact-size result (no scratch, no store, no final
 * copy): {@link encodeLoneString}.
 */
export const LONE_STRING_MIN_CHARS: number = 16_384;

/** Writes `str` as fixstr / str 8 / 16 / 32. */
export function encodeString(s: Output, str: string): void {
  const len = str.length;
  if (len < ENCODE_JS_MAX_CHARS) {
    const max = 3 * len + 2;
    if (s.pos + max > s.bytes.length) s.room(max);
    const b = s.bytes;
    const p = s.pos;
    if (len < 32) {
      // guess fixstr; if the UTF-8 is 32 bytes or more, shift by one for str 8
      const n = writeUtf8(b, p + 1, str) - p - 1;
      if (n < 32) {
        b[p] = 0xa0 | n; // fixstr
        s.pos = p + 1 + n;
      } else {
        b.copyWithin(p + 2, p + 1, p + 1 + n);
        b[p] = 0xd9; // str 8
        b[p + 1] = n;
        s.pos = p + 2 + n;
      }
    } else {
      // 32..63 units are 32..189 bytes: always str 8
      const n = writeUtf8(b, p + 2, str) - p - 2;
      b[p] = 0xd9; // str 8
      b[p + 1] = n;
      s.pos = p + 2 + n;
    }
    return;
  }
  encodeLongString(s, str);
}

/**
 * Writes a property name as {@link encodeString} would, through a loop of
 * its own. V8 caches the `charCodeAt` lookup per call site and per kind of
 * string seen there (flat or rope, one- or two-byte, internalized or not);
 * past four kinds the site turns megamorphic and every character becomes a
 * generic call, 2-3x slower. Names (internalized strings) and values
 * (everything else) together reach five kinds as soon as a program has
 * non-ASCII text: after one map with non-ASCII keys and values, record
 * encoding on Node 20 fell from ~330 to ~190 MB/s. Keeping names on their
 * own site leaves each site polymorphic. A name with a non-ASCII unit, or
 * of 32 units or more, goes through {@link encodeString}.
 */
export function encodeKey(s: Output, key: string): void {
  const len = key.length;
  if (len < 32) {
    if (s.pos + len + 1 > s.bytes.length) s.room(len + 1);
    const b = s.bytes;
    const p = s.pos;
    let i = 0;
    for (; i < len; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) break;
      b[p + 1 + i] = c;
    }
    if (i === len) {
      b[p] = 0xa0 | len; // fixstr
      s.pos = p + 1 + len;
      return;
    }
  }
  encodeString(s, key);
}

/** Strings of {@link ENCODE_JS_MAX_CHARS} units or more: `TextEncoder.encodeInto`, in the scratch or straight into the store. */
export function encodeLongString(s: Output, str: string): void {
  const len = str.length;
  if (len > 0xffffffff) throw tooLong("string", len);
  const max = 3 * len + 5;
  let target: Uint8Array;
  let at: number;
  const direct = max > s.bytes.length >>> 1;
  if (direct) {
    if (s.counting) {
      countLongString(s, str);
      return;
    }
    const r = s.reserve(max);
    target = r.target;
    at = r.offset;
  } else {
    if (s.pos + max > s.bytes.length) s.room(max);
    target = s.bytes;
    at = s.pos;
  }
  // the UTF-8 length is len..3*len bytes: guess the header from len
  const guess = strHeaderSize(len);
  const n = encodeUtf8Into(target, at + guess, readWithoutFlattening(str, s.offset())); // rope.ts: a rope is not flattened in place
  const size = checkedStrHeaderSize(n);
  if (size !== guess) target.copyWithin(at + size, at + guess, at + guess + n);
  writeStrHeader(target, at, n, size);
  if (direct) s.commit(target, size + n);
  else s.pos = at + size + n;
}

/** A long string in count mode: its size, without encoding it. */
function countLongString(s: Output, str: string): void {
  const n = utf8Length(str);
  s.count(checkedStrHeaderSize(n) + n);
}

/** A long string as the whole value: its UTF-8 written straight into the result. */
export function encodeLoneString(str: string): Uint8Array<ArrayBuffer> {
  const { bytes, at } = encodeUtf8Exact(str, checkedStrHeaderSize);
  writeStrHeader(bytes, 0, bytes.length - at, at);
  return bytes;
}

/** The str header size of `n` UTF-8 bytes ({@link strHeaderSize}); an `EncodeError` past 2^32-1. */
function checkedStrHeaderSize(n: number): number {
  if (n > 0xffffffff) throw tooLong("string", n);
  return strHeaderSize(n);
}
