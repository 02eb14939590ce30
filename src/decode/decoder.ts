/**
 * The reusable decoder: its options, and the calls around each read
 * (`decode`, `decodeMulti`, and `readAt` for the stream decoders): the
 * input set and let go, re-entrant calls from extension decoders, record
 * tables, the schema's check. The reading itself is its base class's
 * (reader.ts).
 *
 * @module
 */

import { dropIn } from "../common/modules.ts";
import { wrongInput, extraBytes, stackOverflow } from "../common/errors.ts";
import type { ExtensionCodecType } from "../format/extensions.ts";
import { toBytes, type DecodeInput } from "../common/input.ts";
import { decodeOptionsOf, type DecodeOptions, type PositionalDecoderArguments } from "./options.ts";
import { argumentsOf } from "../common/options.ts";
import type { RecordState } from "./record-hook.ts";
import { outerOf, type Outer } from "./cold.ts";
import { EMPTY, Reader } from "./reader.ts";
import type { SchemaCheck } from "./schema-hook.ts";

export type { DecodeOptions, DecoderOptions, Int64Mode } from "./options.ts";

/**
 * What `decode()` runs on: a decoder of one value per call, safe to
 * re-enter (an extension decoder may call `decode`). {@link CoreDecoder}
 * adds `decodeMulti` and the reads of the stream decoders, which a page
 * that imports only `decode` then does not carry.
 */
export class DecoderBase<ContextType = undefined, Output = unknown> extends Reader {
  // Every field is assigned in the constructor, after the reader's (one object shape).
  /** Whether a call is reading with this decoder (a call made meanwhile takes {@link reentrant}). @internal */
  busy: boolean;
  /** The decoder that re-entrant calls use, made on first need. */
  private child: DecoderBase<ContextType, Output> | null;
  /** This decoder's own table, for `decode()` calls (null without `useRecords`). @internal */
  readonly messageRecords: RecordState | null;
  /** With `schema`: what checks each value, from the schema module (the stream decoders check theirs with it); else null. @internal */
  readonly check: SchemaCheck | null;

  /** @param options see {@link DecodeOptions}; each is read once, here */
  constructor(options?: DecodeOptions<ContextType, Output> | null) {
    const o = decodeOptionsOf(options);
    super(o);
    this.busy = false;
    this.child = null;
    this.messageRecords = this.recordDecoding !== null && o.useRecords ? this.recordDecoding.table(o.structures, o.compileRecordReaders) : null;
    this.check = o.schema === null ? null : dropIn("schema", "decode")(o.schema);
  }

  /**
   * Decodes exactly one value that fills `input`.
   *
   * @param input the MessagePack bytes: a `Uint8Array`, `ArrayBuffer`, any
   *   view, or an array of byte values
   * @returns the value (with `schema`, the schema's output)
   * @throws {DecodeError} for malformed, truncated or over-limit input, for
   *   bytes after the value (code `EXTRA_BYTES`; use `decodeMulti`), for
   *   input that is not bytes (`INVALID_ARGUMENT`), and with `schema` for a
   *   value it refuses (`SCHEMA_MISMATCH`)
   *
   * @example
   * ```ts
   * import { Decoder } from "@resizable/msgpack";
   * console.assert(String(new Decoder().decode(new Uint8Array([0x93, 1, 2, 3]))) === "1,2,3");
   * ```
   */
  decode(input: DecodeInput): Output {
    // a busy decoder (called from an extension decoder) hands over to an idle
    // one without a frame of its own: nesting through extensions is stack-bound
    const d = this.busy ? this.reentrant() : this;
    const bytes = toBytes(input);
    // an extension's payload continues the decode that found it (see cold.ts)
    const outer = outerOf(bytes);
    let value: unknown;
    d.busy = true;
    try {
      d.setInput(bytes, 0, outer.base);
      if (input instanceof Uint8Array) d.source = input; // binaries with binaryAsView are its views (a Buffer's are Buffers)
      // this decoder's own record table, begun: the message's structures only (no locals: this frame is on every level of nested extensions)
      d.records = d.messageRecords;
      if (d.records !== null) d.records.begin();
      value = d.readValue(outer.depth);
      if (d.pos !== d.end) {
        throw extraBytes(d.base + d.pos, d.end - d.pos, wrongInput(d.bytes, d.pos));
      }
    } catch (e) {
      throw stackOverflow(e, d.base + d.pos);
    } finally {
      // let go of the input (no user memory kept between calls); inline, as this may run near the stack limit
      d.bytes = EMPTY;
      d.view = null;
      d.window.reset();
      d.source = null;
      // the message's own structures are let go (only the shared ones stay)
      if (d.records !== null) d.records.rollback();
      d.records = null;
      d.busy = false;
    }
    // the schema's verdict, once the input is let go (its errors are its own)
    return (this.check === null ? value : this.check(value, outer.base)) as Output;
  }

