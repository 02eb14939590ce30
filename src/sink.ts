/**
 * The byte sink behind the encoder, and the module that allocates its output
 * (a long string encoded on its own is the exception: utf8.ts writes it
 * straight into its result). Small values are written with plain indexed
 * stores into a plain, reusable scratch `Uint8Array`; when it fills, its
 * bytes move in bulk into a store: a resizable `ArrayBuffer` grown in place
 * (or, by choice, a plain buffer grown by copying), sized from an estimate
 * of the value; past the store's ceiling, or where
 * `ArrayBuffer.prototype.resize` does not exist, output continues as a list
 * of chunks. Large binaries are not copied into the store at all: they are
 * referenced and copied once, into the result.
 *
 * Why: element stores into a view of a resizable buffer are 2-10x slower
 * than into a plain one in every engine, while bulk `set`/`encodeInto` into
 * one are as fast (DESIGN.md, shared/probes).
 *
 * Results are always plain `ArrayBuffer`s of exact length: many platform
 * APIs reject views of resizable buffers (`new Response()` in Node 20 and 22,
 * `crypto.subtle.digest` in Bun, `Blob`/`TextDecoder`/`fetch` in Chromium),
 * and only ~32,700 resizable buffers may live in one process. The scratch
 * and the store live in a workspace that encoders share between calls (see
 * {@link Workspace}), so creating an encoder allocates nothing.
 *
 * @module
 */

import { concat, MAX_RESULT_BYTES } from "./concat.ts";
import { CAN_RESIZE, ON_BUN } from "./engine.ts";
import { EncodeErrorCode, encodeError } from "./errors.ts";
import { ENCODE_INTO_RESIZABLE } from "./utf8.ts";

/**
 * The largest `maxByteLength` every engine accepts (Node 20 and Bun refuse
 * more than 2^32), and the largest single result `encode` returns.
 */
export const MAX_STORE_BYTES: number = MAX_RESULT_BYTES;

/** How an error for a result too large for one `Uint8Array` ends. */
const TOO_BIG_HINT = "; use Encoder.encodeChunks";

/**
 * Default scratch size: outputs up to this size never touch the store. 256 KiB
 * beat 64 KiB for ~100 KB record arrays (0.83x -> 1.00x msgpackr, round-robin
 * on Node 20) by skipping the estimate, the store and the final copy.
 */
export const DEFAULT_SCRATCH_BYTES: number = 256 * 1024;

/** A store larger than this is dropped after the call, so an idle workspace holds little memory. */
export const RETAIN_MAX_BYTES: number = 16 * 1024 * 1024;

/**
 * Binaries (and extension payloads) at least this long are referenced, not
 * copied into the store: they are copied once, straight into the result.
 */
export const REFERENCE_MIN_BYTES: number = 32 * 1024;

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
export const POOL_SLAB_BYTES: number = 16 * 1024;

/** Outputs from a resizable store at least this large are copied out by {@link Sink.takeShrinking}. */
const SHRINK_COPY_MIN_BYTES = 16 * 1024 * 1024;

/** How much of the store each step of {@link Sink.takeShrinking} copies and releases. */
const SHRINK_COPY_STEP_BYTES = 4 * 1024 * 1024;

/** The smallest ceiling for a store: small estimates still get room to be wrong. */
const MIN_CEILING_BYTES = 64 * 1024 * 1024;

/** Largest chunk the chunk list allocates at once. */
const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * How the sink grows past the scratch buffer:
 * - `"auto"`: the default; `"resizable"` where the runtime can resize, else `"chunks"`;
 * - `"resizable"`: one resizable `ArrayBuffer`, sized from the estimate, grown in place;
 * - `"doubling"`: a plain buffer that doubles by copying (the classic approach);
 * - `"exact"`: a plain buffer of exactly `encodedSize(value)` bytes, handed over as the result; the pre-pass
 *   reads the value a first time (getters and extension encoders run twice), so the read-once guarantee
 *   of the other strategies does not hold for it;
 * - `"chunks"`: a list of chunks concatenated once at the end.
 */
export type SinkStrategy = "auto" | "resizable" | "doubling" | "exact" | "chunks";

