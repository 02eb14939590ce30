// The inspector (src/inspect.ts) against the decoder: on the shared vectors,
// on every first byte, and on random, mutated, truncated and deep inputs
// with random limits, its values are decodeMulti's and its first error is
// the one decodeMulti throws (code, offset, message, needed). Also: the
// text view of a fixed sample, and the lossless JSON form in both
// directions (byte-exact round trips over every vector encoding).
import { describe, expect, test } from "vitest";
import { decode, DecodeError, decodeMulti, encode, ExtData } from "../src/index.ts";
import { fromJson, inspect, renderText, toJson } from "../src/inspect.ts";
import { JsonSplitter } from "../src/inspect/json.ts";
import { StreamWalker } from "../src/inspect/walker.ts";
import { inspectSequence } from "../src/inspect/tree.ts";
import { FIRST_BYTE, headerLength, wireKindOf } from "../src/format/forms.ts";
import { forSeeds, fromHex, Random, value as randomValue } from "./_support/arbitrary.ts";
import { agrees, decodeAll, errorOf } from "./_support/inspect-oracle.ts";
import { genInput } from "./_support/fuzz.ts";
import { loadVectors } from "./_support/vectors.ts";

describe("inspect() agrees with decode()", () => {
  const vectors = loadVectors().filter((v) => v.decodable);

  test("on every encoding of the shared vectors (msgpack-test-suite and test/vectors)", () => {
    let count = 0;
    for (const v of vectors) {
      for (const bytes of v.encodings) {
        agrees(bytes);
        const [node] = inspect(bytes).nodes;
        expect(node!.length).toBe(bytes.length);
        count++;
      }
    }
    expect(count).toBeGreaterThan(250);
  });

  test("on every first byte: the form, the header length of forms.ts, and the same value or error", () => {
    for (let t = 0; t < 256; t++) {
      for (const tail of [[], [0], [1, 0x61], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]) {
        const bytes = new Uint8Array([t, ...tail]);
        agrees(bytes);
      }
      const node = inspect(new Uint8Array([t, ...new Array(40).fill(0)])).nodes[0]!;
      const kind = wireKindOf(FIRST_BYTE[t]!);
      if (kind !== 3 && kind !== 4 && kind !== 5) expect(node.headerLength, `0x${t.toString(16)}`).toBe(headerLength(t));
    }
    const forms = (bytes: number[]) => inspect(new Uint8Array(bytes)).nodes.map((n) => n.form);
    expect(forms([0x00, 0x7f, 0xe0, 0xff, 0xc0, 0xc2, 0xc3])).toEqual(["positive fixint", "positive fixint", "negative fixint", "negative fixint", "nil", "false", "true"]);
    expect(forms([0x80, 0x90, 0xa0, 0xc4, 0, 0xc5, 0, 0, 0xc6, 0, 0, 0, 0])).toEqual(["fixmap", "fixarray", "fixstr", "bin 8", "bin 16", "bin 32"]);
    expect(forms([0xca, 0, 0, 0, 0, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0, 0xcc, 0, 0xd3, 0, 0, 0, 0, 0, 0, 0, 0])).toEqual(["float 32", "float 64", "uint 8", "int 64"]);
    expect(forms([0xd9, 0, 0xda, 0, 0, 0xdc, 0, 0, 0xdf, 0, 0, 0, 0])).toEqual(["str 8", "str 16", "array 16", "map 32"]);
    expect(forms([0xd4, 5, 0, 0xd6, 0xff, 0, 0, 0, 0, 0xc7, 12, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xc7, 0, 3])).toEqual([
      "fixext 1 (type 5)",
      "fixext 4 (type -1, timestamp 32)",
      "ext 8 (type -1, timestamp 96)",
      "ext 8 (type 3)",
    ]);
    expect(forms([0xc1])).toEqual(["never used"]);
  });

  test("on random, mutated, truncated, inflated and deep inputs, with random limits", () => {
    forSeeds(2500, (r) => {
      const { bytes } = genInput(r, undefined, 2000);
      const options: Record<string, number> = {};
      if (r.bool(0.3)) options.maxDepth = r.int(0, 8);
      for (const name of ["maxStrLength", "maxBinLength", "maxArrayLength", "maxMapLength", "maxExtLength"]) if (r.bool(0.15)) options[name] = r.int(0, 40);
      agrees(bytes, options);
    });
  });

  test("on random valid values: the value, and one node per value", () => {
    forSeeds(300, (r) => {
      const v = randomValue(r, { rich: true });
      const bytes = encode(v);
      agrees(bytes);
    });
  });

  test("broken inputs of every kind: the error on its node, and the nodes before and after it", () => {
    // invalid UTF-8 in a string: the framing survives, the next value is read
    const utf8 = inspect(fromHex("92-a2-c3-28-01"));
    expect(utf8.error).toMatchObject({ code: "INVALID_UTF8", offset: 2 });
    expect(utf8.nodes[0]!.children!.map((n) => n.value)).toEqual(["\ufffd(", 1]);
    expect(utf8.nodes[0]!.children![0]!.error).toBe(utf8.error);
    // the reserved byte, then a value
    const reserved = inspect(fromHex("c1-05"));
    expect(reserved.error).toMatchObject({ code: "INVALID_BYTE", offset: 0 });
    expect(reserved.nodes.map((n) => n.value)).toEqual([undefined, 5]);
    // a bad timestamp
    const ts = inspect(fromHex("d6-ff-ff-ff-ff-ff-d7-ff-ff-ff-ff-ff-00-00-00-00"));
    expect(ts.error).toMatchObject({ code: "INVALID_EXT", offset: 6 });
    expect(ts.nodes[1]!.form).toBe("fixext 8 (type -1, not a timestamp)");
    expect(ts.nodes[1]!.value).toBeInstanceOf(ExtData);
    // a container that declares more items than bytes left: its items are still read
    const cut = inspect(fromHex("93-01-02"));
    expect(cut.error).toMatchObject({ code: "TRUNCATED", offset: 0, needed: 1 });
    expect(cut.nodes[0]!.children!.map((n) => n.value)).toEqual([1, 2]);
    // a payload cut short: the node has the bytes there are; reading ends
    const payload = inspect(fromHex("01-a5-61-62"));
    expect(payload.error).toMatchObject({ code: "TRUNCATED", offset: 1 });
    expect(payload.nodes[1]).toMatchObject({ offset: 1, length: 3, form: "fixstr" });
    // over a limit: reported, and read on
    const limit = inspect(fromHex("a3-61-62-63-07"), { maxStrLength: 2 });
    expect(limit.error).toMatchObject({ code: "MAX_LENGTH", offset: 0 });
    expect(limit.nodes.map((n) => n.value)).toEqual(["abc", 7]);
    // too deep: reading ends at the container
    const deep = inspect(fromHex("91-91-91-01-02"), { maxDepth: 2 });
    expect(deep.error).toMatchObject({ code: "MAX_DEPTH", offset: 2 });
    expect(deep.end).toBe(3);
    // the offset option moves every offset
    const moved = inspect(fromHex("92-01"), { offset: 1000 });
    expect(moved.error).toMatchObject({ code: "TRUNCATED", offset: 1000 });
    expect(moved.error!.message).toMatch(/at offset 1000/);
    expect(moved.nodes[0]!.children![0]!.offset).toBe(1001);
  });
});

