/**
 * The encoder's output: where the bytes of one call go. A maintainer needs
 * five words for it, and the code uses no others:
 *
 * - **output** ({@link Output}): what the walk writes into, the anchors'
 *   way: `bytes` (with a `view` of them for numbers) and `pos`, after
 *   `room(n)` made room for `n` bytes there. One class, so the walk's
 *   writes stay monomorphic; what differs lives behind it, in the store.
 * - **scratch**: a plain, reusable `Uint8Array` that small values are
 *   written into with indexed stores. Most calls never leave it: the
 *   result is one exact-size copy of it. Element stores into a view of a
 *   resizable buffer are 2-10x slower than into a plain one in every
 *   engine, while bulk `set`/`encodeInto` into one are as fast
 *   (benchmarks/buffers.js measures both): so the scratch comes first, and
 *   only full scratches move, in bulk.
 * - **store**: where the output goes once a call outgrows its scratch
 *   (store.ts): the resizable store, one resizable `ArrayBuffer` sized from
 *   an estimate of the value and grown in place (resizable-store.ts); a
 *   count of bytes, keeping none (`encodedSize`); the streaming encoder's
 *   cutter. Long strings are encoded straight into the store, and large
 *   binaries are referenced, not copied, until the result is made.
 * - **chunks**: plain buffers in a list (chunks.ts), the store past the
 *   resizable store's ceiling (a full store's bytes move there) and where
 *   `ArrayBuffer.prototype.resize` does not exist; then the output writes
 *   into their free tails directly. `encodeChunks` hands them over.
 * - **slab**: with `poolResults`, small results are views into a shared
 *   16 KiB slab instead of buffers of their own; the call writes into the
 *   slab as it would into the scratch.
 *
 * Results are always plain `ArrayBuffer`s of exact length: many platform
 * APIs reject views of resizable buffers (`new Response()` in Node 20 and
 * 22, `crypto.subtle.digest` in Bun, `Blob`/`TextDecoder`/`fetch` in
 * Chromium), and only ~32,700 resizable buffers may live in one process.
 * The scratch (with the resizable store a call kept) is shared by the
 * encoders of a process between calls (see {@link Scratch}), so creating
 * an encoder allocates nothing. (A long string encoded on its own is the
 * one output made elsewhere: utf8.ts writes it straight into its result.)
 *
 * `encode` ends a call with {@link Output.result}; the other ways to end
 * one (`encodeSharedRef`, `encodeChunks`, `encodeInto`) are functions
 * below, so a program that never calls them does not carry them.
 *
 * @module
 */

import { CAN_RESIZE, ON_BUN } from "../common/engine.ts";
import { encodeError } from "../common/errors.ts";
import { Chunks } from "./chunks.ts";
import { estimateStoreSize } from "./size.ts";
import { ResizableStore } from "./resizable-store.ts";
import { Count, MAX_STORE_BYTES, type Store } from "./store.ts";

export { MAX_STORE_BYTES, REFERENCE_MIN_BYTES } from "./store.ts";
export { RETAIN_MAX_BYTES } from "./resizable-store.ts";

/**
 * Default scratch size: outputs up to this size never open a store. 256 KiB
 * beat 64 KiB for ~100 KB record arrays (0.83x -> 1.00x msgpackr, round-robin
 * on Node 20) by skipping the estimate, the store and the final copy.
 */
export const DEFAULT_SCRATCH_BYTES: number = 262_144; // 256 KiB

/** With `poolResults`, results up to this size are views into a shared slab. */
export const POOL_MAX_RESULT_BYTES: number = 4096;

/**
 * Whether pooling small results pays here. In V8 (Node, Deno, Chromium)
 * allocating a small `ArrayBuffer` costs ~0.5-0.7 µs and a view of a slab
 * ~40 ns; Bun's JavaScriptCore allocates one in ~35 ns, less than the view
 * and the copy into the slab (the peer benchmark's 125 B message encoded at
 * half the speed with pooling), so there `poolResults` keeps plain results.
 */
const POOLING_PAYS: boolean = !ON_BUN;

/**
 * Size of each slab that pooled results share, and so the most a pooled
 * result drags along: a `structuredClone`/`postMessage` of one copies its
 * whole slab, a transfer of its buffer empties every result in the slab,
 * and one kept result keeps the slab alive. 16 KiB keeps those costs 4x
 * below Node's 64 KiB `Buffer` pool while a new slab still serves ~100
 * messages of ~125 B (slabs of 8-64 KiB took the same time per result,
 * Node 20, Bun and Deno).
 */
export const POOL_SLAB_BYTES: number = 16_384; // 16 KiB

