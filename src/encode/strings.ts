/**
 * The encoder's string writers: short strings through a JS UTF-8 loop into
 * the output's scratch, long ones through `TextEncoder.encodeInto`.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { tooLong } from "../common/errors.ts";
import { strHeaderSize, writeStrHeader } from "../format/forms.ts";
import { readWithoutFlattening } from "./rope.ts";
import type { Output } from "./output.ts";
import { ENCODE_JS_MAX_CHARS, utf8Length, writeUtf8 } from "../format/utf8.ts";

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

/**
 * One key of an object after the keys before it, its bytes (str header
 * and UTF-8, as {@link encodeString} writes them) prepared once: `size`
 * bytes, as the little-endian 32-bit words `words[first..last)` of its
 * {@link KeyTree} (the last word's bytes past the key are zeros).
 */
export interface KeyStep {
  readonly key: string;
  readonly first: number;
  readonly last: number;
  readonly size: number;
  /** The first step made after this one, and the others (at most {@link KEY_FAN_OUT}). */
  next: KeyStep | null;
  others: KeyStep[] | null;
}

/**
 * The key sequences a writer has met, one step per key after the keys
 * before it, each with its bytes prepared: an object whose keys follow a
 * sequence seen before has each key copied as words (after one comparison
 * of the key with the step's) instead of encoded a character at a time,
 * as V8's `JSON.stringify` reuses what it knows of an object's shape.
 * Bounded: keys up to {@link KEY_MAX_CHARS} units, {@link KEY_FAN_OUT}
 * steps after each step, {@link KEY_STEPS_MAX} steps and
 * {@link KEY_WORDS_MAX} words in all; a full tree starts again, so a
 * program's later shapes are not shut out by its first ones.
 */
export class KeyTree {
  /** The steps before any key, one per depth (modulo {@link KEY_ROOTS}): objects found at one depth are often of one shape. */
  roots: KeyStep[];
  /** The steps' bytes, one after the other. */
  words: Uint32Array;
  /** Words used, and steps made, since the tree last started. */
  private used: number;
  private count: number;

  constructor() {
    this.roots = newRoots();
    this.words = new Uint32Array(0);
    this.used = this.count = 0;
  }

  /** The step after `from` for `key` (which `from.next` is not): found, else made; null when it cannot be made (then the key is encoded as it is). */
  after(from: KeyStep, key: string): KeyStep | null {
    const others = from.others;
    if (others !== null) for (let i = 0; i < others.length; i++) if (others[i]!.key === key) return others[i]!;
    if (key.length > KEY_MAX_CHARS || (others !== null && others.length === KEY_FAN_OUT)) return null;
    // the key's bytes, as a string value's: its UTF-8 after room for a str 8 header (at most 3 * KEY_MAX_CHARS bytes), then its header just before it
    const b = KEY_SCRATCH.fill(0);
    const n = writeUtf8(b, 2, key) - 2;
    const header = strHeaderSize(n);
    const at = 2 - header;
    writeStrHeader(b, at, n, header);
    const size = header + n;
    const first = this.used;
    const last = first + ((size + 3) >> 2);
    if (this.count === KEY_STEPS_MAX || last > KEY_WORDS_MAX) {
      this.roots = newRoots();
      this.used = this.count = 0;
      return null; // `from` was the old tree's: this object's keys are encoded as they are
    }
    if (last > this.words.length) {
      const grown = new Uint32Array(Math.min(KEY_WORDS_MAX, Math.max(256, 2 * this.words.length)));
      grown.set(this.words);
      this.words = grown;
    }
    for (let i = first, j = at; i < last; i++, j += 4) this.words[i] = b[j]! | (b[j + 1]! << 8) | (b[j + 2]! << 16) | (b[j + 3]! << 24);
    this.used = last;
    this.count++;
    const step = newStep(key, first, last, size);
    if (from.next === null) from.next = step;
    else (from.others ??= []).push(step);
    return step;
  }
}

