/**
 * Where the streaming encoder's output goes: the store of its output, which
 * cuts the bytes into sealed chunks of a fixed size as they arrive, for the
 * stream to hand out while the value is still being written. The core
 * walk writes into it as into any store, so positions it reports
 * (`length`) count from the start of the whole stream.
 *
 * @module
 */

import { BaseStore } from "../encode/store.ts";

const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/**
 * A store that never fills: output is copied into chunks of `chunkSize`
 * bytes, each sealed (never written again) once full. Bytes that are the
 * store's to give away (a large binary or extension payload of the
 * user's, a long string encoded into a buffer of its own) first fill the
 * chunk under way; what is left of them becomes a chunk as it is, without
 * a copy, when it is at least `chunkSize` bytes.
 */
export class ChunkCutter extends BaseStore {
  readonly #size: number;
  /** The chunk being filled, and how much of it is. */
  #chunk: Uint8Array = EMPTY;
  #used = 0;
  /** The buffer a long string is being written into (see {@link ChunkCutter.reserve}). */
  #reserved: Uint8Array = EMPTY;
  /** Sealed chunks not yet taken, in order. */
  #ready: Uint8Array[] = [];

  /** @param chunkSize the size of the chunks it fills */
  constructor(chunkSize: number) {
    super();
    this.#size = chunkSize;
  }

  /** Whether sealed chunks wait to be taken. */
  get hasReady(): boolean {
    return this.#ready.length !== 0;
  }

  /** The sealed chunks, in order; they are the caller's from now on. */
  takeReady(): Uint8Array[] {
    const ready = this.#ready;
    this.#ready = [];
    return ready;
  }

  /** Seals the chunk under way, if it holds anything: the end of the output. */
  seal(): void {
    if (this.#used === 0) return;
    this.#ready.push(this.#used === this.#chunk.length ? this.#chunk : this.#chunk.subarray(0, this.#used));
    this.#chunk = EMPTY;
    this.#used = 0;
  }

  write(bytes: Uint8Array, n: number): boolean {
    this.copy(bytes, 0, n); // the output's scratch: it writes there again
    return true;
  }

  append(src: Uint8Array): boolean {
    this.cut(src);
    return true;
  }

  reserve(n: number): { target: Uint8Array; offset: number } {
    this.#reserved = new Uint8Array(n);
    return { target: this.#reserved, offset: 0 };
  }

  commit(n: number): void {
    const reserved = this.#reserved;
    this.#reserved = EMPTY;
    // the reservation is for the longest UTF-8 (3 bytes per unit): when much of it went unused, the bytes are
    // copied out, so that a chunk handed out does not keep up to 3 times its size alive
    this.cut(n + (n >>> 3) < reserved.length ? reserved.slice(0, n) : reserved.subarray(0, n));
  }

  /** Never asked: the output is taken as it is cut ({@link ChunkCutter.takeReady}). */
  parts(): Uint8Array[] {
    return [];
  }

  /** Appends bytes it may hand out as they are: they fill the chunk under way, and what is left becomes a chunk of its own when it fills one. */
  private cut(src: Uint8Array): void {
    const n = src.length;
    const at = this.#used === 0 ? 0 : Math.min(n, this.#size - this.#used);
    this.copy(src, 0, at);
    if (n - at >= this.#size) {
      this.#ready.push(at === 0 ? src : src.subarray(at));
      this.length += n - at;
    } else {
      this.copy(src, at, n);
    }
  }

  /** Copies `src[from..to)` into chunks, sealing each as it fills. */
  private copy(src: Uint8Array, from: number, to: number): void {
    while (from < to) {
      if (this.#chunk.length === 0) {
        this.#chunk = new Uint8Array(this.#size);
        this.#used = 0;
      }
      const n = Math.min(to - from, this.#size - this.#used);
      this.#chunk.set(n === src.length ? src : src.subarray(from, from + n), this.#used);
      this.#used += n;
      this.length += n;
      from += n;
      if (this.#used === this.#size) this.seal();
    }
  }
}
