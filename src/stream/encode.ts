/**
 * Stream encoding: the {@link EncoderStream} TransformStream (with
 * optional u32 big-endian length-prefixed framing), and an encoder that
 * yields the bytes of one huge value in chunks while it encodes
 * ({@link encodeIterable}, {@link encodeToStream},
 * {@link encodeToReadableStream}).
 *
 * This module imports the core; the core never imports it.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { Encoder, type EncodeOptions } from "../encode/encoder.ts";
import { recordEntries, type ValueWriter } from "../encode/walk.ts";
import { writeBinHeader, writeContainerHeader, writeU32 } from "../format/forms.ts";
import { badCount, changedAt, EncodeErrorCode, encodeError, invalidEncodeOption, tooLong } from "../common/errors.ts";
import { extensionEncoders } from "../format/extensions.ts";
import { encodeOptionsOf, withResolved, type ResolvedEncodeOptions } from "../encode/options.ts";
import { KIND_ARRAY, KIND_BINARY, KIND_MAP, KIND_RECORD, KIND_SET, objectKind } from "../format/kind.ts";
import { asBuffer, nodeBuffer } from "../common/engine.ts";
import { TransformStreamBase } from "./web.ts";
import { binaryBytes, sizeUpTo } from "../encode/size.ts";

const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/**
 * Options of the stream encoders: the encode options, and what each
 * stream encoder adds (the others ignore it). One type for
 * {@link EncoderStream}, {@link encodeIterable}, {@link encodeToStream}
 * and {@link encodeToReadableStream}.
 *
 * @example One options object for a framed stream and a chunked value
 * ```ts
 * import { EncoderStream, encodeIterable, type StreamEncodeOptions } from "@resizable/msgpack/streams";
 * const options: StreamEncodeOptions = { sortKeys: true, lengthPrefixed: true, chunkSize: 4096 };
 * const stream = new EncoderStream(options); // frames each value
 * const chunks = [...encodeIterable({ b: 1, a: "x".repeat(10_000) }, options)]; // 4 KiB chunks
 * console.assert(stream.readable !== undefined && chunks.length === 3);
 * ```
 */
export interface StreamEncodeOptions<ContextType = undefined> extends EncodeOptions<ContextType> {
  /**
   * {@link EncoderStream}: write each value's length as a u32 big-endian
   * prefix before it, for protocols that frame messages. Values of 2^32
   * bytes or more throw an `EncodeError` (code `TOO_LONG`).
   * @default false
   */
  lengthPrefixed?: boolean | undefined;
  /**
   * {@link encodeIterable}, {@link encodeToStream},
   * {@link encodeToReadableStream}: the size of the chunks the encoder
   * fills, in bytes. Containers whose encoding may be larger are encoded
   * in parts; binaries of at least this size are yielded as views of the
   * input, without a copy.
   * @default 65536
   */
  chunkSize?: number | undefined;
  /**
   * {@link encodeToStream}: leave the writable stream open after the last
   * chunk, as `pipeTo`'s option of that name.
   * @default false
   */
  preventClose?: boolean | undefined;
}

/**
 * A WHATWG `TransformStream` from values to bytes: write values, read their
 * MessagePack encodings (each value's bytes as one or more chunks,
 * optionally after a u32 big-endian length prefix). Use with `pipeThrough`
 * in Node, Bun, Deno and browsers; it honours backpressure, encoding a
 * value only when the reader wants bytes.
 *
 * @example Length-prefixed round trip
 * ```ts
 * import { DecoderStream, EncoderStream } from "@resizable/msgpack/streams";
 * const values = new ReadableStream({ start(c) { c.enqueue({ a: 1 }); c.enqueue([2]); c.close(); } });
 * const bytes = values.pipeThrough(new EncoderStream({ lengthPrefixed: true }));
 * const reader = bytes.pipeThrough(new DecoderStream({ lengthPrefixed: true })).getReader();
 * const out: unknown[] = [];
 * for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
 * console.assert(JSON.stringify(out) === '[{"a":1},[2]]');
 * ```
 */
