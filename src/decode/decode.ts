/**
 * `decode` and `decodeMulti`, the functions: each call finds its decoder,
 * the default one or one made for its options (read once, then found by
 * the values read, so an inline literal finds the same decoder).
 *
 * @module
 */

import type { DecodeInput } from "../common/input.ts";
import { coderCache } from "../common/options.ts";
import { CoreDecoder } from "./decoder.ts";
import { DecoderBase } from "./reader.ts";
import { decodeOptionsOf, type DecodeOptions } from "./options.ts";

const defaultDecoder = /* @__PURE__ */ new DecoderBase();
/** Decoders for options passed to `decode()`, by the values read from them; `decodeMulti()`'s, of the class that has it. */
const decoders = /* @__PURE__ */ coderCache((options: DecodeOptions<unknown>) => new DecoderBase(options));
const multiDecoders = /* @__PURE__ */ coderCache((options: DecodeOptions<unknown>) => new CoreDecoder(options));

/**
 * Decodes exactly one MessagePack value that fills `input`.
 *
 * Maps decode as plain objects (a `__proto__` key becomes an own property,
 * as with `JSON.parse`; number and bigint keys become property names), or
 * as `Map` with `useMap` or when a key is a binary, boolean, nil, array,
 * map or extension (then in wire order). 64-bit integers decode as numbers
 * when safe, else as bigints.
 *
 * @param input the bytes: a `Uint8Array`, `ArrayBuffer`, any view, or an
 *   array of byte values
 * With the `schema` option (any Standard Schema: zod, valibot, arktype...;
 * after `import "@resizable/msgpack/schema"`), the value must match it:
 * the result is the schema's output, typed as such.
 *
 * @param options see {@link DecodeOptions}
 * @returns the value (with `schema`, the schema's output)
 * @throws {DecodeError} with `offset` and `code`: truncated input, the
 *   reserved byte 0xc1, invalid UTF-8, limits, bad timestamps, extra bytes,
 *   input that is not bytes and invalid options (`INVALID_ARGUMENT`), a
 *   value the `schema` refuses (`SCHEMA_MISMATCH`, with its `issues`)
 *
 * @example
 * ```ts
 * import { decode, encode } from "@resizable/msgpack";
 * const value = decode(encode({ when: new Date(0), big: 2n ** 60n })) as { when: Date; big: bigint };
 * console.assert(value.when.getTime() === 0 && value.big === 2n ** 60n);
 * ```
 *
 * @example Map keys
 * ```ts
 * import { decode, encode } from "@resizable/msgpack";
 * const byNumber = decode(encode(new Map([[1, "a"]]))) as Record<string, string>;
 * console.assert(byNumber["1"] === "a");
 * const byFlag = decode(encode(new Map<unknown, number>([["b", 1], [2, 2], [true, 3]]))) as Map<unknown, number>;
 * console.assert([...byFlag.keys()].join() === "b,2,true" && byFlag.get("2") === 2);
 * const asDecoded = decode(encode(new Map([[1, "a"]])), { useMap: true }) as Map<number, string>;
 * console.assert(asDecoded.get(1) === "a");
 * ```
 *
 * @example Typed and checked by a schema
 * ```ts
 * import { decode, encode, type StandardSchemaV1 } from "@resizable/msgpack/schema";
 * const text: StandardSchemaV1<unknown, string> = {
 *   "~standard": { version: 1, vendor: "by-hand", validate: (v) => (typeof v === "string" ? { value: v.trim() } : { issues: [{ message: "expected text" }] }) },
 * };
 * const s = decode(encode("  hi "), { schema: text }); // a string, no cast
 * console.assert(s === "hi");
 * ```
 */
export function decode<ContextType = undefined, Output = unknown>(input: DecodeInput, options?: DecodeOptions<ContextType, Output>): Output {
  // the options read once, then found by the values read (an inline literal finds the same decoder)
  return (options == null ? defaultDecoder : decoders(decodeOptionsOf(options))).decode(input) as Output;
}

/**
 * Decodes back-to-back MessagePack values in `input`, one at a time.
 *
 * @param input the bytes
 * @param options see {@link DecodeOptions}; with `schema`, each value must match it
 * @returns a generator of the values (with `schema`, each value's output)
 * @throws {DecodeError} when a value is malformed or truncated, or refused
 *   by the `schema` (`SCHEMA_MISMATCH`, with the value's offset)
 *
 * @example
 * ```ts
 * import { decodeMulti, encode } from "@resizable/msgpack";
 * const bytes = new Uint8Array([...encode("a"), ...encode(2)]);
 * console.assert([...decodeMulti(bytes)].join() === "a,2");
 * ```
 */
export function decodeMulti<ContextType = undefined, Output = unknown>(
  input: DecodeInput,
  options?: DecodeOptions<ContextType, Output>,
): Generator<Output, void, unknown> {
  return (multiDecoders(decodeOptionsOf(options)) as unknown as CoreDecoder<ContextType, Output>).decodeMulti(input);
}
