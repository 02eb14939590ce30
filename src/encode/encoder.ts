/**
 * The encoder: `encode()`, `encodedSize()` and the reusable
 * {@link Encoder}, which owns its output (output.ts: the scratch, the
 * store, the chunks) and starts and finishes each call. The value is written by the walk in
 * walk.ts (type dispatch by kind.ts, containers, extensions), with the
 * writers of scalars.ts and strings.ts:
 * headers and small values as plain indexed stores into the scratch, long
 * strings and binaries in bulk.
 *
 * Spec: https://github.com/msgpack/msgpack/blob/master/spec.md
 *
 * @module
 */

import { badEncodeArgument, encodeNeeds, invalidEncodeOption } from "../common/errors.ts";
import { valueWriter, type ValueWriter } from "./walk.ts";
import { startDepth } from "./ext-writer.ts";
import { encodeOptionsOf, type EncodeOptions, type ResolvedEncodeOptions } from "./options.ts";
import type { ExtensionCodecType } from "../format/extensions.ts";
import { argumentsOf, coderCache } from "../common/options.ts";
import { Output } from "./output.ts";
import { type NodeBuffer, ON_BUN } from "../common/engine.ts";
import { dropIn } from "../common/modules.ts";

export type { EncodeOptions, EncoderOptions } from "./options.ts";

/**
 * The scratch of a counting encoder (its moves only count, so a small one
 * does) and of a throwaway re-entrant one (used for one call: a 256 KiB
 * scratch allocated and zeroed per call made deep re-entry slow).
 */
const SMALL_SCRATCH_BYTES = 4096;

/** With `poolResults`, results up to this size are views into a shared slab. */
export const POOL_MAX_RESULT_BYTES: number = 4096;

/**
 * Size of each slab that pooled results share, and so the most a pooled
 * result drags along: a `structuredClone`/`postMessage` of one copies its
 * whole slab, a transfer of its buffer empties every result in the slab,
 * and one kept result keeps the slab alive. 16 KiB keeps those costs 4x
 * below Node's 64 KiB `Buffer` pool while a new slab still serves ~100
 * messages of ~125 B (slabs of 8-64 KiB took the same time per result).
 */
export const POOL_SLAB_BYTES: number = 16_384; // 16 KiB

/** What a call makes of the encoder's output once the value is written: its result. */
type Finish<T> = (encoder: EncoderBase<unknown>) => T;

// How the calls end: what each method makes of the output.
const RESULT: Finish<Uint8Array<ArrayBuffer>> = (e) => e.result();
const COUNTED: Finish<number> = (e) => e.output.offset();
/** A view of the output where it is one (the scratch's, valid until the next call), else `encode`'s result. */
const SHARED: Finish<Uint8Array<ArrayBuffer>> = (e) => {
  const bytes = e.output.finish();
  return e.toResult(bytes === null || (bytes.buffer as ArrayBuffer).resizable ? e.output.result() : bytes);
};
const CHUNKS: Finish<Uint8Array<ArrayBuffer>[]> = (e) => (e.output.finish() === null ? (e.output.chunks as Uint8Array<ArrayBuffer>[]) : [e.output.result()]).map((c) => e.toResult(c));

/**
 * What `encode()` runs on: an encoder with one way to end a call, the
 * result of {@link EncoderBase.encode}, and the count behind
 * `encodedSize()`. The public {@link Encoder} adds the others
 * (`encodeSharedRef`, `encodeChunks`, `encodeInto`), so a program that
 * only calls `encode()` does not carry them.
 */
export class EncoderBase<ContextType = undefined, Options extends EncodeOptions<ContextType> = EncodeOptions<ContextType>> {
  /** Where the bytes go: the scratch, then the store or the chunks (output.ts). @internal */
  readonly output: Output;
  /** The options, read and resolved once, by the constructor. */
  protected readonly options: ResolvedEncodeOptions;
  /** What writes values into the output, with the options resolved. */
  protected readonly writer: ValueWriter;
  /** True while a call is under way: a re-entrant call uses a fresh encoder. */
  protected busy: boolean;
  /** The encoder that re-entrant calls use, made on first need. */
  private child: EncoderBase<ContextType> | null;
  /** With `buffers`: what makes a result a Node `Buffer` over the same memory (no copy); else null. */
  private readonly toBuffer: ((bytes: Uint8Array) => Uint8Array) | null;
  /** The encoder with the same options that counts bytes (`encodedSize`), made on first need. */
  private counter: EncoderBase<ContextType> | null;
  /** With `poolResults` (where it pays): the slab small results are cut from, and where its free part starts; else null. */
  private slab: Uint8Array<ArrayBuffer> | null;
  private slabPos: number;