export class EncoderStream<ContextType = undefined> extends TransformStreamBase<unknown, Uint8Array> {
  /**
   * @param options see {@link StreamEncodeOptions}; `lengthPrefixed` to frame each value
   * @throws {EncodeError} (erroring the stream) for a value `encode` rejects
   */
  constructor(options?: StreamEncodeOptions<ContextType>) {
    const resolved = encodeOptionsOf(options); // each option read once, and checked; with `buffers`, the chunks are Buffers
    // records declared in one value stay declared for the next (as msgpackr's PackrStream writes them)
    const encoder = new Encoder<ContextType>((resolved.useRecords === false ? resolved : withResolved(resolved, { sequential: true })) as EncodeOptions<ContextType>);
    const framed = options?.lengthPrefixed ?? false;
    const B = resolved.buffers ? nodeBuffer() : null;
    const own = (bytes: Uint8Array): Uint8Array => (B === null ? bytes : asBuffer(B, bytes));
    super({
      transform(value, controller): void {
        const chunks = encoder.encodeChunks(value);
        if (!framed) {
          for (const c of chunks) controller.enqueue(c);
          return;
        }
        let total = 0;
        for (const c of chunks) total += c.length;
        if (total > 0xffffffff) {
          throw encodeError(`Cannot frame a value of ${total} bytes: a u32 length prefix allows at most 4294967295`, EncodeErrorCode.TOO_LONG);
        }
        if (total <= SMALL_FRAME_BYTES) {
          // one chunk per frame: the prefix and the value in one buffer
          const out = new Uint8Array(4 + total);
          writeU32(out, 0, total);
          let at = 4;
          for (const c of chunks) {
            out.set(c, at);
            at += c.length;
          }
          controller.enqueue(own(out));
          return;
        }
        const prefix = new Uint8Array(4);
        writeU32(prefix, 0, total);
        controller.enqueue(own(prefix));
        for (const c of chunks) controller.enqueue(c);
      },
    });
  }
}

/** Frames up to this size are sent as one chunk (prefix copied in front); larger ones as a prefix chunk and the value's own chunks. */
const SMALL_FRAME_BYTES = 64 * 1024;

// ---------------------------------------------------------------------------
// Encoding one huge value in chunks

/** Default chunk size of {@link encodeIterable}: the size of a Node stream's buffer. */
const DEFAULT_CHUNK_BYTES = 64 * 1024;

/**
 * The core encoder with one more way in, for the streaming encoder only
 * (so the main bundle does not carry it): a call in which the caller
 * writes values through the encoder's own writer.
 */
class PartEncoder extends Encoder<unknown> {
  /**
   * One call in which `write` writes values through this encoder's writer
   * (`writer.encodeValue`, at the depths it gives, so `maxDepth` counts
   * from the top of the streamed value), and the bytes it wrote. Error
   * paths start at the value written (an item of a container split in
   * parts). Never re-entered: the streaming encoder makes its calls one
   * after another.
   */
  encodeWith(write: (writer: ValueWriter) => void): Uint8Array<ArrayBuffer> {
    this.start(undefined, 0);
    try {
      write(this.writer);
    } catch (e) {
      throw this.fail(e);
    }
    try {
      return this.sink.finish();
    } finally {
      this.stop();
    }
  }
}

/**
 * Walks a value, asking one core `Encoder` for the bytes of small values
 * and for large containers' items in parts (the header written here from
 * the header forms), and hands out sealed chunks as they fill.
 */
class ChunkedEncoder {
  private readonly chunkSize: number;
  private readonly encoder: PartEncoder;
  private readonly options: ResolvedEncodeOptions;
  /** Its chunks become Node `Buffer`s (the `buffers` option; the caller wraps them). */
  readonly buffers: boolean;
  private readonly sortKeys: boolean;
  private readonly ignoreUndefined: boolean;
  private readonly maxDepth: number;
  /** The chunk being filled, and how much of it is. */
  private out: Uint8Array = EMPTY;
  private pos = 0;
  /** Sealed chunks not yet handed out. */
  private ready: Uint8Array[] = [];

