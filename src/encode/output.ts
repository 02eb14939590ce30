/**
 * The encoder's output: where the bytes of one call go. Six words, each
 * defined here and nowhere else:
 *
 * - **bytes**, **view**, **pos**: what the walk writes into, with plain
 *   indexed stores (`view` is a `DataView` of `bytes`, for numbers), at
 *   `pos`. `bytes` is always a plain buffer: the encoder's scratch (of
 *   `initialBufferSize` bytes, made at its first call and kept; it grows
 *   to a buffer made from an estimate that missed, up to 16 MiB), or one
 *   made for the call by {@link Output.room}. Element stores into a view
 *   of a resizable buffer are 2-10x slower than into a plain one in every
 *   engine, while bulk `set`/`encodeInto` into one are as fast.
 * - **room(n)**: the one slow path, called when `pos + n` would pass the
 *   end of `bytes`. At a call's first overflow, when the estimate of the
 *   whole output (size.ts) says it fits, `bytes` becomes a plain buffer of
 *   that size holding what the scratch held: the walk goes on writing into
 *   it, and when the estimate was exact (a binary, an ASCII string, an
 *   array of doubles) it is the result, with no copy. Otherwise `room`
 *   moves what `bytes` holds, in bulk, to the store or the chunks, and
 *   points `bytes` at the scratch again (or, for a string wider than the
 *   scratch, at a window of `n` bytes of its own: in the store where
 *   `encodeInto` accepts resizable buffers, else a plain buffer; the
 *   string's writer ends it with `room(0)`).
 * - **store**: a resizable `ArrayBuffer` opened at a call's first move,
 *   its size and ceiling taken from the estimate, grown in place; the
 *   result is copied out of it, a large one shrinking it behind the copy.
 * - **chunks**: plain buffers of the scratch's size (of `chunkSize` for
 *   the streaming encoder, which takes them while the call goes on), in a
 *   list, where output goes past the store's ceiling (the store's bytes
 *   become the first chunk), where `ArrayBuffer.prototype.resize` does not
 *   exist (Node 18), and for `encodeChunks`.
 *
 * `encodedSize` counts (`counting`): moves keep nothing. A call ends with
 * {@link Output.finish} (the output as one view, or the chunks) or
 * {@link Output.result} (a plain buffer of exact length: results never
 * keep a resizable buffer, which many platform APIs reject and of which
 * only ~32,700 may live in one process); the encoder makes its other
 * results (a shared view, a pooled one, a copy into a target) from those.
 * Binaries and extension payloads are copied when the walk reaches them
 * ({@link Output.put}; one wider than the scratch straight to the store
 * or the chunks): a later getter or extension that changes or detaches
 * one cannot change what was written.
 *
 * @module
 */

import { CAN_RESIZE } from "../common/engine.ts";
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

/** The smallest ceiling for a store: small estimates still get room to be wrong. */
const MIN_CEILING_BYTES = 67_108_864; // 64 MiB

/**
 * Outputs this large are large: a result is copied out of the store by
 * {@link copyOutShrinking}, and the buffer a call's first overflow makes
 * from the estimate must end exactly with the item that overflowed (a
 * binary or a string alone), since a copy out of one that missed would
 * hold the output twice.
 */
const LARGE_BYTES = 16_777_216; // 16 MiB

/**
 * How much of the store each step of {@link copyOutShrinking} copies and
 * releases: the peak is the output plus one step. A 200 MiB binary peaked
 * at 1.02x its output with 4 MiB steps and 1.00x with 512 KiB; the copy
 * took 1.2x as long (1 MiB: 1.0x and 1.01x; 256 KiB: 1.6x), Node 20.
 */
const SHRINK_COPY_STEP_BYTES = 524_288; // 512 KiB

const NO_BYTES = /* @__PURE__ */ new Uint8Array(0);

/**
 * The output of one encoder: the walk writes through `bytes`/`view` at
 * `pos` after checking `pos + n <= bytes.length`, else calls
 * {@link Output.room}; everything else is the slow path or the finish.
 */
