// The records module: the main entry carries no records code, so the
// options only records read are an INVALID_ARGUMENT naming the import
// until a program imports "@resizable/msgpack/records"; then every encoder
// and decoder of the program takes them. This file imports the main entry
// only, and the records entry once, in the last test.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { assertBuilt, ROOT } from "./tools/harness.ts";
import * as msgpackr from "msgpackr";
import { decode, decodeAsync, decodeMulti, decodeMultiStream, Decoder, DecodeError, encode, encodedSize, Encoder, EncodeError } from "../src/index.ts";
import { EncoderStream } from "../src/streams.ts";

const IMPORT = /needs its module: add import "@resizable\/msgpack\/records"/;

describe("records options without the records module", () => {
  test("encode side: useRecords, structures, maxSharedStructures and sequential are INVALID_ARGUMENT naming the import", () => {
    const cases: [string, () => unknown][] = [
      ["useRecords", () => new Encoder({ useRecords: true })],
      ["useRecords", () => encode({ a: 1 }, { useRecords: (o) => "a" in o })],
      ["useRecords", () => encodedSize({ a: 1 }, { useRecords: true })],
      ["structures", () => new Encoder({ structures: [["a"]] })],
      ["maxSharedStructures", () => new Encoder({ maxSharedStructures: 8 })],
      ["sequential", () => new Encoder({ sequential: true })],
      ["useRecords", () => new EncoderStream({ useRecords: true })],
    ];
    for (const [option, f] of cases) {
      let error: unknown = null;
      try {
        f();
      } catch (e) {
        error = e;
      }
      expect(error, option).toBeInstanceOf(EncodeError);
      expect((error as EncodeError).code, option).toBe("INVALID_ARGUMENT");
      expect((error as EncodeError).message, option).toMatch(IMPORT);
      expect((error as EncodeError).message, option).toContain(`encode option ${option}`);
    }
  });

  test("decode side: useRecords and structures are INVALID_ARGUMENT naming the import, in every decode function", async () => {
    const bytes = new msgpackr.Packr().pack([{ a: 1 }, { a: 2 }]);
    const cases: [string, () => unknown][] = [
      ["useRecords", () => new Decoder({ useRecords: true })],
      ["useRecords", () => decode(bytes, { useRecords: true })],
      ["useRecords", () => [...decodeMulti(bytes, { useRecords: true })]],
      ["structures", () => new Decoder({ structures: [["a"]] })],
    ];
    for (const [option, f] of cases) {
      expect(f, option).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringMatching(IMPORT) }));
      expect(f, option).toThrow(DecodeError);
    }
    async function* one(): AsyncGenerator<Uint8Array> {
      yield bytes;
    }
    await expect(decodeAsync(one(), { useRecords: true })).rejects.toThrow(IMPORT);
    await expect((async () => {
      for await (const _ of decodeMultiStream(one(), { useRecords: true }));
    })()).rejects.toThrow(IMPORT);
  });

  test("without the records options nothing needs the module; records bytes get the hint", () => {
    expect(decode(encode({ a: 1 }, { useRecords: false }))).toEqual({ a: 1 });
    expect(decode(encode({ a: 1 }, { sequential: false }))).toEqual({ a: 1 });
    expect(() => decode(new msgpackr.Packr().pack([{ a: 1 }, { a: 2 }]))).toThrow(/looks like msgpackr records/);
  });

  test("importing the records entry alone installs records for the whole program, and gives the main entry's API", async () => {
    const records = await import("../src/records.ts");
    const rows = [{ id: 1, name: "a" }, { id: 2, name: "b" }];
    const bytes = records.encode(rows, { useRecords: true });
    expect(new msgpackr.Unpackr().unpack(bytes)).toEqual(rows);
    expect(records.decode(new msgpackr.Packr().pack(rows), { useRecords: true })).toEqual(rows);
    // the main entry's functions, imported before, take the options now too: one program, one install
    expect(decode(encode(rows, { useRecords: true }), { useRecords: true })).toEqual(rows);
    expect(records.Encoder).toBe(Encoder);
    expect(records.Decoder).toBe(Decoder);
    expect(records.DecodeError).toBe(DecodeError);
  });

  test("a decoder with records keeps the class's own readers: nothing is replaced per instance, and plain values and records mix at every nesting", async () => {
    await import("../src/records.ts");
    const decoder = new Decoder({ useRecords: true });
    expect(Object.getOwnPropertyNames(decoder)).toEqual(Object.getOwnPropertyNames(new Decoder()));
    expect(decoder.decode(encode([])), "the methods are the class's").toEqual([]);
    for (const name of Object.getOwnPropertyNames(Decoder.prototype)) expect(Object.hasOwn(decoder, name), name).toBe(false);
    const value = { n: 64, m: 127, list: Array.from({ length: 40 }, (_, i) => ({ i: i + 50, tag: [i, { x: i }] })), ext: new Date(0) };
    const bytes = encode(value, { useRecords: true });
    expect(decoder.decode(bytes)).toEqual(value);
    expect(decode(new msgpackr.Packr().pack(value), { useRecords: true })).toEqual(value);
    // a fixext 1 of type 0x72 is a declaration only with records; without, an extension
    expect(decode(Uint8Array.of(0xd4, 0x72, 0x40))).toMatchObject({ type: 0x72 });
    expect(() => decoder.decode(Uint8Array.of(0xd4, 0x72, 0x40))).toThrow(DecodeError);
    // ext 8 / 16 / 32 of type 0x72 stay extensions with records on, whatever their length
    for (const ext of [[0xc7, 1, 0x72, 0x40], [0xc7, 2, 0x72, 0x40, 0x00], [0xc8, 0, 1, 0x72, 0x40], [0xc9, 0, 0, 0, 2, 0x72, 0x72, 0x72], [0xc7, 0x72, 0x72, ...new Array(0x72).fill(0x40)]]) {
      expect(decoder.decode(Uint8Array.from(ext)), ext.slice(0, 3).join()).toMatchObject({ type: 0x72 });
    }
  });
});