  constructor(options: StreamEncodeOptions<unknown> | undefined) {
    const chunkSize: unknown = options?.chunkSize;
    const size = chunkSize ?? DEFAULT_CHUNK_BYTES;
    if (!(typeof size === "number" && size >= 1 && size <= 2 ** 31)) throw new RangeError(`Cannot encode with chunkSize ${String(size)}: it must be between 1 and 2^31`);
    this.chunkSize = Math.floor(size);
    const resolved = encodeOptionsOf(options);
    if (resolved.useRecords !== false) {
      throw invalidEncodeOption("useRecords", resolved.useRecords, "false here: encodeIterable, encodeToStream and encodeToReadableStream write maps (use EncoderStream or encode for records)");
    }
    this.options = resolved;
    // parts of about chunkSize bytes fit the scratch: most are written there and copied out once
    const initial = Math.min(Math.max(2 * this.chunkSize, 1024), 1 << 20);
    this.encoder = new PartEncoder(withResolved(resolved, { initialBufferSize: initial }));
    this.buffers = resolved.buffers;
    this.sortKeys = resolved.sortKeys;
    this.ignoreUndefined = resolved.ignoreUndefined;
    this.maxDepth = resolved.maxDepth;
  }

  *run(value: unknown): Generator<Uint8Array, void, undefined> {
    yield* this.walk(value, 0);
    this.seal();
    yield* this.drain();
  }

  /** Encodes `value`, found at `depth`, splitting it when it is large. */
  private *walk(value: unknown, depth: number): Generator<Uint8Array, void, undefined> {
    if (typeof value !== "object" || value === null || depth >= this.maxDepth || this.claimedByExtension(value)) {
      yield* this.whole(value, depth);
      return;
    }
    switch (objectKind(value)) {
      case KIND_ARRAY:
        if (this.small(value, depth)) yield* this.whole(value, depth);
        else yield* this.walkArray(value as unknown[], depth);
        return;
      case KIND_RECORD:
        yield* this.walkRecord(value as Record<string, unknown>, depth);
        return;
      case KIND_BINARY:
        yield* this.walkBinary(value, depth);
        return;
      case KIND_MAP:
        yield* this.walkMap(value as Map<unknown, unknown>, depth);
        return;
      case KIND_SET:
        yield* this.walkSet(value as Set<unknown>, depth);
        return;
      default:
        yield* this.whole(value, depth); // a Date, an ExtData
    }
  }

  /** `value`, found at `depth`, encoded whole by the core. */
  private *whole(value: unknown, depth: number): Generator<Uint8Array, void, undefined> {
    this.write(this.encoder.encodeWith((w) => w.encodeValue(value, depth)));
    yield* this.drain();
  }

  private claimedByExtension(value: object): boolean {
    const ctx = this.options.context;
    for (const ext of extensionEncoders(this.options.extensionCodec)) if (ext.encode(value, ctx) != null) return true;
    return false;
  }

  /** Whether a container at `depth` is encoded whole: an upper bound of its size is under `chunkSize`. */
  private small(container: object, depth: number): boolean {
    return sizeUpTo(container, this.chunkSize, this.maxDepth - depth) < this.chunkSize;
  }

  /** A large array: the header, then its items in parts; throws `CHANGED` when its length is not the same at the end. */
  private *walkArray(arr: readonly unknown[], depth: number): Generator<Uint8Array, void, undefined> {
    const n = arr.length;
    this.writeHeader(n, 0x90, 0xdc, "array");
    yield* this.walkItems(arr, n, depth);
    const after = arr.length;
    if (after !== n) throw changedAt("array", "", n, after);
  }

  /** A large Set, as the core writes one: its values as an array, then a check of its size. */
  private *walkSet(set: Set<unknown>, depth: number): Generator<Uint8Array, void, undefined> {
    if (this.small(set, depth)) {
      yield* this.whole(set, depth);
      return;
    }
    const n = set.size;
    const items = [...set];
    this.writeHeader(items.length, 0x90, 0xdc, "array");
    yield* this.walkItems(items, items.length, depth);
    const after = set.size;
    if (after !== n) throw changedAt("Set", "", n, after);
  }

