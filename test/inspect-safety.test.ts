// The inspector and the JSON form against hostile input: text that would
// drive a terminal (C0, DEL, C1 and bidi controls) escaped by one function
// in every view; toJson written from the bytes (no tree) against the
// tree-based oracle on random, record and mutated inputs, and strings and
// binaries longer than a slice; fromJson refusing what does not exist
// (dates, numbers, base64 padding) and nesting past its guard with its own
// error; the JSON splitter's bound; the stream walker's bounded memory for
// hostile record declarations and key paths; nodeValue on error nodes.
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import * as msgpackr from "msgpackr";
import { decode, encode, EncodeError } from "../src/records.ts";
import { fromJson, inspect, nodeValue, renderText, toJson } from "../src/inspect.ts";
import { escapeControls, quote } from "../src/inspect/escape.ts";
import { JsonSplitter, JsonTooLong, MAX_JSON_DEPTH } from "../src/inspect/json.ts";
import { isoTime, parseIsoTime } from "../src/inspect/time.ts";
import { JsonWriter } from "../src/inspect/to-json.ts";
import { fromBase64, toBase64 } from "../src/inspect/base64.ts";
import { MAX_PATHS, StreamWalker } from "../src/inspect/walker.ts";
import { forSeeds, string, value as randomValue } from "./_support/arbitrary.ts";
import { genInput } from "./_support/fuzz.ts";
import { CONTROLS, rawControls, wideDeclaration } from "./_support/hostile.ts";
import { treeToJson } from "./_support/json-oracle.ts";
import { loadVectors } from "./_support/vectors.ts";
import { expectEqual } from "./_support/equal.ts";

const ALL = CONTROLS.join("");

/** A value whose keys and strings hold every control, alone and among other text. */
function hostile(): unknown {
  const each = CONTROLS;
  return {
    [ALL]: ALL,
    ["key\u001b]52;c;aGk=\u0007"]: "\u001b[2J\u009b31m\u202eevil",
    list: each,
    keys: Object.fromEntries(each.map((c, i) => [`${c}${i}`, `${i}${c}`])),
    map: new Map<unknown, unknown>([[1, ALL]]),
  };
}

describe("escapeControls: one function for every text from the input", () => {
  test("escapes exactly C0, DEL, C1 and the bidi controls, as \\uXXXX", () => {
    for (let c = 0; c < 0x3000; c++) {
      const ch = String.fromCharCode(c);
      const unsafe = CONTROLS.includes(ch);
      expect(escapeControls(ch), `U+${c.toString(16)}`).toBe(unsafe ? "\\u" + c.toString(16).padStart(4, "0") : ch);
    }
  });

  test("JSON text stays JSON of the same value (random strings with controls)", () => {
    forSeeds(300, (r) => {
      let s = string(r, 40);
      for (let i = r.int(0, 5); i > 0; i--) s += r.pick(CONTROLS) + string(r, 5);
      const json = quote(s);
      expect(rawControls(json)).toEqual([]);
      expect(JSON.parse(json)).toBe(s);
    });
  });

  test("renderText shows strings, keys, record field names and error messages without a raw control", () => {
    const bytes = encode(hostile());
    for (const color of [false, true]) {
      const text = renderText(inspect(bytes), { color });
      // the only escapes are the view's own colours, the only control its line ends
      expect(rawControls(text, { lines: true, colors: color })).toEqual([]);
    }
    const records = renderText(inspect(encode([{ [ALL]: 1 }, { [ALL]: 2 }], { useRecords: true }), { useRecords: true }));
    expect(rawControls(records, { lines: true })).toEqual([]);
    expect(records).toContain("\\u001b");
    // an error whose text quotes the input: a record field name that is not a string
    const cut = renderText(inspect(new Uint8Array([...encode(ALL), 0xc1])));
    expect(rawControls(cut, { lines: true })).toEqual([]);
  });

  test("toJson escapes DEL, C1 and bidi controls too (JSON.stringify leaves them raw)", () => {
    const json = toJson(encode(hostile()));
    expect(rawControls(json, { lines: true })).toEqual([]);
    expectEqual(fromJson(json), encode(hostile()));
  });

  test("the stream walker's key paths are safe to print", () => {
    const walker = new StreamWalker();
    walker.push(encode(hostile()));
    expect(walker.finish()).toBeNull();
    for (const path of walker.paths.keys()) expect(rawControls(path), path).toEqual([]);
  });
});

