/**
 * Where the encoder's output goes once a call outgrows the scratch: a
 * spill. The sink (sink.ts) writes small values into its plain scratch and
 * moves them in bulk into the one spill it opens on the first overflow:
 * - a resizable store (spill-store.ts), grown in place up to a ceiling
 *   chosen from the size estimate;
 * - a chunk list (spill-chunks.ts), when the store would pass its ceiling,
 *   where `ArrayBuffer.prototype.resize` does not exist (Node 18), or when
 *   a full store hands its bytes over;
 * - a count (below), behind `encodedSize`: bytes are counted, not kept.
 *
 * A {@link SpillPlan} says which spill a call opens. The encoder uses
 * {@link AUTO_PLAN}; the benchmarks and tests plug in others (a plain
 * buffer doubled by copying, one of the exact size, a store without the
 * estimate, the chunk list alone) through an internal option keyed by
 * {@link SPILL_PLAN}, which only `new Encoder(options)` reads.
 *
 * @module
 */

import { concat, MAX_RESULT_BYTES } from "./concat.ts";

/**
 * The largest `maxByteLength` every engine accepts (Node 20 and Bun refuse
 * more than 2^32), and the largest single result `encode` returns.
 */
export const MAX_STORE_BYTES: number = MAX_RESULT_BYTES;

/**
 * Binaries (and extension payloads) at least this long are referenced, not
 * copied into a spill: they are copied once, straight into the result.
 */
export const REFERENCE_MIN_BYTES: number = 32_768; // 32 KiB

/** How an error for a result too large for one `Uint8Array` ends. */
const TOO_BIG_HINT = "; use Encoder.encodeChunks";

/**
 * The key of the internal option that replaces the encoder's
 * {@link SpillPlan}: `new Encoder({ [Symbol.for("@resizable/msgpack/spill-plan")]: plan })`.
 * For the strategy benchmark and the tests; not part of the public API.
 */
export const SPILL_PLAN: unique symbol = Symbol.for("@resizable/msgpack/spill-plan") as never;

/** A place where output goes past the scratch. Every method but `length` runs on the slow path only. */
export interface Spill {
  /** Bytes of output this spill holds: where the sink's next byte lands in the result. */
  readonly length: number;
  /**
   * Takes the `n` bytes (at least 1) at the start of `bytes` (the buffer the sink wrote
   * them into: its scratch, or one this spill gave by {@link Spill.room}).
   * Returns false, having taken nothing, when the spill is full.
   */
  take(bytes: Uint8Array, n: number): boolean;
  /**
   * A buffer of this spill's own, at least `n` bytes long, for the sink to
   * write the next bytes into directly (then to hand back to `take`), or
   * null: the sink writes into its scratch.
   */
  room(n: number): Uint8Array<ArrayBuffer> | null;
  /**
   * Appends a binary too large for the sink's buffer (the user's: copy it or
   * keep a reference, never change it). Returns false, having taken
   * nothing, when the spill is full.
   */
  append(src: Uint8Array): boolean;
  /**
   * For a long string written in place: a target with `n` bytes free at
   * `offset` for the caller to write, then {@link Spill.commit}; or null,
   * having reserved nothing, when the spill is full.
   */
  reserve(n: number): { target: Uint8Array; offset: number } | null;
  /** Records `n` bytes written at the target {@link Spill.reserve} gave. */
  commit(n: number): void;
  /** Hands the output over, in order, to the chunk list that continues a full spill; this spill keeps nothing. */
  passTo(list: PartList): void;
  /** The output, in order, as views valid until the call ends (for `encodeInto`). */
  parts(): Uint8Array[];
  /** The output as one plain `Uint8Array` of exact length (for `encode`). */
  result(): Uint8Array<ArrayBuffer>;
  /** The output as plain chunks that belong to the caller, none empty (for `encodeChunks`). */
  chunks(): Uint8Array<ArrayBuffer>[];
  /** Ends the call: the buffer worth keeping for the next call (a resizable store), or null. */
  close(): ArrayBuffer | null;
}

/** Where {@link Spill.passTo} puts the output: a chunk list. */
export interface PartList {
  /** Appends `part`; `lent`: not the list's to give away (a user's binary, a view of a resizable store), copied when handed out. */
  push(part: Uint8Array, lent: boolean): void;
}

/** What a {@link SpillPlan} may ask of the sink that opens a spill. */
export interface SpillContext {
  /** The value this call encodes. */
  readonly root: unknown;
  /** Size of the sink's scratch. */
  readonly scratchLength: number;
  /** The encoder's ceiling for one buffer (`maxByteLength`, at most 2^32). */
  readonly maxByteLength: number;
  /** The exact encoded size of `value`, by the encoder's own counting pass (reads the value a second time). */
  measure(value: unknown): number;
  /** A resizable store with room for `need` bytes, sized from the estimate if `estimate`; null past its ceiling or where buffers cannot resize. */
  openStore(need: number, estimate: boolean): Spill | null;
  /** A chunk list. */
  openChunks(): Spill;
}

/** Which spill a call opens. */
export interface SpillPlan {
  /**
   * A spill to start the call with, before its first byte (null: the
   * scratch, as usual). Runs before the sink takes its workspace (its
   * `scratchLength` may still be 0; `openStore` is for `open` only). May
   * throw: the call then never starts.
   */
  begin?: ((root: unknown, sink: SpillContext) => Spill | null) | undefined;
  /** The spill for a call whose scratch overflows with `need` bytes written. */
  open(need: number, sink: SpillContext): Spill;
}

/** The encoder's plan: a resizable store sized from the estimate, else a chunk list. */
export const AUTO_PLAN: SpillPlan = { open: (need, sink) => sink.openStore(need, true) ?? sink.openChunks() };

/** The plan of a counting sink (`encodedSize`): a count. */
export const COUNT_PLAN: SpillPlan = { open: () => new CountSpill() };

/**
 * What the spills share: each overrides what it does differently. By
 * default a spill has no buffer for the sink to write into (the sink writes
 * into its scratch), every part it holds is lent (copied when handed out),
 * its result is its parts joined, and it keeps nothing after the call.
 */
export abstract class BaseSpill implements Spill {
  length = 0;

  abstract take(bytes: Uint8Array, n: number): boolean;
  abstract append(src: Uint8Array): boolean;
  abstract reserve(n: number): { target: Uint8Array; offset: number } | null;
  abstract commit(n: number): void;
  abstract parts(): Uint8Array[];

  room(_n: number): Uint8Array<ArrayBuffer> | null {
    return null;
  }

  passTo(list: PartList): void {
    for (const part of this.parts()) list.push(part, true);
  }

  result(): Uint8Array<ArrayBuffer> {
    return concat(this.parts(), this.length, TOO_BIG_HINT);
  }

  chunks(): Uint8Array<ArrayBuffer>[] {
    return this.parts().map((c) => c.slice() as Uint8Array<ArrayBuffer>);
  }

  close(): ArrayBuffer | null {
    return null;
  }
}

/**
 * Counts the bytes it is given and keeps none: the spill behind
 * `encodedSize`. A long string is counted, not encoded: the sink adds its
 * size to `length` (so `reserve`/`commit` are never asked).
 */
export class CountSpill extends BaseSpill {
  take(_bytes: Uint8Array, n: number): boolean {
    this.length += n;
    return true;
  }

  append(src: Uint8Array): boolean {
    return this.take(src, src.length);
  }

  reserve(): null {
    return null;
  }

  commit(n: number): void {
    this.length += n;
  }

  parts(): Uint8Array[] {
    return [];
  }
}
