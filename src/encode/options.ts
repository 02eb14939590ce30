/**
 * The options of the encoder: their types and documentation, and the
 * check that rejects invalid values when an encoder is made.
 *
 * @module
 */

import { invalidEncodeOption } from "../shared/errors.ts";
import { ExtensionCodec, type ExtensionCodecType } from "../format/extensions.ts";
import { MAX_STORE_BYTES } from "./spill.ts";
import { MAX_SHARED_STRUCTURES } from "./records.ts";

/**
 * Options of {@link encode} and {@link Encoder}. Every field may be left
 * out or `undefined` for its default; an invalid value throws an
 * `EncodeError` (`INVALID_ARGUMENT`) when the encoder is made.
 */
export interface EncodeOptions<ContextType = undefined> {
  /**
   * Extension types to try on every object (and every bigint, function and
   * symbol) before the built-in types, in @msgpack/msgpack's order: types
   * -1 down to -128, then 0 up to 127, where a `Date` is the timestamp
   * (-1) unless a type -1 is registered. Types registered later are
   * honoured. Any object with a `tryToEncode(value, context)` that returns
   * an `ExtData` or null (@msgpack/msgpack's `ExtensionCodecType`) may
   * stand in for an {@link ExtensionCodec}: it is asked about every object,
   * `Date`s included.
   * @default ExtensionCodec.defaultCodec (no extensions unless registered there)
   */
  extensionCodec?: ExtensionCodecType<ContextType> | undefined;
  /** Passed to the extension encoders. @default undefined */
  context?: ContextType | undefined;
  /**
   * Write object keys in sorted order (code unit order), for canonical
   * output. Costs a sort per object.
   * @default false
   */
  sortKeys?: boolean | undefined;
  /**
   * Write non-integer numbers (and, with `forceIntegerToFloat`, all
   * numbers) as float 32 instead of float 64. Loses precision.
   * @default false
   */
  forceFloat32?: boolean | undefined;
  /**
   * Write every number, integers too, as a float (float 64, or float 32
   * with `forceFloat32`), as @msgpack/msgpack's option of that name does.
   * @default false
   */
  forceIntegerToFloat?: boolean | undefined;
  /**
   * @msgpack/msgpack's 64-bit mode, for use with the decoder's
   * `useBigInt64`: bigints are written as int 64 / uint 64 without asking
   * the extensions first, and integer numbers outside the 32-bit ranges
   * are written as float 64, so that numbers decode as numbers and
   * bigints as bigints. Without it, extensions get the first try at
   * bigints, then every bigint is int 64 / uint 64 and every safe integer
   * number takes its shortest integer form.
   * @default false
   */
  useBigInt64?: boolean | undefined;
  /**
   * Leave out object properties whose value is `undefined` instead of
   * writing them as nil. Costs an array of values per object.
   * @default false
   */
  ignoreUndefined?: boolean | undefined;
  /**
   * Deepest nesting of arrays, maps and extensions (an `encode` called
   * from inside an extension encoder continues at the extension's depth).
   * Deeper values throw an `EncodeError` with code `MAX_DEPTH`, and values
   * that contain themselves one with code `CYCLE`. `Infinity` is allowed:
   * nesting is then bounded by the call stack, still with a `MAX_DEPTH`
   * error.
   * @default 512
   */
  maxDepth?: number | undefined;
  /**
   * Size of the reusable scratch buffer in bytes. Outputs that fit are
   * returned with one exact-size copy; larger ones move to a growable store.
   * @default 262144
   */
  initialBufferSize?: number | undefined;
  /**
   * Ceiling of the resizable store in bytes. The store's actual ceiling is
   * chosen from the size estimate, up to this; past it, output continues
   * as a list of chunks. Capped at 2^32.
   * @default 4294967296
   */
  maxByteLength?: number | undefined;
  /**
   * Return results of up to 4 KiB as views into a 16 KiB `ArrayBuffer`
   * shared by the encoder's next results (as Node's `Buffer` pool does),
   * instead of each in an `ArrayBuffer` of its own: 2-3x faster for tiny
   * messages on Node and Deno, where allocating an `ArrayBuffer` costs
   * ~0.6 µs. Ignored on Bun, where allocating is cheaper than pooling.
   *
   * The bytes stay independent (never overwritten), but `result.buffer` is
   * the whole slab, with other results' bytes in it:
   * - `structuredClone(result)` and `postMessage(result)` copy all 16 KiB
   *   (on Node 20, 4-8 µs instead of 1-2 µs for a 15-byte message), other
   *   results' bytes included;
   * - transferring it (`postMessage(x, [x.buffer])`) empties every other
   *   result cut from the same slab (their `length` becomes 0);
   * - a kept result keeps its slab alive: keeping 1 result in 64 holds
   *   ~86x their bytes;
   * - code that reads `result.buffer` without `byteOffset` reads the slab.
   *
   * Use it for results consumed at once (written to a socket or a file);
   * copy one with `result.slice()` before keeping, cloning or transferring it.
   * @default false
   */
  poolResults?: boolean | undefined;
  /**
   * Write plain objects (and class instances) as msgpackr's records: the
   * first object of each key sequence declares a record structure (fixext
   * of type 0x72, then the array of its field names), and objects of that
   * structure are written as its identifier (one byte from 0x40-0x7f)
   * followed by their values, without keys. Half the bytes of maps for
   * arrays of like objects, and faster to decode. Integers 64-127 are then
   * written as uint 8 (0xcc), as their fixint bytes start records. Read by
   * msgpackr's default `Unpackr` and by the decoder's `useRecords`; not by
   * plain MessagePack decoders. A function is asked about every object:
   * true writes it as a record, false as a map (which msgpackr's default
   * `Unpackr` decodes as a `Map`). Each message declares the structures it
   * uses (64 at a time, the oldest identifier reused after that), unless
   * `structures` or `sequential` shares them.
   * @default false
   */
  useRecords?: boolean | ((obj: object) => boolean) | undefined;
  /**
   * Record structures shared with the decoders, as msgpackr's option of
   * that name: an array whose entry i lists the field names of structure
   * i, written without a declaration as identifier 0x40 + i. New key
   * sequences are appended to it (changing it in place) while it has
   * fewer than `maxSharedStructures` entries; persist it and give the
   * decoders the same array (a message written after an append needs it).
   * Structures another encoder appends are picked up when a message
   * starts. Used with `useRecords`.
   * @default none
   */
  structures?: string[][] | undefined;
  /**
   * Most entries of `structures` (msgpackr's option): up to 8160. Past 32,
   * identifiers from index 32 take two bytes, as msgpackr writes them.
   * With `structures`, each message still has 32 identifiers of its own.
   * @default 32 with `structures`
   */
  maxSharedStructures?: number | undefined;
  /**
   * With `useRecords`: structures declared in one message stay declared
   * for this encoder's later messages (msgpackr's `sequential`), so the
   * output must be decoded in order by one sequence: `decodeMulti` over the
   * concatenation, or the stream decoders. `EncoderStream` with
   * `useRecords` is sequential unless this is false. A message that
   * throws makes the encoder forget its structures (the next message
   * declares them again).
   * @default false
   */
  sequential?: boolean | undefined;
}

