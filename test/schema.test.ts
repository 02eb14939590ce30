// The `schema` decode option, with real zod, valibot and arktype schemas
// and schemas written by hand: what the caller gets (the schema's output),
// what a mismatch is (SCHEMA_MISMATCH, issues, paths, offsets), in every
// decoder that takes it, asynchronous validators, validators that throw,
// and hostile values and messages. The first block runs before the schema
// entry is imported (it is imported once, in a beforeAll further down).
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, test, beforeAll } from "vitest";
import { z } from "zod";
import { decode, decodeArrayStream, decodeAsync, decodeMulti, decodeMultiStream, DecodeError, Decoder, encode, ExtensionCodec, type StandardSchemaV1 } from "../src/index.ts";
import { DecoderStream } from "../src/streams.ts";
import { Random, value as randomValue } from "./_support/arbitrary.ts";
import { chunked, chunkings, readableOf } from "./_support/streams.ts";

/** The error `f` throws (or its promise rejects with); fails when it returns. */
async function caught(f: () => unknown): Promise<unknown> {
  try {
    await f();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error, got a result");
}

/** The error `f` throws synchronously; fails when it returns. */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected an error, got a result");
}

/** A DecodeError with `code`, for `expect`. */
function isDecodeError(e: unknown, code: string): DecodeError {
  expect(e).toBeInstanceOf(DecodeError);
  expect((e as DecodeError).code, (e as Error).message).toBe(code);
  return e as DecodeError;
}

/** Back-to-back encodings of `values`, and the offset where each starts (the oracle: the lengths of the encodings, summed). */
function messages(values: unknown[]): { bytes: Uint8Array; offsets: number[] } {
  const parts = values.map((x) => encode(x));
  const offsets: number[] = [];
  let n = 0;
  for (const p of parts) {
    offsets.push(n);
    n += p.length;
  }
  const bytes = new Uint8Array(n);
  parts.forEach((p, i) => bytes.set(p, offsets[i]!));
  return { bytes, offsets };
}

/** A source of `bytes` in chunks of `size` bytes that records how far it was read and whether it was stopped (return() called). */
function source(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> & { pulled: number; stopped: boolean } {
  const s = {
    pulled: 0,
    stopped: false,
    [Symbol.asyncIterator]() {
      let at = 0;
      return {
        next: async () => {
          if (at >= bytes.length) return { done: true as const, value: undefined };
          const chunk = bytes.slice(at, at + size);
          at += chunk.length;
          s.pulled = at;
          return { done: false as const, value: chunk };
        },
        return: async () => {
          s.stopped = true;
          return { done: true as const, value: undefined };
        },
      };
    },
  };
  return s;
}

/** A Standard Schema written by hand around `validate`, counting its calls. */
function byHand<T>(validate: (value: unknown) => Result<T> | Promise<Result<T>>): StandardSchemaV1<unknown, T> & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    "~standard": {
      version: 1,
      vendor: "by-hand",
      validate: (value: unknown) => {
        calls.push(value);
        return validate(value);
      },
    },
  };
}
/** The result of a hand-written validate, as the standard defines it. */
type Result<T> = { value: T; issues?: undefined } | { issues: { message: string; path?: (PropertyKey | { key: PropertyKey })[] }[] };

const IMPORT = /needs its module: add import "@resizable\/msgpack\/schema"/;

describe("without the schema entry", () => {
  test("schema is INVALID_ARGUMENT naming the import, in every decoder that takes it", async () => {
    const schema = z.number();
    const bytes = encode(1);
    const cases: (() => unknown)[] = [
      () => decode(bytes, { schema }),
      () => [...decodeMulti(bytes, { schema })],
      () => new Decoder({ schema }),
      () => new DecoderStream({ schema }),
      () => decodeAsync(source(bytes, 1), { schema }),
      async () => {
        for await (const _ of decodeMultiStream(source(bytes, 1), { schema }));
      },
    ];
    for (const f of cases) expect((isDecodeError(await caught(f), "INVALID_ARGUMENT") as Error).message).toMatch(IMPORT);
  });
});

