/**
 * Strings of an input as slices of one string of many of its bytes.
 *
 * An engine makes a short string about as slowly whatever its length: a
 * `String.fromCharCode` call of 8-16 explicit arguments takes 13-21 ns in
 * V8 and 26-43 ns in JavaScriptCore, while a slice of a flat one-byte
 * string takes 6-9 ns (15 in JavaScriptCore). So where the platform turns
 * a run of bytes into a string of one character per byte in one native
 * call (Node's, Bun's and Deno's `Buffer.prototype.latin1Slice`), a
 * decoder that meets many strings (8 within 1 KiB) reads the next 4 KiB
 * of its input as one such string, the window, and returns each ASCII
 * string inside it as a slice. Records of 100 kB decode 1.3-1.9x as fast
 * so (Node 20, Bun 1.4, Deno 2.9).
 *
 * Elsewhere (browsers) strings are made one by one, as everywhere before:
 * `TextDecoder("latin1")` is the WHATWG windows-1252, which gives other
 * characters for 0x80-0x9f (so a window would be two-byte, and so would
 * its slices), and in Node 20 it takes 13 µs for 4 KiB of such bytes.
 *
 * What a user sees: the same strings. In V8 a slice of 13 or more
 * characters keeps its window alive (a sliced string), so keeping a few
 * strings of a large decoded message can keep up to 4 KiB each, and at
 * most about the message's size in all, as msgpackr's strings do.
 *
 * @module
 */

import { LITTLE_ENDIAN, ON_BUN, nodeBuffer } from "../common/engine.ts";
import { utf8Text } from "../format/utf8.ts";
import { KEY_CACHE_MAX_BYTES, SHARED_KEY_CACHE } from "./key-cache.ts";

/** Bytes a window holds: 4 KiB, decoded in ~0.3 µs (Node 20), serving ~150 strings of 100 kB records. */
const WINDOW_BYTES = 4096;

/**
 * A window is read after this many strings outside any window within
 * {@link DENSE_BYTES} of the input: a message of few strings (a 125 B
 * RPC call) never pays for one, nor does a run of floats or binaries with
 * a string here and there.
 */
const MADE_BEFORE_WINDOW = 8;
const DENSE_BYTES = 1024;

/**
 * String values up to this many bytes, read before any window of their
 * input, come from the key cache: a small message repeats its values from
 * one message to the next (a method name, "2.0", an enum), and a hit costs
 * less than making the string. On Bun, where making one costs twice as
 * much, every string the cache holds: a 125 B RPC message and small events
 * decode 1.3-1.4x as fast (Bun 1.4). On V8 a miss (hashing and copying the
 * bytes) outweighs the hits past 8 bytes: 1.01-1.06x at 8 bytes (Node 20,
 * Deno 2.9), 0.94x at 16 on Node's events. Past the first window, strings
 * are slices or rarely repeated, and misses made 10 MB of records 0.75x
 * as fast on Bun.
 */
const CACHED_VALUE_BYTES = ON_BUN ? KEY_CACHE_MAX_BYTES : 8;

type Latin1Slice = (this: Uint8Array, start: number, end: number) => string;

/**
 * Called on `bytes` with `start` and `end`: bytes `start` to `end` as a
 * string of one character per byte (each the code unit of the byte's
 * value), in one native call; null where the platform has no such call,
 * or on a big-endian machine (the ASCII test below reads 32-bit words
 * little-endian).
 */
const LATIN1: Latin1Slice | null = /* @__PURE__ */ latin1Slicer();

function latin1Slicer(): Latin1Slice | null {
  const B = nodeBuffer();
  if (B === null || !LITTLE_ENDIAN) return null;
  const slice = Reflect.get((B as unknown as { prototype: object }).prototype, "latin1Slice") as Latin1Slice;
  try {
    // a function, that takes a plain Uint8Array as `this`, and gives every byte its own code unit
    return slice.call(Uint8Array.of(0x41, 0x80, 0x9f, 0xff), 0, 4) === "A\x80\x9f\xff" ? slice : null;
  } catch {
    return null;
  }
}

/**
 * A decoder's window over its input (one per decoder, reset with each
 * input). The decoder asks it for every string of an input without a base
 * offset ({@link TextWindow.text}); it answers from the window when it can
 * and decodes the bytes otherwise, with the same result either way.
 */