/** @msgpack/msgpack's name for {@link EncodeOptions}. */
export type EncoderOptions<ContextType = undefined> = EncodeOptions<ContextType>;

/** Throws `INVALID_ARGUMENT` for the first option whose value the encoder does not take. */
export function checkEncodeOptions(o: object): void {
  const opts = o as Record<string, unknown>;
  for (const name of ["sortKeys", "forceFloat32", "forceIntegerToFloat", "useBigInt64", "ignoreUndefined", "poolResults", "sequential"]) {
    const v = opts[name];
    if (v !== undefined && typeof v !== "boolean") throw invalidEncodeOption(name, v, "a boolean");
  }
  const use = opts.useRecords;
  if (use !== undefined && typeof use !== "boolean" && typeof use !== "function") throw invalidEncodeOption("useRecords", use, "a boolean or a function");
  if (opts.structures !== undefined && !Array.isArray(opts.structures)) throw invalidEncodeOption("structures", opts.structures, "an array of field name arrays");
  const limits: Array<[string, number]> = [["maxDepth", Infinity], ["initialBufferSize", MAX_STORE_BYTES], ["maxByteLength", Infinity], ["maxSharedStructures", MAX_SHARED_STRUCTURES]];
  for (const [name, max] of limits) {
    const v = opts[name];
    if (v !== undefined && !(typeof v === "number" && v >= 0 && v <= max && (Number.isInteger(v) || v === Infinity))) {
      throw invalidEncodeOption(name, v, `an integer from 0 to ${max === Infinity ? "Infinity" : max}`);
    }
  }
  const codec = opts.extensionCodec as { tryToEncode?: unknown } | undefined;
  if (codec !== undefined && !(codec instanceof ExtensionCodec) && typeof codec?.tryToEncode !== "function") {
    throw invalidEncodeOption("extensionCodec", codec, "an ExtensionCodec, or an object with tryToEncode and decode");
  }
}
