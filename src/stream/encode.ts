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
import { checkCount, entriesFirst, entriesOf, itemSegment, nextEntry, propertySegment, sizeOf, valueWriter, valuesOf, type ValueWriter } from "../encode/walk.ts";
import { startDepth } from "../encode/ext-writer.ts";
import { encodeKey } from "../encode/strings.ts";
import { Output, type StorePlan } from "../encode/output.ts";
import { writeU32 } from "../format/forms.ts";
import { encodeError, invalidEncodeOption } from "../common/errors.ts";
import { encodeOptionsOf, withResolved } from "../encode/options.ts";
import { readStreamEncodeOptions, type StreamEncodeOptions, type StreamEncodeSettings } from "./options.ts";
import { KIND_ARRAY, KIND_MAP, KIND_RECORD, KIND_SET, objectKind } from "../format/kind.ts";
import { dropIn } from "../common/modules.ts";
import { TransformStreamBase } from "./web.ts";
import { sizeUpTo } from "../encode/size.ts";
import { ChunkCutter } from "./chunker.ts";

export type { StreamEncodeOptions };

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
   * The class's name in every build, as it is exported (a minifier renames the class itself).
   * @internal
   */
  // @ts-ignore: a static accessor defines `name` (TypeScript assumes an assignment; Deno's checker does not)
  static get name(): string {
    return "EncoderStream";
  }
  /**
   * @param options see {@link StreamEncodeOptions}; `lengthPrefixed` to frame each value
   * @throws {EncodeError} (code `INVALID_ARGUMENT`) for an invalid option, a `lengthPrefixed` that is no boolean among them
   * @throws {EncodeError} (erroring the stream) for a value `encode` rejects
   */
  constructor(options?: StreamEncodeOptions<ContextType>) {
    const resolved = encodeOptionsOf(options); // each option read once, and checked; with `buffers`, the chunks are Buffers
    const framed = readStreamEncodeOptions(options).lengthPrefixed;
    // records declared in one value stay declared for the next (as msgpackr's PackrStream writes them)
    const encoder = new Encoder<ContextType>((resolved.useRecords === false ? resolved : withResolved(resolved, { sequential: true })) as EncodeOptions<ContextType>);
    const toBuffer = resolved.buffers ? dropIn("buffers", "encode")() : null; // the Encoder above checked both
    const own = (bytes: Uint8Array): Uint8Array => (toBuffer === null ? bytes : toBuffer(bytes));
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
          throw encodeError(`Cannot frame a value of ${total} bytes: a u32 length prefix allows at most 4294967295`, "TOO_LONG");
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

/**
 * How many levels of containers the streaming encoder splits. Deeper ones
 * are written whole by the core walk, on the engine's stack as in
 * `encode()`: a value nested past what the stack allows fails as it fails
 * there (`MAX_DEPTH`), instead of being walked level by level past it
 * (only a value within these levels of that limit may pass here and fail
 * there). Also the most levels the size bound walks, so it never
 * overflows.
 */
const SPLIT_LEVELS = 256;

/** What a {@link Frame} answers when its container has no more items. */
const NO_MORE: unique symbol = Symbol("no more items");

/**
 * A large container being written item by item: its header is written,
 * and the stream asks it for one item after another (each written whole
 * by the core walk, or split in turn). Every check, error path and read
 * is the core walk's (walk.ts): the frame only remembers where it is.
 */
interface Frame {
  /** The depth of the container: its items are at `depth + 1`. */
  readonly depth: number;
  /** Reads the next item (writing a map key that comes before it), or {@link NO_MORE}. */
  next(w: ValueWriter): unknown;
  /** Checks the container once its items are written (a count that changed throws `CHANGED`). */
  end(): void;
  /** Notes that `e` unwinds through the item being written (see `ValueWriter.through`); returns the error. */
  through(w: ValueWriter, e: unknown): unknown;
}

/** An array, or the values of a Set (`set`, which had `setSize` values when its header was written). */
class ArrayFrame implements Frame {
  readonly depth: number;
  private readonly items: readonly unknown[];
  private readonly n: number;
  private readonly set: Set<unknown> | null;
  private readonly setSize: number;
  #i = -1;

  constructor(depth: number, items: readonly unknown[], n: number, set: Set<unknown> | null, setSize: number) {
    this.depth = depth;
    this.items = items;
    this.n = n;
    this.set = set;
    this.setSize = setSize;
  }

  next(): unknown {
    return ++this.#i < this.n ? this.items[this.#i] : NO_MORE;
  }

  end(): void {
    checkCount(this.items, "array", this.n, this.items.length);
    if (this.set !== null) checkCount(this.set, "Set", this.setSize, this.set.size);
  }

  through(w: ValueWriter, e: unknown): unknown {
    return w.through(e, itemSegment(this.#i), this.set ?? this.items);
  }
}

/** A plain object (or class instance): its values read one by one in the order of `keys`, or its `entries` read before its header. */
class RecordFrame implements Frame {
  readonly depth: number;
  private readonly obj: Record<string, unknown>;
  private readonly keys: readonly string[];
  private readonly entries: readonly unknown[] | null;
  #i = -1;

  constructor(depth: number, obj: Record<string, unknown>, keys: readonly string[], entries: readonly unknown[] | null) {
    this.depth = depth;
    this.obj = obj;
    this.keys = keys;
    this.entries = entries;
  }

  next(w: ValueWriter): unknown {
    const i = ++this.#i;
    const entries = this.entries;
    if (entries !== null) {
      if (2 * i >= entries.length) return NO_MORE;
      encodeKey(w.out, entries[2 * i] as string);
      return entries[2 * i + 1];
    }
    if (i >= this.keys.length) return NO_MORE;
    const key = this.keys[i]!;
    const value = this.obj[key];
    encodeKey(w.out, key);
    return value;
  }

  end(): void {}

  through(w: ValueWriter, e: unknown): unknown {
    const i = this.#i;
    return w.through(e, propertySegment(this.entries === null ? this.keys[i]! : (this.entries[2 * i] as string)), this.obj);
  }
}

/** A Map: its entries read live from its own iterator, key then value. */
class MapFrame implements Frame {
  /** Entries written. */
  #i = 0;
  #entry: Record<0 | 1, unknown> | null = null;
  #key: unknown = undefined;
  #inValue = false;
  readonly depth: number;
  private readonly map: Map<unknown, unknown>;
  /** The size its header declared. */
  private readonly n: number;
  private readonly entries: Iterator<unknown>;

  constructor(depth: number, map: Map<unknown, unknown>, n: number, entries: Iterator<unknown>) {
    this.depth = depth;
    this.map = map;
    this.n = n;
    this.entries = entries;
  }

  next(): unknown {
    if (this.#entry !== null) {
      if (!this.#inValue) {
        this.#inValue = true;
        return this.#entry[1];
      }
      this.#entry = null;
      this.#i++;
    }
    const entry = nextEntry(this.map, this.entries, this.n, this.#i);
    if (entry === null) return NO_MORE;
    this.#key = entry[0];
    this.#inValue = false;
    this.#entry = entry;
    return this.#key;
  }

  end(): void {
    checkCount(this.map, "Map", this.n, this.#i);
  }

  through(w: ValueWriter, e: unknown): unknown {
    return w.throughEntry(e, this.map, this.#i, this.#key, this.#inValue);
  }
}

/**
 * Encodes one value into sealed chunks while it is written: the core walk
 * writes into an output whose store cuts its output into chunks
 * ({@link ChunkCutter}), in one call from the first byte to the last, and
 * this only decides where the walk pauses so the chunks can be handed
 * out. A container that may take `chunkSize` bytes or more (an upper
 * bound, walked only that far) is opened here, through the core walk's
 * own steps (extensions asked once, depth, header, reads and checks), and
 * its items are written one by one, each whole by the core walk or split
 * in turn; everything else is written whole by the core walk.
 */
class ChunkedEncoder {
  private readonly chunkSize: number;
  private readonly cutter: ChunkCutter;
  private readonly out: Output;
  private readonly writer: ValueWriter;
  /** Makes its chunks Node `Buffer`s (the `buffers` option; the caller wraps them), or null. */
  readonly toBuffer: ((bytes: Uint8Array) => Uint8Array) | null;
  private readonly sortKeys: boolean;
  private readonly ignoreUndefined: boolean;

  /**
   * @param options the encode options
   * @param settings the stream encoders' own options, read from the same object
   */
  constructor(options: StreamEncodeOptions<unknown> | undefined, settings: StreamEncodeSettings) {
    this.chunkSize = settings.chunkSize;
    const resolved = encodeOptionsOf(options);
    if (resolved.useRecords !== false) {
      throw invalidEncodeOption("useRecords", resolved.useRecords, "false here: encodeIterable, encodeToStream and encodeToReadableStream write maps (use EncoderStream or encode for records)");
    }
    // as an Encoder: the module that installs `buffers` is needed, and a Buffer class
    const toBuffer = (this.toBuffer = resolved.buffers ? dropIn("buffers", "encode")() : null);
    if (resolved.buffers && toBuffer === null) throw invalidEncodeOption("buffers", true, "false: this runtime has no Buffer class on globalThis");
    this.sortKeys = resolved.sortKeys;
    this.ignoreUndefined = resolved.ignoreUndefined;
    const cutter = (this.cutter = new ChunkCutter(this.chunkSize));
    const plan: StorePlan = { begin: () => cutter, open: () => cutter };
    // a scratch of about a chunk, the output's own: the call stays open while chunks are handed out
    const scratch = Math.min(Math.max(this.chunkSize, 1024), 1 << 20);
    this.out = new Output(scratch, plan, resolved.maxByteLength, false, false);
    this.writer = valueWriter(this.out, resolved);
  }

  *run(value: unknown): Generator<Uint8Array, void, undefined> {
    const w = this.writer;
    const cutter = this.cutter;
    const stack: Frame[] = [];
    this.out.begin(value);
    try {
      this.write(value, startDepth(), stack);
      for (;;) {
        if (cutter.hasReady) yield* cutter.takeReady();
        const frame = stack[stack.length - 1];
        if (frame === undefined) break;
        const item = frame.next(w);
        if (item === NO_MORE) {
          stack.pop();
          frame.end();
        } else {
          this.write(item, frame.depth + 1, stack);
        }
      }
      this.out.handOver();
      cutter.seal();
      yield* cutter.takeReady();
    } catch (e) {
      // the error unwinds through the open containers, innermost first, as through the core walk's
      let error = e;
      for (let k = stack.length - 1; k >= 0; k--) error = stack[k]!.through(w, error);
      try {
        throw w.failure(error);
      } finally {
        w.trail.length = 0;
      }
    } finally {
      this.out.end();
    }
  }

  /**
   * Writes `value`, found at `depth`: whole by the core walk when it is no
   * object or small, else as the core walk's `encodeObject` does, except
   * that an array, plain object, Map or Set is opened (its header written)
   * and pushed on `stack`, for its items to be written one by one.
   */
  private write(value: unknown, depth: number, stack: Frame[]): void {
    const w = this.writer;
    const limit = this.chunkSize;
    if (typeof value !== "object" || value === null || stack.length >= SPLIT_LEVELS || sizeUpTo(value, limit, Math.min(w.maxDepth - depth, SPLIT_LEVELS - stack.length)) < limit) {
      w.encodeValue(value, depth);
      return;
    }
    if (w.claimObject(value, depth)) return;
    const kind = objectKind(value);
    switch (kind) {
      case KIND_ARRAY: {
        const arr = value as unknown[];
        const n = arr.length;
        w.writeContainerHeader(n, 0x90, 0xdc, "array");
        stack.push(new ArrayFrame(depth, arr, n, null, 0));
        return;
      }
      case KIND_RECORD: {
        const obj = value as Record<string, unknown>;
        const keys = Object.keys(obj);
        const entries = entriesFirst(obj, keys, this.sortKeys, this.ignoreUndefined);
        w.writeContainerHeader(entries === null ? keys.length : entries.length / 2, 0x80, 0xde, "map");
        stack.push(new RecordFrame(depth, obj, keys, entries));
        return;
      }
      case KIND_MAP: {
        const map = value as Map<unknown, unknown>;
        const n = sizeOf(map, "Map", depth);
        const entries = entriesOf(map, depth);
        w.writeContainerHeader(n, 0x80, 0xde, "map");
        stack.push(new MapFrame(depth, map, n, entries));
        return;
      }
      case KIND_SET: {
        const set = value as Set<unknown>;
        const n = sizeOf(set, "Set", depth);
        const items = valuesOf(set, depth);
        w.writeContainerHeader(items.length, 0x90, 0xdc, "array");
        stack.push(new ArrayFrame(depth, items, items.length, set, n));
        return;
      }
      default:
        w.encodeOtherObject(value, kind, depth); // a binary, Date, ExtData or boxed primitive
    }
  }
}

/**
 * Encodes `value` lazily, yielding its MessagePack bytes in chunks while it
 * encodes, so a value whose encoding is larger than memory comfortably
 * allows (or than one buffer can hold, 2^32 bytes) can go to a file or a
 * socket. The chunks, concatenated, are exactly `encode(value, options)`,
 * and it throws what `encode` throws (same code, same message and path),
 * having run each extension encoder as many times: `encode`'s own walk
 * writes the value, and an aligned extension (one that returns
 * `(dataPos) => bytes`) gets its position in the whole output.
 *
 * Memory: besides the value itself, about two chunks, plus the encoding of
 * the largest part it does not split. Arrays, plain objects, `Map`s and
 * `Set`s that may take `chunkSize` bytes or more (an upper bound walked
 * only that far) are written item by item, down to 256 levels of nesting;
 * smaller containers, and deeper ones, are encoded whole, as are strings,
 * dates and extensions, whatever their size. Binaries of `chunkSize` bytes
 * or more are yielded as views of your data, without a copy.
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
 * @throws {EncodeError} (code `INVALID_ARGUMENT`) for a `chunkSize` that is no number from 1 to 2^31, as for other invalid options
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
  yield* chunksOf(value, options as StreamEncodeOptions<unknown> | undefined, readStreamEncodeOptions(options));
}

/** {@link encodeIterable} with the stream options already read (`settings`). */
function* chunksOf(value: unknown, options: StreamEncodeOptions<unknown> | undefined, settings: StreamEncodeSettings): Generator<Uint8Array, void, undefined> {
  const encoder = new ChunkedEncoder(options, settings); // checks the encode options
  const toBuffer = encoder.toBuffer;
  if (toBuffer === null) yield* encoder.run(value);
  else for (const chunk of encoder.run(value)) yield toBuffer(chunk);
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
    const settings = readStreamEncodeOptions(options);
    let last: Promise<void> = Promise.resolve();
    for (const chunk of chunksOf(value, options as StreamEncodeOptions<unknown> | undefined, settings)) {
      await writer.ready;
      last = writer.write(chunk);
      last.catch(() => undefined); // a failed write also rejects `ready` or `close`
    }
    if (settings.preventClose) await last;
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