/**
 * A sink's strategy: a {@link SinkStrategy}, or `"count"`: a sink that only
 * counts the bytes written (the scratch is reused, payloads are not copied),
 * behind `encodedSize`.
 */
export type SinkMode = SinkStrategy | "count";

/** How the encoder sizes its first store: a function of the root value, called only once the scratch overflows. */
export type SizeGuess = (root: unknown) => number;

/**
 * The memory a call writes into: the scratch (and a `DataView` of it) and
 * the kept store. A sink keeps the one it used last and takes it again
 * while no other sink has; encoders share a few (by default size), so
 * creating an encoder allocates nothing and encoders made per call reuse
 * the same memory. A re-entrant call (an extension encoding inside an
 * encode) takes another.
 */
interface Workspace {
  scratch: Uint8Array<ArrayBuffer>;
  view: DataView;
  store: ArrayBuffer | null;
  storeBytes: Uint8Array<ArrayBuffer>;
  /** The sink that used it last: its fields still point at this workspace's buffers. */
  user: Sink | null;
  /** In a call now. */
  busy: boolean;
  /** Made for a shared-size sink while every shared workspace was busy (deep re-entry): dropped after the call. */
  spare: boolean;
}

/**
 * How many workspaces with the default scratch size the process shares:
 * enough for an encode and a few re-entrant levels; deeper nesting
 * allocates workspaces that are dropped after.
 */
const SHARED_WORKSPACES = 4;

/** The shared workspaces (calls are synchronous: one is busy only during a call or its re-entrant calls). */
const SHARED: Workspace[] = [];

function newWorkspace(size: number): Workspace {
  const scratch = new Uint8Array(size);
  return { scratch, view: new DataView(scratch.buffer), store: null, storeBytes: NO_BYTES, user: null, busy: false, spare: false };
}

const NO_BYTES = new Uint8Array(0);
const NO_VIEW = new DataView(NO_BYTES.buffer);

/** Where {@link Sink.probe} lets callers test-encode: any call may use it, none keeps it. */
const PROBE = new Uint8Array(256);

/**
 * Scratch + store + chunk list. The encoder writes through `bytes`/`view` at
 * `pos` after checking `pos + n <= bytes.length` (else {@link Sink.grow});
 * everything else is the slow path.
 */
export class Sink {
  /** Where the encoder writes now: the scratch, or in chunk mode the current chunk. */
  bytes: Uint8Array<ArrayBuffer>;
  /** A `DataView` over `bytes`. */
  view: DataView;
  /** Write position in `bytes`. */
  pos = 0;

  /** The scratch of this call's workspace. */
  private scratch: Uint8Array<ArrayBuffer> = NO_BYTES;
  private scratchView: DataView = NO_VIEW;
  /** The store's buffer, a resizable or a plain one, and a view of all of it. Kept across calls in the workspace. */
  private store: ArrayBuffer | null = null;
  private storeBytes: Uint8Array<ArrayBuffer> = NO_BYTES;
  /** The workspace this sink used last (another sink may have taken it since). */
  private ws: Workspace | null = null;
  /** Whether this sink takes workspaces from {@link SHARED} (default scratch size) or makes its own. */
  private readonly shared: boolean;
  private readonly scratchBytes: number;
  /** Bytes of the store in use in this call. */
  private storeLen = 0;
  /** Whether this call has opened the store. */
  private storeUsed = false;
  /** Store mode: referenced binaries, and the store offset each one follows. */
  private refs: Uint8Array[] = [];
  private cuts: number[] = [];
  private refsLen = 0;
  /** Chunk mode: the output so far, in order, and whether each part is the user's (to be copied). */
  private chunks: Uint8Array[] | null = null;
  private borrowed: boolean[] = [];
  private chunksLen = 0;
  /** A plain buffer standing in for the store where `encodeInto` rejects resizable ones (Chromium). */
  private detour: Uint8Array<ArrayBuffer> | null = null;
  /** The value this call encodes (for the estimate, taken only on overflow). */
  private root: unknown = undefined;

  /** With `poolResults`: the slab small results are cut from, and where its free part starts. */
  private slab: Uint8Array<ArrayBuffer> | null = null;
  private slabPos = 0;

