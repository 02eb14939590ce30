/**
 * The chunks: the store that never fills. Output continues in plain
 * chunks (up to 16 MiB each) that the output writes into directly; large
 * binaries are kept by reference. `encode` concatenates the list once,
 * `encodeChunks` hands the chunks over without copying them.
 *
 * It takes over where a resizable store cannot go: past the store's
 * ceiling (the parts of a full store move here), for outputs over 4 GiB, and
 * where `ArrayBuffer.prototype.resize` does not exist (Node 18).
 *
 * @module
 */

import { BaseStore, REFERENCE_MIN_BYTES } from "./store.ts";

/** Largest chunk the list allocates at once. */
const MAX_CHUNK_BYTES = 16_777_216; // 16 MiB

/** A chunk's free tail smaller than this is left unused: the output gets a new chunk. */
const MIN_ROOM_BYTES = 4096;

const NO_BYTES = /* @__PURE__ */ new Uint8Array(0);

/** The output as a list of parts: views of the list's own chunks, and binaries of the user's. */
export class Chunks extends BaseStore {
  readonly #list: Uint8Array[] = [];
  /** Per part: not the list's to give away (a user's binary, a view of a resizable store). */
  readonly #borrowed: boolean[] = [];
  /** The chunk being filled, and how much of it the list holds. */
  #chunk: Uint8Array<ArrayBuffer> = NO_BYTES;
  #used = 0;
  /** The smallest new chunk: the output's scratch size. */
  readonly #minChunk: number;

  /** @param minChunk the smallest chunk to allocate (the scratch size) */
  constructor(minChunk: number) {
    super();
    this.#minChunk = minChunk;
  }

  /** Appends `part`; `borrowed`: not the list's to give away (a user's binary, a view of a resizable store), copied when handed out. */
  push(part: Uint8Array, borrowed: boolean): void {
    const list = this.#list;
    const last = list.length - 1;
    const prev = list[last];
    if (!borrowed && prev !== undefined && !this.#borrowed[last] && prev.buffer === part.buffer && prev.byteOffset + prev.length === part.byteOffset) {
      // continues the previous part in the same chunk: one part, not two
      list[last] = new Uint8Array(prev.buffer, prev.byteOffset, prev.length + part.length);
    } else {
      list.push(part);
      this.#borrowed.push(borrowed);
    }
    this.length += part.length;
  }

  write(bytes: Uint8Array, n: number): boolean {
    if (bytes.buffer === this.#chunk.buffer) {
      // written in place, in the tail this store gave
      this.commit(n);
    } else {
      // the output's scratch (or a buffer of its own): copied, it stays the output's
      this.copy(bytes.subarray(0, n));
    }
    return true;
  }

  override tail(n: number): Uint8Array<ArrayBuffer> {
    if (this.#chunk.length - this.#used < Math.max(n, MIN_ROOM_BYTES)) this.newChunk(n);
    return this.#chunk.subarray(this.#used);
  }

  append(src: Uint8Array): boolean {
    if (src.length >= REFERENCE_MIN_BYTES) this.push(src, true);
    else this.copy(src);
    return true;
  }

  reserve(n: number): { target: Uint8Array; offset: number } {
    if (this.#chunk.length - this.#used < n) this.newChunk(n);
    return { target: this.#chunk, offset: this.#used };
  }

  commit(n: number): void {
    this.push(this.#chunk.subarray(this.#used, this.#used + n), false);
    this.#used += n;
  }

  parts(): Uint8Array[] {
    return this.#list;
  }

  override chunks(): Uint8Array<ArrayBuffer>[] {
    const out: Uint8Array<ArrayBuffer>[] = [];
    let given: ArrayBufferLike | null = null;
    for (let i = 0; i < this.#list.length; i++) {
      const part = this.#list[i]!;
      if (part.length === 0) continue;
      // the user's binaries are copied; so is a second part of a chunk already given (after a
      // binary in the middle of it), so that no two results share a buffer
      const own = !this.#borrowed[i] && part.buffer !== given;
      out.push((own ? part : part.slice()) as Uint8Array<ArrayBuffer>);
      if (own) given = part.buffer;
    }
    return out;
  }

  /** Copies `src` into the current chunk (a new one if it has no room) as the next part. */
  private copy(src: Uint8Array): void {
    const n = src.length;
    if (this.#chunk.length - this.#used < n) this.newChunk(n + this.#minChunk);
    this.#chunk.set(src, this.#used);
    this.commit(n);
  }

  /** Starts a chunk of at least `n` bytes, larger as the output grows (a quarter of it, up to 16 MiB). */
  private newChunk(n: number): void {
    this.#chunk = new Uint8Array(Math.max(n, Math.min(MAX_CHUNK_BYTES, Math.max(this.#minChunk, this.length >>> 2))));
    this.#used = 0;
  }
}