  /**
   * A free decoder for calls made while this one is busy (from an extension
   * decoder): the first idle one down the chain of children, made on first
   * need. Found in a loop, not by recursion through the busy ones: decode()
   * with equal options finds this same busy decoder at every level of nested
   * extensions, and a call at level k must not cost k stack frames.
   * @internal
   */
  reentrant(): DecoderBase<ContextType, Output> {
    let d: DecoderBase<ContextType, Output> = this;
    while (d.busy) d = d.child ?? (d.child = new DecoderBase(this.options as DecodeOptions<ContextType, Output>));
    return d;
  }
}

/**
 * A reusable decoder. Safe to re-enter (an extension decoder may call
 * `decode`). The core of the main entry's `Decoder`, which adds the stream
 * methods (and is what users make; one class of each name, so each keeps
 * its own `name` in a bundle).
 *
 * @example
 * ```ts
 * import { Decoder, encode } from "@resizable/msgpack";
 * const decoder = new Decoder({ useMap: true });
 * const map = decoder.decode(encode({ a: 1 })) as Map<string, number>;
 * console.assert(map.get("a") === 1);
 * ```
 */
export class CoreDecoder<ContextType = undefined, Output = unknown> extends DecoderBase<ContextType, Output> {
  /**
   * The class's name in every build, as it is exported (a minifier renames the class itself).
   * @internal
   */
  // @ts-ignore: a static accessor defines `name` (TypeScript assumes an assignment; Deno's checker does not)
  static get name(): string {
    return "Decoder";
  }

  /**
   * @param options see {@link DecodeOptions}; each is read once, here
   *   (with `schema`, the decoder's values are typed as the schema's output)
   * @throws {DecodeError} `INVALID_ARGUMENT` for an invalid or misspelled option
   */
  constructor(options?: DecodeOptions<ContextType, Output> | null);
  /**
   * @msgpack/msgpack 2.x's positional form, for programs written for it,
   * once `@resizable/msgpack/compat/msgpack` is imported (else an
   * `INVALID_ARGUMENT` naming that import): each argument is the option of
   * that name (see {@link DecodeOptions}), `undefined` for its default.
   *
   * @example
   * ```ts
   * import { Decoder, encode, ExtensionCodec } from "@resizable/msgpack/compat/msgpack";
   * const codec = new ExtensionCodec<{ scale: number }>();
   * codec.register({ type: 1, encode: () => null, decode: (d, _type, ctx) => d[0]! * ctx.scale });
   * console.assert(new Decoder(codec, { scale: 10 }).decode(Uint8Array.of(0xd4, 1, 2)) === 20);
   * const limited = new Decoder(undefined, undefined, 2);
   * try {
   *   limited.decode(encode("abc"));
   *   console.assert(false);
   * } catch (e) {
   *   console.assert((e as { code?: string }).code === "MAX_LENGTH"); // maxStrLength 2
   * }
   * ```
   */
  constructor(...args: PositionalDecoderArguments<ContextType>);
  constructor(first?: DecodeOptions<ContextType, Output> | ExtensionCodecType<ContextType> | null, ...rest: unknown[]) {
    super(argumentsOf<DecodeOptions<ContextType, Output>>("decode", first, rest));
  }

