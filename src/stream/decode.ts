/**
 * Stream decoding: values from a `ReadableStream` or any `AsyncIterable`
 * of byte chunks ({@link decodeAsync}, {@link decodeArrayStream},
 * {@link decodeMultiStream}), with optional u32 big-endian length-prefixed
 * framing. The `DecoderStream` transform stream is in
 * src/stream/transform.ts, so that the main entry, which imports this
 * module, never needs the WHATWG stream classes.
 *
 * Every stream decoder reports what a whole-input decode of the same bytes
 * would (`decode` for one value, `decodeMulti` for back-to-back values):
 * the same values, or the same error code and offset, whatever the
 * chunking. Results own their bytes: binaries are plain `Uint8Array`
 * copies (unless `binaryAsView`), never views of a Node `Buffer` chunk.
 *
 * Cost is linear in the bytes and memory bounded in bytes: a chunk is
 * decoded in place while it is alone; the start of a value split across
 * chunks is copied into one buffer the reader owns (src/stream/reader.ts),
 * a count of its items still to come finds where it ends, walking each
 * byte once (src/stream/scanner.ts), and the value is then decoded by the
 * core decoder with the stream offset of the buffer as its base, so errors
 * carry stream offsets. No Node `Buffer`:
 * it runs in Node, Bun, Deno and browsers.
 *
 * This module imports the core; the core never imports it.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import type { DecodeOptions } from "../decode/decoder.ts";
import { notAStream } from "../common/errors.ts";
import { NEED_MORE, StreamReader } from "./reader.ts";
import type { ByteChunk, ReadableStreamLike, ReadableStreamReaderLike, ReadableStreamSourceLike } from "./web.ts";
import type { StreamDecodeOptions } from "../decode/options.ts";

export { createStreamStats, type StreamStats } from "./queue.ts";
export type { ByteChunk, ReadableStreamLike, StreamDecodeOptions };

/**
 * The chunks of `stream` as an async iterator: an `AsyncIterable`'s own
 * iterator, or a `ReadableStream` read through its reader (its lock
 * released at the end; left early, by `return`, it is cancelled).
 */
function chunksOf(stream: ReadableStreamLike<ByteChunk>): AsyncIterator<ByteChunk> {
  const s = stream as Partial<ReadableStreamSourceLike<ByteChunk>> & Partial<AsyncIterable<ByteChunk>>;
  if (s !== null && typeof s === "object" && typeof s.getReader === "function") return read(s.getReader());
  const iterate = s !== null && typeof s === "object" ? s[Symbol.asyncIterator] : undefined;
  if (typeof iterate === "function") return iterate.call(s);
  throw notAStream(stream);
}

/** The chunks `reader` reads; if left before the end, the stream is cancelled (its failure to stop ignored); the lock released either way. */
async function* read(reader: ReadableStreamReaderLike<ByteChunk>): AsyncGenerator<ByteChunk, void, unknown> {
  let done = false;
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
    done = true;
  } finally {
    const cancelled = done ? null : reader.cancel();
    reader.releaseLock();
    await cancelled?.catch(() => undefined);
  }
}

/**
 * The one loop of every stream decoder: pulls the chunks of `stream` into
 * `reader` and yields what it reads as each value completes (each checked
 * by the schema, awaited by the yield: a mismatch throws here, and stops
 * the stream; one value is checked by the caller, once the stream has
 * ended). On an error the source is cancelled without waiting (a source
 * whose cancellation never settles, or throws, cannot hold back or hide
 * the error); left early, the source is cancelled and waited for, as
 * `for await` does.
 */
export async function* values(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): AsyncGenerator<unknown, void, unknown> {
  const source = chunksOf(stream);
  let open = true;
  try {
    for (let final = false; !final; ) {
      const r = await source.next();
      final = r.done === true;
      if (!final) reader.push(r.value);
      for (let v = reader.next(final); v !== NEED_MORE; v = reader.next(final)) yield reader.shape === "value" ? v : reader.checked(v);
    }
    open = false;
  } catch (e) {
    open = false;
    // not awaited, and the source's own failure to stop (thrown or rejected) ignored: the decode error is what the caller hears of
    void (async () => source.return?.(e))().catch(() => undefined);
    throw e;
  } finally {
    if (open) await source.return?.();
  }
}