describe("with the schema entry", () => {
  beforeAll(async () => {
    await import("../src/schema.ts");
  });

  describe("the option", () => {
    test("a value that is no Standard Schema is INVALID_ARGUMENT naming the option, and a misspelled name is caught", () => {
      for (const bad of [5, "zod", {}, { "~standard": {} }, { "~standard": { validate: "no" } }, () => 1]) {
        const e = isDecodeError(thrown(() => decode(encode(1), { schema: bad as never })), "INVALID_ARGUMENT");
        expect(e.message).toMatch(/option schema .*not a Standard Schema/);
      }
      const e = isDecodeError(thrown(() => decode(encode(1), { shema: z.number() } as never)), "INVALID_ARGUMENT");
      expect(e.message).toMatch(/did you mean schema\?/);
    });

    test("a ~standard getter that lies (a validator first, then none) is INVALID_ARGUMENT when the decoder is made, not a TypeError later", () => {
      let reads = 0;
      const liar = {
        get "~standard"() {
          return reads++ === 0 ? { version: 1, vendor: "x", validate: () => ({ value: 1 }) } : {};
        },
      };
      isDecodeError(thrown(() => new Decoder({ schema: liar as never })), "INVALID_ARGUMENT");
    });

    test("absent or undefined: values as decoded; null is INVALID_ARGUMENT, as for every option", () => {
      expect(decode(encode([1]), { schema: undefined })).toEqual([1]);
      expect(decode(encode([1]), {})).toEqual([1]);
      isDecodeError(thrown(() => decode(encode([1]), { schema: null as never })), "INVALID_ARGUMENT");
    });
  });

  describe("zod", () => {
    const User = z.object({ id: z.number().int(), name: z.string(), tags: z.array(z.string()).default([]) });

    test("a matching value: the schema's output (defaults filled in)", () => {
      const u = decode(encode({ id: 7, name: "ada" }), { schema: User });
      expect(u).toEqual({ id: 7, name: "ada", tags: [] });
    });

    test("transforms apply: the caller gets what the transform returns", () => {
      const Length = z.string().transform((s) => s.length);
      expect(decode(encode("hello"), { schema: Length })).toBe(5);
      const Dated = z.object({ at: z.number().transform((ms) => new Date(ms)) });
      expect(decode(encode({ at: 86_400_000 }), { schema: Dated }).at.toISOString()).toBe("1970-01-02T00:00:00.000Z");
    });

    test("a mismatch: SCHEMA_MISMATCH at offset 0, each issue's message and path, on the error and in its message", () => {
      const e = isDecodeError(thrown(() => decode(encode({ id: 1.5, name: 2, tags: ["a", 3] }), { schema: User })), "SCHEMA_MISMATCH");
      expect(e.offset).toBe(0);
      expect(e.issues!.map((i) => i.path)).toEqual([["id"], ["name"], ["tags", 1]]);
      for (const issue of e.issues!) expect(typeof issue.message === "string" && issue.message.length > 0).toBe(true);
      expect(e.message).toMatch(/^Cannot decode value at offset 0: it does not match the schema \(3 issue\(s\)\): \$\.id: ".+"; \$\.name: ".+"; \$\.tags\[1\]: ".+"$/);
    });

    test("a schema with an async refinement: INVALID_ARGUMENT naming decodeAsync in decode; decodeAsync waits for it", async () => {
      const Even = z.number().refine(async (n) => n % 2 === 0, "odd");
      const e = isDecodeError(thrown(() => decode(encode(2), { schema: Even })), "INVALID_ARGUMENT");
      expect(e.message).toMatch(/decodeAsync/);
      expect(await decodeAsync(source(encode(2), 1), { schema: Even })).toBe(2);
      const m = isDecodeError(await caught(() => decodeAsync(source(encode(3), 1), { schema: Even })), "SCHEMA_MISMATCH");
      expect(m.issues).toEqual([{ message: "odd", path: [] }]);
    });
  });

  describe("valibot", () => {
    const Point = v.object({ x: v.number(), y: v.optional(v.number(), 0) });

    test("a matching value: the schema's output (defaults filled in)", () => {
      expect(decode(encode({ x: 3 }), { schema: Point })).toEqual({ x: 3, y: 0 });
    });

    test("pipe transforms apply", () => {
      const Upper = v.pipe(v.string(), v.transform((s) => s.toUpperCase()));
      expect(decode(encode("abc"), { schema: Upper })).toBe("ABC");
    });

    test("a mismatch: its { key } path items given as keys", () => {
      const Rows = v.array(v.object({ id: v.number() }));
      const e = isDecodeError(thrown(() => decode(encode([{ id: 1 }, { id: "2" }]), { schema: Rows })), "SCHEMA_MISMATCH");
      expect(e.issues!.map((i) => i.path)).toEqual([[1, "id"]]);
      expect(e.message).toContain('$[1].id: "');
    });

    test("an async schema works with the stream decoders", async () => {
      const Known = v.pipeAsync(v.string(), v.checkAsync(async (s) => s !== "bad", "not allowed"));
      const { bytes } = messages(["a", "b"]);
      const out: string[] = [];
      for await (const s of decodeMultiStream(source(bytes, 1), { schema: Known })) out.push(s);
      expect(out).toEqual(["a", "b"]);
    });
  });

  describe("arktype", () => {
    const Item = type({ sku: "string", qty: "number.integer > 0" });

    test("a matching value, and a morph applied", () => {
      expect(decode(encode({ sku: "a", qty: 2 }), { schema: Item })).toEqual({ sku: "a", qty: 2 });
      const Trimmed = type("string").pipe((s) => s.trim());
      expect(decode(encode("  x  "), { schema: Trimmed })).toBe("x");
    });

    test("a mismatch, with paths", () => {
      const e = isDecodeError(thrown(() => decode(encode({ sku: 1, qty: 0 }), { schema: Item })), "SCHEMA_MISMATCH");
      expect(e.issues!.map((i) => i.path).sort()).toEqual([["qty"], ["sku"]]);
    });
  });

  describe("a schema written by hand (no library)", () => {
    test("the validator gets the decoded value; the caller gets the output object itself, not the input", () => {
      const out = { replaced: true };
      const schema = byHand(() => ({ value: out }));
      const result = decode(encode({ a: [1, 2] }), { schema });
      expect(result).toBe(out);
      expect(schema.calls).toEqual([{ a: [1, 2] }]);
    });

    test("issues as the standard allows them: path items as keys, { key } objects, numbers and symbols; no path", () => {
      const s = Symbol("tag");
      const schema = byHand(() => ({ issues: [{ message: "a", path: ["x", { key: 2 }, { key: "y z" }, s] }, { message: "b" }] }));
      const e = isDecodeError(thrown(() => decode(encode(1), { schema })), "SCHEMA_MISMATCH");
      expect(e.issues).toEqual([
        { message: "a", path: ["x", 2, "y z", s] },
        { message: "b", path: [] },
      ]);
      expect(e.message).toBe('Cannot decode value at offset 0: it does not match the schema (2 issue(s)): $.x[2]["y z"][Symbol("tag")]: "a"; $: "b"');
    });

    test("an empty issues list is a failure, a falsy one a success (as the standard says)", () => {
      expect(isDecodeError(thrown(() => decode(encode(1), { schema: byHand(() => ({ issues: [] })) })), "SCHEMA_MISMATCH").issues).toEqual([]);
      expect(decode(encode(1), { schema: byHand(() => ({ value: 9, issues: undefined })) })).toBe(9);
    });

    test("a validate result that is no object is INVALID_ARGUMENT, not a value", () => {
      for (const r of [undefined, null, 1, "ok"]) {
        isDecodeError(thrown(() => decode(encode(1), { schema: byHand(() => r as never) })), "INVALID_ARGUMENT");
      }
    });

    test("a validator that throws: its error, the same object, from every decoder", async () => {
      const boom = new Error("validator failed");
      const schema = byHand(() => {
        throw boom;
      });
      const { bytes } = messages([1, 2]);
      expect(thrown(() => decode(encode(1), { schema }))).toBe(boom);
      expect(thrown(() => [...decodeMulti(bytes, { schema })])).toBe(boom);
      expect(thrown(() => new Decoder({ schema }).decode(encode(1)))).toBe(boom);
      expect(await caught(() => decodeAsync(source(encode(1), 1), { schema }))).toBe(boom);
      expect(
        await caught(async () => {
          for await (const _ of decodeMultiStream(source(bytes, 1), { schema }));
        }),
      ).toBe(boom);
      const rejecting = byHand(() => Promise.reject(boom));
      expect(
        await caught(async () => {
          for await (const _ of decodeArrayStream(source(encode([1]), 1), { schema: rejecting }));
        }),
      ).toBe(boom);
    });

    test("an async validator in decode, decodeMulti and Decoder#decode is INVALID_ARGUMENT naming the ways that wait, and its rejection is no unhandled one", async () => {
      const unhandled: unknown[] = [];
      const listener = (reason: unknown) => unhandled.push(reason);
      process.on("unhandledRejection", listener);
      try {
        const rejecting = byHand(() => Promise.reject(new Error("later")));
        const cases = [() => decode(encode(1), { schema: rejecting }), () => [...decodeMulti(encode(1), { schema: rejecting })], () => new Decoder({ schema: rejecting }).decode(encode(1))];
        for (const f of cases) {
          const e = isDecodeError(thrown(f), "INVALID_ARGUMENT");
          expect(e.message).toMatch(/validates asynchronously.*decodeAsync, decodeMultiStream, decodeArrayStream or DecoderStream/);
        }
        await new Promise((r) => setTimeout(r, 20));
        expect(unhandled).toEqual([]);
      } finally {
        process.off("unhandledRejection", listener);
      }
    });
  });

  describe("decodeMulti and Decoder", () => {
    const Num = z.number();

    test("decodeMulti checks each value: the values before the mismatch, then SCHEMA_MISMATCH at that value's offset", () => {
      const { bytes, offsets } = messages([1, 300, "x", 4]);
      const got: number[] = [];
      const e = isDecodeError(
        thrown(() => {
          for (const n of decodeMulti(bytes, { schema: Num })) got.push(n);
        }),
        "SCHEMA_MISMATCH",
      );
      expect(got).toEqual([1, 300]);
      expect(e.offset).toBe(offsets[2]);
      expect(e.message).toContain(`at offset ${offsets[2]}:`);
    });

    test("Decoder: decode, decodeMulti and the stream methods, all with its schema", async () => {
      const d = new Decoder({ schema: z.string().transform((s) => s + "!") });
      expect(d.decode(encode("a"))).toBe("a!");
      const { bytes } = messages(["b", "c"]);
      expect([...d.decodeMulti(bytes)]).toEqual(["b!", "c!"]);
      expect(await d.decodeAsync(source(encode("d"), 1))).toBe("d!");
      const items: string[] = [];
      for await (const s of d.decodeArrayStream(source(encode(["e", "f"]), 2))) items.push(s);
      const values: string[] = [];
      for await (const s of d.decodeStream(source(bytes, 3))) values.push(s);
      expect([items, values]).toEqual([
        ["e!", "f!"],
        ["b!", "c!"],
      ]);
      isDecodeError(thrown(() => d.decode(encode(1))), "SCHEMA_MISMATCH");
    });

    test("a decoder re-entered from an extension decoder checks the inner call's value with the inner call's options", () => {
      // the outer decode's schema sees the extension's result; the inner decode() has no schema
      const codec = new ExtensionCodec();
      codec.register({ type: 5, encode: () => null, decode: (data) => decode(data) });
      const inner = encode("inner");
      const bytes = Uint8Array.of(0xc7, inner.length, 5, ...inner);
      expect(decode(bytes, { extensionCodec: codec, schema: z.literal("inner") })).toBe("inner");
      isDecodeError(thrown(() => decode(bytes, { extensionCodec: codec, schema: z.literal("other") })), "SCHEMA_MISMATCH");
    });
  });

  describe("streams: each message checked as it arrives", () => {
    const Msg = z.object({ n: z.number() });
    const values = [{ n: 1 }, { n: 2 }, { n: "three" }, { n: 4 }, { n: 5 }];

    test.each([1, 2, 3, 7, 1000])("decodeMultiStream in chunks of %i bytes: the values before, then SCHEMA_MISMATCH at the message's stream offset; the source is stopped", async (size) => {
      const { bytes, offsets } = messages(values);
      const src = source(bytes, size);
      const got: unknown[] = [];
      const e = isDecodeError(
        await caught(async () => {
          for await (const m of decodeMultiStream(src, { schema: Msg })) got.push(m);
        }),
        "SCHEMA_MISMATCH",
      );
      expect(got).toEqual(values.slice(0, 2));
      expect(e.offset).toBe(offsets[2]);
      expect(e.issues).toEqual([{ message: expect.any(String), path: ["n"] }]);
      // stopped: it did not read on to the end (the chunk holding the bad message at most)
      if (size < bytes.length) {
        expect(src.stopped).toBe(true);
        expect(src.pulled).toBeLessThan(bytes.length);
      }
    });

    test("decodeMultiStream with lengthPrefixed: the offset is the value's, after its 4-byte prefix", async () => {
      const frames: number[] = [];
      const offsets: number[] = [];
      for (const x of values) {
        const b = encode(x);
        offsets.push(frames.length + 4);
        frames.push(0, 0, 0, b.length, ...b);
      }
      const got: unknown[] = [];
      const e = isDecodeError(
        await caught(async () => {
          for await (const m of decodeMultiStream(source(Uint8Array.from(frames), 5), { schema: Msg, lengthPrefixed: true })) got.push(m);
        }),
        "SCHEMA_MISMATCH",
      );
      expect([got, e.offset]).toEqual([values.slice(0, 2), offsets[2]]);
    });

    test("decodeArrayStream checks each item: the items before, then the item's stream offset", async () => {
      const bytes = encode(values);
      const header = 1; // a fixarray of 5
      const itemOffsets = messages(values).offsets.map((o) => header + o);
      for (const size of [1, 4, 64]) {
        const got: unknown[] = [];
        const e = isDecodeError(
          await caught(async () => {
            for await (const m of decodeArrayStream(source(bytes, size), { schema: Msg })) got.push(m);
          }),
          "SCHEMA_MISMATCH",
        );
        expect([got, e.offset]).toEqual([values.slice(0, 2), itemOffsets[2]]);
      }
    });

    test("decodeAsync: the value's output, or a mismatch at offset 0 (after the stream ended)", async () => {
      expect(await decodeAsync(source(encode({ n: 1, extra: true }), 2), { schema: Msg })).toEqual({ n: 1 });
      isDecodeError(await caught(() => decodeAsync(source(encode({ n: "1" }), 2), { schema: Msg })), "SCHEMA_MISMATCH");
      // bytes after the value are reported first, as decode() does
      isDecodeError(await caught(() => decodeAsync(source(messages([{ n: "1" }, 2]).bytes, 2), { schema: Msg })), "EXTRA_BYTES");
    });

    test("DecoderStream: the readable gives the values before the mismatch, then errors with it", async () => {
      const { bytes, offsets } = messages(values);
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.slice(i, i + 3));
          c.close();
        },
      });
      const reader = body.pipeThrough(new DecoderStream({ schema: Msg })).getReader();
      const got: unknown[] = [];
      const e = isDecodeError(
        await caught(async () => {
          for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
        }),
        "SCHEMA_MISMATCH",
      );
      expect([got, e.offset]).toEqual([values.slice(0, 2), offsets[2]]);
    });

    test("async validators through every stream decoder, in order, each value once", async () => {
      let running = 0;
      let most = 0;
      const slow = byHand<number>(async (x) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 1));
        running--;
        return typeof x === "number" ? { value: x * 10 } : { issues: [{ message: "not a number" }] };
      });
      const { bytes, offsets } = messages([1, 2, 3, "x", 5]);
      const collect = async (it: AsyncIterable<number>) => {
        const got: number[] = [];
        const e = await caught(async () => {
          for await (const n of it) got.push(n);
        });
        return [got, isDecodeError(e, "SCHEMA_MISMATCH").offset];
      };
      expect(await collect(decodeMultiStream(source(bytes, 2), { schema: slow }))).toEqual([[10, 20, 30], offsets[3]]);
      expect(await collect(decodeArrayStream(source(encode([1, 2, 3, "x", 5]), 2), { schema: slow }))).toEqual([[10, 20, 30], 1 + offsets[3]!]);
      const stream = new DecoderStream({ schema: slow });
      const writer = stream.writable.getWriter();
      const writing = (async () => {
        for (let i = 0; i < bytes.length; i += 2) await writer.write(bytes.slice(i, i + 2));
        await writer.close();
      })().catch(() => undefined);
      const reader = stream.readable.getReader();
      const got: number[] = [];
      const e = await caught(async () => {
        for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
      });
      await writing;
      expect([got, isDecodeError(e, "SCHEMA_MISMATCH").offset]).toEqual([[10, 20, 30], offsets[3]]);
      expect(await decodeAsync(source(encode(4), 1), { schema: slow })).toBe(40);
      expect(most).toBe(1); // one value checked at a time
    });

    test("DecoderStream cancelled while an async validator is pending: the check's answer is dropped, with no error anywhere", async () => {
      const unhandled: unknown[] = [];
      const listener = (reason: unknown) => unhandled.push(reason);
      process.on("unhandledRejection", listener);
      try {
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        const gated = byHand<number>(async (x) => {
          if (x === 2) await gate;
          return { value: x as number };
        });
        const stream = new DecoderStream({ schema: gated });
        const writer = stream.writable.getWriter();
        const written = writer.write(messages([1, 2, 3]).bytes).catch((e: unknown) => e);
        const reader = stream.readable.getReader();
        expect(await reader.read()).toEqual({ done: false, value: 1 });
        const second = reader.read(); // waits on the gate
        await new Promise((r) => setTimeout(r, 5));
        await reader.cancel("stop");
        expect(await second).toEqual({ done: true, value: undefined });
        release();
        await new Promise((r) => setTimeout(r, 20));
        expect(await written).toBe("stop"); // the write under way hears of the cancellation
        expect(gated.calls).toEqual([1, 2]); // nothing was checked after it
        expect(unhandled).toEqual([]);
      } finally {
        process.off("unhandledRejection", listener);
      }
    });

    test("DecoderStream with an async validator: values of every chunk come out in order", async () => {
      const slow = byHand<number>(async (x) => ({ value: x as number }));
      const n = 200;
      const { bytes } = messages(Array.from({ length: n }, (_, i) => i));
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < bytes.length; i += 5) c.enqueue(bytes.slice(i, i + 5));
          c.close();
        },
      });
      const got: number[] = [];
      const reader = body.pipeThrough(new DecoderStream({ schema: slow })).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
      expect(got).toEqual(Array.from({ length: n }, (_, i) => i));
    });
  });

  describe("hostile values and messages", () => {
    test("__proto__ keys: the validator gets them as own keys, no prototype is touched, and a mismatch names the key", () => {
      // { "__proto__": { "polluted": 1 } } as bytes: a fixmap of 1
      const bytes = Uint8Array.from([0x81, 0xa9, ...new TextEncoder().encode("__proto__"), 0x81, 0xa8, ...new TextEncoder().encode("polluted"), 0x01]);
      const seen = byHand((x) => {
        const own = Object.hasOwn(x as object, "__proto__") && Object.getPrototypeOf(x) === Object.prototype;
        return own ? { issues: [{ message: "no such key", path: ["__proto__", "polluted"] }] } : { value: x };
      });
      const e = isDecodeError(thrown(() => decode(bytes, { schema: seen })), "SCHEMA_MISMATCH");
      expect(e.message).toContain('$.__proto__.polluted: "no such key"');
      // the libraries' own answers: zod's strict object refuses the key, zod's and valibot's records drop it
      const z1 = isDecodeError(thrown(() => decode(bytes, { schema: z.strictObject({}) })), "SCHEMA_MISMATCH");
      expect(z1.message).toContain("__proto__");
      for (const schema of [z.record(z.string(), z.unknown()), v.record(v.string(), v.unknown())]) {
        const out = decode(bytes, { schema }) as object;
        expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      }
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty("polluted");
    });

    test("deep nesting: the issue's full path on the error, a shortened one in the message", () => {
      const depth = 300;
      let value: unknown = "leaf";
      for (let i = 0; i < depth; i++) value = [value];
      // the path to the first item that is no array (the oracle: one [0] per level)
      const Deep = byHand((x) => {
        const path: number[] = [];
        for (let at = x; Array.isArray(at); at = at[0]) path.push(0);
        return { issues: [{ message: "a leaf", path }] };
      });
      const e = isDecodeError(thrown(() => decode(encode(value), { schema: Deep })), "SCHEMA_MISMATCH");
      const longest = e.issues!.reduce((a, i) => Math.max(a, i.path.length), 0);
      expect(longest).toBe(depth);
      expect(e.message.length).toBeLessThan(2000);
      expect(e.message).toMatch(/\$\[0\]\[0\]\[0\]\[0\]\.\.\.\(\d+ more\)\.\.\./);
    });

    test("nesting past maxDepth is refused by the decoder before the schema sees it (a recursive validator never meets it)", () => {
      let value: unknown = 1;
      for (let i = 0; i < 600; i++) value = [value];
      type Nest = number | Nest[];
      const Deep: z.ZodType<Nest> = z.lazy(() => z.union([z.number(), z.array(Deep)]));
      const counted = byHand((x) => Deep["~standard"].validate(x) as Result<unknown>);
      const bytes = encode(value, { maxDepth: 1000 });
      isDecodeError(thrown(() => decode(bytes, { schema: counted })), "MAX_DEPTH");
      expect(counted.calls).toEqual([]);
      expect(decode(bytes, { schema: counted, maxDepth: 1000 })).toEqual(value); // allowed deeper, the schema checks it
    });

    test("terminal escapes in messages and in keys from the bytes reach the message escaped, and the issues as given", () => {
      const ESC = "\u001b[31mred\u001b[0m\u009b2J\u0007\n\u2028";
      const schema = byHand(() => ({ issues: [{ message: ESC, path: [ESC] }] }));
      const e = isDecodeError(thrown(() => decode(encode(1), { schema })), "SCHEMA_MISMATCH");
      expect(e.issues).toEqual([{ message: ESC, path: [ESC] }]);
      expect(e.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      expect(e.message).toContain("\\u001b[31mred\\u001b[0m\\u009b2J\\u0007\\n\\u2028");
      // a key from the decoded bytes, refused by a real schema: valibot quotes the received value in its message too
      const hostile = { [ESC]: "\u009bx" };
      const ve = isDecodeError(thrown(() => decode(encode(hostile), { schema: v.record(v.string(), v.number()) })), "SCHEMA_MISMATCH");
      expect(ve.issues![0]!.path).toEqual([ESC]);
      expect(ve.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    });

    test("many issues and long messages: the message shows the first five, cut; the error holds all", () => {
      const issues = Array.from({ length: 100 }, (_, i) => ({ message: "m".repeat(1000) + i, path: [i] }));
      const e = isDecodeError(thrown(() => decode(encode(1), { schema: byHand(() => ({ issues })) })), "SCHEMA_MISMATCH");
      expect(e.issues!.length).toBe(100);
      expect(e.issues![99]).toEqual({ message: "m".repeat(1000) + 99, path: [99] });
      expect(e.message).toMatch(/\(100 issue\(s\)\).*; and 95 more$/);
      expect(e.message.length).toBeLessThan(1500);
    });

    test("issue objects that are not what the standard says do not break the error", () => {
      const odd = [null, 5, { message: 42 }, { message: "ok", path: "not an array" }, { message: "k", path: [null, 1n, true] }];
      const e = isDecodeError(thrown(() => decode(encode(1), { schema: byHand(() => ({ issues: odd as never })) })), "SCHEMA_MISMATCH");
      expect(e.issues!.map((i) => i.message)).toEqual(["undefined", "undefined", "42", "ok", "k"]);
      expect(e.issues![4]!.path).toEqual([null, 1n, true]);
      expect(e.message).toContain("$[null][1n][true]");
    });
  });

  test("every decoder agrees on random messages, a random one refused, under every chunking, with sync and async validators", async () => {
    const Message = z.object({ k: z.number(), v: z.unknown() });
    const asyncMessage = byHand(async (x) => Message["~standard"].validate(x) as Result<unknown>);
    const seeds = 25;
    const base = Number(process.env.SEED ?? 1);
    for (let seed = base; seed < base + seeds; seed++) {
      const r = new Random(seed);
      const n = r.int(1, 10);
      const bad = r.int(0, n); // n: none refused
      const { bytes, offsets } = messages(Array.from({ length: n }, (_, i) => ({ k: i === bad ? "bad" : i, v: randomValue(r, { maxDepth: 3 }) })));
      // the oracle: the same bytes decoded without a schema (the values a match gives), and the offsets from the encodings' lengths
      const plain = [...decodeMulti(bytes)];
      const expected = { values: plain.slice(0, bad), offset: bad < n ? offsets[bad] : null };
      const outcome = async (run: (got: unknown[]) => unknown) => {
        const got: unknown[] = [];
        let offset: number | null = null;
        try {
          await run(got);
        } catch (e) {
          offset = isDecodeError(e, "SCHEMA_MISMATCH").offset;
        }
        return { values: got, offset };
      };
      const where = `seed ${seed} (rerun with SEED=${seed})`;
      const sync = await outcome((got) => {
        for (const x of decodeMulti(bytes, { schema: Message })) got.push(x);
      });
      expect(sync, where).toEqual(expected);
      for (const schema of [Message, asyncMessage]) {
        for (const chunks of chunkings(r, bytes)) {
          const streamed = await outcome(async (got) => {
            for await (const x of decodeMultiStream(chunked(chunks), { schema })) got.push(x);
          });
          expect(streamed, where).toEqual(expected);
        }
        const body = readableOf(chunkings(r, bytes)[2]!);
        const reader = body.pipeThrough(new DecoderStream({ schema })).getReader();
        const piped = await outcome(async (got) => {
          for (let x = await reader.read(); !x.done; x = await reader.read()) got.push(x.value);
        });
        expect(piped, where).toEqual(expected);
      }
    }
  });

  test("never a result on a mismatch: nothing is returned or yielded for the refused value, from any decoder", async () => {
    const refuse = byHand((x) => (x === "bad" ? { issues: [{ message: "bad" }] } : { value: x }));
    let result: unknown = "unset";
    expect(
      thrown(() => {
        result = decode(encode("bad"), { schema: refuse });
      }),
    ).toBeInstanceOf(DecodeError);
    expect(result).toBe("unset");
    const gen = decodeMulti(messages(["bad", "ok"]).bytes, { schema: refuse });
    expect(thrown(() => gen.next())).toBeInstanceOf(DecodeError);
    expect(gen.next()).toEqual({ done: true, value: undefined }); // the generator is over: no value after the mismatch either
    let asyncResult: unknown = "unset";
    await caught(async () => {
      asyncResult = await decodeAsync(source(encode("bad"), 1), { schema: refuse });
    });
    expect(asyncResult).toBe("unset");
    const yielded: unknown[] = [];
    await caught(async () => {
      for await (const x of decodeMultiStream(source(messages(["bad", "ok"]).bytes, 1), { schema: refuse })) yielded.push(x);
    });
    expect(yielded).toEqual([]);
  });
});