/**
 * Which store a call opens: the encoder's own ({@link DEFAULT_PLAN}), a
 * count ({@link COUNT_PLAN}), or another that the strategy benchmark and
 * the tests plug in through the internal option keyed by
 * {@link STORE_PLAN} (a plain buffer doubled by copying, one of the exact
 * size, a resizable store without the estimate, the chunks alone).
 */
export interface StorePlan {
  /**
   * A store to start the call with, before its first byte (null: the
   * scratch, as usual). Runs before the output takes its scratch (its
   * `scratchLength` may still be 0; `openResizable` is for `open` only).
   * May throw: the call then never starts.
   */
  begin?: ((root: unknown, output: Output) => Store | null) | undefined;
  /** The store for a call whose scratch overflows with `need` bytes written. */
  open(need: number, output: Output): Store;
  /** Whether its stores only count bytes (`encodedSize`): long strings are then measured, not written. */
  readonly counts?: boolean;
}

/** The encoder's plan: a resizable store sized from the estimate, else chunks. */
export const DEFAULT_PLAN: StorePlan = { open: (need, output) => output.openResizable(need, true) ?? output.openChunks() };

/** The plan of a counting output (`encodedSize`): a count. */
export const COUNT_PLAN: StorePlan = { open: () => new Count(), counts: true };

/**
 * The key of the internal option that replaces the encoder's
 * {@link StorePlan}: `new Encoder({ [Symbol.for("@resizable/msgpack/store-plan")]: plan })`.
 * For the strategy benchmark and the tests; not part of the public API.
 */
export const STORE_PLAN: unique symbol = Symbol.for("@resizable/msgpack/store-plan") as never;

/**
 * A scratch, with the `DataView` of it and the resizable store an earlier
 * call kept (see resizable-store.ts). An output keeps the scratch it used
 * last and takes it again while no other output has; encoders share a few
 * (of the default size), so creating an encoder allocates nothing and
 * encoders made per call reuse the same memory. A re-entrant call (an
 * extension encoding inside an encode) takes another.
 */
interface Scratch {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly view: DataView;
  /** The resizable store kept for the next call, or null. */
  kept: ArrayBuffer | null;
  /** The output that used it last: its fields still point at this scratch. */
  user: Output | null;
  /** In a call now. */
  busy: boolean;
  /** One of {@link SHARED}. */
  shared: boolean;
}

/**
 * How many scratches of the default size the process shares: enough for
 * an encode and a few re-entrant levels; deeper nesting allocates
 * scratches that are dropped after.
 */
const SHARED_SCRATCHES = 4;

/** The shared scratches (calls are synchronous: one is busy only during a call or its re-entrant calls). */
const SHARED: Scratch[] = [];

const isIdle = (s: Scratch): boolean => !s.busy;

const NO_BYTES = /* @__PURE__ */ new Uint8Array(0);
const NO_VIEW = /* @__PURE__ */ new DataView(/* @__PURE__ */ new ArrayBuffer(0));

/**
 * The output of an encoder. The walk writes through `bytes`/`view` at
 * `pos` after checking `pos + n <= bytes.length` (else {@link Output.room});
 * everything else is the slow path.
 */
export class Output {
  /** Where the walk writes now: the scratch, a tail of the chunks, or the slab. */
  bytes: Uint8Array<ArrayBuffer> = NO_BYTES;
  /** A `DataView` over `bytes`. */
  view: DataView = NO_VIEW;
  /** Write position in `bytes`. */
  pos = 0;
  /** Where this call's output starts in `bytes`: 0, or the free part of the slab while the call writes there. */
  start = 0;

  /** The scratch this output used last (another output may have taken it since). */
  private scratch: Scratch | null = null;
  /** Whether this output takes its scratch from {@link SHARED} (default size) or keeps one of its own. */
  #shares: boolean;
  private readonly scratchBytes: number;
  /** Where this call's output went past the scratch, or null while it fits the scratch. */
  #store: Store | null = null;
  /** The value this call encodes (for the estimate, taken only on overflow). */
  root: unknown = undefined;

  /** With `poolResults`: the slab small results are written into, a `DataView` of it, and where its free part starts. */
  #slab: Uint8Array<ArrayBuffer> | null = null;
  #slabView: DataView = NO_VIEW;
  #slabPos = 0;

  private readonly plan: StorePlan;
  /** The plan's hook that opens a store before a call's first byte, if it has one (read once: every call asks). */
  readonly #first: ((root: unknown, output: Output) => Store | null) | null;
  /** Counts bytes only (behind `encodedSize`): the store is a count; the total is {@link Output.offset}. */
  readonly counting: boolean;
  readonly #pool: boolean;
  readonly maxByteLength: number;
  /** The exact encoded size of a value, for plans that measure first: set by the public `Encoder`, whose plan may be one. */
  measure: ((value: unknown) => number) | null = null;