describe("renderText()", () => {
  test("a fixed sample, one line per value", () => {
    const bytes = encode({ name: "inspect", id: 2n ** 63n, tags: ["a", 1.5], raw: new Uint8Array([1, 2, 3]), at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6)), x: null });
    expect(renderText(inspect(bytes))).toBe(
      [
        "00000000  86                          fixmap (6 entries)",
        '00000001  a4                            fixstr (4 B) "name"',
        '00000006  a7                              fixstr (7 B) "inspect"',
        '0000000e  a2                            fixstr (2 B) "id"',
        "00000011  cf 80 00 00 00 00 00 00 00      uint 64 9223372036854775808",
        '0000001a  a4                            fixstr (4 B) "tags"',
        "0000001f  92                              fixarray (2 items)",
        '00000020  a1                                fixstr (1 B) "a"',
        "00000022  cb 3f f8 00 00 00 00 00 00        float 64 1.5",
        '0000002b  a3                            fixstr (3 B) "raw"',
        "0000002f  c4 03                           bin 8 (3 B) 01 02 03",
        '00000034  a2                            fixstr (2 B) "at"',
        "00000037  d7 ff                           fixext 8 (type -1, timestamp 64) (8 B) 2024-01-02T03:04:05.006Z",
        '00000041  a1                            fixstr (1 B) "x"',
        "00000043  c0                              nil",
        "",
      ].join("\n"),
    );
  });

  test("maxDepth, maxItems and maxString keep big inputs short; errors and unread bytes get their own lines", () => {
    const bytes = encode([[1, [2]], "x".repeat(100), new Uint8Array(40), [1, 2, 3, 4, 5]]);
    const text = renderText(inspect(bytes), { maxDepth: 1, maxItems: 3, maxString: 8 });
    expect(text).toContain('str 8 (100 B) "xxxxxxxx..."');
    expect(text).toContain("bin 8 (40 B) 00 00 00 00 00 00 00 00 ...");
    expect(text).toMatch(/\n00000095 {32}\.\.\. 1 more item\n$/);
    expect(text).toMatch(/ {6}\.\.\. 2 items\n/);
    const broken = renderText(inspect(fromHex("91-91-91-01"), { maxDepth: 1 }));
    expect(broken).toContain("! MAX_DEPTH: Cannot decode container at offset 1: too deep, deeper than maxDepth (1)");
    expect(broken).toMatch(/\n00000002 {30}\.\.\. 2 byte\(s\) not read\n$/);
    const colored = renderText(inspect(fromHex("a1-61")), { color: true });
    expect(colored).toContain("\x1b[32m");
  });
});

