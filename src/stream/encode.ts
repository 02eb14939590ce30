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
import { NumberOptionWriter, type ValueWriter } from "../encode/walk.ts";
import { startDepth } from "../encode/ext-writer.ts";
import { Output } from "../encode/output.ts";
import { writeU32 } from "../format/forms.ts";
import { encodeError, encodeNeeds, invalidEncodeOption } from "../common/errors.ts";
import { encodeOptionsOf, type ResolvedEncodeOptions, type StreamEncodeOptions } from "../encode/options.ts";
import { dropIn } from "../common/modules.ts";
import { TransformStreamBase } from "./web.ts";
import { estimateUpTo } from "../encode/size.ts";

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
    const framed = resolved.lengthPrefixed;
    // records declared in one value stay declared for the next (as msgpackr's PackrStream writes them)
    const encoder = new Encoder<ContextType>((resolved.useRecords === false ? resolved : { ...resolved, sequential: true }) as EncodeOptions<ContextType>);
    super({
      transform(value, controller): void {
        const chunks = encoder.encodeChunks(value);
        if (framed) {
          const total = chunks.reduce((n, c) => n + c.length, 0);
          if (total > 0xffffffff) throw encodeError(`Cannot frame a value of ${total} bytes: a u32 length prefix allows at most 4294967295`, "TOO_LONG");
          // a small frame is one chunk, the prefix copied in front of the value; a larger one a prefix chunk, then the value's
          const head = new Uint8Array(total <= SMALL_FRAME_BYTES ? 4 + total : 4);
          writeU32(head, 0, total);
          if (head.length > 4) chunks.splice(0).reduce((at, c) => (head.set(c, at), at + c.length), 4);
          chunks.unshift(encoder.toResult(head)); // with `buffers`, a Buffer
        }
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
 * are written whole by the walk, on the engine's stack as in `encode()`: a
 * value nested past what the stack allows fails as it fails there
 * (`MAX_DEPTH`). Also the most levels the size bound walks, so it never
 * overflows.
 */
const SPLIT_LEVELS = 256;

/** A large container's body the stream writes one part at a time, by the walk's own step ({@link ValueWriter.writePart}): what it was given, and where it is. */
interface Open {
  readonly owner: object;
  readonly list: readonly unknown[] | null;
  readonly keys: readonly string[] | null;
  readonly depth: number;
  readonly n: number;
  /** Parts written. */
  i: number;
}

/**
 * The walk, with its one container step overridden: the body of a
 * container found one level below the innermost open one (the value
 * itself when none is open), down to {@link SPLIT_LEVELS} levels, that may
 * take `chunkSize` bytes or more (an estimate that looks at every item, only
 * that far) is left open, its header written, for the stream to write
 * part by part; every other body is written whole by the walk.
 */
class StreamWriter extends NumberOptionWriter {
  /** The bodies left open, outermost first. */
  readonly open: Open[];
  /** The depth the value starts at. */
  private readonly start: number;

  constructor(out: Output, options: ResolvedEncodeOptions, start: number) {
    super(out, options);
    this.start = start;
    this.open = [];
  }

  protected override writeBody(owner: object, list: readonly unknown[] | null, keys: readonly string[] | null, depth: number, n: number): void {
    const open = this.open;
    const at = open.length === 0 ? this.start : open[open.length - 1]!.depth + 1; // where a body may be left open now
    const left = SPLIT_LEVELS - open.length;
    const limit = this.options.chunkSize;
    if (depth === at && left > 0 && estimateUpTo(owner, limit, Math.min(this.maxDepth - depth, left)) >= limit) open.push({ owner, list, keys, depth, n, i: 0 });
    else super.writeBody(owner, list, keys, depth, n);
  }
}

/**
 * The chunks of `value`, sealed while it is written: the walk writes into
 * an output whose chunks are of `chunkSize` bytes (output.ts), in one call
 * from the first byte to the last; the stream only decides where the walk
 * pauses, so the chunks can be handed out: between the parts of the
 * bodies its writer left open ({@link StreamWriter}), one part per step.
 *
 * @param resolved the encode options, the stream encoders' included
 */
function* chunksOf(value: unknown, resolved: ResolvedEncodeOptions): Generator<Uint8Array, void, undefined> {
  const chunkSize = resolved.chunkSize;
  if (resolved.useRecords !== false) {
    throw invalidEncodeOption("useRecords", resolved.useRecords, "false here: encodeIterable, encodeToStream and encodeToReadableStream write maps (use EncoderStream or encode for records)");
  }
  // as an Encoder: the module that installs `buffers` is needed, and a Buffer class
  const toBuffer = resolved.buffers ? dropIn("buffers", encodeNeeds)() : null;
  if (resolved.buffers && toBuffer === null) throw invalidEncodeOption("buffers", true, "false: this runtime has no Buffer class on globalThis");
  // a scratch of about a chunk
  const out = new Output(Math.min(Math.max(chunkSize, 1024), 1 << 20), resolved.maxByteLength, false, chunkSize);
  const depth = startDepth();
  const w = new StreamWriter(out, resolved, depth);
  const open = w.open;
  out.begin(value, true);
  try {
    w.encodeValue(value, depth);
    for (let top = open[open.length - 1]; ; top = open[open.length - 1]) {
      if (top === undefined) out.flush();
      // the sealed chunks, which are the caller's from now on
      if (out.chunks.length !== 0) for (const c of out.chunks.splice(0)) yield toBuffer === null ? c : toBuffer(c);
      if (top === undefined) return;
      // one part per step; once all are written (and what they opened), the body's end
      if (top.i < top.n) w.writePart(top.owner, top.list, top.keys, top.depth, top.i, ++top.i);
      else {
        w.endBody(top.owner, top.list, top.keys, top.n);
        open.pop();
      }
    }
  } catch (e) {
    // the error unwinds through the open bodies, innermost first, as through the walk's
    // (the step that threw was the innermost's: the walk noted it, or it is that body's own end)
    for (let k = open.length - 2; k >= 0; k--) {
      const f = open[k]!;
      w.throughPart(e, f.owner, f.list, f.keys, f.i - 1);
    }
    throw w.failure(e);
  } finally {
    out.end();
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
 * `Set`s estimated at `chunkSize` bytes or more (every item looked at,
 * only that far; a string counts a byte per UTF-16 unit) are written item
 * by item, down to 256 levels of nesting;
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
  yield* chunksOf(value, encodeOptionsOf(options));
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
  let settings: ResolvedEncodeOptions;
  try {
    settings = encodeOptionsOf(options);
  } catch (e) {
    await writable.abort(e).catch(() => undefined);
    throw e;
  }
  await readableOf(chunksOf(value, settings)).pipeTo(writable, { preventClose: settings.preventClose });
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
  return readableOf(encodeIterable(value, options));
}

/** A stream of `chunks`, generated only as the reader pulls them (backpressure); cancelling it stops the generator. */
function readableOf(chunks: Generator<Uint8Array, void, undefined>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      pull(controller): void {
        const r = chunks.next();
        if (r.done === true) controller.close();
        else controller.enqueue(r.value);
      },
      cancel(): void {
        chunks.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
