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
import { NEED_MORE, StreamReader } from "./reader.ts";

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
    const reader = new StreamReader(options as StreamDecodeOptions<unknown> | undefined, true);
    let out!: ReadableStreamDefaultController<Output>;
    /** The write whose chunk is being read: it settles once every value complete in the bytes has been read. */
    let writing: { resolve(): void; reject(e: unknown): void } | null = null;
    /** The reader asked for a value that is not there yet. */
    let wanted = false;
    /** A decode error (or the reader's cancellation): the readable errors with it once the values before it are read. */
    let failed = false;
    let failure: unknown;
    let done = false;
    /** A value is with an asynchronous schema: it is handed over (and the next one read) once checked. */
    let checking = false;

    /** Errors the readable with the failure once nothing is queued on it (erroring drops queued values). */
    const raise = (): void => {
      if (!done && out.desiredSize === 0) {
        done = true;
        out.error(failure);
      }
    };
    const fail = (e: unknown): void => {
      failed = true;
      failure = e;
      writing?.reject(e);
      writing = null;
      raise();
    };
    const hand = (value: unknown): void => {
      wanted = false;
      out.enqueue(value as Output);
      wanted = (out.desiredSize ?? 0) > 0;
    };
    /** Hands values to the reader while it wants them; settles the write once its bytes hold no complete value. */
    const pump = (): void => {
      if (failed) return raise();
      if (writing === null || checking) return; // what is left is the start of a value (wait for the next chunk), or a value is being checked
      try {
        while (wanted) {
          const value = reader.next(false);
          if (value === NEED_MORE) {
            const w = writing;
            writing = null;
            w.resolve();
            return;
          }
          const checked = reader.checked(value);
          if (!(checked instanceof Promise)) {
            hand(checked);
            continue;
          }
          checking = true;
          checked.then(
            (v) => {
              checking = false;
              if (failed) return raise();
              hand(v);
              pump();
            },
            (e) => {
              checking = false;
              if (!failed) fail(e);
            },
          );
          return;
        }
      } catch (e) {
        fail(e);
      }
    };

    // no values decoded ahead of the reader (a high-water mark of 0): each read decodes one
    this.readable = new ReadableStream<Output>(
      {
        start(controller): void {
          out = controller;
        },
        pull(): void {
          wanted = true;
          pump();
        },
        cancel(reason): void {
          done = true;
          if (!failed) fail(reason);
        },
      },
      { highWaterMark: 0 },
    );
    this.writable = new WritableStream<ByteChunk>({
      write(chunk): Promise<void> | void {
        if (failed) throw failure;
        try {
          reader.queue.push(reader.bytes(chunk));
        } catch (e) {
          fail(e);
          throw e;
        }
        return new Promise<void>((resolve, reject) => {
          writing = { resolve, reject };
          pump();
        });
      },
      async close(): Promise<void> {
        if (failed) throw failure;
        try {
          // every complete value has been read: what is left is a value cut short (TRUNCATED)
          while (reader.queue.available > 0) out.enqueue((await reader.checked(reader.next(true))) as Output);
        } catch (e) {
          fail(e);
          throw e;
        }
        done = true;
        out.close();
      },
      abort(reason): void {
        if (done) return;
        done = true;
        failed = true;
        failure = reason;
        out.error(reason);
      },
    });
    this.stats = reader.queue.stats;
  }
}