  /**
   * Allocates nothing: the output's scratch is made at the first call,
   * and kept (grown to an output of up to 16 MiB whose estimate missed).
   *
   * @param resolved the options, resolved (see options.ts)
   * @param counting count bytes instead of writing them
   * @param scratchSize the output's scratch size (small for a counting or a throwaway encoder)
   */
  constructor(resolved: ResolvedEncodeOptions, counting = false, scratchSize: number = counting ? SMALL_SCRATCH_BYTES : resolved.initialBufferSize) {
    this.options = resolved;
    this.busy = false;
    this.child = this.counter = null;
    this.output = new Output(scratchSize, resolved.maxByteLength, counting);
    // pooling pays where allocating a small ArrayBuffer costs more than a view of a slab and the copy into it: in V8 ~0.5-0.7 µs
    // against ~40 ns; not on Bun, whose JavaScriptCore allocates one in ~35 ns, so there `poolResults` keeps plain results
    this.slab = resolved.poolResults && !ON_BUN ? new Uint8Array(0) : null;
    this.slabPos = 0;
    this.writer = valueWriter(this.output, resolved);
    this.toBuffer = resolved.buffers ? dropIn("buffers", encodeNeeds)() : null;
    if (resolved.buffers && this.toBuffer === null) throw invalidEncodeOption("buffers", true, "false: this runtime has no Buffer class on globalThis");
  }

  /** A result as the caller gets it: `bytes`, or with `buffers` a `Buffer` over the same memory (no copy). @internal */
  toResult(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
    return this.toBuffer === null ? bytes : (this.toBuffer(bytes) as Uint8Array<ArrayBuffer>);
  }

  /**
   * Encodes `value` into independent bytes of exact length.
   *
   * @param value the value to encode
   * @returns the MessagePack bytes
   * @throws {EncodeError} for unencodable values, cycles, lengths past 2^32-1
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const bytes = new Encoder().encode([1, "a"]);
   * console.assert(bytes.length === 4 && bytes[0] === 0x92);
   * ```
   */
  encode(value: unknown): EncoderOutput<Options> {
    return this.call(value, RESULT) as EncoderOutput<Options>;
  }

  /**
   * `encode`'s result of the call under way: the output as a plain buffer
   * (or a view of the slab with `poolResults`, up to
   * {@link POOL_MAX_RESULT_BYTES}), a `Buffer` with `buffers`. @internal
   */
  result(): Uint8Array<ArrayBuffer> {
    const output = this.output;
    const n = output.offset();
    if (this.slab === null || n > POOL_MAX_RESULT_BYTES) return this.toResult(output.result());
    // copied into the slab (a new one when this one is full, or was detached by a transfer): a view of it, with no allocation
    if (this.slab.length - this.slabPos < n) {
      this.slab = new Uint8Array(POOL_SLAB_BYTES);
      this.slabPos = 0;
    }
    const at = this.slabPos;
    output.copyTo(this.slab, at);
    this.slabPos = (at + n + 7) & ~7; // the next result starts 8-byte aligned
    // a view, not subarray(): its species lookup costs ~0.3 µs on Node 20
    return this.toResult(new Uint8Array(this.slab.buffer, at, n));
  }

  /**
   * The exact number of bytes {@link EncoderBase.encode} writes for
   * `value`, computed by the same code (an encoder of the same options
   * that counts) without keeping any output: the same extensions run
   * (functions given as payloads too), and the same values throw the same
   * errors.
   *
   * @param value the value to measure
   * @returns the encoded size in bytes
   * @throws {EncodeError} as {@link EncoderBase.encode}
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const encoder = new Encoder({ forceFloat32: true });
   * console.assert(encoder.encodedSize([1.5, "abc"]) === encoder.encode([1.5, "abc"]).length);
   * ```
   */
  encodedSize(value: unknown): number {
    return (this.counter ??= new EncoderBase(this.options, true)).call(value, COUNTED);
  }

