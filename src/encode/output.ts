/**
 * The encoder's output: where the bytes of one call go. Six words, each
 * defined here and nowhere else:
 *
 * - **bytes**, **view**, **pos**: what the walk writes into, with plain
 *   indexed stores (`view` is a `DataView` of `bytes`, for numbers), at
 *   `pos`. Between calls and for most of each, `bytes` is the encoder's
 *   scratch: a plain buffer of `initialBufferSize` bytes, allocated at the
 *   encoder's first call and kept. Element stores into a view of a
 *   resizable buffer are 2-10x slower than into a plain one in every
 *   engine, while bulk `set`/`encodeInto` into one are as fast: so the
 *   walk writes into the plain scratch, and only full scratches move, in
 *   bulk.
 * - **room(n)**: the one slow path. The walk calls it when `pos + n` would
 *   pass the end of `bytes`; it moves what `bytes` holds, in bulk, to the
 *   store, the chunks or the count, and points `bytes` at the scratch
 *   again (or, for one item wider than the scratch, a window of `n` bytes
 *   of its own: in the store where `encodeInto` accepts resizable buffers,
 *   else a plain buffer; the item's writer ends it with `room(0)`).
 * - **store**: the encoder's resizable `ArrayBuffer`, opened at a call's
 *   first move with its size and ceiling taken from the estimate of the
 *   value (size.ts), grown in place, kept for the next call unless it
 *   grew past {@link RETAIN_MAX_BYTES}.
 * - **chunks**: plain buffers in a list, where output goes past the
 *   store's ceiling (the store's bytes become the first chunk), where
 *   `ArrayBuffer.prototype.resize` does not exist (Node 18), for
 *   `encodeChunks`, and for the streaming encoder (chunks of a fixed
 *   size, taken while the call goes on).
 *
 * `encodedSize` is an output whose moves only count (`counting`), and
 * `encodeInto` copies the finished output into the caller's target.
 * Finishing a call hands over the result: an exact-size copy (`encode`),
 * a view of the scratch (`encodeSharedRef`), a view of a shared slab
 * (`poolResults`), the chunks (`encodeChunks`) or a copy into a target
 * (`encodeInto`). Results are plain `ArrayBuffer`s: many platform APIs
 * reject views of resizable buffers, and only ~32,700 resizable buffers
 * may live in one process.
 *
 * Binaries and extension payloads are copied when the walk reaches them
 * ({@link Output.put}): a later getter or extension that changes or
 * detaches one cannot change what was written.
 *
 * @module
 */

import { CAN_RESIZE, ON_BUN } from "../common/engine.ts";
import { encodeError } from "../common/errors.ts";
import { ENCODE_INTO_RESIZABLE } from "../format/utf8.ts";
import { estimateSize } from "./size.ts";

/**
 * Default scratch size: outputs up to this size never open a store. 256 KiB
 * beat 64 KiB for ~100 KB record arrays (0.83x -> 1.00x msgpackr, round-robin
 * on Node 20) by skipping the estimate, the store and the final copy.
 */
export const DEFAULT_SCRATCH_BYTES: number = 262_144; // 256 KiB

/** The largest `maxByteLength` every engine accepts (Node 20 and Bun refuse more), and the largest single result. */
export const MAX_STORE_BYTES: number = 4_294_967_296; // 2^32

/** A store larger than this is dropped after the call, so an idle encoder holds little memory. */
export const RETAIN_MAX_BYTES: number = 16_777_216; // 16 MiB

/** The smallest ceiling for a store: small estimates still get room to be wrong. */
const MIN_CEILING_BYTES = 67_108_864; // 64 MiB

/** Largest chunk the chunk list allocates at once (unless one item needs more). */
const MAX_CHUNK_BYTES = 16_777_216; // 16 MiB

/** Results at least this large are copied out of the store by {@link copyOutShrinking}. */
const SHRINK_COPY_MIN_BYTES = 16_777_216; // 16 MiB

/**
 * How much of the store each step of {@link copyOutShrinking} copies and
 * releases: the peak is the output plus one step. A 200 MiB binary peaked
 * at 1.02x its output with 4 MiB steps and 1.00x with 512 KiB; the copy
 * took 1.2x as long (1 MiB: 1.0x and 1.01x; 256 KiB: 1.6x), Node 20.
 */