  /**
   * @param scratchBytes size of the scratch
   * @param plan which store a call opens ({@link COUNT_PLAN}: count bytes only)
   * @param maxByteLength ceiling of one buffer; past it, the chunks
   * @param pool whether small results are views into a shared slab
   * @param shareable whether a scratch of the default size may come from the scratches encoders share
   *   (false for an output whose call stays open between the caller's steps, as the streaming encoder's does:
   *   it keeps a scratch of its own)
   */
  constructor(scratchBytes: number, plan: StorePlan, maxByteLength: number, pool = false, shareable = true) {
    this.#pool = pool && POOLING_PAYS;
    this.scratchBytes = Math.max(64, scratchBytes);
    this.#shares = shareable && this.scratchBytes === DEFAULT_SCRATCH_BYTES;
    this.plan = plan;
    this.#first = plan.begin ?? null;
    this.counting = plan.counts === true;
    this.maxByteLength = Math.min(maxByteLength, MAX_STORE_BYTES);
  }

  /** Bytes of output written so far in this call: where the next byte lands in the result. */
  offset(): number {
    return this.#store === null ? this.pos - this.start : this.#store.length + this.pos;
  }

  /** Starts a call that encodes `root`. */
  begin(root: unknown): void {
    // a plan may open its store before the first byte (and before taking a scratch: it may throw)
    const first = this.#first === null ? null : this.#first(root, this);
    let scratch = this.scratch;
    if (scratch === null || scratch.user !== this || scratch.busy) scratch = this.claim();
    scratch.busy = true;
    this.root = root;
    this.#store = first;
    if (this.#pool && first === null) {
      // With `poolResults`: the call writes straight into the slab's free part
      // (a new slab when less than a pooled result's most is free, or when a
      // transfer of a result's buffer detached it: its length is then 0), so a
      // small result is a view of what was written, with no copy. Earlier
      // results stay before `start`; a call that outgrows the slab moves its
      // bytes to the scratch (see leaveSlab) and goes on as any other, so the
      // slab changes no store decision.
      const slab = this.#slab;
      this.bytes = slab === null || slab.length - this.#slabPos < POOL_MAX_RESULT_BYTES ? this.newSlab() : slab;
      this.view = this.#slabView;
      this.pos = this.start = this.#slabPos;
    } else this.pos = 0;
  }

  /**
   * Throws when this call writes into the slab and it was detached during
   * the call (user code, a getter say, transferred the buffer of an earlier
   * pooled result): what the call wrote there is gone.
   */
  checkSlab(): void {
    if (this.bytes === this.#slab && this.bytes.byteLength === 0) {
      this.#slab = null; // the next call starts a new one
      throw encodeError(
        "Cannot encode: an earlier pooled result's buffer was transferred during this call, losing the bytes written there (slice() pooled results before transferring them)",
        "CHANGED",
      );
    }
  }