  /**
   * The encoder for a call made while this one is busy (an extension
   * encoding with the same options): the first idle one down the chain of
   * kept children, found without recursion, so nested re-entry costs one
   * stack frame per level; past 4 busy levels (an encoder keeps at most 4 idle ones), a
   * throwaway encoder (not kept, so deep re-entry retains no memory). Each
   * has the same resolved options (a counting encoder's children count too).
   */
  private reentrant(): EncoderBase<ContextType> {
    const counting = this.output.counting;
    let e: EncoderBase<ContextType> = this as EncoderBase<ContextType>;
    for (let i = 0; i < 4 && e.busy; i++) e = e.child ??= new EncoderBase(this.options, counting);
    return e.busy ? new EncoderBase<ContextType>(this.options, counting, SMALL_SCRATCH_BYTES) : e;
  }

  /**
   * The one way a call goes (a re-entrant one runs on another encoder):
   * writes `value` (into the chunks from the start with `chunks`; `base`:
   * where the output starts in the result), returns what `finish` makes of
   * the output, and ends the call, whether it finished or threw. A call
   * that throws, in the walk or in `finish`, declares no records. @internal
   */
  call<T>(value: unknown, finish: Finish<T>, chunks = false, base = 0): T {
    if (this.busy) return this.reentrant().call(value, finish, chunks, base);
    const w = this.writer;
    w.records?.begin(); // may throw (shared structures that are no longer valid): the call has not started
    this.busy = true;
    w.base = base;
    this.output.begin(value, chunks);
    try {
      w.encodeValue(value, startDepth());
      return finish(this as EncoderBase<unknown>);
    } catch (e) {
      const error = w.failure(e); // see ValueWriter.failure
      w.records?.abort();
      throw error;
    } finally {
      w.records?.end();
      this.output.end();
      this.busy = false;
    }
  }
}

/**
 * A reusable encoder. Keep one per options set: it owns a scratch buffer
 * that later calls reuse. Safe to re-enter (an
 * extension may call `encode` while encoding).
 *
 * @example Encoding many values with one encoder
 * ```ts
 * import { Encoder } from "@resizable/msgpack";
 * const encoder = new Encoder({ sortKeys: true });
 * const a = encoder.encode({ b: 1, a: 2 });
 * console.assert(a[1] === 0xa1 && a[2] === 0x61); // key "a" first
 * ```
 */
export class Encoder<ContextType = undefined, Options extends EncodeOptions<ContextType> = EncodeOptions<ContextType>> extends EncoderBase<ContextType, Options> {
  /**
   * The class's name in every build, as it is exported (a minifier renames the class itself).
   * @internal
   */
  // @ts-ignore: a static accessor defines `name` (TypeScript assumes an assignment; Deno's checker does not)
  static get name(): string {
    return "Encoder";
  }
  /**
   * @param options see {@link EncodeOptions}; each is read once, here
   * @throws {EncodeError} (code `INVALID_ARGUMENT`) for an invalid or misspelled option
   */
  constructor(options?: (Options & EncodeOptions<ContextType>) | null);
  /**
   * @msgpack/msgpack 2.x's positional form, for programs written for it,
   * once `@resizable/msgpack/compat/msgpack` is imported (else an
   * `INVALID_ARGUMENT` naming that import): each argument is the option of
   * that name (see {@link EncodeOptions}), `undefined` for its default.
   *
   * @example
   * ```ts
   * import { Encoder, ExtensionCodec } from "@resizable/msgpack/compat/msgpack";
   * const codec = new ExtensionCodec<{ scale: number }>();
   * codec.register({ type: 1, encode: (v, ctx) => (v instanceof Set ? Uint8Array.of(v.size * ctx.scale) : null), decode: (d) => d[0] });
   * const bytes = new Encoder(codec, { scale: 10 }).encode(new Set([1, 2]));
   * console.assert(bytes[0] === 0xd4 && bytes[1] === 1 && bytes[2] === 20); // fixext 1, type 1, payload 20
   * const sorted = new Encoder(undefined, undefined, undefined, undefined, true).encode({ b: 1, a: 2 });
   * console.assert(sorted[2] === 0x61); // sortKeys: "a" first
   * ```
   */
  constructor(
    extensionCodec?: ExtensionCodecType<ContextType>,
    context?: ContextType,
    maxDepth?: number,
    initialBufferSize?: number,
    sortKeys?: boolean,
    forceFloat32?: boolean,
    ignoreUndefined?: boolean,
    forceIntegerToFloat?: boolean,
  );
  constructor(first?: EncodeOptions<ContextType> | ExtensionCodecType<ContextType> | null, ...rest: unknown[]) {
    super(encodeOptionsOf(argumentsOf("encode", first, rest)));
  }

