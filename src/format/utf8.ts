/**
 * UTF-8 for MessagePack strings: JS loops for short strings, where a call into
 * `TextEncoder`/`TextDecoder` costs more than the work, and the native codecs
 * for long ones.
 *
 * Policy, the same for short and long strings:
 * - encoding replaces a lone surrogate with U+FFFD, exactly as `TextEncoder`
 *   does (UTF-8 cannot represent one);
 * - decoding rejects invalid UTF-8 (overlong forms, surrogates, code points
 *   above U+10FFFF, truncated or stray continuation bytes) with a
 *   `DecodeError`, exactly as `TextDecoder` with `fatal: true` does; or,
 *   with the decoder's `invalidUtf8: "replace"`, replaces each maximal
 *   invalid subsequence with U+FFFD, exactly as `TextDecoder` does by
 *   default ({@link decodeUtf8Lossy}).
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md#str-format-family
 *
 * @module
 */

import { ON_BUN } from "../common/engine.ts";
import { invalidUtf8 } from "../common/errors.ts";

/**
 * Strings with fewer UTF-16 units than this are written by the JS loop;
 * longer ones by `TextEncoder.encodeInto`, whose call overhead (~100-230 ns
 * per call) is only repaid on longer strings.
 */
export const ENCODE_JS_MAX_CHARS = 64;

/**
 * Byte strings shorter than this are decoded by the JS loop, longer ones by
 * `TextDecoder`: 48 in V8; 16 on Bun, where record decoding ran 1.02-1.26x
 * faster with 16 than with 48 (round-robin, 100 kB records).
 */
export const DECODE_JS_MAX_BYTES: number = ON_BUN ? 16 : 48;

const textEncoder = /* @__PURE__ */ new TextEncoder();
const textDecoder = /* @__PURE__ */ new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** The replacing decoder: on Deno ~2.8x faster than the fatal one on CJK text, the same elsewhere. */
const looseDecoder = /* @__PURE__ */ new TextDecoder("utf-8", { ignoreBOM: true });

/** Whether `TextEncoder.encodeInto` accepts a view of a resizable buffer (Chromium's does not). */
export const ENCODE_INTO_RESIZABLE: boolean = /* @__PURE__ */ acceptsResizable((view) => textEncoder.encodeInto("a", view));

/** Whether `TextDecoder.decode` accepts a view of a resizable buffer (Chromium's does not). */
const DECODE_RESIZABLE: boolean = /* @__PURE__ */ acceptsResizable((view) => textDecoder.decode(view));

function acceptsResizable(use: (view: Uint8Array) => unknown): boolean {
  try {
    use(new Uint8Array(new ArrayBuffer(1, { maxByteLength: 2 })));
    return true;
  } catch {
    return false;
  }
}

/**
 * Exact UTF-8 byte length of `str` as {@link writeUtf8} and `TextEncoder`
 * write it (lone surrogates count as the 3 bytes of U+FFFD).
 */
