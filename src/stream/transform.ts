/**
 * The {@link DecoderStream}: bytes in, values out, for `pipeThrough`. In a
 * module of its own, so that importing the main entry (whose `Decoder` has
 * the stream methods of src/stream/decode.ts) never needs the WHATWG stream
 * classes to exist.
 *
 * @module
 */

import type { StreamDecodeOptions } from "../decode/options.ts";
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
    const reader = new StreamReader(options as StreamDecodeOptions<unknown> | undefined, "values");
    let out!: ReadableStreamDefaultController<Output>;
    let sink!: WritableStreamDefaultController;
    /** The write whose chunk is being read (or the close): it settles once the reader needs the next chunk (backpressure). */
    let writing: { resolve(): void; reject(e: unknown): void } | null = null;
    /** A read waiting for a write or the close. */
    let waiting: (() => void) | null = null;
    let closed = false;
    /** Fails both sides (a decode error, the reader's cancellation, the writer's abort): later writes are refused by the writable itself. */
    const fail = (reason: unknown): void => {
      writing?.reject(reason);
      writing = null;
      sink.error(reason);
      out.error(reason);
    };
    /** Settles once the chunk's complete values have been read, or with the failure. */
    const take = (chunk: ByteChunk | null): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        writing = { resolve, reject };
        try {
          if (chunk === null) closed = true;
          else reader.push(chunk);
          waiting?.();
        } catch (e) {
          fail(e);
        }
      });
    /** Hands the reader the next value, decoded now (none ahead of the reader: a high-water mark of 0). */
    const pull = (): Promise<void> | void => {
      waiting = null;
      try {
        const value = reader.next(closed);
        if (value === NEED_MORE) {
          writing?.resolve();
          writing = null;
          if (closed) return out.close();
          return new Promise<void>((resolve) => (waiting = resolve)).then(pull);
        }
        const checked = reader.checked(value); // a Promise with an asynchronous schema
        if (!(checked instanceof Promise)) return out.enqueue(checked as Output);
        return checked.then((v) => out.enqueue(v as Output), fail);
      } catch (e) {
        fail(e);
      }
    };
    this.readable = new ReadableStream<Output>({ start: (c) => void (out = c), pull, cancel: fail }, { highWaterMark: 0 });
    this.writable = new WritableStream<ByteChunk>({ start: (c) => void (sink = c), write: take, close: () => take(null), abort: fail });
    this.stats = reader.stats;
  }
}