  /**
   * The first `n` items of a container at `depth` (an array's items, or a
   * map's keys and values in turn), after its header: the core writes
   * them in parts of about `chunkSize` bytes, each part stopping before an
   * item that may be larger, which is split further (`sized`: the items
   * are known to be smaller, so none is sized again). Each item is read
   * once.
   */
  private *walkItems(items: ArrayLike<unknown>, n: number, depth: number, sized = false): Generator<Uint8Array, void, undefined> {
    const limit = this.chunkSize;
    const levels = this.maxDepth - depth - 1;
    for (let i = 0; i < n; ) {
      let next = n;
      let large: unknown = NOT_LARGE;
      const bytes = this.encoder.encodeWith((w) => {
        const s = w.sink;
        const end = sized ? Infinity : s.offset() + limit;
        for (let j = i; j < n; j++) {
          const item = items[j];
          if (!sized && (typeof item === "object" && item !== null ? sizeUpTo(item, limit, levels) >= limit : typeof item === "string" && 3 * item.length + 5 >= limit)) {
            large = item;
            next = j;
            return;
          }
          w.encodeValue(item, depth + 1);
          if (s.offset() >= end) {
            next = j + 1;
            return;
          }
        }
      });
      this.write(bytes);
      i = next;
      if (large !== NOT_LARGE) {
        yield* this.drain();
        yield* this.walk(large, depth + 1);
        i++;
      }
      yield* this.drain();
    }
  }

  private *walkRecord(obj: Record<string, unknown>, depth: number): Generator<Uint8Array, void, undefined> {
    if (this.small(obj, depth)) {
      yield* this.whole(obj, depth);
      return;
    }
    // as the core's sortKeys / ignoreUndefined path: every value read once, before the header
    const entries = recordEntries(obj, Object.keys(obj), this.sortKeys, this.ignoreUndefined);
    this.writeHeader(entries.length / 2, 0x80, 0xde, "map");
    yield* this.walkItems(entries, entries.length, depth);
  }

  /**
   * A large Map: the header, then its entries read live (as the core reads
   * a Map), gathered as key, value, key, value... while they are small and
   * written in parts; a large key or value is split further. Throws
   * `CHANGED` when the entries do not number the size the header took.
   */
  private *walkMap(map: Map<unknown, unknown>, depth: number): Generator<Uint8Array, void, undefined> {
    if (this.small(map, depth)) {
      yield* this.whole(map, depth);
      return;
    }
    const n = map.size;
    this.writeHeader(n, 0x80, 0xde, "map");
    const big = this.chunkSize;
    const levels = this.maxDepth - depth - 1;
    const batch: unknown[] = [];
    let batchSize = 0;
    let i = 0;
    for (const [key, value] of map) {
      if (i === n) throw changedAt("Map", "", n, "more");
      i++;
      const size = sizeUpTo(key, big, levels) + sizeUpTo(value, big, levels);
      if (size < big) {
        batch.push(key, value);
        if ((batchSize += size) < big) continue;
      }
      yield* this.walkItems(batch, batch.length, depth, true);
      batch.length = 0;
      batchSize = 0;
      if (size >= big) {
        yield* this.walk(key, depth + 1);
        yield* this.walk(value, depth + 1);
      }
    }
    yield* this.walkItems(batch, batch.length, depth, true);
    if (i !== n) throw changedAt("Map", "", n, i);
  }

  private *walkBinary(value: object, depth: number): Generator<Uint8Array, void, undefined> {
    const bytes = binaryBytes(value)!; // a binary kind: never undefined
    const n = bytes.length;
    if (n < this.chunkSize) {
      yield* this.whole(bytes, depth);
      return;
    }
    if (n > 0xffffffff) throw tooLong("binary", n);
    this.write(HEADER.slice(0, writeBinHeader(HEADER, 0, n)));
    // fill the current chunk from the payload, then hand the rest over as a view, without copying
    const room = this.pos > 0 ? this.out.length - this.pos : 0;
    this.write(bytes.subarray(0, room));
    this.seal();
    const rest = bytes.subarray(room);
    if (rest.length >= this.chunkSize) this.ready.push(rest);
    else this.write(rest);
    yield* this.drain();
  }

