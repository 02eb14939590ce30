/**
 * The `Decoder` of the main entry: the core decoder plus the stream
 * methods of @msgpack/msgpack's `Decoder` ({@link Decoder.decodeAsync},
 * {@link Decoder.decodeArrayStream}, {@link Decoder.decodeStream}). It
 * extends the core class, so `instanceof`, the options and every core
 * method work as before; the core never imports this module, and a bundle
 * that does not use `Decoder` leaves it out.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { CoreDecoder } from "../decode/decoder.ts";
import type { PositionalDecoderArguments, StreamDecodeOptions } from "../decode/options.ts";
import { one, values } from "./decode.ts";
import { StreamReader, type StreamShape } from "./reader.ts";
import type { ByteChunk, ReadableStreamLike } from "./web.ts";

/**
 * A reusable decoder, with stream methods. Safe to re-enter (an extension
 * decoder may call `decode`), and to run several streams at once.
 *
 * @example
 * ```ts
 * import { Decoder, encode } from "@resizable/msgpack";
 * const decoder = new Decoder({ useMap: true });
 * const map = decoder.decode(encode({ a: 1 })) as Map<string, number>;
 * console.assert(map.get("a") === 1);
 * async function* chunks() { yield encode([1, 2]); yield encode("three"); }
 * const values: unknown[] = [];
 * for await (const v of decoder.decodeStream(chunks())) values.push(v);
 * console.assert(values.length === 2 && values[1] === "three");
 * ```
 */
export class Decoder<ContextType = undefined, Output = unknown> extends CoreDecoder<ContextType, Output> {
  /**
   * The class's name in every build, as it is exported (a minifier renames the class itself).
   * @internal
   */
  // @ts-ignore: a static accessor defines `name` (TypeScript assumes an assignment; Deno's checker does not)
  static get name(): string {
    return "Decoder";
  }

  /**
   * @param options see `DecodeOptions`; the stream methods also take
   *   `maxValueBytes`, `stats` and `lengthPrefixed` (see `StreamDecodeOptions`
   *   in `@resizable/msgpack/streams`; `lengthPrefixed` applies to
   *   `decodeStream` only, and makes `decodeAsync` and `decodeArrayStream`
   *   reject with `INVALID_ARGUMENT`); with `schema`, every method's values are the schema's
   *   output (the stream methods may wait for an asynchronous schema)
   * @throws {DecodeError} (code `INVALID_ARGUMENT`) for an invalid option, as the core decoder, and
   *   for an invalid stream option
   */
  constructor(options?: StreamDecodeOptions<ContextType, Output>);
  /**
   * @msgpack/msgpack 2.x's positional form (see the core `Decoder`): each
   * argument is the option of that name, `undefined` for its default.
   */
  constructor(...args: PositionalDecoderArguments<ContextType>);
  constructor(...args: unknown[]) {
    super(...(args as PositionalDecoderArguments<ContextType>)); // the core reads either form
  }

  /**
   * Decodes exactly one value from a stream of byte chunks, as the
   * `decodeAsync` function does with this decoder's options.
   *
   * @param stream a `ReadableStream` or any `AsyncIterable` of chunks (a Node stream, a `Blob`'s `.stream()`)
   * @returns a promise of the value
   * @throws {DecodeError} (the promise rejects) as `decodeAsync`
   *
   * @example
   * ```ts
   * import { Decoder, encode } from "@resizable/msgpack";
   * const value = await new Decoder().decodeAsync(new Blob([encode({ a: [1, 2] })]).stream());
   * console.assert((value as { a: number[] }).a[1] === 2);
   * ```
   */
  async decodeAsync(stream: ReadableStreamLike<ByteChunk>): Promise<Output> {
    return one(this.reader("value"), stream) as Promise<Output>;
  }

  /**
   * Decodes a stream holding one array and yields its items as each one
   * completes, as the `decodeArrayStream` function does.
   *
   * @param stream a `ReadableStream` or any `AsyncIterable` of chunks
   * @returns an async generator of the array's items
   * @throws {DecodeError} (from the generator) as `decodeArrayStream`
   *
   * @example
   * ```ts
   * import { Decoder, encode } from "@resizable/msgpack";
   * const items: unknown[] = [];
   * for await (const item of new Decoder().decodeArrayStream(new Blob([encode(["a", "b"])]).stream())) items.push(item);
   * console.assert(items.join() === "a,b");
   * ```
   */
  async *decodeArrayStream(stream: ReadableStreamLike<ByteChunk>): AsyncGenerator<Output, void, unknown> {
    yield* values(this.reader("array"), stream) as AsyncGenerator<Output, void, unknown>;
  }

  /**
   * Decodes back-to-back values from a stream and yields each as soon as it
   * is complete, as the `decodeMultiStream` function does.
   *
   * @param stream a `ReadableStream` or any `AsyncIterable` of chunks
   * @returns an async generator of the values
   * @throws {DecodeError} (from the generator) as `decodeMultiStream`
   *
   * @example
   * ```ts
   * import { Decoder, encode } from "@resizable/msgpack";
   * const values: unknown[] = [];
   * for await (const v of new Decoder().decodeStream(new Blob([encode(1), encode(2)]).stream())) values.push(v);
   * console.assert(values.join() === "1,2");
   * ```
   */
  decodeStream(stream: ReadableStreamLike<ByteChunk>): AsyncGenerator<Output, void, unknown> {
    return values(this.reader("values"), stream) as AsyncGenerator<Output, void, unknown>;
  }

  /** A reader for one stream that holds `shape`. */
  private reader(shape: StreamShape): StreamReader {
    return new StreamReader(undefined, shape, this as CoreDecoder<unknown, unknown>);
  }
}
