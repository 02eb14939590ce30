/**
 * The byte sink behind the encoder: where its output goes. Small values are
 * written with plain indexed stores into a plain, reusable scratch
 * `Uint8Array`; a call that outgrows it opens one spill (spill.ts) and
 * moves the scratch's bytes there in bulk, then goes on in the scratch:
 * - a resizable store (spill-store.ts), sized from an estimate of the
 *   value and grown in place;
 * - a chunk list (spill-chunks.ts) past the store's ceiling (a full store
 *   hands its bytes over) or where `ArrayBuffer.prototype.resize` does not
 *   exist; the sink then writes into the list's chunks directly.
 * Long strings are encoded straight into the spill, and large binaries are
 * referenced, not copied, until the result is made.
 *
 * Why: element stores into a view of a resizable buffer are 2-10x slower
 * than into a plain one in every engine, while bulk `set`/`encodeInto` into
 * one are as fast (benchmarks/buffers.js measures both).
 *
 * Results are always plain `ArrayBuffer`s of exact length: many platform
 * APIs reject views of resizable buffers (`new Response()` in Node 20 and 22,
 * `crypto.subtle.digest` in Bun, `Blob`/`TextDecoder`/`fetch` in Chromium),
 * and only ~32,700 resizable buffers may live in one process. A result that
 * fits the scratch is copied out of it (with `poolResults`, a small one is
 * written straight into a shared slab instead, and returned as a view). The scratch and the kept store live in a workspace that
 * encoders share between calls (see {@link Workspace}), so creating an
 * encoder allocates nothing. (A long string encoded on its own is the one
 * output made elsewhere: utf8.ts writes it straight into its result.)
 *
 * @module
 */

import { CAN_RESIZE, ON_BUN } from "../common/engine.ts";
import { encodeError } from "../common/errors.ts";
import { estimateStoreSize } from "./size.ts";
import { ChunkSpill } from "./spill-chunks.ts";
import { StoreSpill } from "./spill-store.ts";
import { COUNT_PLAN, type CountSpill, MAX_STORE_BYTES, type Spill, type SpillContext, type SpillPlan } from "./spill.ts";

export { MAX_STORE_BYTES, REFERENCE_MIN_BYTES } from "./spill.ts";
export { RETAIN_MAX_BYTES } from "./spill-store.ts";

/**
 * Default scratch size: outputs up to this size never open a spill. 256 KiB
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
 * The memory a call writes into: the scratch (and a `DataView` of it) and
 * the resizable store an earlier call kept (see spill-store.ts). A sink
 * keeps the one it used last and takes it again while no other sink has;
 * encoders share a few (by default size), so creating an encoder
 * allocates nothing and encoders made per call reuse the same memory. A
 * re-entrant call (an extension encoding inside an encode) takes another.
 */
interface Workspace {
  scratch: Uint8Array<ArrayBuffer>;
  view: DataView;
  store: ArrayBuffer | null;
  /** The sink that used it last: its fields still point at this workspace's buffers. */
  user: Sink | null;
  /** In a call now. */
  busy: boolean;
  /** Made for a shared-size sink while every shared workspace was busy (deep re-entry): dropped after the call. */
  spare: boolean;
  /** Kept by its sink alone (after `encodeSharedRef`, whose result is a view of its scratch): in no shared list. */
  owned: boolean;
}

/**
 * How many workspaces with the default scratch size the process shares:
 * enough for an encode and a few re-entrant levels; deeper nesting
 * allocates workspaces that are dropped after.
 */
const SHARED_WORKSPACES = 4;

/** The shared workspaces (calls are synchronous: one is busy only during a call or its re-entrant calls). */
const SHARED: Workspace[] = [];

const isIdle = (ws: Workspace): boolean => !ws.busy;

const NO_BYTES = /* @__PURE__ */ new Uint8Array(0);
const NO_VIEW = /* @__PURE__ */ new DataView(/* @__PURE__ */ new ArrayBuffer(0));

/** 256 bytes for a caller to test-encode into before a call (synchronously: any call may use them, none keeps them). */
export const PROBE: Uint8Array = /* @__PURE__ */ new Uint8Array(256);

/**
 * The scratch, and the spill a call opens when it overflows. The encoder
 * writes through `bytes`/`view` at `pos` after checking
 * `pos + n <= bytes.length` (else {@link Sink.grow}); everything else is
 * the slow path.
 */
