/**
 * The counters of the stream decoders' buffering ({@link StreamStats}).
 *
 * Memory is bounded in bytes, whatever the chunking: a chunk is decoded in
 * place while it is the only one, and whatever of it is left when the
 * decoder waits for more (the start of a value) is copied into one buffer
 * that the reader owns, which later chunks are appended to. So the reader
 * never holds a source's chunks while it waits (a producer may reuse its
 * buffer), a million 1-byte chunks cost a million bytes, not a million
 * objects, and the buffer is at most about twice the bytes it holds.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

/**
 * Counters a stream decoder keeps about its buffering, for diagnostics and
 * tests: they show that the work is linear in the bytes and the memory
 * bounded. Create one with {@link createStreamStats} and pass it as the
 * `stats` option, or read `DecoderStream.stats`.
 */
export interface StreamStats {
  /** Bytes received from the source. */
  bytesIn: number;
  /**
   * Bytes copied into the decoder's own buffer: the start of a value split
   * across chunks, the chunks after it, and moves when the buffer grows
   * (at most about 3 per byte in all). A value inside one chunk is decoded
   * in place, without a copy.
   */
  bytesCopied: number;
  /** Bytes the decoder was given: each decoded value once, plus the tries of a value split across chunks before it was complete. */
  bytesDecoded: number;
  /** Bytes the item counter walked to find where a value split across chunks ends (each byte at most once). */
  bytesScanned: number;
  /**
   * Bytes the decoder holds now: its own buffer (at most about twice the
   * bytes waiting in it, kept for reuse up to 16 MiB), and the chunk it is
   * decoding in place.
   */
  bufferedBytes: number;
  /** The high-water mark of {@link StreamStats.bufferedBytes}. */
  maxBufferedBytes: number;
}

/**
 * Returns a fresh {@link StreamStats} with every counter at zero, to pass
 * as the `stats` option of a stream decoder.
 *
 * @returns the counters
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { createStreamStats, decodeAsync } from "@resizable/msgpack/streams";
 * const stats = createStreamStats();
 * async function* chunks() { yield encode("hello"); }
 * console.assert((await decodeAsync(chunks(), { stats })) === "hello");
 * console.assert(stats.bytesIn === 6 && stats.bytesCopied === 0);
 * ```
 */
export function createStreamStats(): StreamStats {
  return { bytesIn: 0, bytesCopied: 0, bytesDecoded: 0, bytesScanned: 0, bufferedBytes: 0, maxBufferedBytes: 0 };
}