describe("toJson() and fromJson(): the lossless JSON form", () => {
  test("round trips every encoding of the shared vectors byte for byte", () => {
    let count = 0;
    for (const v of loadVectors().filter((x) => x.decodable)) {
      for (const bytes of v.encodings) {
        const json = toJson(bytes);
        expect(fromJson(json), `${v.name}: ${json}`).toEqual(bytes);
        count++;
      }
    }
    expect(count).toBeGreaterThan(250);
  });

  test("round trips random rich values and random valid inputs byte for byte", () => {
    forSeeds(300, (r) => {
      const bytes = encode(randomValue(r, { rich: true }));
      expect(fromJson(toJson(bytes))).toEqual(bytes);
      const valid = genInput(r, r.pick(["valid", "multi"] as const)).bytes;
      if (inspect(valid).error === null) expect(fromJson(toJson(valid))).toEqual(valid);
    });
  });

  test("writes the values JSON lacks as tags, and plain JSON where encode() writes the same bytes", () => {
    const cases: [string, string][] = [
      ["01", "1"],
      ["cd-00-01", '{"$uint16":1}'],
      ["d0-05", '{"$int8":5}'],
      ["cf-ff-ff-ff-ff-ff-ff-ff-ff", '{"$uint64":"18446744073709551615"}'],
      ["d3-80-00-00-00-00-00-00-00", '{"$int64":"-9223372036854775808"}'],
      ["cb-3f-f8-00-00-00-00-00-00", "1.5"],
      ["cb-3f-f0-00-00-00-00-00-00", '{"$float64":1}'],
      ["cb-80-00-00-00-00-00-00-00", '{"$float64":"-0"}'],
      ["cb-7f-f8-00-00-00-00-00-00", '{"$float64":"NaN"}'],
      ["cb-7f-f8-00-00-00-00-00-01", '{"$float64":"0x7ff8000000000001"}'],
      ["ca-3f-c0-00-00", '{"$float32":1.5}'],
      ["ca-ff-80-00-00", '{"$float32":"-Infinity"}'],
      ["d9-01-61", '{"$str8":"a"}'],
      ["c4-02-01-02", '{"$bin":"AQI="}'],
      ["c5-00-01-ff", '{"$bin16":"/w=="}'],
      ["dc-00-01-01", '{"$array16":[1]}'],
      ["81-01-02", '{"$map":[[1,2]]}'],
      ["81-a2-24-61-c0", '{"$map":[["$a",null]]}'],
      ["82-a1-32-01-a1-31-02", '{"$map":[["2",1],["1",2]]}'],
      ["82-a1-61-01-a1-61-02", '{"$map":[["a",1],["a",2]]}'],
      ["de-00-01-a1-61-01", '{"$map16":[["a",1]]}'],
      ["d4-05-07", '{"$ext":[5,"Bw=="]}'],
      ["c7-01-05-07", '{"$ext8":[5,"Bw=="]}'],
      ["d6-ff-00-00-00-01", '{"$timestamp":"1970-01-01T00:00:01Z"}'],
      ["d7-ff-00-00-00-04-00-00-00-01", '{"$timestamp":"1970-01-01T00:00:01.000000001Z"}'],
      ["d7-ff-00-00-00-00-00-00-00-01", '{"$timestamp64":"1970-01-01T00:00:01Z"}'],
      ["c7-0c-ff-00-00-00-00-ff-ff-ff-ff-ff-ff-ff-ff", '{"$timestamp":"1969-12-31T23:59:59Z"}'],
      ["c7-04-ff-00-00-00-01", '{"$ext8":[-1,"AAAAAQ=="]}'],
    ];
    for (const [hex, json] of cases) {
      expect(toJson(fromHex(hex)), hex).toBe(json + "\n");
      expect(fromJson(json), json).toEqual(fromHex(hex));
    }
    // back-to-back values: one line each; JSON texts may be separated by any whitespace, or none
    expect(toJson(fromHex("01-a1-61-c0"))).toBe('1\n"a"\nnull\n');
    expect(fromJson('1 "a"{"b":[true]}null')).toEqual(fromHex("01-a1-61-81-a1-62-91-c3-c0"));
    // plain JSON as encode() writes it
    const plain = { a: [1, -1, 1.25, 300, -40000, 2 ** 40, "é"], b: { c: null, d: false } };
    expect(fromJson(JSON.stringify(plain))).toEqual(encode(plain));
    // bad input
    expect(() => toJson(fromHex("92-01"))).toThrow(expect.objectContaining({ code: "TRUNCATED", offset: 0 }));
    expect(() => fromJson("{")).toThrow(SyntaxError);
    expect(() => fromJson('{"$nope":1}')).toThrow(/unknown tag "\$nope"/);
    expect(() => fromJson('{"a":{"$uint8":256}}')).toThrow(/Cannot convert JSON at \$\.a\.\$uint8: 256 is out of range/);
    expect(() => fromJson('{"$str8":"' + "x".repeat(256) + '"}')).toThrow(/does not fit its form/);
    expect(() => fromJson('{"$timestamp32":"1970-01-01T00:00:00.5Z"}')).toThrow(/does not fit a timestamp 32/);
  });

  test("JsonSplitter finds the texts across chunk boundaries", () => {
    const text = ' {"a": "}{\\"" } [1, [2]] "x y" 12 true\nnull{"b":1}';
    const expected = ['{"a": "}{\\"" }', "[1, [2]]", '"x y"', "12", "true", "null", '{"b":1}'];
    for (let size = 1; size <= text.length; size++) {
      const s = new JsonSplitter();
      const got: string[] = [];
      for (let i = 0; i < text.length; i += size) got.push(...s.push(text.slice(i, i + size)));
      got.push(...s.end());
      expect(got, `chunks of ${size}`).toEqual(expected);
    }
    void Random;
  });
});

