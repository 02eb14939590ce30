/**
 * The {@link DecoderStream}: bytes in, values out, for `pipeThrough`. In a
 * module of its own, so that importing the main entry (whose `Decoder` has
 * the stream methods of src/stream/decode.ts) never needs the WHATWG stream
 * classes to exist.
 *
 * @module
 */

import type { StreamDecodeOptions } from "./options.ts";
import type { StreamStats } from "./queue.ts";
import type { ByteChunk } from "./web.ts";
import { StreamReader } from "./reader.ts";
import { values } from "./decode.ts";

/**
 * A transform stream from bytes to values: write byte chunks (split
 * anywhere) to `writable`, read the back-to-back MessagePack values in
 * them from `readable`. Use with `pipeThrough` in Node, Bun, Deno and
 * browsers. It is a readable/writable pair, as `TextDecoderStream` is,
 * not a `TransformStream` subclass: values are decoded one at a time as
 * the reader asks for them, so a chunk holding millions of tiny values
 * costs time linear in them and memory for one at a time, on every
 * runtime. A write settles once the values complete in its chunk have been
 * read (backpressure). On malformed input it gives what
 * {@link decodeMultiStream} gives: the values before the bad one, then the
 * error.
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
export class DecoderStream<ContextType = undefined, Output = unknown> {
  /**
   * The class's name in every build, as it is exported (a minifier renames the class itself).
   * @internal
   */
  // @ts-ignore: a static accessor defines `name` (TypeScript assumes an assignment; Deno's checker does not)
  static get name(): string {
    return "DecoderStream";
  }
  /** The values, decoded as they are read (with `schema`, each value's output). */
  readonly readable: ReadableStream<Output>;
  /** Where the byte chunks go. */
  readonly writable: WritableStream<ByteChunk>;
  /** Buffering counters of this stream (or the `stats` object passed in the options). */
  readonly stats: StreamStats;

  /**
   * @param options see {@link DecodeOptions}; `lengthPrefixed` for u32-framed values; `stats`;
   *   `schema` (which may validate asynchronously) to check each value before it is read
   * @throws {DecodeError} (erroring the stream) as {@link decodeMultiStream}
   */
  constructor(options?: StreamDecodeOptions<ContextType, Output>) {
    const reader = new StreamReader(options as StreamDecodeOptions<unknown> | undefined, "values");
    type Write = { chunk: ByteChunk | null; resolve(): void; reject(e: unknown): void };
    /** A write (or the close: chunk null) the decoder has not taken yet, and the one whose chunk it reads. */
    let queued: Write | null = null;
    let taken: Write | null = null;
    /** The decoder waits for a write. */
    let wake: (() => void) | null = null;
    /** Why the stream failed (a decode error, the reader's cancellation, the writer's abort). */
    let failure: { reason: unknown } | null = null;
    const fail = (reason: unknown): void => {
      failure ??= { reason };
      taken?.reject(reason);
      queued?.reject(reason);
      taken = queued = null;
    };
    /** Settles once the decoder has read every value complete in the chunk and asks for the next (backpressure), or with the failure. */
    const arrive = (chunk: ByteChunk | null): Promise<void> => {
      if (failure !== null) return Promise.reject(failure.reason);
      return new Promise<void>((resolve, reject) => {
        queued = { chunk, resolve, reject };
        wake?.();
      });
    };
    const chunks: AsyncIterator<ByteChunk> = {
      async next() {
        taken?.resolve();
        while (queued === null) await new Promise<void>((resolve) => (wake = resolve));
        taken = queued;
        queued = null;
        return taken.chunk === null ? { done: true, value: undefined } : { done: false, value: taken.chunk };
      },
    };
    const decoded = values(reader, { [Symbol.asyncIterator]: () => chunks });
    let out!: ReadableStreamDefaultController<Output>;
    // no values decoded ahead of the reader (a high-water mark of 0): each read decodes one
    this.readable = new ReadableStream<Output>(
      {
        start(controller): void {
          out = controller;
        },
        async pull(controller): Promise<void> {
          try {
            const r = await decoded.next();
            if (r.done !== true) return controller.enqueue(r.value as Output);
            taken?.resolve(); // the close
            controller.close();
          } catch (e) {
            fail(e);
            controller.error(e);
          }
        },
        cancel: fail,
      },
      { highWaterMark: 0 },
    );
    this.writable = new WritableStream<ByteChunk>({
      write: arrive,
      close: () => arrive(null),
      abort(reason): void {
        fail(reason);
        out.error(reason);
      },
    });
    this.stats = reader.stats;
  }
}
