/**
 * Where a call's output goes once it outgrows the scratch: its store (the
 * words are defined in output.ts). The output moves its scratch's bytes
 * into the one store a call opens, in bulk:
 * - the resizable store (resizable-store.ts), grown in place up to a
 *   ceiling chosen from the size estimate;
 * - the chunks (chunks.ts), past that ceiling, where
 *   `ArrayBuffer.prototype.resize` does not exist (Node 18), or for a
 *   resizable store that filled up;
 * - a count (below), behind `encodedSize`: bytes are counted, not kept;
 * - the streaming encoder's chunks (stream/chunker.ts).
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
 * copied into a store: they are copied once, straight into the result.
 */
export const REFERENCE_MIN_BYTES: number = 32_768; // 32 KiB

/** How an error for a result too large for one `Uint8Array` ends. */
const TOO_BIG_HINT = "; use Encoder.encodeChunks";

/** Where output goes past the scratch. Every method but `length` runs on the slow path only. */
export interface Store {
  /** Bytes of output this store holds: where the output's next byte lands in the result. */
  readonly length: number;
  /**
   * Takes the `n` bytes (at least 1) at the start of `bytes` (the buffer the output wrote
   * them into: its scratch, or a tail this store gave by {@link Store.tail}).
   * Returns false, having taken nothing, when the store is full.
   */
  write(bytes: Uint8Array, n: number): boolean;
  /**
   * A free tail of this store's own, at least `n` bytes long, for the
   * output to write the next bytes into directly (then to hand back to
   * `write`), or null: the output writes into its scratch.
   */
  tail(n: number): Uint8Array<ArrayBuffer> | null;
  /**
   * Appends a binary too large for the output's buffer (the user's: copy
   * it or keep a reference, never change it). Returns false, having taken
   * nothing, when the store is full.
   */
  append(src: Uint8Array): boolean;
  /**
   * For a long string written in place: a target with `n` bytes free at
   * `offset` for the caller to write, then {@link Store.commit}; or null,
   * having reserved nothing, when the store is full.
   */
  reserve(n: number): { target: Uint8Array; offset: number } | null;
  /** Records `n` bytes written at the target {@link Store.reserve} gave. */
  commit(n: number): void;
  /** The output, in order, as views valid until the call ends (for `encodeInto`, and the chunks that continue a full store). */
  parts(): Uint8Array[];
  /** The output as one plain `Uint8Array` of exact length (for `encode`). */
  result(): Uint8Array<ArrayBuffer>;
  /** The output as plain chunks that belong to the caller, none empty (for `encodeChunks`). */
  chunks(): Uint8Array<ArrayBuffer>[];
  /** Ends the call: the buffer worth keeping for the next call (a resizable store), or null. */
  close(): ArrayBuffer | null;
}

/**
 * What the stores share: each overrides what it does differently. By
 * default a store has no tail for the output to write into (the output
 * writes into its scratch), its result is its parts joined, its chunks are
 * copies of its parts, and it keeps nothing after the call.
 */
export abstract class BaseStore implements Store {
  length = 0;

  abstract write(bytes: Uint8Array, n: number): boolean;
  abstract append(src: Uint8Array): boolean;
  abstract reserve(n: number): { target: Uint8Array; offset: number } | null;
  abstract commit(n: number): void;
  abstract parts(): Uint8Array[];

  tail(_n: number): Uint8Array<ArrayBuffer> | null {
    return null;
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
 * Counts the bytes it is given and keeps none: the store behind
 * `encodedSize`. A long string is counted, not encoded: the output adds
 * its size with {@link Count.commit} (so `reserve` is never asked).
 */
export class Count extends BaseStore {
  write(_bytes: Uint8Array, n: number): boolean {
    this.length += n;
    return true;
  }

  append(src: Uint8Array): boolean {
    return this.write(src, src.length);
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