  /** Writes an array (0x90, 0xdc) or map (0x80, 0xde) header for `n` items, its count checked as the core checks it. */
  private writeHeader(n: number, fix: number, code16: number, what: string): void {
    if (n >>> 0 !== n) throw badCount(what, n);
    this.write(HEADER.slice(0, writeContainerHeader(HEADER, 0, n, fix, code16)));
  }

  /**
   * Appends bytes. Bytes the encoder returned that fill a chunk on their own
   * become a chunk as they are (they are independent of the encoder);
   * smaller ones are copied into the current chunk.
   */
  private write(bytes: Uint8Array): void {
    let n = bytes.length;
    if (n === 0) return;
    if (n >= this.chunkSize && this.pos === 0) {
      this.ready.push(bytes);
      return;
    }
    let at = 0;
    while (n > 0) {
      if (this.out.length === 0) {
        this.out = new Uint8Array(this.chunkSize);
        this.pos = 0;
      }
      const take = Math.min(n, this.out.length - this.pos);
      this.out.set(take === bytes.length ? bytes : bytes.subarray(at, at + take), this.pos);
      this.pos += take;
      at += take;
      n -= take;
      if (this.pos === this.out.length) this.seal();
      if (n >= this.chunkSize && this.pos === 0) {
        this.ready.push(bytes.subarray(at));
        return;
      }
    }
  }

  /** The current chunk, if it holds anything, is done: it joins the ready list and is never written again. */
  private seal(): void {
    if (this.pos === 0) return;
    this.ready.push(this.pos === this.out.length ? this.out : this.out.subarray(0, this.pos));
    this.out = EMPTY;
    this.pos = 0;
  }

  private *drain(): Generator<Uint8Array, void, undefined> {
    const ready = this.ready;
    if (ready.length === 0) return;
    this.ready = [];
    for (const c of ready) yield c;
  }
}

/** What a part of {@link ChunkedEncoder}'s items stopped before when it stopped before no large item. */
const NOT_LARGE: unique symbol = Symbol("not large");

/** Scratch for headers: copied out (`slice`) before it is written again. */
const HEADER = /* @__PURE__ */ new Uint8Array(5);

/**
 * Encodes `value` lazily, yielding its MessagePack bytes in chunks while it
 * encodes, so a value whose encoding is larger than memory comfortably
 * allows (or than one buffer can hold, 2^32 bytes) can go to a file or a
 * socket. The chunks, concatenated, are exactly `encode(value, options)`.
 *
 * Memory: besides the value itself, about two chunks, plus the encoding of
 * the largest part it does not split. Arrays, plain objects, `Map`s and
 * `Set`s that may take `chunkSize` bytes or more (an upper bound walked
 * only that far) are written item by item, in batches of about
 * `chunkSize`; smaller containers are encoded whole, as are strings, dates
 * and extensions, whatever their size. Binaries of `chunkSize` bytes or
 * more are yielded as views of your data, without a copy.
 *
 * The value is read as you iterate: don't modify it, or the binaries in
 * it, until the chunks have been consumed. As with `encode`, each property
 * is read once (a getter runs once), and an array, `Map` or `Set` whose
 * count changes while it is written throws an `EncodeError` (code
 * `CHANGED`) rather than yielding wrong bytes; the chunks yielded before
 * are then not a whole value. Each chunk is sealed: the encoder never
 * writes to it after yielding it.
 *
 * @param value the value to encode, as for `encode`
 * @param options see {@link StreamEncodeOptions}; `chunkSize` (default 65536)
 * @returns a generator of chunks
 * @throws {EncodeError} (from the generator) as `encode`, after the chunks before the bad part
 *   (code `CHANGED` for a container whose count changed while it was written)
 * @throws {RangeError} for a `chunkSize` below 1 or above 2^31
 *
 * @example
 * ```ts
 * import { decode, encode } from "@resizable/msgpack";
 * import { encodeIterable } from "@resizable/msgpack/streams";
 * const value = { rows: Array.from({ length: 10_000 }, (_, i) => ({ i, name: `row ${i}` })) };
 * const chunks = [...encodeIterable(value, { chunkSize: 4096 })];
 * const total = chunks.reduce((n, c) => n + c.length, 0);
 * console.assert(chunks.length > 10 && total === encode(value).length);
 * const joined = new Uint8Array(total);
 * chunks.reduce((at, c) => (joined.set(c, at), at + c.length), 0);
 * console.assert((decode(joined) as typeof value).rows[9999]!.name === "row 9999");
 * ```
 */