export class Output {
  /** Where the walk writes now: a plain buffer (see the module's words). */
  bytes: Uint8Array<ArrayBuffer>;
  /** A `DataView` over `bytes`. */
  view: DataView;
  /** Write position in `bytes`. */
  pos: number;
  /** Bytes this call moved out of `bytes` so far (or counted without writing them): where `bytes[0]` lands in the result. */
  done: number;
  /** Counts bytes and keeps none (`encodedSize`). */
  readonly counting: boolean;
  /** Size of the scratch: items wider than it get a window of their own (set before the first call, when the scratch is made). */
  scratchSize: number;
  /** Sealed chunks of this call, in order (the streaming encoder takes them as they seal). */
  chunks: Uint8Array[];
  private scratch: Uint8Array<ArrayBuffer>;
  private readonly maxByteLength: number;
  /** This call's moves go to the chunks (else to the store, or, counting, nowhere). */
  private chunked: boolean;
  /** The value of the call under way, and the estimate of its output (-1 until its first overflow). */
  private root: unknown;
  private guess: number;
  /** The buffer this call's first overflow made from the estimate, until it is handed out as the result or a chunk; else null. */
  private sizedBytes: Uint8Array<ArrayBuffer> | null;
  private store: ArrayBuffer | null;
  /** The chunk being filled, and how much of it is. */
  private chunk: Uint8Array<ArrayBuffer>;
  private chunkUsed: number;
  /** Chunks of exactly this size, taken as they fill (the streaming encoder's), or 0: chunks of the scratch's size. */
  private readonly chunkSize: number;

  /**
   * @param scratchSize size of the scratch (at least 256: a short string's worst case, 191 bytes, always fits)
   * @param maxByteLength ceiling of the store, and of a buffer made from the estimate; past it, the chunks
   * @param counting count bytes only (behind `encodedSize`)
   * @param chunkSize chunks of exactly this size, taken as they seal (the streaming encoder); 0 for none
   */
  constructor(scratchSize: number, maxByteLength: number, counting: boolean, chunkSize = 0) {
    this.scratchSize = Math.max(256, scratchSize);
    this.maxByteLength = Math.min(maxByteLength, MAX_STORE_BYTES);
    this.counting = counting;
    this.chunkSize = chunkSize;
    this.bytes = this.scratch = this.chunk = NO_BYTES;
    this.view = new DataView(NO_BYTES.buffer);
    this.pos = this.done = this.chunkUsed = 0;
    this.guess = -1;
    this.root = this.store = this.sizedBytes = null;
    this.chunks = [];
    this.chunked = false;
  }

  /** Bytes of output written so far in this call: where the next byte lands in the result. */
  offset(): number {
    return this.done + this.pos;
  }

  /** Starts a call that encodes `root`; `chunks`: into the chunks from the start (`encodeChunks`, streams). */
  begin(root: unknown, chunks: boolean): void {
    if (this.scratch === NO_BYTES) this.use((this.scratch = new Uint8Array(this.scratchSize))); // the encoder's scratch, made at its first call
    this.root = root;
    this.chunked = !this.counting && (chunks || this.chunkSize !== 0 || !CAN_RESIZE);
  }

  /**
   * Ends a call, whether it finished or threw: lets go of all but the
   * scratch. A buffer made from the estimate that missed (copied out, not
   * handed out) becomes the scratch, up to {@link LARGE_BYTES}: the next
   * output of that size fits there, with no estimate and no store.
   */
  end(): void {
    const sized = this.sizedBytes;
    if (sized !== null && sized.length <= LARGE_BYTES) this.scratchSize = (this.scratch = sized).length;
    this.sizedBytes = null;
    this.use(this.scratch);
    this.pos = this.done = this.chunkUsed = 0;
    this.guess = -1;
    this.root = this.store = null;
    this.chunk = NO_BYTES;
    if (this.chunks.length !== 0) this.chunks = [];
  }

  /**
   * Makes room for `n` more contiguous bytes at `pos` (see the module's
   * words). Call when `pos + n > bytes.length`, or with 0 to end a window.
   */
  room(n: number): void {
    if (this.guess < 0 && n > 0 && this.fits(n)) return;
    if (this.pos !== 0) this.send(this.bytes, this.pos, this.bytes !== this.scratch); // what `bytes` holds
    this.pos = 0;
    if (n <= this.scratchSize) this.use(this.scratch);
    // one item wider than the scratch: a window of `n` bytes of its own, in the store where `encodeInto` accepts resizable buffers
    else this.use(!this.chunked && !this.counting && this.stored(n) && ENCODE_INTO_RESIZABLE ? new Uint8Array(this.store!, this.done, n) : new Uint8Array(n));
  }

