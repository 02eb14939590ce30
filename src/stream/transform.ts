/**
 * The {@link DecoderStream} TransformStream: bytes in, values out. In a
 * module of its own, so that importing the main entry (whose `Decoder` has
 * the stream methods of src/stream/decode.ts) never needs `TransformStream`
 * to exist.
 *
 * @module
 */

import type { ByteChunk, StreamDecodeOptions, StreamStats } from "./decode.ts";
import { NEED_MORE, StreamReader } from "./reader.ts";
import { type TransformControllerLike, TransformStreamBase } from "./web.ts";

/**
 * A WHATWG `TransformStream` from bytes to values: write byte chunks
 * (split anywhere), read the back-to-back MessagePack values in them. Use
 * with `pipeThrough` in Node, Bun, Deno and browsers. It honours
 * backpressure: a chunk is decoded only when the reader wants values, and
 * the values of one chunk are queued together. On malformed input it gives
 * what {@link decodeMultiStream} gives: the values before the bad one, then
 * the error.
 *
 * @example Decoding a fetch body value by value
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { DecoderStream } from "@resizable/msgpack/streams";
 * const body = new Response(new Uint8Array([...encode(1), ...encode("two")])).body!;
 * const reader = body.pipeThrough(new DecoderStream()).getReader();
 * const values: unknown[] = [];
 * for (let r = await reader.read(); !r.done; r = await reader.read()) values.push(r.value);
 * console.assert(values[0] === 1 && values[1] === "two");
 * ```
 */
export class DecoderStream<ContextType = undefined> extends TransformStreamBase<ByteChunk, unknown> {
  /** Buffering counters of this stream (or the `stats` object passed in the options). */
  readonly stats: StreamStats;

  /**
   * @param options see {@link DecodeOptions}; `lengthPrefixed` for u32-framed values; `stats`
   * @throws {DecodeError} (erroring the stream) as {@link decodeMultiStream}
   */
  constructor(options?: StreamDecodeOptions<ContextType>) {
    const reader = new StreamReader(options as StreamDecodeOptions<unknown> | undefined, true);
    // An error after values of the same chunk is held back until they are read: erroring a
    // TransformStream drops what is queued on its readable side.
    let failed = false;
    let failure: unknown;
    /** Enqueues values until `next` says NEED_MORE or the bytes run out; keeps an error for later if values went first. */
    const drain = (controller: TransformControllerLike<unknown>, final: boolean): void => {
      let sent = false;
      try {
        while (!final || reader.queue.available > 0) {
          const value = reader.next(final);
          if (value === NEED_MORE) return;
          controller.enqueue(value);
          sent = true;
        }
      } catch (e) {
        if (!sent) throw e;
        failed = true;
        failure = e;
      }
    };
    super({
      transform(chunk, controller): void {
        if (failed) throw failure;
        reader.push(reader.bytes(chunk));
        drain(controller, false);
      },
      async flush(controller): Promise<void> {
        if (!failed) {
          try {
            drain(controller, true);
          } catch (e) {
            failed = true;
            failure = e;
          }
        }
        if (!failed) return;
        // values before the error may still be queued: let the reader take them, then error
        while ((controller.desiredSize ?? 0) < 0) await new Promise((resolve) => setTimeout(resolve, 1));
        throw failure;
      },
    });
    this.stats = reader.queue.stats;
  }
}