  /**
   * Decodes back-to-back values in `input`, one at a time.
   *
   * @param input the MessagePack bytes (as for `decode`)
   * @returns a generator of the values (with `schema`, each value's output)
   * @throws {DecodeError} when a value is malformed or truncated, or with
   *   `schema` refused (`SCHEMA_MISMATCH`, at its offset), as the generator
   *   runs; at once for input that is not bytes
   *
   * @example
   * ```ts
   * import { Decoder } from "@resizable/msgpack";
   * const values = [...new Decoder().decodeMulti(new Uint8Array([1, 2, 0xc3]))];
   * console.assert(values.length === 3 && values[2] === true);
   * ```
   */
  decodeMulti(input: DecodeInput): Generator<Output, void, unknown> {
    const bytes = toBytes(input);
    return this.values(bytes, outerOf(bytes), input instanceof Uint8Array ? input : null);
  }

  private *values(bytes: Uint8Array, outer: Outer, source: Uint8Array | null): Generator<Output, void, unknown> {
    let offset = 0;
    // the values of one input are a sequence: record structures carry over from one to the next
    const records = this.newRecords();
    while (offset < bytes.length) {
      const [value, next] = this.readAt(bytes, offset, outer.base, outer.depth, records, source);
      yield (this.check === null ? value : this.check(value, outer.base + offset)) as Output;
      offset = next;
    }
  }

  /**
   * Decodes one value starting at `offset` of `bytes` and returns it with
   * the offset after it: the building block of `decodeMulti` and the
   * stream decoders. Error offsets count from `base`, the offset that
   * `bytes[0]` has in the user's input (a stream offset), so they need no
   * rewriting. A value that runs past the end throws a `DecodeError` with
   * code `TRUNCATED`, and `needed` saying how many more bytes it needs at
   * least.
   *
   * @param bytes the input
   * @param offset where the value starts: an integer in 0..length
   * @param base the offset of `bytes[0]` in the user's input
   * @param depth the nesting depth the value starts at
   * @param records the record table of the sequence (from {@link newRecords}), or null
   * @param source the `Uint8Array` (or `Buffer`) the caller passed, whose views binaries become with `binaryAsView`; else null
   * @param ended whether `bytes` ends where the stream ended (a TRUNCATED error then says where)
   * @returns the value and the offset after it
   * @throws {DecodeError} for malformed or truncated input
   * @internal
   */
  readAt(bytes: Uint8Array, offset: number, base: number, depth: number, records: RecordState | null, source: Uint8Array | null = null, ended = false): [unknown, number] {
    const d = this.busy ? this.reentrant() : this;
    d.busy = true;
    try {
      d.setInput(bytes, offset, base);
      d.ended = ended;
      d.source = source;
      d.records = records;
      const value = d.readValue(depth);
      if (records !== null) records.commit();
      return [value, d.pos];
    } catch (e) {
      if (records !== null) records.rollback();
      throw stackOverflow(e, base + d.pos);
    } finally {
      // let go of the input (no user memory kept between calls); inline, as this may run near the stack limit
      d.bytes = EMPTY;
      d.view = null;
      d.window.reset();
      d.source = null;
      d.ended = false;
      d.records = null;
      d.busy = false;
    }
  }

  /**
   * A record table for one sequence of values (`decodeMulti`, a stream:
   * structures defined by one value stay defined for the next, as
   * msgpackr's `sequential`), begun, to pass to each {@link readAt}; null
   * without `useRecords`.
   * @internal
   */
  newRecords(): RecordState | null {
    if (this.messageRecords === null) return null;
    const table = this.recordDecoding!.table(this.options.structures, this.options.compileRecordReaders);
    table.begin();
    return table;
  }
}