const SHRINK_COPY_STEP_BYTES = 524_288; // 512 KiB

/** With `poolResults`, results up to this size are views into a shared slab. */
export const POOL_MAX_RESULT_BYTES: number = 4096;

/**
 * Size of each slab that pooled results share, and so the most a pooled
 * result drags along: a `structuredClone`/`postMessage` of one copies its
 * whole slab, a transfer of its buffer empties every result in the slab,
 * and one kept result keeps the slab alive. 16 KiB keeps those costs 4x
 * below Node's 64 KiB `Buffer` pool while a new slab still serves ~100
 * messages of ~125 B (slabs of 8-64 KiB took the same time per result).
 */
export const POOL_SLAB_BYTES: number = 16_384; // 16 KiB

/**
 * Whether pooling small results pays here. In V8 allocating a small
 * `ArrayBuffer` costs ~0.5-0.7 µs and a view of a slab ~40 ns; Bun's
 * JavaScriptCore allocates one in ~35 ns, less than the view and the copy
 * into the slab, so there `poolResults` keeps plain results.
 */
const POOLING_PAYS: boolean = !ON_BUN;

/** Where `room` moves bytes in a call. */
const STORE = 0;
const CHUNKS = 1;
const COUNT = 2;

const NO_BYTES = /* @__PURE__ */ new Uint8Array(0);
const NO_VIEW = /* @__PURE__ */ new DataView(/* @__PURE__ */ new ArrayBuffer(0));

/**
 * The output of one encoder: the walk writes through `bytes`/`view` at
 * `pos` after checking `pos + n <= bytes.length`, else calls
 * {@link Output.room}; everything else is the slow path or the finish.
 */
export class Output {
  /** Where the walk writes now: the scratch, or a window for one wide item. */
  bytes: Uint8Array<ArrayBuffer>;
  /** A `DataView` over `bytes`. */
  view: DataView;
  /** Write position in `bytes`. */
  pos: number;
  /** Bytes this call moved out of `bytes` so far: where `bytes[0]` lands in the result. */
  done: number;
  /** Counts bytes and keeps none (`encodedSize`). */
  readonly counting: boolean;
  /** Size of the scratch: items wider than it get a window of their own (set before the first call, when the scratch is made). */
  scratchSize: number;
  /** The value of the call under way (the estimate reads it when the store opens). */
  root: unknown;
  /** Sealed chunks of this call, in order (the streaming encoder takes them as they seal). */
  chunks: Uint8Array[];
  private scratch: Uint8Array<ArrayBuffer>;
  private scratchView: DataView;
  private readonly maxByteLength: number;
  /** STORE, CHUNKS or COUNT: where this call's moves go. */
  private mode: number;
  private store: ArrayBuffer | null;
  /** A length-tracking view of the store: it follows `resize()`. */
  private storeBytes: Uint8Array<ArrayBuffer>;
  /** The chunk being filled, and how much of it is. */
  private chunk: Uint8Array<ArrayBuffer>;
  private chunkUsed: number;
  /** Chunks of exactly this size (the streaming encoder's), or 0: chunks that grow with the output. */
  private readonly chunkSize: number;
  /** With `poolResults` (where it pays): the slab and where its free part starts; else null. */
  private slab: Uint8Array<ArrayBuffer> | null;
  private slabPos: number;
  private readonly pool: boolean;

  /**
   * @param scratchSize size of the scratch (at least 256: a short string's worst case, 191 bytes, always fits)
   * @param maxByteLength ceiling of the store; past it, the chunks
   * @param counting count bytes only (behind `encodedSize`)
   * @param pool small results are views into a shared slab (`poolResults`)
   * @param chunkSize chunks of exactly this size, taken as they seal (the streaming encoder); 0 for none
   */
  constructor(scratchSize: number, maxByteLength: number, counting: boolean, pool: boolean, chunkSize = 0) {
    this.scratchSize = Math.max(256, scratchSize);
    this.maxByteLength = Math.min(maxByteLength, MAX_STORE_BYTES);
    this.counting = counting;
    this.pool = pool && POOLING_PAYS;
    this.chunkSize = chunkSize;
    this.bytes = this.scratch = NO_BYTES;
    this.view = this.scratchView = NO_VIEW;
    this.pos = this.done = this.chunkUsed = this.slabPos = 0;
    this.root = undefined;
    this.chunks = [];
    this.mode = STORE;
    this.store = null;
    this.storeBytes = this.chunk = NO_BYTES;
    this.slab = null;
  }