describe("toJson: written from the bytes, as the inspector's tree gives it", () => {
  test("random values, rich and plain, and every vector encoding", () => {
    forSeeds(400, (r) => {
      const bytes = encode(randomValue(r, { rich: r.bool() }));
      expect(toJson(bytes)).toBe(treeToJson(bytes));
    });
    for (const v of loadVectors().filter((x) => x.decodable)) for (const bytes of v.encodings) expect(toJson(bytes), v.name).toBe(treeToJson(bytes));
  });

  test("random valid inputs of every form, back to back", () => {
    let checked = 0;
    forSeeds(600, (r) => {
      const bytes = genInput(r, r.pick(["valid", "multi"] as const)).bytes;
      if (bytes.length === 0 || inspect(bytes).error !== null) return;
      checked++;
      expect(toJson(bytes)).toBe(treeToJson(bytes));
      expectEqual(fromJson(toJson(bytes)), bytes);
    });
    expect(checked).toBeGreaterThan(200);
  });

  test("as the command line uses it: each value the stream walker frames and checks, on random inputs valid or not, in random chunks", () => {
    let values = 0;
    forSeeds(500, (r) => {
      const bytes = genInput(r).bytes;
      const walker = new StreamWalker({ paths: false });
      const ends: number[] = [];
      walker.onValue = (end) => ends.push(end);
      for (let at = 0; at < bytes.length; ) {
        const n = r.int(1, 64);
        walker.push(bytes.subarray(at, at + n));
        at += n;
      }
      walker.finish();
      const writer = new JsonWriter();
      let start = 0;
      for (const end of ends) {
        const value = bytes.slice(start, end);
        expect([...writer.write(value)].join("")).toBe(treeToJson(value));
        start = end;
        values++;
      }
    });
    expect(values).toBeGreaterThan(500);
  });

  test("maps written as objects only when their keys read back as they are", () => {
    const cases: [unknown, string][] = [
      [{ a: 1, b: 2 }, '{"a":1,"b":2}'],
      [{ $a: 1 }, '{"$map":[["$a",1]]}'],
      [{ $a: 1, b: 2 }, '{"$a":1,"b":2}'],
      [{ "1": 1 }, '{"$map":[["1",1]]}'],
      [{ "01": 1 }, '{"01":1}'],
      [{ "4294967295": 1 }, '{"4294967295":1}'],
      [{ "4294967294": 1 }, '{"$map":[["4294967294",1]]}'],
    ];
    for (const [v, json] of cases) expect(toJson(encode(v))).toBe(json + "\n");
    // duplicate keys (no JS value holds them): pairs, and only for the map that has them
    const cat = (...parts: Uint8Array[]) => new Uint8Array(parts.flatMap((p) => [...p]));
    const dup = cat(new Uint8Array([0x82]), encode("a"), encode(2), encode("a"), encode(3));
    expect(toJson(cat(new Uint8Array([0x82]), encode("a"), encode(1), encode("b"), dup))).toBe('{"a":1,"b":{"$map":[["a",2],["a",3]]}}\n');
    expect(toJson(cat(new Uint8Array([0x82]), encode("a"), encode({ b: { a: 1 } }), encode("a"), encode(2)))).toBe('{"$map":[["a",{"b":{"a":1}}],["a",2]]}\n');
    // a map of many keys, one duplicate at the end
    const keys = Array.from({ length: 5000 }, (_, i) => [`k${i}`, i] as [string, number]);
    const big = encode(new Map(keys));
    expect(toJson(big)).toBe(treeToJson(big));
    const last = cat(new Uint8Array([0xde, 0x13, 0x89]), ...keys.flatMap(([k, v]) => [encode(k), encode(v)]), encode("k0"), encode(1));
    expect(toJson(last).startsWith('{"$map":[["k0",0]')).toBe(true);
    expect(toJson(last)).toBe(treeToJson(last));
  });

  test("records, declared in one value and used in the next (useRecords)", () => {
    const R = { useRecords: true } as const;
    forSeeds(60, (r) => {
      const packr = new msgpackr.Packr({ sequential: true });
      const rows = Array.from({ length: r.int(1, 5) }, () => ({ id: r.int(0, 1e6), name: string(r, 10), tags: [string(r, 3)], nested: { [string(r, 4)]: r.int(-5, 5) } }));
      const bytes = new Uint8Array(Buffer.concat(rows.map((row) => packr.pack(row))));
      expect(toJson(bytes, R)).toBe(treeToJson(bytes, R));
      const one = encode([...rows, { $only: 1 }, { 7: 1 }], R);
      expect(toJson(one, R)).toBe(treeToJson(one, R));
    });
  });

  test("a string and a binary longer than a slice, with characters across the slice ends", () => {
    const s = "é😀a".repeat(300_000);
    const bin = new Uint8Array(700_001).map((_, i) => i * 7);
    const bytes = encode({ s, bin, ext: { s } });
    expect(toJson(bytes)).toBe(treeToJson(bytes));
    expectEqual(decode(fromJson(toJson(bytes))), { s, bin, ext: { s } });
  });

  test("the writer takes any nesting, without the call stack", () => {
    const depth = 100_000;
    const bytes = new Uint8Array(depth + 1).fill(0x91);
    bytes[depth] = 0x01;
    expect([...new JsonWriter().write(bytes)].join("")).toBe("[".repeat(depth) + "1" + "]".repeat(depth) + "\n");
  });
});