function newRoots(): KeyStep[] {
  return Array.from({ length: KEY_ROOTS }, () => newStep("", 0, 0, 0));
}

function newStep(key: string, first: number, last: number, size: number): KeyStep {
  return { key, first, last, size, next: null, others: null };
}

/** How many depths have roots of their own (a power of two). */
export const KEY_ROOTS = 16;

/** The longest key given a {@link KeyStep}, in UTF-16 units. */
const KEY_MAX_CHARS = 64;

/** The most steps kept after one step: past it, further keys there are encoded as they are. */
const KEY_FAN_OUT = 32;

/** The most steps, and words of prepared keys, a writer keeps. */
const KEY_STEPS_MAX = 1024;
const KEY_WORDS_MAX = 4096; // 16 KiB

/** Where a key's bytes are prepared: its longest UTF-8, a str 8 header, and the last word's rest. */
const KEY_SCRATCH = /* @__PURE__ */ new Uint8Array(3 * KEY_MAX_CHARS + 6);

/**
 * Strings of {@link ENCODE_JS_MAX_CHARS} units or more, through
 * `TextEncoder.encodeInto`: where the output is when their worst case
 * (3 bytes a unit) fits, else tried there when their ASCII size does (the
 * call's first overflow may make a buffer for the whole output,
 * output.ts; a string that does not look ASCII asks for one that holds
 * its worst case), else into a window of the worst case, ended once the
 * string is written. The header is guessed from the length and moved when the
 * guess was wrong.
 */
export function encodeLongString(s: Output, str: string): void {
  const len = str.length;
  const max = 3 * len + 5;
  // past 2^32-1 bytes of UTF-8 (only a string of over 1.4e9 units can be): an EncodeError
  if (max > 0xffffffff && utf8Length(str) > 0xffffffff) throw tooLong("string", utf8Length(str));
  const text = readWithoutFlattening(str, s.offset()); // rope.ts: a rope is not flattened in place
  if (s.pos + max <= s.bytes.length) {
    writeLong(s, text, true);
    return;
  }
  if (s.counting && max > s.scratchSize) {
    // measured, not written: a count has no use for the bytes
    const n = utf8Length(str);
    s.room(0);
    s.done += strHeaderSize(n) + n;
    return;
  }
  if (looksAscii(text) ? s.fits(len + 5) && writeLong(s, text, false) : s.fits(max, true) && writeLong(s, text, true)) return;
  s.room(max);
  writeLong(s, text, true);
  if (max > s.scratchSize) s.room(0); // the window ends: what follows is written into the scratch again
}

/**
 * Whether 16 units spread over `text` are ASCII: a string that fails is
 * not tried at its ASCII size, where a failed try would be encoded twice.
 * (`text` is about to be flattened by `encodeInto` anyway.)
 */
function looksAscii(text: string): boolean {
  const step = text.length >>> 4;
  for (let i = 0; i < 16; i++) if (text.charCodeAt(i * step) > 0x7f) return false;
  return true;
}

const textEncoder = /* @__PURE__ */ new TextEncoder();

/**
 * Writes `text` at `pos`; `sure`: there is room for its worst case. Else
 * false, with `pos` unchanged, when it did not fit in the rest of `bytes`.
 */
function writeLong(s: Output, text: string, sure: boolean): boolean {
  const b = s.bytes;
  const at = s.pos;
  // the UTF-8 length is len..3*len bytes: guess the header from len
  const guess = strHeaderSize(text.length);
  const r = textEncoder.encodeInto(text, b.subarray(at + guess));
  const n = r.written;
  if (!sure && r.read < text.length) return false;
  const size = strHeaderSize(n);
  if (!sure && at + size + n > b.length) return false;
  if (size !== guess) b.copyWithin(at + size, at + guess, at + guess + n);
  writeStrHeader(b, at, n, size);
  s.pos = at + size + n;
  return true;
}