  /**
   * Encodes `value` and returns a view of the encoder's own buffer, with
   * no copy when the output fits the scratch buffer (`initialBufferSize`),
   * as @msgpack/msgpack's method of that name does; larger outputs are
   * returned as by {@link Encoder.encode}.
   *
   * Hazard: the bytes are valid only until the next call on this encoder,
   * which overwrites them. Use them at once (write them to a socket or a
   * file, hash them) or copy them (`bytes.slice()`); never keep them,
   * never transfer `bytes.buffer`, and never hand them to code that might
   * encode with the same encoder first.
   *
   * @param value the value to encode
   * @returns the MessagePack bytes, valid until the next call
   * @throws {EncodeError} as {@link Encoder.encode}
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const encoder = new Encoder();
   * const a = encoder.encodeSharedRef([1, 2]);
   * console.assert(a.length === 3 && a[0] === 0x92);
   * const kept = a.slice(); // a copy survives the next call
   * encoder.encodeSharedRef("overwrites");
   * console.assert(kept[0] === 0x92 && a[0] !== 0x92);
   * ```
   */
  encodeSharedRef(value: unknown): EncoderOutput<Options> {
    return this.call(value, SHARED) as EncoderOutput<Options>;
  }

  /**
   * Encodes `value` into a list of chunks whose concatenation is the
   * encoding, skipping `encode`'s final copy. A value whose encoding is
   * larger than one buffer can hold (2^32 bytes) still encodes.
   *
   * @param value the value to encode
   * @returns the chunks, in order; independent of the encoder
   * @throws {EncodeError} as {@link Encoder.encode}
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const chunks = new Encoder().encodeChunks(new Uint8Array(1 << 20));
   * const total = chunks.reduce((n, c) => n + c.length, 0);
   * console.assert(total === (1 << 20) + 5);
   * ```
   */
  encodeChunks(value: unknown): EncoderOutput<Options>[] {
    return this.call(value, CHUNKS, true) as EncoderOutput<Options>[];
  }

  /**
   * Encodes `value` into `target` at `offset` and returns the number of
   * bytes written. A target over a resizable `ArrayBuffer` whose view
   * tracks its length is grown in place when needed; any other target that
   * is too small gets an `EncodeError` (code `OUT_OF_SPACE`) and is left
   * unchanged.
   *
   * @param value the value to encode
   * @param target where to write: a `Uint8Array` (a Node `Buffer` too); view
   *   another typed array's bytes as `new Uint8Array(view.buffer, view.byteOffset, view.byteLength)`
   * @param offset where in `target` to start: an integer from 0
   * @returns the number of bytes written
   * @throws {EncodeError} as {@link Encoder.encode}, or when the target is too small
   *   (`OUT_OF_SPACE`); `INVALID_ARGUMENT` for a target that is no `Uint8Array`
   *   or an offset that is no integer from 0, before anything is encoded
   *
   * @example
   * ```ts
   * import { Encoder } from "@resizable/msgpack";
   * const target = new Uint8Array(new ArrayBuffer(2, { maxByteLength: 1024 }));
   * const written = new Encoder().encodeInto("hello", target, 1);
   * console.assert(written === 6 && target.length === 7);
   * ```
   */
  encodeInto(value: unknown, target: Uint8Array, offset = 0): number {
    // a view's elements other than a Uint8Array's are no bytes (a Uint16Array would widen each one); NaN or null would write at 0, -1 fail in the engine
    if (!(target instanceof Uint8Array)) throw badEncodeArgument("the target", target, "a Uint8Array");
    if (!(Number.isSafeInteger(offset) && offset >= 0)) throw badEncodeArgument("the offset", offset, "an integer from 0");
    return this.call(value, (e) => e.output.copyTo(target, offset), false, offset);
  }

}

/**
 * What an {@link Encoder}'s `encode`, `encodeSharedRef` and `encodeChunks`
 * return for the options it was made with: Node's `Buffer` type (where the
 * program's types declare one) with `buffers: true`, else `Uint8Array`.
 */
export type EncoderOutput<Options> = Options extends { buffers: true } ? NodeBuffer : Uint8Array<ArrayBuffer>;