  private readonly strategy: SinkMode;
  /** Counts bytes only: the scratch's bytes are dropped as it fills, payloads are counted, not copied; the count is {@link Sink.count}. */
  readonly counting: boolean;
  private readonly pool: boolean;
  /** Whether large binaries are referenced (not with "exact" and "doubling", which keep their classic one-buffer shape). */
  private readonly referenceLarge: boolean;
  private readonly maxByteLength: number;
  private readonly guess: SizeGuess | null;
  private readonly exactSize: SizeGuess;

  /**
   * @param scratchBytes size of the reusable scratch
   * @param strategy how to grow past it, or `"count"` to count bytes only
   * @param maxByteLength ceiling of one store; past it, the chunk list
   * @param guess the size estimate used to size a resizable store, or null to skip it
   * @param exactSize the exact size, for the `"exact"` strategy
   * @param pool whether small results are views into a shared slab
   */
  constructor(scratchBytes: number, strategy: SinkMode, maxByteLength: number, guess: SizeGuess | null, exactSize: SizeGuess, pool = false) {
    this.pool = pool && POOLING_PAYS;
    this.bytes = NO_BYTES;
    this.view = NO_VIEW;
    this.scratchBytes = Math.max(64, scratchBytes);
    this.shared = this.scratchBytes === DEFAULT_SCRATCH_BYTES;
    this.strategy = strategy === "auto" || (strategy === "resizable" && !CAN_RESIZE) ? (CAN_RESIZE ? "resizable" : "chunks") : strategy;
    this.counting = strategy === "count";
    this.referenceLarge = this.strategy === "resizable" || this.strategy === "chunks";
    this.maxByteLength = Math.min(maxByteLength, MAX_STORE_BYTES);
    this.guess = guess;
    this.exactSize = exactSize;
  }

  /** 256 bytes for a caller to test-encode into before a call (synchronously: they are shared). */
  probe(): Uint8Array {
    return PROBE;
  }

  /** Bytes of output written so far in this call: where the next byte lands in the result. */
  offset(): number {
    return this.pos + (this.chunks !== null ? this.chunksLen : this.storeLen + this.refsLen);
  }

  /** Starts a call that encodes `root`. */
  begin(root: unknown): void {
    // exact: the store is sized by the pre-pass before writing a byte (and before borrowing: it may throw)
    const exact = this.strategy === "exact" ? this.exactSize(root) : -1;
    let ws = this.ws;
    if (ws === null || ws.user !== this || ws.busy) ws = this.take();
    ws.busy = true;
    this.root = root;
    this.pos = 0;
    this.storeLen = 0;
    this.storeUsed = false;
    if (exact >= 0) {
      try {
        this.openPlainStore(exact);
      } catch (error) {
        ws.busy = false; // the call never starts: end() will not run
        throw error;
      }
      this.storeUsed = true;
    }
  }

  /** Drops per-call state after a call, whether it succeeded or threw. */
  end(): void {
    this.root = undefined;
    this.pos = 0;
    // small messages touch none of this: keep the common call free of allocations
    if (this.chunks !== null) {
      this.chunks = null;
      this.borrowed = [];
      this.chunksLen = 0;
    }
    if (this.refs.length !== 0) {
      this.refs = [];
      this.cuts = [];
      this.refsLen = 0;
    }
    this.detour = null;
    if (this.bytes !== this.scratch) {
      this.bytes = this.scratch;
      this.view = this.scratchView;
    }
    if (this.store !== null && !this.counting && (this.strategy !== "resizable" || this.storeBytes.length > RETAIN_MAX_BYTES)) this.dropStore();
    this.release();
  }

  /** Marks the workspace idle, with the scratch and store as this call leaves them. */
  private release(): void {
    const ws = this.ws!;
    if (ws.scratch !== this.scratch || ws.store !== this.store || ws.storeBytes !== this.storeBytes) {
      ws.scratch = this.scratch;
      ws.view = this.scratchView;
      ws.store = this.store;
      ws.storeBytes = this.storeBytes;
    }
    ws.busy = false;
    if (ws.spare) {
      // not one of the shared ones: let it go, so an idle encoder holds no memory
      this.ws = null;
      this.scratch = this.bytes = NO_BYTES;
      this.scratchView = this.view = NO_VIEW;
      this.store = null;
      this.storeBytes = NO_BYTES;
    }
  }