describe("fromJson refuses what does not exist", () => {
  const fails = (json: string, message: RegExp) => {
    let error: unknown;
    try {
      fromJson(json);
    } catch (e) {
      error = e;
    }
    expect(error, json).toBeInstanceOf(EncodeError);
    expect((error as EncodeError).code).toBe("INVALID_ARGUMENT");
    expect((error as Error).message).toMatch(message);
  };

  test("dates that do not exist (instead of moving them to another day)", () => {
    for (const date of ["2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-06-31T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z"]) {
      fails(`{"t": {"$timestamp": "${date}"}}`, /at \$\.t\.\$timestamp: not an ISO 8601 time in UTC that exists/);
    }
    expect(fromJson('{"$timestamp": "2024-02-29T23:59:59.5Z"}')).toEqual(encode(new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 500))));
  });

  test("every day of every month, against the calendar; times round trip", () => {
    forSeeds(300, (r) => {
      const year = r.int(1, 9999);
      const month = r.int(1, 12);
      const day = r.int(1, 31);
      const text = `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}T00:00:00Z`;
      const probe = new Date(0);
      probe.setUTCFullYear(year, month - 1, day);
      expect(parseIsoTime(text) !== null, text).toBe(probe.getUTCDate() === day);
      const sec = r.int(-62135596800, 253402300799);
      const nsec = r.bool() ? 0 : r.int(0, 999_999_999);
      expect(parseIsoTime(isoTime(sec, nsec))).toEqual({ sec, nsec });
    });
  });

  test("integers in strings: decimal digits only, no spaces, no other base", () => {
    for (const text of ["0x10", " 12", "12 ", "1e3", "+1", "0b1", "", "-", "1".repeat(21)]) fails(`{"$uint64": ${JSON.stringify(text)}}`, /not an integer/);
    expect(fromJson('{"$uint64": "18446744073709551615"}')).toEqual(new Uint8Array([0xcf, 255, 255, 255, 255, 255, 255, 255, 255]));
    expect(fromJson('{"$int8": "-5"}')).toEqual(new Uint8Array([0xd0, 0xfb]));
  });

  test("base64 with wrong padding or stray bits", () => {
    for (const text of ["QQ=", "QUI==", "Q===", "QR==", "QUJ=", "=", "QQ==QQ==", "Q"]) {
      expect(fromBase64(text), text).toBeNull();
      fails(`{"$bin": ${JSON.stringify(text)}}`, /not base64/);
    }
    forSeeds(200, (r) => {
      const bytes = new Uint8Array(r.int(0, 20)).map(() => r.int(0, 255));
      const text = toBase64(bytes);
      expectEqual(fromBase64(text), bytes);
      expectEqual(fromBase64(text.replace(/=+$/, "")), bytes);
    });
  });

  test(`nesting past ${MAX_JSON_DEPTH} levels: its own error, not the call stack's`, () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 50_000]) {
      fails("[".repeat(depth) + "]".repeat(depth), /nested too deep/);
      fails('{"a":'.repeat(depth) + "1" + "}".repeat(depth), /nested too deep/);
      fails('{"$array16":['.repeat(depth) + "]}".repeat(depth), /nested too deep/);
    }
    const ok = MAX_JSON_DEPTH - 1;
    const expected = new Uint8Array(ok).fill(0x91);
    expected[ok - 1] = 0x90;
    expectEqual(fromJson("[".repeat(ok) + "]".repeat(ok)), expected);
  });

  test("errors name the path, through tags and pairs", () => {
    fails('{"a":[1,{"$uint8":300}]}', /at \$\.a\[1\]\.\$uint8: 300 is out of range/);
    fails('{"x":{"$map":[[1,{"$nope":1}]]}}', /at \$\.x\.\$map\[0\]\[1\]\.\$nope: unknown tag/);
    fails('{"x":{"$array16":[1,[2,{"$int8":-200}]]}}', /at \$\.x\.\$array16\[1\]\[1\]\.\$int8: -200 is out of range/);
  });
});