  /** Points `bytes`, and `view`, at `b`. */
  private use(b: Uint8Array<ArrayBuffer>): void {
    if (b === this.bytes) return;
    this.bytes = b;
    this.view = new DataView(b.buffer, b.byteOffset, b.length);
  }

  /** Appends `src` (a binary or extension payload), copying it now. */
  put(src: Uint8Array): void {
    const n = src.length;
    if (this.pos + n > this.bytes.length && !this.fits(n)) {
      if (n > this.scratchSize) {
        // wider than the scratch: moved as it is (the streaming encoder hands it out without a copy, as documented there)
        this.room(0);
        this.send(src, n, this.chunkSize !== 0);
        return;
      }
      this.room(n);
    }
    this.bytes.set(src, this.pos);
    this.pos += n;
  }

  /**
   * Whether `n` more bytes fit at `pos` with nothing moved: they do, or
   * this is the call's first overflow and the estimate says the whole
   * output fits: then `bytes` becomes a plain buffer of the estimated
   * size holding what the scratch held. Past {@link LARGE_BYTES} only when
   * the item that overflowed ends the estimated output. `worst`: `n` is
   * the item's worst case (a string's 3 bytes a unit), which the buffer
   * may hold past the estimate, up to {@link LARGE_BYTES}.
   */
  fits(n: number, worst = false): boolean {
    if (this.pos + n <= this.bytes.length) return true;
    if (this.guess >= 0 || this.counting || this.chunkSize !== 0) return false;
    const need = this.pos + n;
    const estimate = this.estimated();
    const size = worst && need > estimate && need <= LARGE_BYTES ? need : estimate;
    if (need > size || size > this.maxByteLength || (size > LARGE_BYTES && size !== need)) return false;
    const bytes = (this.sizedBytes = new Uint8Array(size));
    bytes.set(this.scratch.subarray(0, this.pos));
    this.use(bytes);
    return true;
  }

  /** The estimate of this call's output, made once. */
  private estimated(): number {
    if (this.guess >= 0) return this.guess;
    this.guess = 0; // a value the estimate cannot look into (a revoked Proxy): no guess; the walk reports what is wrong with it
    try {
      this.guess = Math.max(0, estimateSize(this.root)); // a size, whatever the value's properties say
    } catch {}
    return this.guess;
  }

  /** Moves `src[0..n)` to where this call's output goes; `owned`: see {@link Output.toChunks}. */
  private send(src: Uint8Array, n: number, owned: boolean): void {
    if (!this.chunked && !this.counting && src.buffer !== this.store && this.stored(n)) new Uint8Array(this.store!, this.done, n).set(n === src.length ? src : src.subarray(0, n));
    if (this.chunked) this.toChunks(src, n, owned);
    // (a window of the store was written in place; a count keeps nothing)
    this.done += n;
  }

  /**
   * Whether the store takes `n` more bytes after the `done` it holds,
   * opening it at the call's first move (sized from the estimate, with a
   * ceiling of twice it: at least 64 MiB, a power of two, at most
   * `maxByteLength`) and growing it in place (by a quarter: shrinking
   * touches the unused tail, which V8 zeroes, so it is kept small). Past
   * its ceiling (or when it cannot open) false: its bytes become the first
   * chunk, and the chunks continue the call.
   */
  private stored(n: number): boolean {
    const need = this.done + n;
    let store = this.store;
    if (store === null) {
      const estimate = this.estimated();
      const ceiling = Math.min(this.maxByteLength, 2 ** Math.ceil(Math.log2(Math.max(MIN_CEILING_BYTES, estimate * 2))));
      if (need <= ceiling) store = this.store = new ArrayBuffer(Math.min(ceiling, Math.max(need, this.scratchSize * 2, estimate)), { maxByteLength: ceiling });
    } else if (need > store.byteLength && need <= store.maxByteLength) store.resize(Math.min(store.maxByteLength, Math.max(need, Math.ceil(store.byteLength * 1.25))));
    if (store !== null && need <= store.byteLength) return true;
    if (this.done !== 0) this.chunks.push(new Uint8Array(store!, 0, this.done)); // (copied when the result is joined)
    this.store = null;
    this.chunked = true;
    return false;
  }