  /** Takes an idle shared workspace (or makes one) and points this sink's fields at it. */
  private take(): Workspace {
    let ws: Workspace | undefined;
    if (this.shared) {
      for (const w of SHARED) {
        if (!w.busy) {
          ws = w;
          break;
        }
      }
    }
    if (ws === undefined) {
      ws = newWorkspace(this.scratchBytes);
      if (this.shared && SHARED.length < SHARED_WORKSPACES) SHARED.push(ws);
      else ws.spare = this.shared;
    }
    ws.user = this;
    this.ws = ws;
    this.scratch = this.bytes = ws.scratch;
    this.scratchView = this.view = ws.view;
    this.store = ws.store;
    this.storeBytes = ws.storeBytes;
    return ws;
  }

  /** Makes room for `n` more contiguous bytes at `pos`. Call only when `pos + n > bytes.length`. */
  grow(n: number): void {
    this.flush();
    if (n > this.bytes.length) {
      // a single item larger than the scratch (only with a tiny scratch): a buffer of its own
      if (this.chunks !== null) {
        this.newChunk(n);
      } else {
        this.bytes = new Uint8Array(n);
        this.view = new DataView(this.bytes.buffer);
      }
    }
  }

  /**
   * Appends `src` (a binary or extension payload) after the bytes written
   * so far: small ones are copied into the scratch, large ones referenced
   * and copied once into the result.
   */
  append(src: Uint8Array): void {
    const n = src.length;
    if (this.pos + n <= this.bytes.length) {
      this.bytes.set(src, this.pos);
      this.pos += n;
      return;
    }
    if (this.counting) {
      this.skip(n);
      return;
    }
    this.flush();
    if (!this.referenceLarge || (n < REFERENCE_MIN_BYTES && n <= this.bytes.length >>> 1)) {
      this.copyAfterFlush(src);
      return;
    }
    if (this.chunks !== null) {
      this.chunks.push(src);
      this.borrowed.push(true);
      this.chunksLen += n;
      return;
    }
    this.cuts.push(this.storeLen);
    this.refs.push(src);
    this.refsLen += n;
  }

  /** Copies `src` into the current buffer, the store or a chunk of its own, right after a flush. */
  private copyAfterFlush(src: Uint8Array): void {
    const n = src.length;
    if (n <= this.bytes.length >>> 1) {
      this.bytes.set(src, 0);
      this.pos = n;
    } else if (this.chunks === null && this.reserveStore(n)) {
      this.storeBytes.set(src, this.storeLen);
      this.storeLen += n;
    } else {
      this.newChunk(n);
      this.bytes.set(src, 0);
      this.pos = n;
    }
  }

  /**
   * For a large string: returns a target with at least `n` bytes free at
   * the returned offset, after flushing the scratch. Call {@link commit}
   * with the bytes written.
   */
  reserveDirect(n: number): { target: Uint8Array; offset: number } {
    this.flush();
    if (this.chunks === null && this.reserveStore(n)) {
      if (ENCODE_INTO_RESIZABLE || !isResizable(this.storeBytes)) return { target: this.storeBytes, offset: this.storeLen };
      // this platform's encodeInto refuses resizable buffers: write to a plain detour, then copy
      this.detour = new Uint8Array(n);
      return { target: this.detour, offset: 0 };
    }
    this.newChunk(n);
    return { target: this.bytes, offset: 0 };
  }

  /** Records `n` bytes written into the target of {@link reserveDirect}. */
  commit(target: Uint8Array, n: number): void {
    if (target === this.detour) {
      this.storeBytes.set(target.subarray(0, n), this.storeLen);
      this.storeLen += n;
      this.detour = null;
    } else if (target === this.storeBytes && this.chunks === null) {
      this.storeLen += n;
    } else {
      this.pos += n;
    }
  }

