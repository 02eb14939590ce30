/**
 * The contract between the decoders and the schema module
 * (`@resizable/msgpack/schema`, which fills the `schema` slot of
 * common/modules.ts): the Standard Schema interface the `schema` option
 * takes, declared here so that the library depends on no package for it,
 * and what a decoder gets from the module to check its values with
 * ({@link SchemaCheck}). Types only: a page that never checks a value
 * carries none of the checking.
 *
 * Spec: https://standardschema.dev (`@standard-schema/spec`, version 1)
 *
 * @module
 */

/**
 * A Standard Schema: any validator whose `~standard` property holds a
 * `validate` method and the types it checks to, as zod (4.x), valibot
 * (1.x), arktype (2.x) and Effect Schema give them. Written here in the
 * shape `@standard-schema/spec` publishes (its `StandardSchemaV1`), so
 * either type fits the other.
 *
 * @example A schema written by hand
 * ```ts
 * import type { StandardSchemaV1 } from "@resizable/msgpack";
 * const positive: StandardSchemaV1<unknown, number> = {
 *   "~standard": {
 *     version: 1,
 *     vendor: "by-hand",
 *     validate: (v) => (typeof v === "number" && v > 0 ? { value: v } : { issues: [{ message: "expected a positive number" }] }),
 *   },
 * };
 * console.assert(positive["~standard"].vendor === "by-hand");
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** What the standard defines: the version, the library's name, the validator and its types. */
  readonly "~standard": StandardSchemaProps<Input, Output>;
}

/** The `~standard` property of a {@link StandardSchemaV1}. */
export interface StandardSchemaProps<Input = unknown, Output = Input> {
  /** The version of the standard: 1. */
  readonly version: 1;
  /** The name of the library that made the schema. */
  readonly vendor: string;
  /** Checks a value: its result is the output value or the issues found, possibly as a Promise. */
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  /** For type inference only: the types the schema takes and gives. */
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/** What a {@link StandardSchemaProps.validate} returns: the value (success), or the issues found (failure). */
export type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> };

/** One issue found by a Standard Schema: its message, and the path (keys, or `{ key }` objects) to the part of the value it is about. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** The type a Standard Schema gives: the type of the values `decode(bytes, { schema })` returns. */
export type InferOutput<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];

/**
 * What a decoder checks each value with, made from its schema by the
 * schema module: the value the schema gives for `value` (its output), or a
 * `SCHEMA_MISMATCH` DecodeError at `offset`, the value's offset. `wait`:
 * the caller can wait (a stream decoder), so an asynchronous schema's
 * answer is returned as a Promise; else it is an `INVALID_ARGUMENT` that
 * names the ways that wait. An error the validator throws is thrown as it is.
 */
export type SchemaCheck = (value: unknown, offset: number, wait?: boolean) => unknown;