describe("StreamWalker (the CLI's stats and validate): the decoder's first error, in chunks of any size", () => {
  function walk(bytes: Uint8Array, sizes: (i: number) => number, maxDepth?: number): { error: DecodeError | null; values: number; ends: number[] } {
    const w = new StreamWalker(maxDepth === undefined ? undefined : { maxDepth });
    const ends: number[] = [];
    w.onValue = (end) => ends.push(end);
    for (let i = 0, k = 0; i < bytes.length; k++) {
      const size = Math.max(1, sizes(k));
      w.push(bytes.subarray(i, i + size));
      i += size;
    }
    return { error: w.finish(), values: w.values, ends };
  }

  test("on vectors, every first byte and fuzzed inputs, whole and in random chunks", () => {
    const inputs: { bytes: Uint8Array; maxDepth?: number }[] = [];
    for (const v of loadVectors()) for (const bytes of v.encodings) inputs.push({ bytes });
    for (let t = 0; t < 256; t++) inputs.push({ bytes: new Uint8Array([t, 1, 0xa1, 0x61, 0xff]) }, { bytes: new Uint8Array([t]) });
    forSeeds(2500, (r) => {
      inputs.push({ bytes: genInput(r, undefined, 2000).bytes, ...(r.bool(0.3) ? { maxDepth: r.int(0, 8) } : {}) });
    });
    const r = new Random(7);
    for (const { bytes, maxDepth } of inputs) {
      const expected = decodeAll(bytes, maxDepth === undefined ? undefined : { maxDepth });
      for (const sizes of [() => bytes.length, () => 1, () => r.int(1, 7)]) {
        const got = walk(bytes, sizes, maxDepth);
        expect(errorOf(got.error), Array.from(bytes, (b) => b.toString(16)).join("-")).toEqual(errorOf(expected.error));
        expect(got.values).toBeGreaterThanOrEqual(expected.values.length);
        if (!expected.error) expect(got.ends).toEqual(inspect(bytes).nodes.map((n) => n.offset + n.length));
      }
    }
  });

  test("counts forms and key paths", () => {
    const w = new StreamWalker();
    w.push(encode([{ id: 1, name: "a" }, { id: 300, name: "bb", tags: ["x"] }]));
    expect(w.finish()).toBe(null);
    expect(Object.fromEntries(w.forms())).toEqual({
      fixarray: { count: 2, bytes: 2 },
      fixmap: { count: 2, bytes: 2 },
      fixstr: { count: 8, bytes: 28 },
      "positive fixint": { count: 1, bytes: 1 },
      "uint 16": { count: 1, bytes: 3 },
    });
    expect(Object.fromEntries(w.paths)).toEqual({
      "$[].id": { count: 2, bytes: 4 },
      "$[].name": { count: 2, bytes: 5 },
      "$[].tags[]": { count: 1, bytes: 2 },
      "$[].tags": { count: 1, bytes: 3 },
      "$[]": { count: 2, bytes: 35 },
      $: { count: 1, bytes: 36 },
    });
  });
});