  /** Count mode: `n` more bytes of output, not written (a payload, a long string). */
  skip(n: number): void {
    this.flush();
    this.storeLen += n;
  }

  /** Count mode: the bytes of output so far (the store's length counts the bytes the scratch dropped). */
  count(): number {
    return this.storeLen + this.pos;
  }

  /** Ends the call and returns the output as one plain `Uint8Array` of exact length. */
  finish(): Uint8Array<ArrayBuffer> {
    if (!this.storeUsed && this.chunks === null && this.refs.length === 0) {
      return this.pool && this.pos <= POOL_MAX_RESULT_BYTES ? this.pooled(this.pos) : this.bytes.slice(0, this.pos);
    }
    if (this.chunks === null) this.flush();
    if (this.chunks !== null) {
      this.seal();
      return concat(this.chunks, this.chunksLen, TOO_BIG_HINT);
    }
    const total = this.storeLen + this.refsLen;
    const store = this.store;
    if (store !== null && this.refs.length === 0 && !store.resizable && total === store.byteLength) {
      // an exactly full plain store (the "exact" strategy) is the result: no copy
      this.dropStore();
      return new Uint8Array(store);
    }
    if (store !== null && store.resizable && total >= SHRINK_COPY_MIN_BYTES) return this.takeShrinking(total);
    return concat(this.storeParts(), total, TOO_BIG_HINT);
  }

  /**
   * The `n` bytes at the start of the scratch, copied into the shared slab:
   * a view, no allocation (a new slab when this one is full, or was
   * detached by a transfer of a result's buffer: its length is then 0).
   */
  private pooled(n: number): Uint8Array<ArrayBuffer> {
    let slab = this.slab;
    let at = this.slabPos;
    if (slab === null || at + n > slab.length) {
      slab = this.slab = new Uint8Array(POOL_SLAB_BYTES);
      at = 0;
    }
    const src = this.bytes;
    if (n <= 64) for (let i = 0; i < n; i++) slab[at + i] = src[i]!;
    else slab.set(new Uint8Array(src.buffer, src.byteOffset, n), at);
    this.slabPos = (at + n + 7) & ~7; // 8-byte aligned starts
    return new Uint8Array(slab.buffer, at, n); // not subarray(): its species lookup costs ~0.3 µs on Node 20
  }

  /**
   * Copies a large output out of a resizable store from its end backwards,
   * shrinking the store behind each step: V8 (Node, Deno) gives the pages
   * back, so the peak is about the output plus one step instead of twice
   * the output.
   */
  private takeShrinking(total: number): Uint8Array<ArrayBuffer> {
    if (total > MAX_STORE_BYTES) concat([], total, TOO_BIG_HINT); // throws OUT_OF_SPACE
    const out = new Uint8Array(total);
    const store = this.store!;
    const bytes = this.storeBytes;
    let at = total;
    let storeEnd = this.storeLen;
    // V8 zeroes what a shrink cuts off before releasing it: cut the unwritten tail (up to a quarter
    // of the store after a growth step) in steps too, or its untouched pages all count at the peak
    for (let end = store.byteLength; end > storeEnd; ) store.resize((end = Math.max(storeEnd, end - SHRINK_COPY_STEP_BYTES)));
    for (let i = this.refs.length; i >= 0; i--) {
      // the store's bytes after cut i-1 (or from 0), then the reference before them
      const from = i === 0 ? 0 : this.cuts[i - 1]!;
      while (storeEnd > from) {
        const start = Math.max(from, storeEnd - SHRINK_COPY_STEP_BYTES);
        at -= storeEnd - start;
        out.set(bytes.subarray(start, storeEnd), at);
        storeEnd = start;
        store.resize(start);
      }
      if (i > 0) {
        const ref = this.refs[i - 1]!;
        at -= ref.length;
        out.set(ref, at);
      }
    }
    this.storeLen = 0;
    return out;
  }

