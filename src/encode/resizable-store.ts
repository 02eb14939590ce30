/**
 * The resizable store: the store a call opens where buffers can resize. One
 * resizable `ArrayBuffer`, sized from the estimate and grown in place (by a
 * quarter at a time) up to a ceiling chosen from the estimate with headroom;
 * the output copies its scratch into it in bulk, and long strings are encoded
 * straight into it. Large binaries are not copied in: they are referenced,
 * and copied once, into the result. Past the ceiling the store is full and
 * its bytes move to a chunk list.
 *
 * The result is always a plain copy (many platform APIs reject views of
 * resizable buffers, and only ~32,700 may live in one process); the store
 * itself stays with the encoder's scratch for the next call unless it
 * grew past {@link RETAIN_MAX_BYTES}.
 *
 * @module
 */

import { BaseStore, MAX_STORE_BYTES, REFERENCE_MIN_BYTES } from "./store.ts";
import { ENCODE_INTO_RESIZABLE } from "../format/utf8.ts";

/** A store larger than this is dropped after the call, so an idle scratch holds little memory. */
export const RETAIN_MAX_BYTES: number = 16_777_216; // 16 MiB

/** The smallest ceiling for a store: small estimates still get room to be wrong. */
const MIN_CEILING_BYTES = 67_108_864; // 64 MiB

/** Outputs at least this large are copied out by {@link ResizableStore.copyOutShrinking}. */
const SHRINK_COPY_MIN_BYTES = 16_777_216; // 16 MiB

/** How much of the store each step of {@link ResizableStore.copyOutShrinking} copies and releases. */
const SHRINK_COPY_STEP_BYTES = 4_194_304; // 4 MiB

/** A resizable `ArrayBuffer` the output is copied into, with the large binaries it references. */
export class ResizableStore extends BaseStore {
  readonly #store: ArrayBuffer;
  /** A length-tracking view of the store: it follows `resize()`. */
  readonly #bytes: Uint8Array<ArrayBuffer>;
  /** Bytes of the store in use. */
  #used = 0;
  /** Referenced binaries, and the store offset each one follows. */
  #binaries: Uint8Array[] = [];
  #binaryAt: number[] = [];
  /** A plain buffer standing in for the store where `encodeInto` rejects resizable ones (Chromium). */
  #plain: Uint8Array<ArrayBuffer> | null = null;

  private constructor(store: ArrayBuffer) {
    super();
    this.#store = store;
    this.#bytes = new Uint8Array(store);
  }

  /**
   * Opens a store for a call whose scratch overflowed with `need` bytes,
   * reusing `kept` (the store an earlier call kept with the scratch) when it is
   * reserved far enough. Returns null when `need` is past the ceiling.
   *
   * @param estimate the estimated output size, or null to skip it (the ceiling is then `maxByteLength`)
   * @param maxByteLength the encoder's ceiling (at most 2^32)
   * @param scratchLength the output's scratch size: the store starts at twice it at least
   */
  static open(need: number, kept: ArrayBuffer | null, estimate: number | null, maxByteLength: number, scratchLength: number): ResizableStore | null {
    if (need > maxByteLength) return null;
    // headroom: twice the estimate, at least 64 MiB, as a power of two
    const wanted = estimate === null ? maxByteLength : Math.max(MIN_CEILING_BYTES, estimate * 2);
    const ceiling = Math.min(maxByteLength, 2 ** Math.ceil(Math.log2(wanted)));
    if (need > ceiling) return null;
    const initial = Math.min(ceiling, Math.max(need, scratchLength * 2, estimate ?? 0));
    if (kept !== null && kept.maxByteLength >= ceiling && kept.maxByteLength <= maxByteLength && kept.byteLength <= ceiling) {
      // reserved far enough already (and not past this encoder's ceiling)
      if (kept.byteLength < initial) kept.resize(initial);
      return new ResizableStore(kept);
    }
    return new ResizableStore(new ArrayBuffer(initial, { maxByteLength: ceiling }));
  }

  write(bytes: Uint8Array, n: number): boolean {
    if (!this.fits(n)) return false;
    this.#bytes.set(n === bytes.length ? bytes : bytes.subarray(0, n), this.#used);
    this.commit(n); // (write never runs between a reserve and its commit: no plain stand-in is open)
    return true;
  }