describe("two copies of the library in one program (the ESM and the CommonJS build) see the same installs", () => {
  /** What `script` (ESM, run by Node in a fresh process from the repository) prints, parsed as JSON. */
  const run = (script: string): unknown => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" }));
  const prelude = `import { createRequire } from "node:module"; const require = createRequire(${JSON.stringify(join(ROOT, "package.json"))});`;
  const rows = [{ id: 1, name: "a" }, { id: 2, name: "b" }];

  test("records imported through the ESM build serve the CommonJS build, and the other way round", () => {
    assertBuilt();
    const esmFirst = `${prelude}
      await import("./dist/records.js");
      const cjs = require("./dist/index.cjs");
      const bytes = cjs.encode(${JSON.stringify(rows)}, { useRecords: true });
      console.log(JSON.stringify({ declares: bytes[1] === 0xd4 && bytes[2] === 0x72, value: cjs.decode(bytes, { useRecords: true }), size: bytes.length < cjs.encode(${JSON.stringify(rows)}).length }));`;
    expect(run(esmFirst)).toEqual({ declares: true, value: rows, size: true });
    const cjsFirst = `${prelude}
      require("./dist/records.cjs");
      const esm = await import("./dist/index.js");
      console.log(JSON.stringify(esm.decode(esm.encode(${JSON.stringify(rows)}, { useRecords: true }), { useRecords: true })));`;
    expect(run(cjsFirst)).toEqual(rows);
  });

  test("the compatibility entries' installs too: notepack's Buffers and @msgpack/msgpack's positional constructor", () => {
    assertBuilt();
    const script = `${prelude}
      require("./dist/compat/notepack.cjs");
      await import("./dist/compat/msgpack.js");
      const esm = await import("./dist/index.js");
      const cjs = require("./dist/index.cjs");
      console.log(JSON.stringify({
        esmBuffer: Buffer.isBuffer(esm.encode(1, { buffers: true })),
        cjsSorted: [...new cjs.Encoder(undefined, undefined, undefined, undefined, true).encode({ b: 1, a: 2 })][1],
      }));`;
    expect(run(script)).toEqual({ esmBuffer: true, cjsSorted: 0xa1 });
  });

  test("the version that keys the shared installs is the package's", () => {
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version as string;
    expect(readFileSync(join(ROOT, "src/common/modules.ts"), "utf8")).toContain(`const VERSION = "${version}";`);
  });
});