export class TextWindow {
  /** Input bytes [start, end) as one string; no window: a start after its end. */
  private windowText: string;
  private start: number;
  private end: number;
  /** The input's buffer as 32-bit words, from the word that holds the input's byte 0 (at byte `shift` of it); made with the first window (so null: no window). */
  private words: Int32Array | null;
  private shift: number;
  /** Strings read outside a window since `madeFrom` (the input's start, or where the last {@link MADE_BEFORE_WINDOW} ended). */
  private made: number;
  private madeFrom: number;
  /** A string that starts before this, past the window's end, reads the next window at once. */
  private next: number;

  constructor() {
    this.windowText = "";
    this.start = 1;
    this.end = 0;
    this.words = null;
    this.shift = 0;
    this.made = 0;
    this.madeFrom = 0;
    this.next = 0;
  }

  /**
   * Forgets the window (and with it the input): for a new input, when
   * the decoder lets go of one, and after user code ran while it was
   * being read (an extension decoder may have written into its bytes).
   */
  reset(): void {
    this.made = this.madeFrom = 0;
    if (this.words !== null) {
      this.windowText = "";
      this.start = 1;
      this.end = this.next = 0;
      this.words = null;
    }
  }

  /**
   * The `n` bytes of UTF-8 at `at` of `bytes` as a string: a slice of the
   * window when it holds the bytes and they are ASCII (no byte has its
   * high bit, tested four bytes at a time), else decoded. Kept small, as
   * the engine inlines it where strings are read (into the decoder's
   * `readValue`, whose inlining budget its array readers need too). A
   * short string before the input's first window comes from the key cache
   * ({@link CACHED_VALUE_BYTES}). Null for invalid UTF-8.
   */
  text(bytes: Uint8Array, at: number, n: number): string | null {
    const start = this.start;
    const e = at + n;
    if (at >= start && e <= this.end) {
      const w = this.words!;
      const a = at + this.shift;
      const z = e - 1 + this.shift;
      let i = a >> 2;
      const last = z >> 2;
      let x = w[i]! & (0x80808080 << ((a & 3) << 3));
      let y = 0;
      while (++i < last) y |= w[i]!;
      if (i === last) x |= y | (w[last]! & (0x80808080 >>> ((3 - (z & 3)) << 3)));
      else x &= 0x80808080 >>> ((3 - (z & 3)) << 3); // one word
      if ((x & 0x80808080) === 0) return this.windowText.slice(at - start, e - start);
    } else if (++this.made === MADE_BEFORE_WINDOW || (at >= this.end && at < this.next)) this.open(bytes, at);
    return n <= CACHED_VALUE_BYTES && this.words === null ? SHARED_KEY_CACHE.get(bytes, at, n) : utf8Text(bytes, at, n);
  }

  /**
   * Reads the window from `at` (up to {@link WINDOW_BYTES}, to the end of
   * the input or before a last partial word of its buffer) if the last
   * {@link MADE_BEFORE_WINDOW} strings outside any window came within
   * {@link DENSE_BYTES}, or right after a window (the string at `at`
   * starts within 64 bytes of its end: the next window follows at once,
   * instead of after {@link MADE_BEFORE_WINDOW} more strings made one by
   * one, 1.05x on 100 kB of records); and starts counting them again.
   */
  private open(bytes: Uint8Array, at: number): void {
    const dense = at - this.madeFrom <= DENSE_BYTES || at < this.next;
    this.made = 0;
    this.madeFrom = at;
    // no window over memory that another thread may write to while it is read
    if (!dense || LATIN1 === null || !(bytes.buffer instanceof ArrayBuffer)) return;
    let words = this.words;
    if (words === null) {
      const buffer = bytes.buffer;
      const first = bytes.byteOffset & ~3;
      this.shift = bytes.byteOffset & 3;
      words = this.words = new Int32Array(buffer, first, (buffer.byteLength - first) >> 2);
    }
    const end = Math.min(bytes.length, at + WINDOW_BYTES, (words.length << 2) - this.shift);
    if (end <= at) return; // `at` is in the buffer's last partial word
    this.windowText = LATIN1.call(bytes, at, end);
    this.start = at;
    this.end = end;
    this.next = end + 64;
  }
}