  append(src: Uint8Array): boolean {
    if (src.length < REFERENCE_MIN_BYTES) return this.write(src, src.length);
    this.#binaryAt.push(this.#used);
    this.#binaries.push(src);
    this.length += src.length;
    return true;
  }

  reserve(n: number): { target: Uint8Array; offset: number } | null {
    if (!this.fits(n)) return null;
    if (ENCODE_INTO_RESIZABLE) return { target: this.#bytes, offset: this.#used };
    // this platform's encodeInto refuses resizable buffers: write to a plain stand-in, then copy
    this.#plain = new Uint8Array(n);
    return { target: this.#plain, offset: 0 };
  }

  commit(n: number): void {
    if (this.#plain !== null) {
      this.#bytes.set(this.#plain.subarray(0, n), this.#used);
      this.#plain = null;
    }
    this.#used += n;
    this.length += n;
  }

  /**
   * The store's bytes interleaved with the referenced binaries: all borrowed
   * (views of the store, which is resizable, and the user's binaries).
   */
  parts(): Uint8Array[] {
    const parts: Uint8Array[] = [];
    const bytes = this.#bytes;
    let from = 0;
    for (let i = 0; i < this.#binaries.length; i++) {
      const cut = this.#binaryAt[i]!;
      if (cut > from) parts.push(bytes.subarray(from, cut));
      parts.push(this.#binaries[i]!);
      from = cut;
    }
    if (this.#used > from) parts.push(bytes.subarray(from, this.#used));
    return parts;
  }

  override result(): Uint8Array<ArrayBuffer> {
    const total = this.length;
    // past one result's most, the joining throws (OUT_OF_SPACE)
    return total >= SHRINK_COPY_MIN_BYTES && total <= MAX_STORE_BYTES ? this.copyOutShrinking(total) : super.result();
  }

  /** The store, for the next call, unless it grew large. (A store whose bytes went on to chunks is not asked: they are the call's store then.) */
  override close(): ArrayBuffer | null {
    return this.#bytes.length > RETAIN_MAX_BYTES ? null : this.#store;
  }

  /**
   * Ensures the store can take `n` more bytes, growing it in place by a
   * quarter (shrinking it later touches its unused tail, which V8 zeroes,
   * so the tail is kept small). False past the ceiling.
   */
  private fits(n: number): boolean {
    const need = this.#used + n;
    const cap = this.#bytes.length;
    if (need <= cap) return true;
    const ceiling = this.#store.maxByteLength;
    if (need > ceiling) return false;
    this.#store.resize(Math.min(ceiling, Math.max(need, Math.ceil(cap * 1.25))));
    return true;
  }

  /**
   * Copies a large output out of the store from its end backwards,
   * shrinking the store behind each step: V8 (Node, Deno) gives the pages
   * back, so the peak is about the output plus one step instead of twice
   * the output.
   */
  private copyOutShrinking(total: number): Uint8Array<ArrayBuffer> {
    const out = new Uint8Array(total);
    const store = this.#store;
    const bytes = this.#bytes;
    let at = total;
    let storeEnd = this.#used;
    // V8 zeroes what a shrink cuts off before releasing it: cut the unwritten tail (up to a quarter
    // of the store after a growth step) in steps too, or its untouched pages all count at the peak
    for (let end = store.byteLength; end > storeEnd; ) store.resize((end = Math.max(storeEnd, end - SHRINK_COPY_STEP_BYTES)));
    for (let i = this.#binaries.length; i >= 0; i--) {
      // the store's bytes after cut i-1 (or from 0), then the reference before them
      const from = i === 0 ? 0 : this.#binaryAt[i - 1]!;
      while (storeEnd > from) {
        const start = Math.max(from, storeEnd - SHRINK_COPY_STEP_BYTES);
        at -= storeEnd - start;
        out.set(bytes.subarray(start, storeEnd), at);
        storeEnd = start;
        store.resize(start);
      }
      if (i > 0) {
        const ref = this.#binaries[i - 1]!;
        at -= ref.length;
        out.set(ref, at);
      }
    }
    this.#used = 0;
    return out;
  }
}
