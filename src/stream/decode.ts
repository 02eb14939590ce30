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
 * chunks is copied into one buffer the decoder owns (src/stream/queue.ts),
 * a count of its items still to come finds where it ends, walking each
 * byte once (src/stream/scanner.ts), and the value is then decoded
 * (src/stream/reader.ts) by the core decoder with the stream offset of the
 * buffer as its base, so errors carry stream offsets. No Node `Buffer`:
 * it runs in Node, Bun, Deno and browsers.
 *
 * This module imports the core; the core never imports it.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import type { DecodeOptions } from "../decode/decoder.ts";
import { headerError } from "../decode/limits.ts";
import { WIRE_ARRAY } from "../format/forms.ts";
import { DecodeError, notAStream, truncated } from "../common/errors.ts";
import type { StreamStats } from "./queue.ts";
import { arrayHeader, arrayTruncated, endedEmpty, endedInside, extraAfter, NEED_MORE, StreamReader } from "./reader.ts";
import type { ByteChunk, ReadableStreamLike, ReadableStreamSourceLike } from "./web.ts";
import type { StreamDecodeOptions } from "./options.ts";

export { createStreamStats, type StreamStats } from "./queue.ts";

// ---------------------------------------------------------------------------
// Types and options

export type { ReadableStreamLike } from "./web.ts";

export type { ByteChunk, StreamDecodeOptions };

// ---------------------------------------------------------------------------
// Sources

/** What {@link ChunkSource.next} returns at the end of the source (a chunk may be null: it is an error). */
const END: unique symbol = Symbol("end of stream");
type End = typeof END;

/** Pulls byte chunks from a `ReadableStream` or an `AsyncIterable`, one at a time. */
interface ChunkSource {
  /** The next chunk, or END. */
  next(): Promise<ByteChunk | End>;
  /**
   * Lets go of the source; `cancel` cancels it (the consumer stopped early:
   * waits for the source to finish, as `for await` does when left early).
   */
  close(cancel: boolean): Promise<void>;
  /**
   * Cancels the source after decoding failed, with the error as the reason:
   * starts the cancellation without waiting for it, so that a source whose
   * cancellation never settles, or throws, cannot hold back or hide the
   * error.
   */
  abandon(reason: unknown): void;
}

/** Runs `start` (which may throw or return a promise that rejects or never settles) without waiting or failing. */
function fireAndForget(start: () => unknown): void {
  try {
    const p = start() as { then?: unknown } | undefined;
    if (p !== null && typeof p === "object" && typeof p.then === "function") (p as Promise<unknown>).then(undefined, () => undefined);
  } catch {
    // the source's own failure to stop: the decode error is what the caller hears of
  }
}

function openSource(stream: ReadableStreamLike<ByteChunk>): ChunkSource {
  const s = stream as Partial<ReadableStreamSourceLike<ByteChunk>> & Partial<AsyncIterable<ByteChunk>>;
  if (s !== null && typeof s === "object" && typeof s.getReader === "function") {
    const reader = s.getReader();
    return {
      async next() {
        const r = await reader.read();
        return r.done ? END : r.value;
      },
      async close(cancel) {
        if (cancel) await reader.cancel().catch(() => undefined);
        reader.releaseLock();
      },
      abandon(reason) {
        fireAndForget(() => reader.cancel(reason));
        reader.releaseLock();
      },
    };
  }
  const iterate = s !== null && typeof s === "object" ? s[Symbol.asyncIterator] : undefined;
  if (typeof iterate === "function") {
    const it = iterate.call(s);
    return {
      async next() {
        const r = await it.next();
        return r.done === true ? END : r.value;
      },
      async close(cancel) {
        if (cancel && typeof it.return === "function") await it.return();
      },
      abandon() {
        if (typeof it.return === "function") fireAndForget(() => it.return!());
      },
    };
  }
  throw notAStream(stream);
}

// ---------------------------------------------------------------------------
// Decoding streams

/**
 * Pulls the chunks of `stream` into the reader's queue, yielding each
 * chunk once it is queued, then null at the end. The consumer reads with
 * `next()` (not `for await`, which would cancel and wait on an error): on
 * an error it calls `throw(e)`, which cancels the source without waiting
 * (a source whose cancellation never settles cannot hold back the error);
 * left early, `return()` cancels the source and waits, as `for await` does.
 */
async function* feed(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): AsyncGenerator<Uint8Array | null, void, unknown> {
  const source = openSource(stream);
  let ended = false;
  let failed = false;
  try {
    for (let raw = await source.next(); raw !== END; raw = await source.next()) {
      const chunk = reader.bytes(raw);
      reader.queue.push(chunk);
      yield chunk;
    }
    yield null;
    ended = true;
  } catch (e) {
    failed = true;
    source.abandon(e);
    throw e;
  } finally {
    if (!failed) await source.close(!ended);
  }
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
  return readOne(new StreamReader(options as StreamDecodeOptions<unknown> | undefined, false), stream) as Promise<Output>;
}