  /** Moves `src[0..n)` into the chunks; `owned`: a buffer of its own (made from the estimate; a window; a binary the streaming encoder hands out), kept as a chunk rather than copied. */
  private toChunks(src: Uint8Array, n: number, owned: boolean): void {
    if (owned) {
      if (src === this.sizedBytes) this.sizedBytes = null; // a chunk now
      this.seal();
      // a window is sized for the longest UTF-8: when much of it went unused, copied out, so a chunk keeps no more alive than its bytes
      this.chunks.push(n + (n >>> 3) < src.length ? src.slice(0, n) : src.subarray(0, n));
      return;
    }
    for (let from = 0; from < n; ) {
      if (this.chunk === NO_BYTES) this.chunk = new Uint8Array(this.chunkSize || this.scratchSize);
      const k = Math.min(n - from, this.chunk.length - this.chunkUsed);
      this.chunk.set(k === src.length ? src : src.subarray(from, from + k), this.chunkUsed);
      this.chunkUsed += k;
      from += k;
      if (this.chunkUsed === this.chunk.length) this.seal();
    }
  }

  /** Seals the chunk being filled: it joins {@link Output.chunks} and is never written again. */
  private seal(): void {
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

  /**
   * Ends the call's output as one view of all of it (of the scratch,
   * valid until the next call; of the call's own buffer; or of the store),
   * or null when it is in {@link Output.chunks}.
   */
  finish(): Uint8Array<ArrayBuffer> | null {
    if (this.done === 0) return new Uint8Array(this.bytes.buffer, this.bytes.byteOffset, this.pos);
    this.flush();
    return this.store === null ? null : new Uint8Array(this.store, 0, this.done);
  }

  /** Ends the call's output as one plain `Uint8Array` of exact length: the call's own buffer when the estimate was exact, else a copy. */
  result(): Uint8Array<ArrayBuffer> {
    if (this.done === 0 && this.bytes === this.scratch) return this.scratch.slice(0, this.pos);
    const bytes = this.finish();
    if (bytes === null) {
      if (this.done > MAX_STORE_BYTES) throw encodeError(`Cannot return ${this.done} bytes: over 4 GiB; use Encoder.encodeChunks`, "OUT_OF_SPACE");
      const out = new Uint8Array(this.done);
      this.copyTo(out, 0);
      return out;
    }
    if (bytes.buffer === this.store) return bytes.length >= LARGE_BYTES ? copyOutShrinking(this.store!, bytes.length) : bytes.slice();
    if (bytes.length !== bytes.buffer.byteLength) return bytes.slice();
    this.sizedBytes = null; // the result now
    return bytes;
  }

  /**
   * Ends the call's output by copying all of it into `target` at `at`;
   * returns the byte count. A target too small is grown in place when it
   * is a length-tracking view of a resizable buffer, else left unchanged,
   * with an error.
   */
  copyTo(target: Uint8Array, at: number): number {
    const total = this.offset();
    const size = at + total;
    const buffer = target.buffer as ArrayBuffer;
    const before = buffer.byteLength;
    if (size > target.length && buffer.resizable && target.byteOffset + size <= buffer.maxByteLength) {
      buffer.resize(target.byteOffset + size);
      if (target.length < size) buffer.resize(before); // a fixed-length view does not follow: undo
    }
    if (target.length < size) {
      throw encodeError(`Cannot encode into target: it has room for ${target.length} bytes, the output needs ${size} (use a resizable buffer with a length-tracking view to grow it)`, "OUT_OF_SPACE");
    }
    const bytes = this.finish();
    for (const part of bytes === null ? this.chunks : [bytes]) {
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
  // from the store's end: V8 zeroes what a shrink cuts off before releasing it, so the unwritten tail goes in steps too
  for (let end = store.byteLength; end > 0; ) {
    const start = Math.max(0, end - SHRINK_COPY_STEP_BYTES);
    if (start < total) out.set(bytes.subarray(start, Math.min(end, total)), start);
    store.resize((end = start));
  }
  return out;
}