  /** A new slab for pooled results, empty. */
  private newSlab(): Uint8Array<ArrayBuffer> {
    const slab = (this.#slab = new Uint8Array(POOL_SLAB_BYTES));
    this.#slabView = new DataView(slab.buffer);
    this.#slabPos = 0;
    return slab;
  }

  /** Drops per-call state after a call, whether it succeeded or threw. */
  end(): void {
    this.root = undefined;
    this.pos = this.start = 0;
    const store = this.#store;
    const scratch = this.scratch!;
    // small messages touch none of this: keep the common call free of allocations
    if (store !== null) {
      this.#store = null;
      const kept = store.close();
      if (kept !== null) scratch.kept = kept;
    }
    if (this.bytes !== scratch.bytes) {
      // a tail of the chunks, or the slab
      this.bytes = scratch.bytes;
      this.view = scratch.view;
    }
    // the scratch is idle, with its kept store as this call leaves them
    scratch.busy = false;
    if (this.#shares && !scratch.shared) {
      // made while every shared scratch was busy (deep re-entry): let it go, so an idle encoder holds no memory
      this.scratch = null;
      this.bytes = NO_BYTES;
      this.view = NO_VIEW;
    }
  }

  /** Takes an idle shared scratch (or makes one) and points this output's fields at it. */
  private claim(): Scratch {
    let scratch = this.#shares ? SHARED.find(isIdle) : undefined;
    if (scratch === undefined) {
      const bytes = new Uint8Array(this.scratchBytes);
      scratch = { bytes, view: new DataView(bytes.buffer), kept: null, user: null, busy: false, shared: false };
      if (this.#shares && SHARED.length < SHARED_SCRATCHES) {
        scratch.shared = true;
        SHARED.push(scratch);
      }
    }
    scratch.user = this;
    this.scratch = scratch;
    this.bytes = scratch.bytes;
    this.view = scratch.view;
    return scratch;
  }

  /**
   * Keeps this call's scratch to this output alone from now on (its bytes
   * are lent to the caller, see {@link sharedResult}): no other encoder,
   * and no `encode()`, writes into it; only this output's next call does.
   */
  keepScratch(): void {
    const scratch = this.scratch!;
    this.#shares = false;
    if (scratch.shared) {
      scratch.shared = false;
      SHARED.splice(SHARED.indexOf(scratch), 1);
    }
  }

  /** Makes room for `n` more contiguous bytes at `pos`. Call only when `pos + n > bytes.length`. */
  room(n: number): void {
    if (this.bytes === this.#slab && this.leaveSlab(n)) return;
    this.resume(this.flush(), n);
  }

  /**
   * Moves this call's bytes from the slab (the caller checks that it
   * writes there) to the start of the scratch, where they would have been
   * without the slab, when they and `n` more fit there. Returns false,
   * having moved nothing, when they do not (a scratch smaller than the
   * slab): the store then takes them from the slab.
   */
  private leaveSlab(n: number): boolean {
    this.checkSlab();
    const len = this.pos - this.start;
    const scratch = this.scratch!;
    if (len + n > scratch.bytes.length) return false;
    scratch.bytes.set(new Uint8Array(this.bytes.buffer, this.start, len));
    this.bytes = scratch.bytes;
    this.view = scratch.view;
    this.pos = len;
    this.start = 0;
    return true;
  }

  /**
   * Appends `src` (a binary or extension payload) after the bytes written
   * so far: small ones are copied into `bytes`, larger ones go to the
   * store (which references the large ones, to copy them once into the
   * result, or only counts them).
   */
  append(src: Uint8Array): void {
    const n = src.length;
    if (this.pos + n > this.bytes.length) {
      if ((n > this.scratchLength >>> 1 || this.counting) && !(this.bytes === this.#slab && this.leaveSlab(n))) {
        // large (or a count, which only counts it): to the store
        let store = this.flush();
        if (!store.append(src)) (store = this.overflow()).append(src);
        this.resume(store, 0);
        return;
      }
      this.room(n);
    }
    this.bytes.set(src, this.pos);
    this.pos += n;
  }

  /**
   * For a long string: returns a target with at least `n` bytes free at
   * the returned offset, after moving the bytes written so far to the
   * store. Call {@link Output.commit} with the bytes written.
   */
  reserve(n: number): { target: Uint8Array; offset: number } {
    if (this.bytes === this.#slab && n <= this.scratchLength >>> 1 && this.leaveSlab(0)) {
      // small for the scratch, only large for the slab: written in the scratch, as without the slab
      if (this.pos + n > this.bytes.length) this.room(n);
      return { target: this.bytes, offset: this.pos };
    }
    const store = this.flush();
    return store.reserve(n) ?? this.overflow().reserve(n)!;
  }

  /** Records `n` bytes written into the target of {@link Output.reserve}. */
  commit(target: Uint8Array, n: number): void {
    if (target === this.bytes) {
      // the output's own buffer (a pooled call's): a store's target never is (the chunks' is a whole chunk, not the tail `bytes` is)
      this.pos += n;
      return;
    }
    const store = this.#store!;
    store.commit(n);
    this.resume(store, 0);
  }

  /** Count mode: `n` more bytes of output, not written (a long string). */
  count(n: number): void {
    this.flush().commit(n);
  }

  /** Ends the call and returns the output as one plain `Uint8Array` of exact length. */
  result(): Uint8Array<ArrayBuffer> {
    if (this.#store !== null) return this.flush().result();
    const start = this.start;
    const n = this.pos - start;
    if (n > POOL_MAX_RESULT_BYTES || !this.#pool) return this.bytes.slice(start, this.pos);
    let slab = this.#slab;
    if (this.bytes === slab) {
      this.checkSlab();
    } else {
      // written at the start of the scratch (the call left the slab): copied into the slab
      // (a new one when this one has no room), still a view and no allocation
      if (slab === null || this.#slabPos + n > slab.length) slab = this.newSlab();
      slab.set(new Uint8Array(this.bytes.buffer, 0, n), this.#slabPos);
    }
    // a view, no copy (not subarray(): its species lookup costs ~0.3 µs on Node 20); the next result starts after it, 8-byte aligned
    const at = this.#slabPos;
    this.#slabPos = (at + n + 7) & ~7;
    return new Uint8Array(slab!.buffer, at, n);
  }

  /** Whether this call's output went past `bytes` into a store. */
  get stored(): boolean {
    return this.#store !== null;
  }

  /**
   * Moves every byte written so far to the store, so that the store holds
   * the whole output up to {@link Output.offset}, and writing goes on
   * there: for a caller that takes the output from the store while the
   * call goes on (the streaming encoder).
   */
  handOver(): void {
    this.resume(this.flush(), 0);
  }

  /**
   * Moves the bytes written so far to the store, opening it on the call's
   * first overflow, and returns it (`bytes` still points where they were:
   * call {@link Output.resume} to go on writing).
   */
  flush(): Store {
    this.checkSlab();
    const start = this.start;
    const n = this.pos - start;
    let store = this.#store ?? (this.#store = this.plan.open(n, this));
    if (n !== 0) {
      // from the slab: its part of this call (stores copy what they take, so none keeps the slab)
      const bytes = start === 0 ? this.bytes : new Uint8Array(this.bytes.buffer, start, n);
      if (!store.write(bytes, n)) (store = this.overflow()).write(bytes, n);
    }
    this.pos = this.start = 0;
    return store;
  }

  /** Points `bytes` at where the next `n` bytes go: a tail of the store's own, else the scratch (or a buffer of its own for an item larger than the scratch). */
  private resume(store: Store, n: number): void {
    const scratch = this.scratch!;
    const next = store.tail(n) ?? (n <= scratch.bytes.length ? scratch.bytes : new Uint8Array(n));
    if (next === this.bytes) return;
    this.bytes = next;
    this.view = next === scratch.bytes ? scratch.view : new DataView(next.buffer, next.byteOffset, next.length);
  }

  /** The store is full (a resizable store at its ceiling): its bytes move to chunks, which continue the call. */
  private overflow(): Store {
    const chunks = this.openChunks();
    for (const part of this.#store!.parts()) chunks.push(part, true);
    return (this.#store = chunks);
  }

  // ---- what plans may use ----

  /** Size of the scratch (0 before the first call). */
  get scratchLength(): number {
    return this.scratch === null ? 0 : this.scratch.bytes.length;
  }

  /** A resizable store with room for `need` bytes, sized from the estimate if `estimate`; null past its ceiling or where buffers cannot resize. */
  openResizable(need: number, estimate: boolean): Store | null {
    if (!CAN_RESIZE) return null;
    const scratch = this.scratch!;
    const store = ResizableStore.open(need, scratch.kept, estimate ? estimateStoreSize(this.root) : null, this.maxByteLength, scratch.bytes.length);
    if (store !== null) scratch.kept = null; // the call holds it now, and gets it back at close() if worth keeping
    return store;
  }

  /** Empty chunks. */
  openChunks(): Chunks {
    return new Chunks(this.scratchLength);
  }
}

/**
 * Ends the call and returns a view of its output, not a copy, when it fit
 * the scratch (`encodeSharedRef`); else as {@link Output.result}. From then
 * on the output keeps its scratch to itself ({@link Output.keepScratch}).
 */
export function sharedResult(out: Output): Uint8Array<ArrayBuffer> {
  if (out.offset() !== out.pos) return out.result(); // in a store, or in the slab
  out.keepScratch();
  return new Uint8Array(out.bytes.buffer, out.bytes.byteOffset, out.pos);
}

/** Ends the call and returns the output as plain chunks whose concatenation is the encoding. */
export function chunksResult(out: Output): Uint8Array<ArrayBuffer>[] {
  if (out.stored) return out.flush().chunks();
  out.checkSlab();
  return [out.bytes.slice(out.start, out.pos)];
}

/**
 * Ends the call by copying the output into `target` at `offset`, with no
 * allocation when it fit the scratch. Returns the byte count. A target
 * too small is grown in place when it is a length-tracking view of a
 * resizable buffer, else left unchanged, with an error.
 */
export function resultInto(out: Output, target: Uint8Array, offset: number): number {
  out.checkSlab();
  const parts = out.stored ? out.flush().parts() : [out.bytes.subarray(out.start, out.pos)];
  const total = out.offset(); // (the store's length, once flushed)
  const size = offset + total;
  if (size > target.length) {
    const buffer = target.buffer as ArrayBuffer;
    const before = buffer.byteLength;
    const want = target.byteOffset + size;
    if (buffer.resizable && want <= buffer.maxByteLength) {
      buffer.resize(want);
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