/** {@link decodeAsync} with a given reader. */
export async function readOne(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): Promise<unknown> {
  const q = reader.queue;
  const chunks = feed(reader, stream);
  let done = false;
  let value: unknown;
  /** The first bytes of the stream, to name a stream that is no MessagePack when bytes follow its "value". */
  let head: Uint8Array | null = null;
  try {
    for (let r = await chunks.next(); r.done !== true; r = await chunks.next()) {
      const chunk = r.value;
      if (chunk !== null && (head === null || head.length < 64)) head = headOf(head, chunk);
      if (!done && (value = reader.next(chunk === null)) !== NEED_MORE) done = true;
      if (done && q.available > 0) throw extraAfter(q.offset, "value", head);
    }
  } catch (e) {
    await chunks.throw(e);
  }
  return reader.checked(value); // with a schema, once the stream has ended: bytes after the value are reported first, as decode() does
}

/** The first 64 bytes of a stream: `head` so far (a copy, never a view of a chunk), then `chunk`. */
function headOf(head: Uint8Array | null, chunk: Uint8Array): Uint8Array {
  const n = head === null ? 0 : head.length;
  const out = new Uint8Array(Math.min(64, n + chunk.length));
  if (head !== null) out.set(head);
  out.set(chunk.subarray(0, out.length - n), n);
  return out;
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
  yield* readArray(new StreamReader(options as StreamDecodeOptions<unknown> | undefined, false), stream) as AsyncGenerator<Output, void, unknown>;
}

/** {@link decodeArrayStream} with a given reader. */
export async function* readArray(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): AsyncGenerator<unknown, void, unknown> {
  const q = reader.queue;
  const chunks = feed(reader, stream);
  let left = -1; // items still to come, or -1 before the header
  // decode() checks an array's item count against the bytes (each item takes one at least) before
  // its depth and its items: an error is held until the stream has reached `itemsEnd` (then thrown)
  // or has ended short of it (then the array is truncated, as decode() says)
  let arrayAt = 0;
  let count = 0;
  let itemsEnd = 0;
  let held: DecodeError | null = null;
  try {
    for (let r = await chunks.next(); r.done !== true; r = await chunks.next()) {
      const final = r.value === null;
      if (left === 0 && q.available > 0) throw extraAfter(q.offset, "array");
      if (left < 0) {
        if (q.available === 0) {
          if (final) throw endedEmpty(q.offset, "array header");
          continue;
        }
        const [n, size] = arrayHeader(q.bytes, q.start, q.end, q.offset);
        if (n < 0) {
          if (final) throw endedInside(truncated(q.offset, size, q.offset + q.available, "array header"), q.offset + q.available);
          q.settle();
          continue;
        }
        // decode()'s verdict on the header: a length over the limit at once, a depth error held (see above)
        arrayAt = q.offset;
        const refused = headerError(reader.decoder.limits, WIRE_ARRAY, n, 0, false, arrayAt);
        if (refused !== null && refused.code !== "MAX_DEPTH") throw refused;
        held = refused;
        left = count = n;
        q.stats.bytesDecoded += size;
        q.consume(size);
        itemsEnd = q.offset + n;
        reader.depth = 1; // the items, one level down, as decode() reads them
      }
      while (left > 0 && held === null) {
        let item: unknown;
        try {
          item = reader.next(final);
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e;
          held = e;
          break;
        }
        if (item === NEED_MORE) break;
        left--;
        yield reader.checked(item); // awaited by the yield: a mismatch (or a validator's error) throws here, and stops the stream
      }
      if (held !== null) {
        const received = q.offset + q.available;
        if (received >= itemsEnd) throw held;
        if (final) throw arrayTruncated(arrayAt, count, itemsEnd, received);
        q.consume(q.available); // only the count of the bytes still matters
        q.settle();
      } else if (left === 0 && q.available > 0) throw extraAfter(q.offset, "array");
    }
  } catch (e) {
    await chunks.throw(e);
  } finally {
    await chunks.return();
  }
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
  yield* readMany(new StreamReader(options as StreamDecodeOptions<unknown> | undefined, true), stream) as AsyncGenerator<Output, void, unknown>;
}

/** {@link decodeMultiStream} with a given reader. */
export async function* readMany(reader: StreamReader, stream: ReadableStreamLike<ByteChunk>): AsyncGenerator<unknown, void, unknown> {
  const chunks = feed(reader, stream);
  try {
    for (let r = await chunks.next(); r.done !== true; r = await chunks.next()) {
      // each value as the schema gives it, awaited by the yield (a mismatch throws here, and stops the stream)
      if (r.value !== null) for (let v = reader.next(false); v !== NEED_MORE; v = reader.next(false)) yield reader.checked(v);
      else while (reader.queue.available > 0) yield reader.checked(reader.next(true));
    }
  } catch (e) {
    await chunks.throw(e);
  } finally {
    await chunks.return();
  }
}
