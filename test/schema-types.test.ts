// The types the `schema` option gives, checked by the compiler
// (`tsc -p test/tsconfig.json` compiles this file; test/exports.test.ts
// runs it): each decoder's result is the schema's output type, with no
// cast, for zod, valibot, arktype and a schema written by hand; without a
// schema it stays `unknown`. Each `@ts-expect-error` line must fail to
// compile, or tsc reports the directive as unused. The tests also run, so
// each typed result is a real value of that type.
import type { StandardSchemaV1 as SpecSchema } from "@standard-schema/spec";
import { type } from "arktype";
import * as v from "valibot";
import { beforeAll, describe, expect, expectTypeOf, test } from "vitest";
import { z } from "zod";
import { decode, decodeArrayStream, decodeAsync, decodeMulti, decodeMultiStream, Decoder, encode, type DecodeOptions, type StandardSchemaV1 } from "../src/index.ts";
import { DecoderStream } from "../src/streams.ts";

beforeAll(async () => {
  await import("../src/schema.ts");
});

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

const User = z.object({ id: z.number(), name: z.string(), since: z.number().transform((ms) => new Date(ms)) });
const bytes = encode({ id: 1, name: "ada", since: 0 });

describe("the result is typed as the schema's output", () => {
  test("zod: decode and decodeMulti (the output of transforms, not the input)", () => {
    const user = decode(bytes, { schema: User });
    expectTypeOf(user).toEqualTypeOf<{ id: number; name: string; since: Date }>();
    const id: number = user.id; // compiles: no cast
    const when: Date = user.since;
    // @ts-expect-error: name is a string
    const wrong: number = user.name;
    // @ts-expect-error: since is the transform's Date, not the input's number
    const input: number = user.since;
    expect([id, when.getTime(), typeof wrong, (input as unknown) instanceof Date]).toEqual([1, 0, "string", true]);
    for (const u of decodeMulti(bytes, { schema: User })) expectTypeOf(u).toEqualTypeOf<{ id: number; name: string; since: Date }>();
  });

  test("without a schema: unknown, as before", () => {
    const value = decode(bytes);
    expectTypeOf(value).toBeUnknown();
    // @ts-expect-error: unknown has no properties
    expect(value.id).toBe(1);
    const options: DecodeOptions = { useMap: false };
    expectTypeOf(decode(bytes, options)).toBeUnknown();
  });

  test("valibot and arktype", () => {
    const Point = v.object({ x: v.number(), y: v.optional(v.number(), 0) });
    const p = decode(encode({ x: 1 }), { schema: Point });
    expectTypeOf(p).toEqualTypeOf<{ x: number; y: number }>();
    const Tag = type({ tag: "'a' | 'b'" });
    const t = decode(encode({ tag: "a" }), { schema: Tag });
    expectTypeOf(t).toEqualTypeOf<{ tag: "a" | "b" }>();
    // @ts-expect-error: "c" is no tag
    const c: { tag: "c" } = t;
    expect([p.y, c.tag]).toEqual([0, "a"]);
  });

  test("a schema written by hand, and the standard's own type", () => {
    const positive: StandardSchemaV1<unknown, number> = {
      "~standard": { version: 1, vendor: "by-hand", validate: (x) => (typeof x === "number" && x > 0 ? { value: x } : { issues: [{ message: "not positive" }] }) },
    };
    expectTypeOf(decode(encode(3), { schema: positive })).toBeNumber();
    // ours fits @standard-schema/spec's type and theirs fits ours, both ways
    const theirs: SpecSchema<unknown, number> = positive;
    const ours: StandardSchemaV1<unknown, number> = theirs;
    expectTypeOf(decode(encode(3), { schema: theirs })).toBeNumber();
    expectTypeOf<SpecSchema.InferOutput<typeof User>>().toEqualTypeOf(decode(bytes, { schema: User }));
    expect(decode(encode(3), { schema: ours })).toBe(3);
  });

  test("Decoder, its stream methods, and the stream decoders", async () => {
    const decoder = new Decoder({ schema: User });
    expectTypeOf(decoder.decode(bytes)).toEqualTypeOf<{ id: number; name: string; since: Date }>();
    expectTypeOf(decoder.decodeMulti(bytes)).toEqualTypeOf<Generator<{ id: number; name: string; since: Date }, void, unknown>>();
    expectTypeOf(await decoder.decodeAsync(once(bytes))).toEqualTypeOf<{ id: number; name: string; since: Date }>();
    // @ts-expect-error: a Decoder of users gives no strings
    const s: string = decoder.decode(bytes);
    expect(typeof s).toBe("object");
    expectTypeOf(new Decoder().decode(bytes)).toBeUnknown();

    const Num = z.number();
    expectTypeOf(await decodeAsync(once(encode(1)), { schema: Num })).toBeNumber();
    for await (const n of decodeMultiStream(once(encode(1)), { schema: Num })) expectTypeOf(n).toBeNumber();
    for await (const n of decodeArrayStream(once(encode([1])), { schema: Num })) expectTypeOf(n).toBeNumber();
    const stream = new DecoderStream({ schema: Num });
    expectTypeOf(stream.readable).toEqualTypeOf<ReadableStream<number>>();
    const got: number[] = [];
    for await (const n of decoder.decodeStream(once(bytes))) got.push(n.id);
    expect(got).toEqual([1]);
  });
});