  /** Ends the call and returns the output as plain chunks whose concatenation is the encoding. */
  finishChunks(): Uint8Array<ArrayBuffer>[] {
    if (!this.storeUsed && this.chunks === null && this.refs.length === 0) return [this.bytes.slice(0, this.pos)];
    if (this.chunks === null) this.flush();
    let parts: Uint8Array<ArrayBuffer>[];
    if (this.chunks !== null) {
      this.seal();
      // the user's binaries are copied (slice() also unshares); our own sealed chunks are given away
      parts = this.chunks.map((c, i) => (this.borrowed[i] || isResizable(c) ? c.slice() : c) as Uint8Array<ArrayBuffer>);
    } else {
      parts = this.storeParts().map((c) => c.slice() as Uint8Array<ArrayBuffer>);
    }
    return parts.filter((c) => c.length > 0);
  }

  /**
   * Ends the call by copying the output into `target` at `offset`, with no
   * allocation when it fit the scratch. Returns the byte count.
   */
  finishInto(target: Uint8Array, offset: number): number {
    let parts: Uint8Array[];
    let total: number;
    if (!this.storeUsed && this.chunks === null && this.refs.length === 0) {
      parts = [this.bytes.subarray(0, this.pos)];
      total = this.pos;
    } else {
      if (this.chunks === null) this.flush();
      if (this.chunks !== null) {
        this.seal();
        parts = this.chunks;
        total = this.chunksLen;
      } else {
        parts = this.storeParts();
        total = this.storeLen + this.refsLen;
      }
    }
    if (offset + total > target.length) growTarget(target, offset + total);
    let at = offset;
    for (const part of parts) {
      target.set(part, at);
      at += part.length;
    }
    return total;
  }

  // ---- slow paths ----

  /** Store mode: the output as views of the store interleaved with the referenced binaries. */
  private storeParts(): Uint8Array[] {
    const parts: Uint8Array[] = [];
    const bytes = this.storeBytes;
    let from = 0;
    for (let i = 0; i < this.refs.length; i++) {
      const cut = this.cuts[i]!;
      if (cut > from) parts.push(bytes.subarray(from, cut));
      parts.push(this.refs[i]!);
      from = cut;
    }
    if (this.storeLen > from) parts.push(bytes.subarray(from, this.storeLen));
    return parts;
  }

  /** Moves the scratch's bytes to the store, or in chunk mode seals the current chunk and starts another. */
  private flush(): void {
    const n = this.pos;
    if (n === 0) return;
    if (this.counting) {
      this.storeLen += n;
      this.pos = 0;
      return;
    }
    if (this.chunks === null) {
      if (this.reserveStore(n)) {
        this.storeBytes.set(this.bytes.subarray(0, n), this.storeLen);
        this.storeLen += n;
        this.pos = 0;
        if (this.bytes !== this.scratch) {
          this.bytes = this.scratch;
          this.view = this.scratchView;
        }
        return;
      }
      // the store could not take it: reserveStore switched to chunk mode
    }
    this.seal();
    this.newChunk(0);
  }

  /** Chunk mode: the bytes written in the current buffer become a chunk. */
  private seal(): void {
    if (this.pos === 0) return;
    this.chunks!.push(this.bytes.subarray(0, this.pos));
    this.borrowed.push(false);
    this.chunksLen += this.pos;
    this.pos = 0;
    if (this.bytes === this.scratch) {
      // the scratch now belongs to the output: later calls get a new one
      this.scratch = new Uint8Array(this.scratch.length);
      this.scratchView = new DataView(this.scratch.buffer);
    }
  }

  /**
   * Ensures the store can take `n` more bytes. Returns false after switching
   * to chunk mode (ceiling reached, or the strategy is `"chunks"`).
   */
  private reserveStore(n: number): boolean {
    const need = this.storeLen + n;
    if (!this.storeUsed) {
      if (this.strategy === "chunks" || !this.openStore(need)) {
        this.startChunks();
        return false;
      }
      this.storeUsed = true;
      return true;
    }
    const cap = this.storeBytes.length;
    if (need <= cap) return true;
    const store = this.store!;
    const ceiling = store.resizable ? store.maxByteLength : this.maxByteLength;
    if (need > ceiling) {
      this.startChunks();
      return false;
    }
    // a resizable store grows by a quarter (in place, cheap): shrinking it later touches
    // its unused tail, which V8 zeroes, so the tail is kept small
    const size = Math.min(ceiling, Math.max(need, store.resizable ? Math.ceil(cap * 1.25) : cap * 2));
    if (store.resizable) {
      store.resize(size); // in place: storeBytes tracks the new length
    } else {
      // a plain store (doubling / exact): grow by copying
      const grown = new Uint8Array(size);
      grown.set(this.storeBytes.subarray(0, this.storeLen));
      this.store = grown.buffer;
      this.storeBytes = grown;
    }
    return true;
  }

