/**
 * A cache of decoded map keys. Records repeat the same short keys; looking
 * the bytes up returns the same string object each time, which is cheaper
 * than decoding it and lets the engine reuse its property lookups. Short
 * string values of small messages come from it too (see `text-window.ts`).
 *
 * @module
 */

import { utf8Text } from "../format/utf8.ts";

/** Keys up to this many UTF-8 bytes are cached; longer keys are rarely repeated record fields. */
export const KEY_CACHE_MAX_BYTES = 16;

/** Number of slots (a power of two): 4096 x 16 bytes = 64 KiB, once per process. */
const SLOTS = 4096;

/** A cache from key bytes to the decoded string, in pairs of slots (two-way set-associative). */
export class KeyCache {
  private readonly bytes: Uint8Array;
  /** Length + 1 of the key in each slot; 0 marks an empty slot. */
  private readonly lengths: Uint8Array;
  private readonly strings: string[];

  constructor() {
    this.bytes = new Uint8Array(SLOTS * KEY_CACHE_MAX_BYTES);
    this.lengths = new Uint8Array(SLOTS);
    this.strings = new Array<string>(SLOTS).fill("");
  }

  /**
   * Returns the string for the `n` bytes at `at` of `src` (n ≤ 16),
   * decoding and caching it on a miss; null for invalid UTF-8, which
   * takes no slot.
   *
   * On a miss the key's bytes are copied into the slot first and decoded
   * from there, so a slot's string is always what the slot's own bytes
   * decode to: an input that changes while it is read (a
   * `SharedArrayBuffer` written by another thread) can give a wrong key
   * for that read, as any read of changing bytes can, but never leaves a
   * slot that gives another input the string of different bytes.
   *
   * The slot is chosen by the length and the first and last three bytes
   * (for a key of 1 or 2 bytes, the byte before it: its header, the same
   * for every key of its length; the empty key takes no slot): keys that
   * differ there spread over the slots
   * ("field_000" to "field_999" take 1,000 slots), and hashing every byte
   * cost 5-9% of decoding small messages of 4-10 keys (Node 20). Each pair
   * of slots keeps two keys of its hash (a new one goes to the empty slot
   * or takes the first); more keys alike in those bytes are decoded in
   * turn: slower, never wrong, as every hit compares all bytes.
   */
  get(src: Uint8Array, at: number, n: number): string | null {
    if (n === 0) return ""; // its hash would read the bytes around it, and fill a slot per place it occurs
    const e = at + n;
    let slot = Math.imul((n << 24) ^ (src[at]! << 16) ^ (n > 3 ? src[e - 3]! << 10 : 0) ^ (src[e - 2]! << 5) ^ src[e - 1]!, 0x9e3779b1) >>> 20;
    if (this.holds(slot, src, at, n)) return this.strings[slot]!;
    // the slot beside it: two keys of one hash both stay
    const other = slot ^ 1;
    if (this.holds(other, src, at, n)) return this.strings[other]!;
    if (this.lengths[other] === 0) slot = other;
    const cached = this.bytes;
    const base = slot * KEY_CACHE_MAX_BYTES;
    for (let i = 0; i < n; i++) cached[base + i] = src[at + i]!;
    const str = utf8Text(cached, base, n);
    this.lengths[slot] = str === null ? 0 : n + 1; // invalid UTF-8 leaves the slot empty (its bytes were overwritten)
    this.strings[slot] = str ?? "";
    return str;
  }

  /** Whether `slot` holds the `n` bytes at `at` of `src`. */
  private holds(slot: number, src: Uint8Array, at: number, n: number): boolean {
    if (this.lengths[slot] !== n + 1) return false;
    const cached = this.bytes;
    const base = slot * KEY_CACHE_MAX_BYTES;
    let i = 0;
    while (i < n && cached[base + i] === src[at + i]) i++;
    return i === n;
  }
}

/**
 * The one key cache every decoder shares: lookups are synchronous and the
 * cache maps bytes to the only string they decode to, so decoders with
 * different options (or created per call) can share it, and creating a
 * decoder allocates no cache.
 */
export const SHARED_KEY_CACHE: KeyCache = /* @__PURE__ */ new KeyCache();