export class Sink implements SpillContext {
  /** Where the encoder writes now: the scratch, or a buffer the spill gave (a chunk). */
  bytes: Uint8Array<ArrayBuffer> = NO_BYTES;
  /** A `DataView` over `bytes`. */
  view: DataView = NO_VIEW;
  /** Write position in `bytes`. */
  pos = 0;
  /** Where this call's output starts in `bytes`: 0, or the free part of the pool's slab while the call writes there. */
  start = 0;

  /** The scratch of this call's workspace (its `DataView` and kept store are read from the workspace). */
  #scratch: Uint8Array<ArrayBuffer> = NO_BYTES;
  /** The workspace this sink used last (another sink may have taken it since). */
  private ws: Workspace | null = null;
  /** Whether this sink takes workspaces from {@link SHARED} (default scratch size) or makes its own. */
  readonly #shared: boolean;
  private readonly scratchBytes: number;
  /** Where this call's output went past the scratch, or null while it fits the scratch. */
  #spill: Spill | null = null;
  /** The value this call encodes (for the estimate, taken only on overflow). */
  root: unknown = undefined;

  /** With `poolResults`: the slab small results are written into, a `DataView` of it, and where its free part starts. */
  #slab: Uint8Array<ArrayBuffer> | null = null;
  #slabView: DataView = NO_VIEW;
  #slabPos = 0;

  private readonly plan: SpillPlan;
  /** The plan's hook that opens a spill before a call's first byte, if it has one. */
  readonly #opening: ((root: unknown, sink: SpillContext) => Spill | null) | null;
  /** Counts bytes only (behind `encodedSize`): the spill is a count; the total is {@link Sink.offset}. */
  readonly counting: boolean;
  readonly #pool: boolean;
  readonly maxByteLength: number;
  /** The exact encoded size of a value (for plans that measure first). */
  readonly measure: (value: unknown) => number;

  /**
   * @param scratchBytes size of the reusable scratch
   * @param plan which spill a call opens ({@link COUNT_PLAN}: count bytes only)
   * @param maxByteLength ceiling of one buffer; past it, the chunk list
   * @param measure the exact size (for plans that measure first); a resizable store is sized from size.ts's estimate
   * @param pool whether small results are views into a shared slab
   * @param shareable whether a scratch of the default size may come from the workspaces encoders share
   *   (false for a sink whose call stays open between the caller's steps, as the streaming encoder's does:
   *   it keeps a workspace of its own)
   */
  constructor(scratchBytes: number, plan: SpillPlan, maxByteLength: number, measure: (value: unknown) => number, pool = false, shareable = true) {
    this.#pool = pool && POOLING_PAYS;
    this.scratchBytes = Math.max(64, scratchBytes);
    this.#shared = shareable && this.scratchBytes === DEFAULT_SCRATCH_BYTES;
    this.plan = plan;
    this.#opening = plan.begin ?? null;
    this.counting = plan === COUNT_PLAN;
    this.maxByteLength = Math.min(maxByteLength, MAX_STORE_BYTES);
    this.measure = measure;
  }

  /** Bytes of output written so far in this call: where the next byte lands in the result. */
  offset(): number {
    return this.#spill === null ? this.pos - this.start : this.#spill.length + this.pos;
  }