/** The one value of the stream `reader` reads, checked once the stream has ended (bytes after it are reported first, as decode() does). */
export async function one(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): Promise<unknown> {
  let value: unknown;
  for await (const v of values(reader, stream)) value = v;
  return reader.checked(value);
}

/**
 * Decodes exactly one MessagePack value from a stream of byte chunks. The
 * value may be split across chunks at any byte.
 *
 * @param stream a `ReadableStream` (e.g. a `fetch` body) or any `AsyncIterable` of chunks (e.g. a Node stream)
 * @param options see {@link DecodeOptions}; `stats` to observe buffering; `schema` (which may
 *   validate asynchronously) to check the value once the stream has ended
 * @returns a promise of the value (with `schema`, the schema's output), settled once the stream has ended
 * @throws {DecodeError} (the promise rejects) with the code and offset `decode` gives for the
 *   same bytes, whatever the chunking: `TRUNCATED` (with `needed`) when the stream ends inside
 *   the value or before it, `EXTRA_BYTES` when bytes follow the value, and every error of
 *   {@link decode}, with `offset` counted from the start of the stream; `MAX_LENGTH` for a value
 *   over `maxValueBytes`; `INVALID_ARGUMENT` for a chunk that is not bytes (an array element
 *   that is not an integer 0..255), with the chunk's stream offset, and for an invalid option
 *   or `lengthPrefixed: true` (frames are for back-to-back values: {@link decodeMultiStream});
 *   `SCHEMA_MISMATCH` for a value the `schema` refuses
 * @throws {TypeError} when `stream` is neither a ReadableStream nor an AsyncIterable
 *
 * @example Decoding a ReadableStream (a `fetch` body is one)
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { decodeAsync } from "@resizable/msgpack/streams";
 * const bytes = encode({ id: 7, tags: ["a"] });
 * const body = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(bytes.subarray(0, 3)); c.enqueue(bytes.subarray(3)); c.close(); } });
 * const value = (await decodeAsync(body)) as { id: number };
 * console.assert(value.id === 7);
 * ```
 */
export async function decodeAsync<ContextType = undefined, Output = unknown>(
  stream: ReadableStreamLike<ByteChunk>,
  options?: StreamDecodeOptions<ContextType, Output>,
): Promise<Output> {
  return one(new StreamReader(options as StreamDecodeOptions<unknown> | undefined, "value"), stream) as Promise<Output>;
}

/**
 * Decodes a stream holding one MessagePack array and yields its items as
 * each one completes, so a long array never has to be in memory at once.
 * Items may be split across chunks at any byte.
 *
 * @param stream a `ReadableStream` or any `AsyncIterable` of chunks
 * @param options see {@link DecodeOptions}; `stats` to observe buffering; `schema` (which may
 *   validate asynchronously) to check each item as it completes
 * @returns an async generator of the array's items (with `schema`, each item's output)
 * @throws {DecodeError} (from the generator) with code `INVALID_BYTE` when the stream does not
 *   start with an array; `TRUNCATED` with `needed` when it ends early; `EXTRA_BYTES` when bytes
 *   follow the array; `INVALID_ARGUMENT` for a chunk that is not bytes, an invalid option or
 *   `lengthPrefixed: true`; and every error of {@link decode}, reported when the item holding
 *   it is reached (a whole-input `decode` of a truncated array reports the array first);
 *   `SCHEMA_MISMATCH` for an item the `schema` refuses, at the item's stream offset, which stops the stream
 * @throws {TypeError} when `stream` is neither a ReadableStream nor an AsyncIterable
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { decodeArrayStream } from "@resizable/msgpack/streams";
 * const bytes = encode([{ id: 1 }, { id: 2 }, { id: 3 }]);
 * async function* chunks() { for (let i = 0; i < bytes.length; i += 4) yield bytes.subarray(i, i + 4); }
 * const ids: number[] = [];
 * for await (const item of decodeArrayStream(chunks())) ids.push((item as { id: number }).id);
 * console.assert(ids.join() === "1,2,3");
 * ```
 */