describe("JsonSplitter holds at most one text of its limit", () => {
  test("a text that cannot be JSON ends at its first character", () => {
    const s = new JsonSplitter(100);
    expect(s.push("\0\0\0")).toEqual(["\0", "\0", "\0"]);
    expect(s.push(' 1 "a"\u001b{}')).toEqual(["1", '"a"', "\u001b", "{}"]);
  });

  test("a text longer than the limit: JsonTooLong, whether in one chunk or many", () => {
    const one = new JsonSplitter(1000);
    expect(() => one.push('["' + "x".repeat(2000) + '"]')).toThrow(JsonTooLong);
    const many = new JsonSplitter(1000);
    expect(many.push("[1]")).toEqual(["[1]"]);
    let error: unknown;
    try {
      many.push('["');
      for (let i = 0; i < 100; i++) many.push("x".repeat(99));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(JsonTooLong);
    expect((error as JsonTooLong).text).toBe(2);
    // exactly the limit is taken
    expect(new JsonSplitter(7).push('"12345" ')).toEqual(['"12345"']);
  });
});

describe("the stream walker's memory is bounded by constants, not by hostile input", () => {
  test("a declaration of a million field names keeps at most 1024 of their path segments", () => {
    const n = 1_000_000;
    const b = wideDeclaration(n);
    for (const paths of [true, false]) {
      const walker = new StreamWalker({ useRecords: true, paths });
      for (let i = 0; i < b.length; i += 65536) walker.push(b.subarray(i, i + 65536));
      expect(walker.finish()).toBeNull();
      expect(walker.values).toBe(1);
      const shapes = (walker as unknown as { shapes: { segments: string[] }[] }).shapes;
      expect(shapes[0]!.segments.length).toBe(paths ? 1024 : 0);
      if (paths) {
        // the fields past the kept segments are counted together
        expect(walker.paths.get("(other paths)")).toEqual({ count: n - 1024, bytes: n - 1024 });
      } else expect(walker.paths.size).toBe(0);
    }
  });

  test("key paths: at most MAX_PATHS, each at most 512 characters; deeper ones counted together", () => {
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 200; i++) at = at[`key${"x".repeat(60)}${i}`] = {} as Record<string, unknown>;
    const wide = Object.fromEntries(Array.from({ length: MAX_PATHS * 2 }, (_, i) => [`k${i}`, i]));
    const walker = new StreamWalker();
    walker.push(encode([deep, wide]));
    expect(walker.finish()).toBeNull();
    expect(walker.paths.size).toBeLessThanOrEqual(MAX_PATHS + 1);
    for (const path of walker.paths.keys()) expect(path.length).toBeLessThanOrEqual(512);
    expect(walker.paths.get("(other paths)")!.count).toBeGreaterThan(MAX_PATHS);
  });
});

describe("nodeValue on nodes found in error", () => {
  test("a record whose identifier has no structure (0x40 with records on) has no children: an empty record, no TypeError", () => {
    const { nodes, error } = inspect(new Uint8Array([0x40]), { useRecords: true });
    expect(error!.code).toBe("INVALID_BYTE");
    expect(nodes[0]!.children).toBeUndefined();
    expect(nodeValue(nodes[0]!)).toEqual({});
  });

  test("every node of random broken record streams reads without throwing", () => {
    forSeeds(300, (r) => {
      const bytes = encode([{ a: 1, b: [2] }, { a: 3, b: [] }], { useRecords: true });
      const cut = bytes.slice(0, r.int(1, bytes.length));
      if (r.bool()) cut[r.int(0, cut.length - 1)] = r.int(0x40, 0x7f);
      for (const node of inspect(cut, { useRecords: true }).nodes) expect(() => nodeValue(node)).not.toThrow();
    });
  });
});

describe("the inspect entry in a bundle for older engines", () => {
  test("bundled by esbuild at es2018, nothing warns: no bigint literal, which engines without BigInt syntax cannot parse", async () => {
    const { build } = await import("esbuild");
    const out = await build({ entryPoints: [fileURLToPath(new URL("../src/inspect.ts", import.meta.url))], bundle: true, write: false, format: "esm", target: "es2018", logLevel: "silent" });
    expect(out.warnings.map((w) => `${w.location?.file}:${w.location?.line}: ${w.text}`)).toEqual([]);
    // the int forms of the JSON tags still hold their whole ranges
    expect(Array.from(fromJson('[{"$uint64":"18446744073709551615"},{"$int64":"-9223372036854775808"}]'))).toEqual([0x92, 0xcf, ...Array(8).fill(0xff), 0xd3, 0x80, ...Array(7).fill(0)]);
  });
});