export function utf8Length(str: string): number {
  const len = str.length;
  let bytes = len;
  for (let i = 0; i < len; i++) {
    const c = str.charCodeAt(i);
    if (c >= 0x80) bytes += c < 0x800 ? 1 : 2; // 2 or 3 bytes for 1 unit
    // a surrogate pair: 4 bytes for 2 units, counted at its first
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < len && (str.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return bytes;
}

/**
 * Writes `str` as UTF-8 into `out` at `pos` with a JS loop and returns the
 * position after it. The caller guarantees `3 * str.length` bytes of room.
 */
export function writeUtf8(out: Uint8Array, pos: number, str: string): number {
  const len = str.length;
  for (let i = 0; i < len; i++) {
    let c = str.charCodeAt(i);
    if (c < 0x80) {
      out[pos++] = c;
    } else if (c < 0x800) {
      out[pos++] = 0xc0 | (c >> 6);
      out[pos++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = c <= 0xdbff && i + 1 < len ? str.charCodeAt(i + 1) : 0;
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          out[pos++] = 0xf0 | (c >> 18);
          out[pos++] = 0x80 | ((c >> 12) & 0x3f);
          out[pos++] = 0x80 | ((c >> 6) & 0x3f);
          out[pos++] = 0x80 | (c & 0x3f);
          continue;
        }
        c = 0xfffd; // lone surrogate
      }
      out[pos++] = 0xe0 | (c >> 12);
      out[pos++] = 0x80 | ((c >> 6) & 0x3f);
      out[pos++] = 0x80 | (c & 0x3f);
    }
  }
  return pos;
}

/**
 * Decodes `length` bytes of UTF-8 at `start`, throwing a `DecodeError` at
 * `start` for invalid UTF-8 (the inspector's reader; the decoder reads
 * {@link utf8Text} and says itself where invalid UTF-8 is).
 */
export function decodeUtf8(bytes: Uint8Array, start: number, length: number): string {
  const text = utf8Text(bytes, start, length);
  if (text === null) throw invalidUtf8(start);
  return text;
}

/** Decodes `length` bytes of UTF-8 at `start`; null for invalid UTF-8. */
export function utf8Text(bytes: Uint8Array, start: number, length: number): string | null {
  if (length < DECODE_JS_MAX_BYTES) return decodeUtf8Short(bytes, start, length);
  const view = decodable(bytes, start, length);
  // decode leniently; only a result with U+FFFD can hide invalid input, and the strict decoder decides
  const str = looseDecoder.decode(view);
  if (str.indexOf("\ufffd") === -1) return str;
  try {
    return textDecoder.decode(view);
  } catch {
    return null;
  }
}

/**
 * Decodes `length` bytes at `start` as `TextDecoder` does by default:
 * every maximal invalid subsequence becomes U+FFFD. For strings the strict
 * {@link utf8Text} refused, so the cost of a native call does not matter.
 */
export function decodeUtf8Lossy(bytes: Uint8Array, start: number, length: number): string {
  return looseDecoder.decode(decodable(bytes, start, length));
}

/** The `length` bytes at `start` as `TextDecoder` takes them: a view, or a plain copy where it refuses the buffer (a shared one; in Chromium a resizable one). */
function decodable(bytes: Uint8Array, start: number, length: number): Uint8Array {
  const view = bytes.subarray(start, start + length);
  return !(bytes.buffer instanceof ArrayBuffer) || (!DECODE_RESIZABLE && bytes.buffer.resizable) ? view.slice() : view;
}

/**
 * JS-loop decoder with the same strictness as `TextDecoder({ fatal: true })`
 * (null for invalid UTF-8).
 * It builds each string with a single `String.fromCharCode` call: adding one
 * character at a time makes a short-lived string per character, and the
 * garbage collector then dominates decoding record data.
 */
function decodeUtf8Short(bytes: Uint8Array, start: number, length: number): string | null {
  const end = start + length;
  let i = start;
  while (i < end && bytes[i]! < 0x80) i++;
  if (i === end) return asciiString(bytes, start, length);
  const units: number[] = [];
  for (let j = start; j < i; j++) units.push(bytes[j]!);
  while (i < end) {
    const b = bytes[i++]!;
    if (b < 0x80) {
      units.push(b);
      continue;
    }
    // a sequence of 2, 3 or 4 bytes (lead C2-DF, E0-EF, F0-F4), whose second byte is in the
    // well-formed range of its lead: E0 A0-BF (not overlong), ED 80-9F (no surrogate),
    // F0 90-BF (not overlong), F4 80-8F (not past U+10FFFF), else 80-BF (Unicode's table 3-7)
    const more = b < 0xc2 ? 0 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : b < 0xf5 ? 3 : 0;
    if (more === 0 || i + more > end) return null;
    const c = bytes[i]!;
    if (c < (b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80) || c > (b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf)) return null;
    let cp = b & (0x3f >> more);
    for (let k = 0; k < more; k++) {
      const d = bytes[i++]!;
      if ((d & 0xc0) !== 0x80) return null;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < 0x10000) units.push(cp);
    else units.push(0xd7c0 + (cp >> 10), 0xdc00 | (cp & 0x3ff));
  }
  return String.fromCharCode.apply(null, units);
}

/**
 * An all-ASCII run as a string, with one `fromCharCode` call of explicit
 * arguments per 16 characters.
 */
function asciiString(b: Uint8Array, s: number, n: number): string {
  switch (n) {
    case 0:
      return "";
    case 1:
      return String.fromCharCode(b[s]!);
    case 2:
      return String.fromCharCode(b[s]!, b[s + 1]!);
    case 3:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!);
    case 4:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!);
    case 5:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!);
    case 6:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!);
    case 7:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!);
    case 8:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!);
    case 9:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!);
    case 10:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!);
    case 11:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!);
    case 12:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!);
    case 13:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!);
    case 14:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!);
    case 15:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!, b[s + 14]!);
    case 16:
      return String.fromCharCode(b[s]!, b[s + 1]!, b[s + 2]!, b[s + 3]!, b[s + 4]!, b[s + 5]!, b[s + 6]!, b[s + 7]!, b[s + 8]!, b[s + 9]!, b[s + 10]!, b[s + 11]!, b[s + 12]!, b[s + 13]!, b[s + 14]!, b[s + 15]!);
    default: {
      // 16 characters per call: faster than apply() on a subarray in V8 and JSC
      let out = "";
      while (n > 16) {
        out += asciiString(b, s, 16);
        s += 16;
        n -= 16;
      }
      return out + asciiString(b, s, n);
    }
  }
}