  /** Bytes of output written so far in this call: where the next byte lands in the result. */
  offset(): number {
    return this.done + this.pos;
  }

  /** Starts a call that encodes `root`; `chunks`: into the chunks from the start (`encodeChunks`, streams). */
  begin(root: unknown, chunks: boolean): void {
    if (this.scratch === NO_BYTES) {
      // the encoder's scratch, made at its first call
      this.scratch = new Uint8Array(this.scratchSize);
      this.scratchView = new DataView(this.scratch.buffer);
    }
    this.bytes = this.scratch;
    this.view = this.scratchView;
    this.root = root;
    this.mode = this.counting ? COUNT : chunks || this.chunkSize !== 0 || !CAN_RESIZE ? CHUNKS : STORE;
  }

  /** Ends a call, whether it finished or threw: the store is kept unless this call's output passed {@link RETAIN_MAX_BYTES}. */
  end(): void {
    if (this.done > RETAIN_MAX_BYTES) this.store = null;
    this.bytes = this.scratch;
    this.view = this.scratchView;
    this.pos = this.done = this.chunkUsed = 0;
    this.root = undefined;
    this.chunk = NO_BYTES;
    if (this.chunks.length !== 0) this.chunks = [];
  }

  /**
   * Makes room for `n` more contiguous bytes at `pos`, moving what `bytes`
   * holds out of it first. Call when `pos + n > bytes.length`, or with 0 to
   * end a window.
   */
  room(n: number): void {
    this.move();
    if (n <= this.scratchSize) {
      this.bytes = this.scratch;
      this.view = this.scratchView;
    } else this.window(n);
  }

  /** Appends `src` (a binary or extension payload), copying it now. */
  put(src: Uint8Array): void {
    const n = src.length;
    if (n <= this.scratchSize) {
      if (this.pos + n > this.bytes.length) this.room(n);
      this.bytes.set(src, this.pos);
      this.pos += n;
      return;
    }
    // wider than the scratch: straight to where moves go
    this.room(0);
    if (this.mode === STORE && !this.storeFits(n)) this.overflow();
    if (this.mode === STORE) this.storeBytes.set(src, this.done);
    else if (this.mode === CHUNKS) {
      if (this.chunkSize !== 0 && n >= this.chunkSize) {
        // the streaming encoder hands large binaries out as they are, without a copy (documented there)
        this.seal();
        this.chunks.push(src);
      } else this.toChunks(src, n, false);
    }
    this.done += n;
  }

  /** Counts `n` bytes of output not written (a long string, measured by `encodedSize`). */
  skip(n: number): void {
    this.room(0);
    this.done += n;
  }

  /** Moves what `bytes` holds (`pos` bytes) to where this call's output goes. */
  private move(): void {
    const n = this.pos;
    if (n === 0) return;
    const bytes = this.bytes;
    this.pos = 0;
    if (this.mode === STORE && bytes.buffer !== this.store) {
      if (!this.storeFits(n)) this.overflow();
      else this.storeBytes.set(n === bytes.length ? bytes : bytes.subarray(0, n), this.done);
    }
    if (this.mode === CHUNKS) this.toChunks(bytes, n, bytes !== this.scratch);
    // (a window of the store was written in place; a count keeps nothing)
    this.done += n;
  }

  /** Points `bytes` at a window of `n` bytes for one item wider than the scratch. */
  private window(n: number): void {
    if (this.mode === STORE && !this.storeFits(n)) this.overflow();
    const w = this.mode === STORE && ENCODE_INTO_RESIZABLE ? new Uint8Array(this.store!, this.done, n) : new Uint8Array(n);
    this.bytes = w;
    this.view = new DataView(w.buffer, w.byteOffset, n);
  }

