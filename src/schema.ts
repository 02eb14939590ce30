/**
 * Typed, checked decoding with any Standard Schema (zod 4, valibot 1,
 * arktype 2, Effect Schema, or an object written by hand): importing this
 * entry lets every decoder of the program take the `schema` option, in
 * `decode`, `decodeMulti`, `Decoder` and every stream decoder. Each
 * decoded value goes through the schema's validator; the caller gets its
 * output, typed as the schema's output type, or a `DecodeError` with code
 * `SCHEMA_MISMATCH`, the schema's `issues` and the offset of the value.
 * It also exports everything the main entry does, so one import line
 * serves. Without it, `schema` is an `INVALID_ARGUMENT` error that names
 * this import, and the main entry carries none of the checking.
 *
 * Spec: https://standardschema.dev
 *
 * @example
 * ```ts
 * import { decode, encode, type StandardSchemaV1 } from "@resizable/msgpack/schema";
 * const id: StandardSchemaV1<unknown, number> = {
 *   "~standard": { version: 1, vendor: "by-hand", validate: (v) => (Number.isInteger(v) ? { value: v as number } : { issues: [{ message: "expected an integer" }] }) },
 * };
 * const n = decode(encode(7), { schema: id }); // typed number
 * console.assert(n + 1 === 8);
 * ```
 *
 * @module
 */

import { install } from "./common/modules.ts";
import { checkWith } from "./decode/schema.ts";

install("schema", checkWith);

export * from "./index.ts";