export function* encodeIterable<ContextType = undefined>(value: unknown, options?: StreamEncodeOptions<ContextType>): Generator<Uint8Array, void, undefined> {
  const encoder = new ChunkedEncoder(options as StreamEncodeOptions<unknown> | undefined); // checks the options
  const B = encoder.buffers ? nodeBuffer() : null;
  if (B === null) yield* encoder.run(value);
  else for (const chunk of encoder.run(value)) yield asBuffer(B, chunk);
}

/**
 * Encodes `value` into a WHATWG `WritableStream` chunk by chunk, waiting
 * for the stream to be ready before each chunk (backpressure), so memory
 * stays bounded as for {@link encodeIterable}. Closes the stream at the end
 * unless `preventClose`; aborts it if encoding fails.
 *
 * @param value the value to encode
 * @param writable where the bytes go (e.g. a file's `writable`, `Writable.toWeb(socket)`)
 * @param options see {@link StreamEncodeOptions}; `preventClose` to keep the stream open
 * @returns a promise settled once every chunk is written (and the stream closed)
 * @throws {EncodeError} (the promise rejects) as `encode`; the stream is aborted with it
 * @throws {TypeError} (the promise rejects) when the stream is locked or errors
 *
 * @example
 * ```ts
 * import { decode } from "@resizable/msgpack";
 * import { encodeToStream } from "@resizable/msgpack/streams";
 * const parts: Uint8Array[] = [];
 * await encodeToStream([1, "two", new Uint8Array(100_000)], new WritableStream({ write(c) { parts.push(c.slice()); } }), { chunkSize: 8192 });
 * const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
 * parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
 * console.assert((decode(bytes) as unknown[])[1] === "two" && parts.length > 1);
 * ```
 */
export async function encodeToStream<ContextType = undefined>(
  value: unknown,
  writable: WritableStream<Uint8Array>,
  options?: StreamEncodeOptions<ContextType>,
): Promise<void> {
  const writer = writable.getWriter();
  try {
    let last: Promise<void> = Promise.resolve();
    for (const chunk of encodeIterable(value, options)) {
      await writer.ready;
      last = writer.write(chunk);
      last.catch(() => undefined); // a failed write also rejects `ready` or `close`
    }
    if (options?.preventClose === true) await last;
    else await writer.close();
  } catch (e) {
    await writer.abort(e).catch(() => undefined);
    throw e;
  } finally {
    writer.releaseLock();
  }
}

/**
 * Encodes `value` as a WHATWG `ReadableStream` of chunks, produced only as
 * the reader pulls them (backpressure), e.g. a `fetch` request body or a
 * `Response`. Memory is bounded as for {@link encodeIterable}.
 *
 * @param value the value to encode
 * @param options see {@link StreamEncodeOptions}
 * @returns a stream of the chunks; cancelling it stops the encoding
 * @throws {EncodeError} (erroring the stream) as `encode`
 *
 * @example
 * ```ts
 * import { decode } from "@resizable/msgpack";
 * import { encodeToReadableStream } from "@resizable/msgpack/streams";
 * const response = new Response(encodeToReadableStream({ big: "x".repeat(100_000) }));
 * const value = decode(new Uint8Array(await response.arrayBuffer())) as { big: string };
 * console.assert(value.big.length === 100_000);
 * ```
 */
export function encodeToReadableStream<ContextType = undefined>(value: unknown, options?: StreamEncodeOptions<ContextType>): ReadableStream<Uint8Array> {
  let chunks: Generator<Uint8Array, void, undefined> | null = null;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller): void {
        chunks ??= encodeIterable(value, options);
        const r = chunks.next();
        if (r.done === true) controller.close();
        else controller.enqueue(r.value);
      },
      cancel(): void {
        chunks?.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
