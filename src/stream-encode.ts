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

import { Encoder, type EncodeOptions } from "./encode.ts";
import { writeBinHeader, writeContainerHeader } from "./format.ts";
import { changedAt, EncodeErrorCode, encodeError, invalidCount, tooLong } from "./errors.ts";
import { ExtData, extensionEncoders, type ExtensionCodecType } from "./extensions.ts";
import { bytesOf } from "./input.ts";
import { DEFAULT_MAX_DEPTH } from "./limits.ts";

const EMPTY = new Uint8Array(0);

/** Options of {@link EncoderStream}. */
export interface StreamEncodeOptions<ContextType = undefined> extends EncodeOptions<ContextType> {
  /**
   * Write each value's length as a u32 big-endian prefix before it, for
   * protocols that frame messages. Values of 2^32 bytes or more throw
   * an `EncodeError` (code `TOO_LONG`).
   * @default false
   */
  lengthPrefixed?: boolean | undefined;
}

/** Options of {@link encodeIterable}, {@link encodeToStream} and {@link encodeToReadableStream}. */
export interface EncodeIterableOptions<ContextType = undefined> extends EncodeOptions<ContextType> {
  /**
   * The size of the chunks the encoder fills, in bytes. Containers whose
   * estimated encoding is larger are encoded item by item; binaries of at
   * least this size are yielded as views of the input, without a copy.
   * @default 65536
   */
  chunkSize?: number | undefined;
}

/** Options of {@link encodeToStream}. */
export interface EncodeToStreamOptions<ContextType = undefined> extends EncodeIterableOptions<ContextType> {
  /** Leave the writable stream open after the last chunk, as `pipeTo`'s option of that name. @default false */
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
export class EncoderStream<ContextType = undefined> extends TransformStream<unknown, Uint8Array> {
  /**
   * @param options see {@link EncodeOptions}; `lengthPrefixed` to frame each value
   * @throws {EncodeError} (erroring the stream) for a value `encode` rejects
   */
  constructor(options?: StreamEncodeOptions<ContextType>) {
    const encoder = new Encoder<ContextType>(options);
    const framed = options?.lengthPrefixed ?? false;
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
          controller.enqueue(out);
          return;
        }
        const prefix = new Uint8Array(4);
        writeU32(prefix, 0, total);
        controller.enqueue(prefix);
        for (const c of chunks) controller.enqueue(c);
      },
    });
  }
}

/** Frames up to this size are sent as one chunk (prefix copied in front); larger ones as a prefix chunk and the value's own chunks. */
const SMALL_FRAME_BYTES = 64 * 1024;

function writeU32(b: Uint8Array, at: number, n: number): void {
  b[at] = n >>> 24;
  b[at + 1] = n >>> 16;
  b[at + 2] = n >>> 8;
  b[at + 3] = n;
}

// ---------------------------------------------------------------------------
// Encoding one huge value in chunks

/** Default chunk size of {@link encodeIterable}: the size of a Node stream's buffer. */
const DEFAULT_CHUNK_BYTES = 64 * 1024;

/**
 * Walks a value, writing small parts with the core `Encoder` and large
 * containers item by item (the header written here), and hands out sealed
 * chunks as they fill.
 */
class ChunkedEncoder {
  private readonly chunkSize: number;
  private readonly options: EncodeOptions<unknown> | undefined;
  private readonly encoders = new Map<number, Encoder<unknown>>();
  private readonly hasExtensions: boolean;
  private readonly sortKeys: boolean;
  private readonly ignoreUndefined: boolean;
  private readonly maxDepth: number;
  /** The chunk being filled, and how much of it is. */
  private out: Uint8Array = EMPTY;
  private pos = 0;
  /** Sealed chunks not yet handed out. */
  private ready: Uint8Array[] = [];