  /** Starts a call that encodes `root`. */
  begin(root: unknown): void {
    // a plan may open its spill before the first byte (and before borrowing a workspace: it may throw)
    const first = this.#opening === null ? null : this.#opening(root, this);
    let ws = this.ws;
    if (ws === null || ws.user !== this || ws.busy) ws = this.claim();
    ws.busy = true;
    this.root = root;
    this.#spill = first;
    if (this.#pool && first === null) {
      // With `poolResults`: the call writes straight into the slab's free part
      // (a new slab when less than a pooled result's most is free, or when a
      // transfer of a result's buffer detached it: its length is then 0), so a
      // small result is a view of what was written, with no copy. Earlier
      // results stay before `start`; a call that outgrows the slab moves its
      // bytes to the scratch (see leaveSlab) and goes on as any other, so the
      // slab changes no spill decision.
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
  private checkSlab(): void {
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
    const spill = this.#spill;
    const ws = this.ws!;
    // small messages touch none of this: keep the common call free of allocations
    if (spill !== null) {
      this.#spill = null;
      const kept = spill.close();
      if (kept !== null) ws.store = kept;
    }
    if (this.bytes !== this.#scratch) {
      // a chunk of the spill, or the pool's slab
      this.bytes = this.#scratch;
      this.view = ws.view;
    }
    // the workspace is idle, with the scratch and store as this call leaves them
    ws.busy = false;
    if (ws.spare) {
      // not one of the shared ones: let it go, so an idle encoder holds no memory
      this.ws = null;
      this.#scratch = this.bytes = NO_BYTES;
      this.view = NO_VIEW;
    }
  }

  /** Takes an idle shared workspace (or makes one) and points this sink's fields at it. */
  private claim(): Workspace {
    let ws = this.#shared ? SHARED.find(isIdle) : undefined;
    if (ws === undefined) {
      const scratch = new Uint8Array(this.scratchBytes);
      ws = { scratch, view: new DataView(scratch.buffer), store: null, user: null, busy: false, spare: false, owned: false };
      if (this.#shared && SHARED.length < SHARED_WORKSPACES) SHARED.push(ws);
      else ws.spare = this.#shared;
    }
    ws.user = this;
    this.ws = ws;
    this.#scratch = this.bytes = ws.scratch;
    this.view = ws.view;
    return ws;
  }

  /** Makes room for `n` more contiguous bytes at `pos`. Call only when `pos + n > bytes.length`. */
  grow(n: number): void {
    if (this.bytes === this.#slab && this.leaveSlab(n)) return;
    this.resume(this.flush(), n);
  }

  /**
   * Moves this call's bytes from the pool's slab (the caller checks that it
   * writes there) to the start of the scratch, where they would have been
   * without the slab, when they and `n` more fit there. Returns false,
   * having moved nothing, when they do not (a scratch smaller than the
   * slab): the spill then takes them from the slab.
   */
  private leaveSlab(n: number): boolean {
    this.checkSlab();
    const len = this.pos - this.start;
    const scratch = this.#scratch;
    if (len + n > scratch.length) return false;
    scratch.set(new Uint8Array(this.bytes.buffer, this.start, len));
    this.bytes = scratch;
    this.view = this.ws!.view;
    this.pos = len;
    this.start = 0;
    return true;
  }

  /**
   * Appends `src` (a binary or extension payload) after the bytes written
   * so far: small ones are copied into the sink's buffer, larger ones go to
   * the spill (which references the large ones, to copy them once into the
   * result, or only counts them).
   */
  append(src: Uint8Array): void {
    const n = src.length;
    if (this.pos + n > this.bytes.length) {
      if ((n > this.#scratch.length >>> 1 || this.counting) && !(this.bytes === this.#slab && this.leaveSlab(n))) {
        // large (or a count, which only counts it): to the spill
        let spill = this.flush();
        if (!spill.append(src)) (spill = this.overflow()).append(src);
        this.resume(spill, 0);
        return;
      }
      this.grow(n);
    }
    this.bytes.set(src, this.pos);
    this.pos += n;
  }

  /**
   * For a large string: returns a target with at least `n` bytes free at
   * the returned offset, after moving the bytes written so far to the
   * spill. Call {@link commit} with the bytes written.
   */
  reserveDirect(n: number): { target: Uint8Array; offset: number } {
    if (this.bytes === this.#slab && n <= this.#scratch.length >>> 1 && this.leaveSlab(0)) {
      // small for the scratch, only large for the slab: written in the scratch, as without the slab
      if (this.pos + n > this.bytes.length) this.grow(n);
      return { target: this.bytes, offset: this.pos };
    }
    const spill = this.flush();
    return spill.reserve(n) ?? this.overflow().reserve(n)!;
  }

  /** Records `n` bytes written into the target of {@link reserveDirect}. */
  commit(target: Uint8Array, n: number): void {
    if (target === this.bytes) {
      // the sink's own buffer (a pooled call's): a spill's target never is (a chunk's is the whole chunk, not the tail `bytes` is)
      this.pos += n;
      return;
    }
    const spill = this.#spill!;
    spill.commit(n);
    this.resume(spill, 0);
  }

  /** Count mode: `n` more bytes of output, not written (a long string). */
  skip(n: number): void {
    (this.flush() as CountSpill).length += n;
  }

  /** Ends the call and returns the output as one plain `Uint8Array` of exact length. */
  finish(): Uint8Array<ArrayBuffer> {
    if (this.#spill !== null) return this.flush().result();
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

  /**
   * Ends the call and returns a view of its output, not a copy, when it
   * fit the scratch (`encodeSharedRef`); else as {@link Sink.finish}.
   * From then on this sink keeps its workspace to itself: no other
   * encoder, and no `encode()`, writes into the bytes of the view; only
   * this sink's next call does.
   */
  finishShared(): Uint8Array<ArrayBuffer> {
    if (this.offset() !== this.pos) return this.finish();
    const ws = this.ws!;
    if (!ws.owned) {
      ws.owned = true;
      ws.spare = false;
      const i = SHARED.indexOf(ws);
      if (i >= 0) SHARED.splice(i, 1);
    }
    return new Uint8Array(this.bytes.buffer, this.bytes.byteOffset + this.start, this.pos - this.start);
  }

  /** Ends the call and returns the output as plain chunks whose concatenation is the encoding. */
  finishChunks(): Uint8Array<ArrayBuffer>[] {
    if (this.#spill !== null) return this.flush().chunks();
    this.checkSlab();
    return [this.bytes.slice(this.start, this.pos)];
  }

  /**
   * Ends the call by copying the output into `target` at `offset`, with no
   * allocation when it fit the scratch. Returns the byte count. A target
   * too small is grown in place when it is a length-tracking view of a
   * resizable buffer, else left unchanged, with an error.
   */
  finishInto(target: Uint8Array, offset: number): number {
    this.checkSlab();
    const parts = this.#spill === null ? [this.bytes.subarray(this.start, this.pos)] : this.flush().parts();
    const total = this.offset(); // (the spill's length, once flushed)
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

  /**
   * Moves every byte written so far to the spill (opening it if the call
   * has none yet), so that the spill holds the whole output up to
   * {@link Sink.offset}: for a caller that takes the output from its spill
   * while the call goes on (the streaming encoder).
   */
  handOver(): void {
    this.resume(this.flush(), 0);
  }

  // ---- the spill (slow paths) ----

  /** Moves the bytes written so far to the spill, opening it on the call's first overflow. Returns the spill. */
  private flush(): Spill {
    this.checkSlab();
    const start = this.start;
    const n = this.pos - start;
    let spill = this.#spill ?? (this.#spill = this.plan.open(n, this));
    if (n !== 0) {
      // from the pool's slab: its part of this call (spills copy what they take, so none keeps the slab)
      const bytes = start === 0 ? this.bytes : new Uint8Array(this.bytes.buffer, start, n);
      if (!spill.take(bytes, n)) (spill = this.overflow()).take(bytes, n);
    }
    this.pos = this.start = 0;
    return spill;
  }

  /** Points `bytes` at where the next `n` bytes go: a buffer of the spill's own, else the scratch (or a buffer of its own for an item larger than the scratch). */
  private resume(spill: Spill, n: number): void {
    const next = spill.room(n) ?? (n <= this.#scratch.length ? this.#scratch : new Uint8Array(n));
    if (next === this.bytes) return;
    this.bytes = next;
    this.view = next === this.#scratch ? this.ws!.view : new DataView(next.buffer, next.byteOffset, next.length);
  }

  /** The spill is full (a store at its ceiling): its bytes move to a chunk list, which continues the call. */
  private overflow(): Spill {
    const chunks = this.openChunks();
    this.#spill!.passTo(chunks);
    return (this.#spill = chunks);
  }

  // ---- SpillContext: what plans may use ----

  get scratchLength(): number {
    return this.#scratch.length;
  }

  openStore(need: number, estimate: boolean): Spill | null {
    if (!CAN_RESIZE) return null;
    const ws = this.ws!;
    const spill = StoreSpill.open(need, ws.store, estimate ? estimateStoreSize(this.root) : null, this.maxByteLength, this.#scratch.length);
    if (spill !== null) ws.store = null; // the spill holds it now, and gives it back at close() if worth keeping
    return spill;
  }

  openChunks(): ChunkSpill {
    return new ChunkSpill(this.#scratch.length);
  }
}
