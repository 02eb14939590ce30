/**
 * The reusable decoder: `decode` of its base class (reader.ts), and
 * `decodeMulti` and `readAt`, the reads of the stream decoders, with the
 * record tables of a sequence of values.
 *
 * @module
 */

import { stackOverflow } from "../common/errors.ts";
import type { ExtensionCodecType } from "../format/extensions.ts";
import { toBytes, type DecodeInput } from "../common/input.ts";
import type { DecodeOptions, PositionalDecoderArguments } from "./options.ts";
import { argumentsOf } from "../common/options.ts";
import type { RecordState } from "./record-hook.ts";
import { outerOf, type Outer } from "./cold.ts";
import { DecoderBase, EMPTY } from "./reader.ts";

export type { DecodeOptions, DecoderOptions, Int64Mode } from "./options.ts";

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
    return this.values(bytes, outerOf(bytes), bytes !== input && input instanceof Uint8Array ? input : null);
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
   * @param source the `Buffer` (a `Uint8Array` subclass) the caller passed, whose views binaries become with `binaryAsView`; else null
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
    const table = this.recordDecoding!.table(this.options.structures ?? null, this.options.compileRecordReaders);
    table.begin();
    return table;
  }
}
