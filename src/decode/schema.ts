/**
 * The `schema` decode option's checks, installed by
 * `@resizable/msgpack/schema`: each decoded value goes through the
 * schema's validator, and the caller gets the validator's output (its
 * transforms and defaults applied) or a `SCHEMA_MISMATCH` DecodeError.
 *
 * Spec: https://standardschema.dev (`@standard-schema/spec`, version 1)
 *
 * @module
 */

import { asyncSchema, badArgument, schemaMismatch } from "../common/errors.ts";
import type { SchemaCheck, StandardSchemaV1 } from "./schema-hook.ts";

/**
 * The check of `schema` (see {@link SchemaCheck}), made when a decoder is
 * made: the validator is found once, and called as a method of the
 * schema's `~standard` object.
 *
 * @throws {DecodeError} `INVALID_ARGUMENT` when `schema`'s `~standard` has no `validate` method
 */
export function checkWith(schema: { readonly "~standard": unknown }): SchemaCheck {
  const standard = schema["~standard"] as StandardSchemaV1["~standard"] | null | undefined;
  if (typeof standard?.validate !== "function") throw badArgument("option schema", schema, "a Standard Schema (with a ~standard.validate method)");
  return (value, offset, wait) => {
    const result = standard.validate(value);
    if (typeof (result as Partial<PromiseLike<unknown>> | null)?.then !== "function") return outcome(result, offset);
    if (wait) return Promise.resolve(result).then((r) => outcome(r, offset));
    (result as PromiseLike<unknown>).then(undefined, () => undefined); // nobody waits for it: its rejection is no unhandled one
    throw asyncSchema(offset);
  };
}

/** The output of a validator's `result` for the value at `offset`, or its issues as a `SCHEMA_MISMATCH` error. */
function outcome(result: unknown, offset: number): unknown {
  if (typeof result !== "object" || result === null) throw badArgument("the schema's validate result", result, "an object with value or issues", offset);
  const r = result as { value?: unknown; issues?: unknown };
  if (r.issues) throw schemaMismatch(offset, r.issues); // a falsy `issues` is a success, as the standard says
  return r.value;
}