describe("a limit on the nodes kept (the command line's window)", () => {
  // [1, [2, 3], {a: 4, b: 5}, "x"]
  const bytes = fromHex("94-01-92-02-03-82-a1-61-04-a1-62-05-a1-78");

  test("keeps the first nodes, reads the rest to the end, and counts on each container what it leaves out", () => {
    const r = inspectSequence(undefined, 6)(bytes, 0);
    expect([r.error, r.end]).toEqual([null, 14]);
    const outer = r.nodes[0]!;
    expect(outer.children!.map((c) => c.form)).toEqual(["positive fixint", "fixarray", "fixmap"]);
    expect(outer.omitted).toBe(1);
    // the map fits, its pairs do not: a key is never kept without its value
    expect([outer.children![2]!.children, outer.children![2]!.omitted]).toEqual([[], 2]);
    expect(outer.children![1]!.omitted).toBeUndefined();
    const note = (offset: string, depth: number, text: string) => offset + " ".repeat(30 + 2 * depth) + text;
    expect(renderText(r)).toBe(
      [
        "00000000  94                          fixarray (4 items)",
        "00000001  01                            positive fixint 1",
        "00000002  92                            fixarray (2 items)",
        "00000003  02                              positive fixint 2",
        "00000004  03                              positive fixint 3",
        "00000005  82                            fixmap (2 entries)",
        note("00000006", 2, "... 2 more entries"),
        note("0000000c", 1, "... 1 more item"),
        "",
      ].join("\n"),
    );
    // a depth limit counts every item, those left out too
    expect(renderText(r, { maxDepth: 0 }).split("\n")[1]).toBe(note("00000001", 1, "... 4 items"));
  });

  test("errors past the window are found at their offsets, as without a limit", () => {
    const cut = fromHex("93-01-02-c1");
    const limited = inspectSequence(undefined, 2)(cut, 0);
    const full = inspect(cut);
    expect(limited.error!.code).toBe("INVALID_BYTE");
    expect([limited.error!.offset, limited.error!.message]).toEqual([full.error!.offset, full.error!.message]);
    expect(limited.nodes[0]!.children!.length).toBe(1);
    // without a limit nothing is left out
    expect(JSON.stringify(full.nodes, (k, v) => (k === "omitted" ? "SET" : v))).not.toContain("SET");
  });
});