  /**
   * Whether the store takes `n` more bytes after the `done` it holds,
   * opening it at the call's first move and growing it in place (by a
   * quarter: shrinking touches the unused tail, which V8 zeroes, so it is
   * kept small). False past its ceiling.
   */
  private storeFits(n: number): boolean {
    const need = this.done + n;
    if (this.done === 0) return this.openStore(need);
    const store = this.store!;
    const cap = store.byteLength;
    if (need <= cap) return true;
    if (need > store.maxByteLength) return false;
    store.resize(Math.min(store.maxByteLength, Math.max(need, Math.ceil(cap * 1.25))));
    return true;
  }

  /**
   * Opens the store for a call that moves `need` bytes first: the kept one
   * when its ceiling is high enough, else a new one, sized from the
   * estimate with a ceiling of twice it (at least 64 MiB, a power of two,
   * at most `maxByteLength`). False when `need` is past that ceiling.
   */
  private openStore(need: number): boolean {
    let estimate = 0;
    try {
      estimate = estimateSize(this.root);
    } catch {
      // a value the estimate cannot look into (a revoked Proxy): no guess; the walk reports what is wrong with it
    }
    const ceiling = Math.min(this.maxByteLength, 2 ** Math.ceil(Math.log2(Math.max(MIN_CEILING_BYTES, estimate * 2))));
    if (need > ceiling) return false;
    const initial = Math.min(ceiling, Math.max(need, this.scratchSize * 2, estimate));
    let store = this.store;
    if (store === null || store.maxByteLength < ceiling) {
      store = this.store = new ArrayBuffer(initial, { maxByteLength: ceiling });
      this.storeBytes = new Uint8Array(store);
    } else if (store.byteLength < initial) store.resize(initial);
    return true;
  }

  /** The store is full (or cannot open): its bytes become the first chunk, and the chunks continue the call. */
  private overflow(): void {
    if (this.done !== 0) {
      // a view of the store, which this call keeps from now on (the encoder opens a new one next time)
      this.chunks.push(new Uint8Array(this.store!, 0, this.done));
      this.store = null;
    }
    this.mode = CHUNKS;
  }

  /** Moves `src[0..n)` into the chunks; `owned`: a buffer of its own (a window), kept as a chunk rather than copied. */
  private toChunks(src: Uint8Array, n: number, owned: boolean): void {
    if (owned) {
      this.seal();
      // a window is sized for the longest UTF-8: when much of it went unused, copied out, so a chunk keeps no more alive than its bytes
      this.chunks.push(n + (n >>> 3) < src.length ? src.slice(0, n) : src.subarray(0, n));
      return;
    }
    for (let from = 0; from < n; ) {
      if (this.chunkUsed === this.chunk.length) {
        this.seal();
        const size = this.chunkSize || Math.max(n - from, Math.min(MAX_CHUNK_BYTES, Math.max(this.scratchSize, this.done >>> 2)));
        this.chunk = new Uint8Array(size);
      }
      const k = Math.min(n - from, this.chunk.length - this.chunkUsed);
      this.chunk.set(k === src.length ? src : src.subarray(from, from + k), this.chunkUsed);
      this.chunkUsed += k;
      from += k;
    }
    if (this.chunkSize !== 0 && this.chunkUsed === this.chunkSize) this.seal();
  }

  /** Seals the chunk being filled: it joins {@link Output.chunks} and is never written again. */
  seal(): void {
    const used = this.chunkUsed;
    if (used !== 0) this.chunks.push(used === this.chunk.length ? this.chunk : this.chunk.subarray(0, used));
    this.chunk = NO_BYTES;
    this.chunkUsed = 0;
  }

  /** Moves everything out of `bytes` and seals the chunks: the whole output is in the store (`done` bytes), the chunks, or counted. */
  flush(): void {
    this.room(0);
    this.seal();
  }

  /** Whether the whole output is still in the scratch. */
  private inScratch(): boolean {
    return this.done === 0 && this.bytes === this.scratch;
  }

  /** Ends the output as one plain `Uint8Array` of exact length (`encode`): a copy, or with `poolResults` a view of the slab. */
  result(): Uint8Array<ArrayBuffer> {
    const n = this.pos;
    if (this.inScratch()) return this.pool && n <= POOL_MAX_RESULT_BYTES ? this.pooled(new Uint8Array(this.scratch.buffer, 0, n)) : this.scratch.slice(0, n);
    this.flush();
    const bytes = this.joined();
    return this.pool && bytes.length <= POOL_MAX_RESULT_BYTES ? this.pooled(bytes) : bytes;
  }