  constructor(options: EncodeIterableOptions<unknown> | undefined) {
    const size = options?.chunkSize ?? DEFAULT_CHUNK_BYTES;
    if (!(size >= 1 && size <= 2 ** 31)) throw new RangeError(`Cannot encode with chunkSize ${size}: it must be between 1 and 2^31`);
    this.chunkSize = Math.floor(size);
    this.options = options;
    this.hasExtensions = options?.extensionCodec != null && extensionEncoders(options.extensionCodec as ExtensionCodecType<unknown>).length > 0;
    this.sortKeys = options?.sortKeys ?? false;
    this.ignoreUndefined = options?.ignoreUndefined ?? false;
    this.maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  *run(value: unknown): Generator<Uint8Array, void, undefined> {
    yield* this.walk(value, 0);
    this.seal();
    yield* this.drain();
  }

  /** An encoder for a value at `depth`: its `maxDepth` counts from there. */
  private encoderAt(depth: number): Encoder<unknown> {
    let e = this.encoders.get(depth);
    if (e === undefined) {
      const initial = Math.min(Math.max(2 * this.chunkSize, 1024), 1 << 20);
      e = new Encoder<unknown>({ ...this.options, maxDepth: this.maxDepth - depth, initialBufferSize: initial });
      this.encoders.set(depth, e);
    }
    return e;
  }

  /** Encodes `value` at `depth`, splitting it when it is large. */
  private *walk(value: unknown, depth: number): Generator<Uint8Array, void, undefined> {
    if (typeof value !== "object" || value === null || depth >= this.maxDepth || (this.hasExtensions && this.claimedByExtension(value))) {
      this.write(this.encoderAt(depth).encode(value));
      yield* this.drain();
      return;
    }
    // the same type order as Encoder.encodeObject
    if (Array.isArray(value)) {
      if (this.small(value)) {
        this.write(this.encoderAt(depth).encode(value));
        yield* this.drain();
        return;
      }
      yield* this.walkArray(value, depth, true);
      return;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) {
      yield* this.walkRecord(value as Record<string, unknown>, depth);
      return;
    }
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && value instanceof SharedArrayBuffer)) {
      yield* this.walkBinary(value as ArrayBufferView | ArrayBufferLike, depth);
      return;
    }
    if (value instanceof Map) {
      yield* this.walkMap(value, depth);
      return;
    }
    if (value instanceof Date || value instanceof ExtData) {
      this.write(this.encoderAt(depth).encode(value));
      yield* this.drain();
      return;
    }
    if (value instanceof Set) {
      if (this.small(value)) {
        this.write(this.encoderAt(depth).encode(value));
        yield* this.drain();
        return;
      }
      // as the core: the items, written as an array, then a check of the size
      const n = value.size;
      yield* this.walkArray([...value], depth, false);
      const after = value.size;
      if (after !== n) throw changedAt("Set", "", n, after);
      return;
    }
    yield* this.walkRecord(value as Record<string, unknown>, depth);
  }

  private claimedByExtension(value: object): boolean {
    const ctx = this.options?.context;
    for (const ext of extensionEncoders(this.options!.extensionCodec as ExtensionCodecType<unknown>)) if (ext.encode(value, ctx) != null) return true;
    return false;
  }

  /**
   * An upper bound of the encoded size of `value`, walking it only until the
   * bound reaches `chunkSize`: what decides between encoding a part whole
   * (the bound is under `chunkSize`) and splitting it. Costs at most about
   * `chunkSize` steps, and never more than the part has nodes. Reads only
   * data properties, never a getter: an accessor counts as `chunkSize`, so
   * its object is split and the getter runs once, when its entry is written.
   */
  private sizeOf(value: unknown): number {
    switch (typeof value) {
      case "string":
        return 3 * value.length + 5; // up to 3 bytes per UTF-16 unit
      case "object":
        return value === null ? 1 : this.objectSize(value, this.chunkSize, 0);
      default:
        return 9;
    }
  }

  /** {@link sizeOf} for an object; returns at least `limit` as soon as the bound reaches it. */
  private objectSize(obj: object, limit: number, depth: number): number {
    if (depth > this.maxDepth) return limit; // deeper than allowed (a cycle): split it, and let the walk report it
    if (ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) return obj.byteLength + 5;
    if (obj instanceof Date) return 15;
    if (obj instanceof ExtData) return obj.data.length + 6;
    let size = 5;
    const add = (v: unknown): boolean => {
      size += typeof v === "string" ? 3 * v.length + 5 : typeof v === "object" && v !== null ? this.objectSize(v, limit - size, depth + 1) : 9;
      return size >= limit;
    };
    if (obj instanceof Map || obj instanceof Set) {
      try {
        for (const entry of obj) {
          if (obj instanceof Map ? add((entry as [unknown, unknown])[0]) || add((entry as [unknown, unknown])[1]) : add(entry)) return size;
        }
      } catch {
        // unreadable (a Proxy around a Map, say): small, so that the core encodes it and reports it
      }
      return size;
    }
    const isArray = Array.isArray(obj);
    const keys = isArray ? null : Object.keys(obj);
    const n = isArray ? obj.length : keys!.length;
    for (let i = 0; i < n; i++) {
      const key = isArray ? i : keys![i]!;
      const d = Object.getOwnPropertyDescriptor(obj, key);
      if (d === undefined) {
        if (isArray && add(undefined)) return size; // a hole
        continue; // a key deleted since
      }
      if (!("value" in d)) return Math.max(size, limit); // an accessor: split down to it
      if ((!isArray && add(key)) || add(d.value)) return size;
    }
    return size;
  }

  /** Whether a container is encoded whole: an upper bound of its size is under `chunkSize`. */
  private small(container: object): boolean {
    return this.sizeOf(container) < this.chunkSize;
  }

  /**
   * A large array (or a copy of a Set's items): the header, then each item
   * read once and either batched with its neighbours or, when large, split
   * further. A `live` array whose length is not the same at the end throws
   * `CHANGED`.
   */
  private *walkArray(arr: readonly unknown[], depth: number, live: boolean): Generator<Uint8Array, void, undefined> {
    const n = arr.length;
    this.writeHeader(n, 0x90, 0xdc, "array");
    const big = this.chunkSize;
    let batch: unknown[] = [];
    let batchSize = 0;
    for (let i = 0; i < n; i++) {
      const item = arr[i];
      const size = this.sizeOf(item);
      if (size >= big) {
        yield* this.writeBatch(batch, depth);
        batch = [];
        batchSize = 0;
        yield* this.walk(item, depth + 1);
        continue;
      }
      batch.push(item);
      if ((batchSize += size) >= big) {
        yield* this.writeBatch(batch, depth);
        batch = [];
        batchSize = 0;
      }
    }
    yield* this.writeBatch(batch, depth);
    if (!live) return;
    const after = arr.length;
    if (after !== n) throw changedAt("array", "", n, after);
  }

  /** Items of a container at `depth` (map entries as key, value, key, value...), encoded by the core as an array whose header is then dropped. */
  private *writeBatch(items: unknown[], depth: number): Generator<Uint8Array, void, undefined> {
    if (items.length === 0) return;
    if (this.hasExtensions) {
      // an extension could claim the batch array itself: encode item by item
      const e = this.encoderAt(depth + 1);
      for (let i = 0; i < items.length; i++) this.write(e.encode(items[i]));
    } else {
      const bytes = this.encoderAt(depth).encode(items);
      this.write(bytes.subarray(writeContainerHeader(HEADER, 0, items.length, 0x90, 0xdc)));
    }
    yield* this.drain();
  }

  private *walkRecord(obj: Record<string, unknown>, depth: number): Generator<Uint8Array, void, undefined> {
    if (this.small(obj)) {
      this.write(this.encoderAt(depth).encode(obj));
      yield* this.drain();
      return;
    }
    // as the core's sortKeys / ignoreUndefined path: every value read once, before the header
    const keys = Object.keys(obj);
    if (this.sortKeys) keys.sort();
    const entries: unknown[] = [];
    for (let i = 0; i < keys.length; i++) {
      const value = obj[keys[i]!];
      if (value === undefined && this.ignoreUndefined) continue;
      entries.push(keys[i], value);
    }
    yield* this.walkEntries(entries.length / 2, entries.values(), depth, null);
  }

  private *walkMap(map: Map<unknown, unknown>, depth: number): Generator<Uint8Array, void, undefined> {
    if (this.small(map)) {
      this.write(this.encoderAt(depth).encode(map));
      yield* this.drain();
      return;
    }
    yield* this.walkEntries(map.size, mapItems(map), depth, map);
  }

  /**
   * A map of `n` entries at `depth`, given as key, value, key, value...:
   * header, then batches of small entries, large ones split further.
   * For a live `Map`, throws `CHANGED` when its entries do not number `n`.
   */
  private *walkEntries(n: number, items: Iterator<unknown>, depth: number, map: Map<unknown, unknown> | null): Generator<Uint8Array, void, undefined> {
    this.writeHeader(n, 0x80, 0xde, "map");
    const big = this.chunkSize;
    let batch: unknown[] = [];
    let batchSize = 0;
    let i = 0;
    for (let r = items.next(); r.done !== true; r = items.next()) {
      if (i === n) throw changedAt("Map", "", n, "more");
      const key = r.value;
      const value = items.next().value;
      i++;
      const size = this.sizeOf(key) + this.sizeOf(value);
      if (size >= big) {
        yield* this.writeBatch(batch, depth);
        batch = [];
        batchSize = 0;
        yield* this.walk(key, depth + 1);
        yield* this.walk(value, depth + 1);
        continue;
      }
      batch.push(key, value);
      if ((batchSize += size) >= big) {
        yield* this.writeBatch(batch, depth);
        batch = [];
        batchSize = 0;
      }
    }
    yield* this.writeBatch(batch, depth);
    if (i !== n) throw changedAt(map === null ? "map" : "Map", "", n, i);
  }

  private *walkBinary(value: ArrayBufferView | ArrayBufferLike, depth: number): Generator<Uint8Array, void, undefined> {
    const bytes = bytesOf(value)!; // a view or a buffer: never undefined
    const n = bytes.length;
    if (n < this.chunkSize) {
      this.write(this.encoderAt(depth).encode(bytes));
      yield* this.drain();
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

  /** Writes an array (0x90, 0xdc) or map (0x80, 0xde) header for `n` items, as the core does. */
  private writeHeader(n: number, fix: number, code16: number, what: string): void {
    if (n >>> 0 !== n) throw Number.isInteger(n) && n > 0 ? tooLong(what, n) : invalidCount(what, n);
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

/** Scratch for headers: copied out (`slice`) before it is written again. */
const HEADER = new Uint8Array(5);

/** A Map's entries as key, value, key, value..., read live (as the core reads a Map). */
function* mapItems(map: Map<unknown, unknown>): Generator<unknown, void, undefined> {
  for (const [k, v] of map) {
    yield k;
    yield v;
  }
}

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
 * @param options see {@link EncodeOptions}; `chunkSize` (default 65536)
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
export function* encodeIterable<ContextType = undefined>(value: unknown, options?: EncodeIterableOptions<ContextType>): Generator<Uint8Array, void, undefined> {
  yield* new ChunkedEncoder(options as EncodeIterableOptions<unknown> | undefined).run(value);
}

/**
 * Encodes `value` into a WHATWG `WritableStream` chunk by chunk, waiting
 * for the stream to be ready before each chunk (backpressure), so memory
 * stays bounded as for {@link encodeIterable}. Closes the stream at the end
 * unless `preventClose`; aborts it if encoding fails.
 *
 * @param value the value to encode
 * @param writable where the bytes go (e.g. a file's `writable`, `Writable.toWeb(socket)`)
 * @param options see {@link EncodeIterableOptions}; `preventClose` to keep the stream open
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
  options?: EncodeToStreamOptions<ContextType>,
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
 * @param options see {@link EncodeIterableOptions}
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
export function encodeToReadableStream<ContextType = undefined>(value: unknown, options?: EncodeIterableOptions<ContextType>): ReadableStream<Uint8Array> {
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