const defaultEncoder = /* @__PURE__ */ new EncoderBase(/* @__PURE__ */ encodeOptionsOf(undefined));
/** Encoders for options passed to `encode()`, by the values read from them. */
const encoders = /* @__PURE__ */ coderCache((options: ResolvedEncodeOptions) => {
  // no `sequential`: a sequence needs an encoder of its own to hold it, and the encoder these calls share would continue one hidden sequence for every caller
  if (options.sequential) throw invalidEncodeOption("sequential", true, "false in encode() and encodedSize(): a sequence lives in an encoder of its own, new Encoder({ useRecords: true, sequential: true })");
  return new EncoderBase(options);
});

/** The encoder for options passed to a call: read once, then found by the values read (an inline literal finds the same encoder). */
function encoderFor<C>(options: EncodeOptions<C> | null | undefined): EncoderBase<C> {
  return (options == null ? defaultEncoder : encoders(encodeOptionsOf(options))) as EncoderBase<C>;
}

/**
 * {@link encode} with `buffers: true`: the bytes as a Node `Buffer` (typed
 * `Buffer` where Node's types are loaded).
 *
 * @param value the value to encode
 * @param options the encode options, `buffers: true` among them
 * @returns the MessagePack bytes as a `Buffer`, over the result's own memory
 * @throws {EncodeError} as {@link encode}; `INVALID_ARGUMENT` where there is no `Buffer`
 *
 * @example
 * ```ts
 * import "@resizable/msgpack/compat/notepack"; // installs `buffers`
 * import { encode } from "@resizable/msgpack";
 * const bytes = encode({ id: 1 }, { buffers: true });
 * console.assert(bytes.constructor.name === "Buffer" && bytes[0] === 0x81);
 * ```
 */
export function encode<ContextType = undefined>(value: unknown, options: EncodeOptions<ContextType> & { buffers: true }): NodeBuffer;
/**
 * Encodes `value` as MessagePack into independent bytes of exact length.
 * Calls that pass the same options object share one {@link Encoder}.
 *
 * @param value null, undefined, boolean, number, bigint, string, binary
 *   (any typed array, `DataView`, `ArrayBuffer`), array, `Set` (as an
 *   array), plain object or `Map` (as a map), `Date` (timestamp), `ExtData`,
 *   or anything the `extensionCodec` handles
 * @param options see {@link EncodeOptions}
 * @returns the MessagePack bytes
 * @throws {EncodeError} for functions and symbols (`UNSUPPORTED_TYPE`,
 *   with the path of the value), cycles (`CYCLE`), nesting past `maxDepth`
 *   (`MAX_DEPTH`), bigints outside 64 bits, Invalid Date, lengths past
 *   2^32-1, a Map, Set or array that changed while being encoded
 *   (`CHANGED`), and invalid options (`INVALID_ARGUMENT`)
 *
 * @example
 * ```ts
 * import { decode, encode } from "@resizable/msgpack";
 * const bytes = encode({ id: 1, tags: ["a", "b"] });
 * console.assert(JSON.stringify(decode(bytes)) === '{"id":1,"tags":["a","b"]}');
 * ```
 */
export function encode<ContextType = undefined>(value: unknown, options?: EncodeOptions<ContextType>): Uint8Array<ArrayBuffer>;
export function encode<ContextType = undefined>(value: unknown, options?: EncodeOptions<ContextType>): Uint8Array<ArrayBuffer> {
  return encoderFor(options).encode(value) as Uint8Array<ArrayBuffer>;
}

/** Options of {@link encodedSize}: the encode options (those about buffers and results change nothing). */
export type SizeOptions<ContextType = undefined> = EncodeOptions<ContextType>;

/**
 * The exact number of bytes `encode(value, options)` writes, computed by
 * the encoder's own code without keeping any output: extension encoders
 * still run, and every value `encode` rejects throws the same
 * `EncodeError` (same code, same message).
 *
 * @param value any value `encode` accepts
 * @param options the encode options
 * @returns the encoded size in bytes
 * @throws {EncodeError} as {@link encode}
 *
 * @example
 * ```ts
 * import { encode, encodedSize } from "@resizable/msgpack";
 * const value = { name: "ünïcödé", list: [1, 300, 70000, 1.5] };
 * console.assert(encodedSize(value) === encode(value).length);
 * ```
 */
export function encodedSize<ContextType = undefined>(value: unknown, options?: SizeOptions<ContextType>): number {
  return encoderFor(options).encodedSize(value);
}