export async function* decodeArrayStream<ContextType = undefined, Output = unknown>(
  stream: ReadableStreamLike<ByteChunk>,
  options?: StreamDecodeOptions<ContextType, Output>,
): AsyncGenerator<Output, void, unknown> {
  yield* values(new StreamReader(options as StreamDecodeOptions<unknown> | undefined, "array"), stream) as AsyncGenerator<Output, void, unknown>;
}

/**
 * Decodes back-to-back MessagePack values from a stream of byte chunks and
 * yields each as soon as it is complete (a stream of messages on a socket,
 * a file of records). Values may be split across chunks at any byte.
 *
 * @param stream a `ReadableStream` or any `AsyncIterable` of chunks
 * @param options see {@link DecodeOptions}; `lengthPrefixed` for u32-framed values; `stats`;
 *   `schema` (which may validate asynchronously) to check each value as it completes
 * @returns an async generator of the values (with `schema`, each value's output)
 * @throws {DecodeError} (from the generator) with code `TRUNCATED` and `needed` when the stream
 *   ends inside a value or frame, `MAX_LENGTH` for a value over `maxValueBytes`,
 *   `INVALID_ARGUMENT` for a chunk that is not bytes, and every error of {@link decode}; without
 *   `lengthPrefixed`, the values and then the error code and offset that {@link decodeMulti} gives
 *   for the same bytes, whatever the chunking; `SCHEMA_MISMATCH` for a value the `schema`
 *   refuses, at the value's stream offset, which stops the stream
 * @throws {TypeError} when `stream` is neither a ReadableStream nor an AsyncIterable
 *
 * @example
 * ```ts
 * import { encode } from "@resizable/msgpack";
 * import { decodeMultiStream } from "@resizable/msgpack/streams";
 * const stream = new ReadableStream<Uint8Array>({
 *   start(c) { c.enqueue(encode("a")); c.enqueue(encode(2).subarray(0, 1)); c.enqueue(encode(null)); c.close(); },
 * });
 * const values: unknown[] = [];
 * for await (const v of decodeMultiStream(stream)) values.push(v);
 * console.assert(values.length === 3 && values[0] === "a" && values[2] === null);
 * ```
 *
 * @example Each value checked by a schema that validates asynchronously
 * ```ts
 * import { decodeMultiStream, DecodeError, encode, type StandardSchemaV1 } from "@resizable/msgpack/schema";
 * const known = new Set(["a", "b"]); // a lookup that could be a database's
 * const user: StandardSchemaV1<unknown, string> = {
 *   "~standard": { version: 1, vendor: "by-hand", validate: async (v) => (typeof v === "string" && known.has(v) ? { value: v } : { issues: [{ message: "unknown user" }] }) },
 * };
 * async function* chunks() { yield encode("a"); yield encode("b"); yield encode("z"); }
 * const users: string[] = [];
 * try {
 *   for await (const name of decodeMultiStream(chunks(), { schema: user })) users.push(name);
 * } catch (e) {
 *   console.assert(e instanceof DecodeError && e.code === "SCHEMA_MISMATCH" && e.offset === 4); // "z" starts at byte 4
 * }
 * console.assert(users.join() === "a,b");
 * ```
 */
export async function* decodeMultiStream<ContextType = undefined, Output = unknown>(
  stream: ReadableStreamLike<ByteChunk>,
  options?: StreamDecodeOptions<ContextType, Output>,
): AsyncGenerator<Output, void, unknown> {
  yield* values(new StreamReader(options as StreamDecodeOptions<unknown> | undefined, "values"), stream) as AsyncGenerator<Output, void, unknown>;
}