  /** The flushed output as one plain `Uint8Array`. */
  private joined(): Uint8Array<ArrayBuffer> {
    const total = this.done;
    if (this.mode === STORE) return total >= SHRINK_COPY_MIN_BYTES ? copyOutShrinking(this.store!, total) : this.storeBytes.slice(0, total);
    if (total > MAX_STORE_BYTES) throw encodeError(`Cannot return ${total} bytes: over 4 GiB; use Encoder.encodeChunks`, "OUT_OF_SPACE");
    const out = new Uint8Array(total);
    let at = 0;
    for (const part of this.chunks) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  /** `bytes` copied into the slab (a new one when this one is full, or was detached by a transfer): a view, no allocation. */
  private pooled(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
    const n = bytes.length;
    let slab = this.slab;
    if (slab === null || slab.length - this.slabPos < n) {
      slab = this.slab = new Uint8Array(POOL_SLAB_BYTES);
      this.slabPos = 0;
    }
    const at = this.slabPos;
    slab.set(bytes, at);
    this.slabPos = (at + n + 7) & ~7; // the next result starts 8-byte aligned
    // a view, not subarray(): its species lookup costs ~0.3 µs on Node 20
    return new Uint8Array(slab.buffer, at, n);
  }

  /** Ends the output as a view of the scratch, valid until the next call, when it fit there (`encodeSharedRef`); else as {@link Output.result}. */
  sharedResult(): Uint8Array<ArrayBuffer> {
    return this.inScratch() ? new Uint8Array(this.scratch.buffer, 0, this.pos) : this.result();
  }

  /** Ends the output as plain chunks that belong to the caller (`encodeChunks`). */
  chunksResult(): Uint8Array<ArrayBuffer>[] {
    if (this.inScratch()) return [this.scratch.slice(0, this.pos)];
    this.flush();
    // a view of a full store is copied out: results are plain buffers
    return this.chunks.map((c) => ((c.buffer as ArrayBuffer).resizable ? c.slice() : c) as Uint8Array<ArrayBuffer>);
  }

  /**
   * Ends the output by copying it into `target` at `offset`; returns the
   * byte count. A target too small is grown in place when it is a
   * length-tracking view of a resizable buffer, else left unchanged, with
   * an error.
   */
  resultInto(target: Uint8Array, offset: number): number {
    let parts: Uint8Array[];
    if (this.inScratch()) parts = [this.scratch.subarray(0, this.pos)];
    else {
      this.flush();
      parts = this.mode === STORE ? [this.storeBytes.subarray(0, this.done)] : this.chunks;
    }
    const total = this.done + this.pos;
    const size = offset + total;
    if (size > target.length) {
      const buffer = target.buffer as ArrayBuffer;
      const before = buffer.byteLength;
      if (buffer.resizable && target.byteOffset + size <= buffer.maxByteLength) {
        buffer.resize(target.byteOffset + size);
        if (target.length < size) buffer.resize(before); // a fixed-length view does not follow: undo
      }
      if (target.length < size) {
        throw encodeError(
          `Cannot encode into target: it has room for ${target.length} bytes, the output needs ${size} (use a resizable buffer with a length-tracking view to grow it)`,
          "OUT_OF_SPACE",
        );
      }
    }
    let at = offset;
    for (const part of parts) {
      target.set(part, at);
      at += part.length;
    }
    return total;
  }
}

/**
 * Copies `total` bytes out of `store` from the end backwards, shrinking the
 * store behind each step: V8 (Node, Deno) gives the pages back, so the peak
 * is about the output plus one step instead of twice the output.
 */
function copyOutShrinking(store: ArrayBuffer, total: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(total);
  const bytes = new Uint8Array(store);
  // V8 zeroes what a shrink cuts off before releasing it: cut the unwritten tail in steps too
  for (let end = store.byteLength; end > total; ) store.resize((end = Math.max(total, end - SHRINK_COPY_STEP_BYTES)));
  for (let end = total; end > 0; ) {
    const start = Math.max(0, end - SHRINK_COPY_STEP_BYTES);
    out.set(bytes.subarray(start, end), start);
    store.resize((end = start));
  }
  return out;
}