  /**
   * Opens (or reuses) the store for a call's first overflow, sized from the
   * estimate. Returns false when `need` is past the ceiling.
   */
  private openStore(need: number): boolean {
    if (need > this.maxByteLength) return false;
    const scratchLen = this.scratch.length;
    if (this.strategy !== "resizable") {
      // doubling (exact opens its store in begin())
      this.openPlainStore(Math.max(need, scratchLen * 2));
      return true;
    }
    const estimate = this.guess === null ? 0 : this.guess(this.root);
    // headroom: twice the estimate, at least 64 MiB, as a power of two
    const wanted = this.guess === null ? this.maxByteLength : Math.max(MIN_CEILING_BYTES, estimate * 2);
    const ceiling = Math.min(this.maxByteLength, 2 ** Math.ceil(Math.log2(wanted)));
    if (need > ceiling) return false;
    const initial = Math.min(ceiling, Math.max(need, scratchLen * 2, estimate));
    const kept = this.store;
    if (kept !== null && kept.resizable && kept.maxByteLength >= ceiling && kept.maxByteLength <= this.maxByteLength && kept.byteLength <= ceiling) {
      // the workspace's kept store is reserved far enough already (and not past this encoder's ceiling)
      if (kept.byteLength < initial) kept.resize(initial);
      return true;
    }
    const store = new ArrayBuffer(initial, { maxByteLength: ceiling });
    this.store = store;
    this.storeBytes = new Uint8Array(store); // length-tracking: follows resize()
    return true;
  }

  private openPlainStore(size: number): void {
    const bytes = new Uint8Array(Math.min(size, this.maxByteLength));
    this.store = bytes.buffer;
    this.storeBytes = bytes;
  }

  private dropStore(): void {
    this.store = null;
    this.storeBytes = new Uint8Array(0);
  }

  /** Switches this call to chunk mode; the store's bytes and references become the first parts. */
  private startChunks(): void {
    if (this.chunks !== null) return;
    this.chunks = [];
    this.borrowed = [];
    if (this.storeUsed || this.refs.length > 0) {
      for (const part of this.storeParts()) {
        const isRef = part.buffer !== this.storeBytes.buffer;
        this.chunks.push(part);
        this.borrowed.push(isRef);
      }
      this.chunksLen = this.storeLen + this.refsLen;
      if (this.storeLen > 0) this.dropStore(); // the parts own it now
    }
    this.refs = [];
    this.cuts = [];
    this.refsLen = 0;
    this.storeLen = 0;
    this.storeUsed = false;
  }

  /** Starts a new current chunk of at least `n` bytes (chunk mode). */
  private newChunk(n: number): void {
    const size = Math.max(n, Math.min(MAX_CHUNK_BYTES, Math.max(this.scratch.length, this.chunksLen >>> 2)));
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
    this.pos = 0;
  }
}

/** Grows a length-tracking view of a resizable buffer to `size`, or throws with the target unchanged. */
function growTarget(target: Uint8Array, size: number): void {
  const buffer = target.buffer as ArrayBuffer;
  const before = buffer.byteLength;
  const want = target.byteOffset + size;
  if (buffer.resizable && want <= buffer.maxByteLength) {
    buffer.resize(want);
    if (target.length >= size) return;
    buffer.resize(before); // a fixed-length view does not follow: undo
  }
  throw encodeError(
    `Cannot encode into target: it has room for ${target.length} bytes, the output needs ${size} (use a resizable buffer with a length-tracking view to grow it)`,
    EncodeErrorCode.OUT_OF_SPACE,
  );
}

function isResizable(bytes: Uint8Array): boolean {
  return (bytes.buffer as ArrayBuffer).resizable === true;
}
