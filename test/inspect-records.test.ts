// The inspector with useRecords (msgpackr's record extension) against the
// decoder with useRecords: on bytes of our encoder and of msgpackr's Packr
// (nested records, arrays of records, two-byte identifiers, back-to-back
// messages), on random record-shaped data and on mutated bytes, its values
// are decodeMulti's and its first error is decodeMulti's (code, offset,
// message). Also: the text view, the JSON form, the limits, the stream
// walker with useRecords (the numbers the tree gives, decodeMulti's first
// error, in chunks of any size), and the command line's --records flag on
// every command that reads MessagePack.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as msgpackr from "msgpackr";
import { decode, decodeMulti, encode, Encoder } from "../src/records.ts";
import { fromJson, inspect, nodeValue, renderText, toJson, type InspectNode, type InspectOptions } from "../src/inspect.ts";
import { inspectSequence } from "../src/inspect/tree.ts";
import { nodeJsonLine } from "./_support/json-oracle.ts";
import { StreamWalker } from "../src/inspect/walker.ts";
import { forSeeds, Random, string, value } from "./_support/arbitrary.ts";
import { expectEqual } from "./_support/equal.ts";
import { agrees, decodeAll, errorOf } from "./_support/inspect-oracle.ts";
import { chunkings } from "./_support/streams.ts";
import { treeStats } from "./_support/tree-stats.ts";
import { ROOT, assertBuilt, readJson } from "./tools/harness.ts";

const R = { useRecords: true } as const;

/** Asserts that inspect with useRecords agrees with decodeMulti and decode with useRecords on `bytes`. */
function agreesWithRecords(bytes: Uint8Array, extra: InspectOptions = {}): void {
  agrees(bytes, { ...R, ...extra });
}

/** Every node of the tree (definitions included). */
function* walk(nodes: InspectNode[]): Generator<InspectNode> {
  for (const n of nodes) {
    yield n;
    if (n.definition) yield* walk([n.definition]);
    if (n.children) yield* walk(n.children);
  }
}

function apiRecords(n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    id: i,
    name: `user ${i}`,
    active: i % 3 === 0,
    score: i / 7,
    tags: ["a", "b"].slice(0, i % 3),
    address: { city: "Paris", zip: String(75000 + i), geo: { lat: 48.8, lon: 2.3 } },
    note: i % 2 ? null : "n",
  }));
}

/** Random record-shaped data: objects of a few repeated shapes, nested. */
function recordData(r: Random): unknown {
  const shapes = Array.from({ length: r.int(1, 80) }, () => Array.from({ length: r.int(0, 12) }, () => string(r, 10)));
  const make = (depth: number): Record<string, unknown> => {
    const obj: Record<string, unknown> = {};
    for (const k of r.pick(shapes)) obj[k] = depth < 2 && r.bool(0.2) ? make(depth + 1) : value(r, { maxDepth: 2, maxItems: 4 });
    return obj;
  };
  return Array.from({ length: r.int(0, 60) }, () => make(0));
}

describe("inspect() with useRecords agrees with decodeMulti() with useRecords", () => {
  test("a declaration, its first record, then a second record: the tree, the values and the text view", () => {
    const bytes = new Uint8Array([0x92, 0xd4, 0x72, 0x40, 0x92, 0xa1, 0x61, 0xa1, 0x62, 0x01, 0x02, 0x40, 0x03, 0x04]);
    agreesWithRecords(bytes);
    const { nodes } = inspect(bytes, R);
    const [first, second] = nodes[0]!.children!;
    expect(first!.type).toBe("record");
    expect(first!.form).toBe("record 0x40 (2 fields)");
    expect(first!.definition!.form).toBe("record definition 0x40");
    expect(first!.definition!.children![0]!.children!.map((c) => c.value)).toEqual(["a", "b"]);
    expect(second!.recordId).toEqual([0x40]);
    expect(second!.children!.map((c) => c.value)).toEqual(["a", 3, "b", 4]);
    // the field names carry the offsets of the names in the declaration
    expect(second!.children!.filter((_, i) => i % 2 === 0).map((c) => c.offset)).toEqual([5, 7]);
    expect(renderText(inspect(bytes, R))).toBe(
      [
        "00000000  92                          fixarray (2 items)",
        "00000001  d4 72 40                      record definition 0x40",
        "00000004  92                              fixarray (2 items)",
        '00000005  a1                                fixstr (1 B) "a"',
        '00000007  a1                                fixstr (1 B) "b"',
        "00000009                                record 0x40 (2 fields)",
        '                                          "a":',
        "00000009  01                                positive fixint 1",
        '                                          "b":',
        "0000000a  02                                positive fixint 2",
        "0000000b  40                            record 0x40 (2 fields)",
        '                                          "a":',
        "0000000c  03                                positive fixint 3",
        '                                          "b":',
        "0000000d  04                                positive fixint 4",
        "",
      ].join("\n"),
    );
    // without the option: plain MessagePack, as before
    const plain = inspect(bytes);
    expect(plain.nodes[0]!.children![0]!.form).toBe("fixext 1 (type 114)");
    expect(plain.nodes.length).toBe(6); // the array (of the extension and the names), then 5 fixints
    expect([...walk(plain.nodes)].some((n) => n.type === "record")).toBe(false);
  });

  test("our encoder's bytes: nested objects, arrays of records, objects as map keys' values", () => {
    for (const v of [{ a: 1 }, apiRecords(30), { list: apiRecords(3), one: { a: { b: { c: [{ d: 1 }] } } } }, {}, [{}, {}], [[{ a: 1 }], { b: { a: 2 } }]]) {
      const bytes = encode(v, R);
      agreesWithRecords(bytes);
      expect(nodeValue(inspect(bytes, R).nodes[0]!)).toEqual(v);
    }
  });

  test("msgpackr's default Packr bytes (records on), and more shapes than identifiers", () => {
    const packr = new msgpackr.Packr();
    const many = Array.from({ length: 300 }, (_, i) => ({ [`k${i % 150}`]: i, common: i }));
    for (const v of [apiRecords(50), { list: apiRecords(3) }, many]) {
      const bytes = packr.pack(v);
      agreesWithRecords(bytes);
      expect(nodeValue(inspect(bytes, R).nodes[0]!)).toEqual(v);
    }
  });

  test("two-byte identifiers: shared structures past 32, and a fixext 2 declaration", () => {
    const structures: string[][] = [];
    const packr = new msgpackr.Packr({ structures, maxSharedStructures: 8160 });
    const values = Array.from({ length: 200 }, (_, i) => ({ [`f${i}`]: i, v: "x" }));
    const messages = values.map((v) => packr.pack(v));
    const shared = { structures: structures.map((s) => [...s]) };
    for (const i of [0, 31, 32, 33, 63, 64, 95, 96, 199]) {
      agreesWithRecords(messages[i]!, shared);
      const node = inspect(messages[i]!, { ...R, ...shared }).nodes[0]!;
      expect(node.recordId!.length, `message ${i}`).toBe(i >= 32 ? 2 : 1);
      expect(nodeValue(node)).toEqual(values[i]);
    }
    // a declaration of a two-byte identifier in the message: 0x60 with high byte 1 (read back
    // as two bytes where the shared structure of 0x60 is a two-byte one, as in the decoder)
    const bytes = new Uint8Array([0x92, 0xd5, 0x72, 0x60, 0x01, 0x91, 0xa1, 0x6b, 0x05, 0x60, 0x01, 0x06]);
    const twoByte = { structures: Array.from({ length: 33 }, (_, i) => [`s${i}`]) };
    agreesWithRecords(bytes, twoByte);
    const [a, b] = inspect(bytes, { ...R, ...twoByte }).nodes[0]!.children!;
    expect([a!.definition!.form, a!.form, b!.form]).toEqual(["record definition 0x60 1", "record 0x60 1 (1 field)", "record 0x60 1 (1 field)"]);
    expect(nodeValue(inspect(bytes, { ...R, ...twoByte }).nodes[0]!)).toEqual([{ k: 5 }, { k: 6 }]);
    // without a two-byte structure at 0x60, the identifier is one byte, with no structure: the decoder's error
    agreesWithRecords(bytes);
    expect(inspect(bytes, R).error!.code).toBe("INVALID_BYTE");
  });

  test("back-to-back messages: structures carry over (sequential Packr, our sequential encoder)", () => {
    const packr = new msgpackr.Packr({ sequential: true });
    const values = [{ a: 1 }, { a: 2 }, [{ a: 3 }, { b: 1 }], ...apiRecords(5), { b: 5 }];
    const bytes = new Uint8Array(Buffer.concat(values.map((v) => packr.pack(v))));
    agreesWithRecords(bytes);
    const result = inspect(bytes, R);
    expect(result.nodes.map(nodeValue)).toEqual(values);
    // the second message is only an identifier and its value: the structure is the first message's
    expect(result.nodes[1]!.definition).toBeUndefined();
    expect(result.nodes[1]!.form).toBe("record 0x40 (1 field)");
  });

  test("random record-shaped data from both encoders: the inspector's values are the decoder's", () => {
    const packr = new msgpackr.Packr();
    forSeeds(60, (r) => {
      const x = recordData(r);
      for (const bytes of [encode(x, R), new Uint8Array(packr.pack(x))]) {
        agreesWithRecords(bytes);
        // the JSON form reads back (as maps) to the decoded value
        expectEqual(decode(fromJson(toJson(bytes, R))), decode(bytes, R));
      }
    });
  });

  test("random mutations of record bytes: the same first error (code, offset, message), or the same values", () => {
    const packr = new msgpackr.Packr();
    forSeeds(800, (r) => {
      const source = r.bool() ? encode(recordData(r), R) : new Uint8Array(packr.pack(recordData(r)));
      const bytes = source.slice(0, r.bool(0.2) ? r.int(0, source.length) : source.length);
      const edits = r.int(1, 4);
      for (let i = 0; i < edits && bytes.length > 0; i++) bytes[r.int(0, bytes.length - 1)] = r.bool(0.6) ? r.pick([0x40, 0x41, 0x60, 0x7f, 0xd4, 0xd5, 0x72, 0x91, 0xa1, 0xc1, 0x90, 0xdc, 0x00]) : r.int(0, 255);
      agreesWithRecords(bytes);
    });
    forSeeds(1000, (r) => {
      const bytes = r.bytes(r.int(1, 40));
      for (let i = 0; i < bytes.length; i++) if (r.bool(0.3)) bytes[i] = r.pick([0x40, 0x41, 0x60, 0x7f, 0xd4, 0xd5, 0x72, 0x91, 0xa1]);
      agreesWithRecords(bytes, { structures: [["a"], ["b", "c"]] });
    });
  });
});

describe("inspect() with useRecords: errors and limits", () => {
  test("an identifier with no structure: INVALID_BYTE at its offset, the decoder's message; the walk stops there", () => {
    const bytes = new Uint8Array([0x92, 0x01, 0x45, 0x02]);
    agreesWithRecords(bytes);
    const result = inspect(bytes, R);
    expect(result.error!.code).toBe("INVALID_BYTE");
    expect(result.error!.offset).toBe(2);
    expect(result.error!.message).toMatch(/no record structure for identifier 0x45/);
    const bad = result.nodes[0]!.children![1]!;
    expect([bad.type, bad.form, bad.error]).toEqual(["record", "record 0x45 (no structure)", result.error]);
    expect(result.end).toBe(3);
  });

  test("bad declarations: identifier out of range, no array of names, names that are not strings or numbers", () => {
    for (const b of [[0xd4, 0x72, 0x20, 0x90], [0xd5, 0x72, 0x40, 0x01, 0x90], [0x91, 0xd4, 0x72, 0x40, 0xa1, 0x61], [0xd4, 0x72, 0x40, 0x92, 0xa1, 0x61, 0xc0, 1, 2], [0xd4, 0x72, 0x40, 0x91, 0x80, 1], [0xd4, 0x72, 0x40, 0x91, 0x07, 1, 0x40, 2]]) agreesWithRecords(new Uint8Array(b));
    // a numeric name becomes a string, as in the decoder
    expect(nodeValue(inspect(new Uint8Array([0xd4, 0x72, 0x40, 0x91, 0x07, 0x01]), R).nodes[0]!)).toEqual({ 7: 1 });
    // a bad name is an error where it is, and the record is still read
    const nil = inspect(new Uint8Array([0xd4, 0x72, 0x40, 0x92, 0xa1, 0x61, 0xc0, 1, 2]), R);
    expect([nil.error!.code, nil.error!.offset]).toEqual(["INVALID_KEY", 6]);
    expect(nil.nodes[0]!.children!.length).toBe(4);
  });

  test("truncated records and declarations, at every length", () => {
    const full = encode([{ a: 1, b: [2, 3] }, { a: 4, b: [] }, { c: "x" }], R);
    for (let n = 0; n <= full.length; n++) agreesWithRecords(full.subarray(0, n));
    const two = new Uint8Array([0x92, 0xd5, 0x72, 0x60, 0x01, 0x91, 0xa1, 0x6b, 0x05, 0x60, 0x01, 0x06]);
    const structures = Array.from({ length: 33 }, (_, i) => [`s${i}`]);
    for (let n = 0; n <= two.length; n++) agreesWithRecords(two.subarray(0, n), { structures });
  });

  test("maxDepth and maxMapLength apply to records as the decoder applies them", () => {
    const deep = encode({ a: { a: { a: { a: 1 } } } }, R);
    for (const maxDepth of [0, 1, 2, 3, 4, 5]) agreesWithRecords(deep, { maxDepth });
    expect(inspect(deep, { ...R, maxDepth: 2 }).error!.code).toBe("MAX_DEPTH");
    const wide = encode([{ a: 1, b: 2, c: 3 }, { a: 1, b: 2, c: 3 }], R);
    for (const maxMapLength of [0, 2, 3]) agreesWithRecords(wide, { maxMapLength });
    expect(inspect(wide, { ...R, maxMapLength: 2 }).error!.code).toBe("MAX_LENGTH");
  });
});

describe("toJson() with useRecords", () => {
  test("a record gives the JSON a plain map of its fields gives", () => {
    for (const v of [{ a: 1, b: "x", c: [1.5, null] }, apiRecords(4), { "1": 1, x: 2 }, { $only: 1 }, { nested: { deeper: { n: 2n ** 64n - 1n } } }]) {
      expect(toJson(encode(v, R), R)).toBe(toJson(encode(v)));
    }
    const packr = new msgpackr.Packr();
    expect(toJson(packr.pack(apiRecords(3)), R)).toBe(toJson(encode(apiRecords(3))));
    // without the option, records are refused as malformed (a record's fields read as other top-level values)
    expect(toJson(encode([{ a: 1 }], R))).not.toBe(toJson(encode([{ a: 1 }])));
  });
});

describe("StreamWalker with useRecords (stats --records, validate --records): the tree's numbers, decodeMulti's first error, in any chunks", () => {
  /** The walker's reading of `chunks`: its first error, values, value ends and numbers, sorted as stats prints them. */
  function walkRecords(chunks: Uint8Array[], maxDepth?: number) {
    const w = new StreamWalker({ useRecords: true, ...(maxDepth === undefined ? {} : { maxDepth }) });
    const ends: number[] = [];
    w.onValue = (end) => ends.push(end);
    for (const c of chunks) w.push(c);
    const error = w.finish();
    return { error: errorOf(error), values: w.values, ends, offset: w.offset, forms: sorted(w.forms()), paths: sorted(w.paths) };
  }
  const sorted = (m: Map<string, { count: number; bytes: number }>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));

  /** Asserts that the walker gives, in every chunking, what the whole-input reading gives: the numbers of valid input, decodeMulti's first error. */
  function agreesInChunks(r: Random, bytes: Uint8Array, maxDepth?: number): void {
    const options = { ...R, ...(maxDepth === undefined ? {} : { maxDepth }) };
    const expected = decodeAll(bytes, options);
    const whole = inspect(bytes, options);
    const tree = treeStats(whole);
    const ends = whole.nodes.map((n) => n.offset + n.length);
    const forms = sorted(tree.forms);
    const paths = sorted(tree.paths);
    const label = Array.from(bytes.subarray(0, 200), (b) => b.toString(16)).join("-");
    for (const chunks of chunkings(r, bytes)) {
      const got = walkRecords(chunks, maxDepth);
      expect(got.error, label).toEqual(errorOf(expected.error));
      expect(got.offset).toBe(bytes.length);
      if (expected.error === null) {
        expect(got.values, label).toBe(expected.values.length);
        expectEqual(got.ends, ends);
        expectEqual(got.forms, forms, label);
        expectEqual(got.paths, paths, label);
      } else expect(got.values).toBeGreaterThanOrEqual(expected.values.length);
    }
  }

  test("counts records under \"record\", declarations under \"record definition\", fields as map values", () => {
    const bytes = encode([{ id: 1, name: "a", sub: { x: [1, 2] } }, { id: 2, name: "b", sub: { x: [] } }], R);
    const got = walkRecords([bytes]);
    expect(got.error).toBe(null);
    expect(Object.fromEntries(got.forms)).toEqual({
      fixarray: { count: 5, bytes: 5 },
      fixstr: { count: 6, bytes: 18 },
      "positive fixint": { count: 4, bytes: 4 },
      record: { count: 4, bytes: 2 },
      "record definition": { count: 2, bytes: 6 },
    });
    expect(Object.fromEntries(got.paths)).toEqual({
      $: { count: 1, bytes: 35 },
      "$[]": { count: 2, bytes: 34 },
      "$[].id": { count: 2, bytes: 2 },
      "$[].name": { count: 2, bytes: 4 },
      "$[].sub": { count: 2, bytes: 11 },
      "$[].sub.x": { count: 2, bytes: 4 },
      "$[].sub.x[]": { count: 2, bytes: 2 },
    });
    // without useRecords: the same bytes as plain MessagePack (an extension, positive fixints)
    const plain = new StreamWalker();
    plain.push(bytes);
    expect(plain.finish()).toBe(null);
    expect(plain.forms().get("fixext 1")).toEqual({ count: 2, bytes: 6 });
    expect(plain.forms().has("record")).toBe(false);
  });

  test("our encoder's and msgpackr's bytes, and random record-shaped data, in several chunkings", () => {
    const r = new Random(11);
    const packr = new msgpackr.Packr();
    for (const v of [{ a: 1 }, apiRecords(30), { list: apiRecords(3), one: { a: { b: { c: [{ d: 1 }] } } } }, {}, [{}, {}], [[{ a: 1 }], { b: { a: 2 } }]]) {
      agreesInChunks(r, encode(v, R));
      agreesInChunks(r, new Uint8Array(packr.pack(v)));
    }
    // more shapes than one-byte identifiers
    agreesInChunks(r, new Uint8Array(packr.pack(Array.from({ length: 300 }, (_, i) => ({ [`k${i % 150}`]: i, common: i })))));
    forSeeds(30, (r) => {
      const x = recordData(r);
      agreesInChunks(r, encode(x, R));
      agreesInChunks(r, new Uint8Array(packr.pack(x)));
    });
  });

  test("back-to-back values: structures carry over (sequential Packr), and two-byte identifiers declared by a fixext 2", () => {
    const r = new Random(12);
    const packr = new msgpackr.Packr({ sequential: true });
    const values = [{ a: 1 }, { a: 2 }, [{ a: 3 }, { b: 1 }], ...apiRecords(5), { b: 5 }];
    const bytes = new Uint8Array(Buffer.concat(values.map((v) => packr.pack(v))));
    agreesInChunks(r, bytes);
    expect(walkRecords([bytes]).values).toBe(values.length);
    // a record whose structure a previous value declared: its identifier, then its field
    const again = new Uint8Array([...encode([{ k: 1 }], R), 0x40, 0x07]);
    expect(walkRecords([again]).paths).toContainEqual(["$.k", { count: 1, bytes: 1 }]);
    // 0x60 with high byte 0 (slot 32, a two-byte structure; high byte 1 would be slot 64, which 0x60 alone does not reach)
    const twoByte = new Uint8Array([0x92, 0xd5, 0x72, 0x60, 0x00, 0x91, 0xa1, 0x6b, 0x05, 0x60, 0x00, 0x06, 0x60, 0x00, 0x07]);
    agreesInChunks(r, twoByte);
    expect(Object.fromEntries(walkRecords([twoByte]).forms).record).toEqual({ count: 3, bytes: 4 });
    expect(walkRecords([twoByte]).paths).toContainEqual(["$.k", { count: 1, bytes: 1 }]);
    expect(walkRecords([twoByte.subarray(0, 13)]).error).toMatchObject({ code: "TRUNCATED", offset: 12, message: expect.stringContaining("record identifier") });
    // high byte 1: the identifier 0x60 then names slot 0, which has no structure
    const high = twoByte.slice();
    high[4] = 1;
    agreesInChunks(r, high);
    expect(walkRecords([high]).error).toMatchObject({ code: "INVALID_BYTE", offset: 9 });
    // a record read across sequential messages of random data
    forSeeds(20, (r) => {
      const many = Array.from({ length: r.int(1, 6) }, () => recordData(r));
      agreesInChunks(r, new Uint8Array(Buffer.concat(many.map((v) => packr.pack(v)))));
    });
  });

  test("an identifier with no structure is INVALID_BYTE at its offset; bad declarations and names as the decoder refuses them", () => {
    const r = new Random(13);
    const got = walkRecords([new Uint8Array([0x92, 0x01, 0x45, 0x02])]);
    expect(got.error).toMatchObject({ code: "INVALID_BYTE", offset: 2 });
    for (const b of [
      [0x92, 0x01, 0x45],
      [0xd4, 0x72, 0x20, 0x90],
      [0xd5, 0x72, 0x40, 0x01, 0x90],
      [0x91, 0xd4, 0x72, 0x40, 0xa1, 0x61],
      [0xd4, 0x72, 0x40, 0x92, 0xa1, 0x61, 0xc0, 1, 2],
      [0xd4, 0x72, 0x40, 0x92, 0xa1, 0x61, 0xc3, 1, 2],
      [0xd4, 0x72, 0x40, 0x91, 0x80, 1],
      [0xd4, 0x72, 0x40, 0x91, 0xc4, 0x00, 1],
      [0xd4, 0x72, 0x40, 0x91, 0xd6, 0xff, 0, 0, 0, 0, 1],
      [0xd4, 0x72, 0x40, 0x91, 0x07, 1, 0x40, 2],
      [0xd4, 0x72, 0x40, 0x91, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 1, 0x40, 2],
      [0xd4, 0x72, 0x40, 0x91, 0xd4, 0x72, 0x41, 0x90, 1, 0x40, 2],
      [0xd4, 0x72, 0x40, 0x91, 0x45, 1],
      [0xd4, 0x72, 0x40, 0x90, 0x40, 0x40],
      [0xd4, 0x72, 0x40, 0xdc, 0x00, 0x01, 0xa1, 0x61, 0x05],
      [0xd4, 0x72, 0x40, 0xdd, 0x00, 0x00, 0x00, 0x01, 0xa1, 0x61, 0x05],
      [0xd4, 0x72, 0x40, 0x91, 0xa2, 0xff, 0xfe, 1],
    ]) {
      const bytes = new Uint8Array(b);
      // the whole, and every prefix
      for (let n = 0; n <= bytes.length; n++) agreesInChunks(r, bytes.subarray(0, n));
    }
  });

  test("truncated records and declarations at every length, and maxDepth", () => {
    const r = new Random(14);
    const full = encode([{ a: 1, b: [2, 3] }, { a: 4, b: [] }, { c: "x" }], R);
    for (let n = 0; n <= full.length; n++) agreesInChunks(r, full.subarray(0, n));
    const deep = encode({ a: { a: { a: { a: [1, {}] } } } }, R);
    for (const maxDepth of [0, 1, 2, 3, 4, 5, 6]) for (let n = 0; n <= deep.length; n++) agreesInChunks(r, deep.subarray(0, n), maxDepth);
  });

  test("random mutations of record bytes: the same first error as decodeMulti (code, offset, message) in every chunking", () => {
    const packr = new msgpackr.Packr();
    const seq = new msgpackr.Packr({ sequential: true });
    forSeeds(150, (r) => {
      const pick = r.int(0, 2);
      const source = pick === 0 ? encode(recordData(r), R) : pick === 1 ? new Uint8Array(packr.pack(recordData(r))) : new Uint8Array(Buffer.concat([seq.pack(recordData(r)), seq.pack(recordData(r))]));
      const bytes = source.slice(0, r.bool(0.2) ? r.int(0, source.length) : source.length);
      const edits = r.int(1, 4);
      for (let i = 0; i < edits && bytes.length > 0; i++) bytes[r.int(0, bytes.length - 1)] = r.bool(0.6) ? r.pick([0x40, 0x41, 0x60, 0x7f, 0xd4, 0xd5, 0x72, 0x91, 0xa1, 0xc1, 0x90, 0xdc, 0x00, 0xc0]) : r.int(0, 255);
      agreesInChunks(r, bytes, r.bool(0.2) ? r.int(0, 6) : undefined);
    });
    forSeeds(400, (r) => {
      const bytes = r.bytes(r.int(1, 40));
      for (let i = 0; i < bytes.length; i++) if (r.bool(0.3)) bytes[i] = r.pick([0x40, 0x41, 0x60, 0x7f, 0xd4, 0xd5, 0x72, 0x91, 0xa1, 0x90]);
      agreesInChunks(r, bytes);
    });
  });
});

describe("inspectSequence: the values of one input read apart, in order, give the whole input's tree", () => {
  /** The top-level values of `bytes` as parts (bytes and offset), cut where the stream walker ends each (as the command line cuts them); after an error, the rest in one part. */
  function parts(bytes: Uint8Array, options: InspectOptions): { bytes: Uint8Array; offset: number }[] {
    const walker = new StreamWalker({ useRecords: options.useRecords });
    const ends: number[] = [];
    walker.onValue = (end) => ends.push(end);
    walker.push(bytes);
    if (!walker.stopped) walker.finish();
    const cuts = [0, ...ends, bytes.length];
    return cuts.slice(0, -1).map((at, i) => ({ bytes: bytes.slice(at, cuts[i + 1]!), offset: at })).filter((p) => p.bytes.length > 0);
  }

  function agreesApart(bytes: Uint8Array, options: InspectOptions): void {
    const whole = inspect(bytes, options);
    const read = inspectSequence(options);
    const results = parts(bytes, options).map((p) => read(p.bytes, p.offset));
    expectEqual(results.flatMap((r) => r.nodes), whole.nodes);
    expect(results.find((r) => r.error !== null)?.error ?? null).toEqual(whole.error);
  }

  test("messages of a sequential Packr and of our encoder (structures declared in one value, used in the next), two-byte identifiers, shared structures", () => {
    forSeeds(30, (r) => {
      const seq = new msgpackr.Packr({ sequential: true });
      const values = Array.from({ length: r.int(1, 6) }, () => recordData(r));
      agreesApart(new Uint8Array(Buffer.concat(values.map((v) => seq.pack(v)))), R);
      const ours = new Encoder({ ...R, sequential: true });
      agreesApart(new Uint8Array(Buffer.concat(values.map((v) => ours.encode(v)))), R);
      // more than 32 shapes: two-byte identifiers
      const wide = Array.from({ length: 40 }, (_, i) => ({ [`k${i}`]: i }));
      agreesApart(new Uint8Array(Buffer.concat([seq.pack(wide), seq.pack(wide.slice(r.int(0, 39)))])), R);
      const structures: string[][] = [];
      const shared = new msgpackr.Packr({ structures, sequential: true });
      const bytes = new Uint8Array(Buffer.concat(values.map((v) => shared.pack(v))));
      agreesApart(bytes, { ...R, structures: structures.map((s) => s.slice()) });
    });
  });

  test("mutated inputs: the same nodes up to the value with the first error, and that error", () => {
    forSeeds(80, (r) => {
      const seq = new msgpackr.Packr({ sequential: true });
      const bytes = new Uint8Array(Buffer.concat(Array.from({ length: r.int(2, 5) }, () => seq.pack(recordData(r)))));
      bytes[r.int(0, bytes.length - 1)] = r.pick([0x40, 0x41, 0x60, 0x7f, 0xd4, 0xd5, 0x72, 0x91, 0xc1, 0x00]);
      const options = R;
      const whole = inspect(bytes, options);
      const read = inspectSequence(options);
      const apart = parts(bytes, options).map((p) => read(p.bytes, p.offset));
      const firstError = apart.findIndex((x) => x.error !== null);
      const upTo = firstError < 0 ? apart : apart.slice(0, firstError);
      expectEqual(upTo.flatMap((x) => x.nodes), whole.nodes.slice(0, upTo.flatMap((x) => x.nodes).length));
      expect(firstError < 0 ? null : apart[firstError]!.error).toEqual(whole.error);
    });
  });
});

// ---- the command line ----

const BIN = join(ROOT, readJson("package.json").bin.msgpack);
let work: string;

function cli(args: string[], input?: Uint8Array): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, env: { PATH: process.env.PATH } });
    // chunks joined before decoding: a character may be split between two
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
  });
}

describe("msgpack --records", () => {
  beforeAll(() => {
    assertBuilt();
    work = mkdtempSync(join(tmpdir(), "msgpack-records-"));
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const packr = new msgpackr.Packr({ sequential: true });
  const VALUES = [apiRecords(3), { a: 1 }, { a: 2 }];
  const BYTES = new Uint8Array(Buffer.concat(VALUES.map((v) => packr.pack(v))));

  test("is listed in the help of every command that reads MessagePack, and refused by from-json", async () => {
    for (const command of ["inspect", "to-json", "stats", "validate"]) {
      const r = await cli([command, "--help"]);
      expect(r.stdout, command).toMatch(/\n {2}--records {6}read msgpackr's records/);
    }
    expect((await cli(["from-json", "--help"])).stdout).not.toContain("--records");
    const refused = await cli(["from-json", "--records"], new TextEncoder().encode("1"));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("unknown option --records for from-json");
  });

  test("inspect --records: the text view of inspect() with useRecords, from a file and from standard input", async () => {
    writeFileSync(join(work, "records.bin"), BYTES);
    const expected = renderText(inspect(BYTES, R));
    const fromFile = await cli(["inspect", "--records", "--no-color", "records.bin"]);
    expect([fromFile.code, fromFile.stdout]).toEqual([0, expected]);
    const fromStdin = await cli(["inspect", "--no-color", "--records"], BYTES);
    expect([fromStdin.code, fromStdin.stdout]).toEqual([0, expected]);
    const json = await cli(["inspect", "--json", "--records"], BYTES);
    const lines = json.stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.length).toBe(3);
    expect(lines[1].type).toBe("record");
    expect(lines[2].recordId).toEqual(lines[1].recordId);
    expect(lines[2].definition).toBeUndefined();
    // without it: the plain view, which the records misframe
    expect((await cli(["inspect", "--no-color", "records.bin"])).stdout).not.toBe(expected);
  });

  test("inspect --records and to-json --records, one value at a time: the text and JSON of the whole input's tree", async () => {
    const inputs = [BYTES];
    forSeeds(4, (r) => {
      const seq = new msgpackr.Packr({ sequential: true });
      inputs.push(new Uint8Array(Buffer.concat(Array.from({ length: r.int(2, 5) }, () => seq.pack(recordData(r))))));
      inputs.push(new Uint8Array(Buffer.concat(Array.from({ length: 3 }, (_, i) => seq.pack(Array.from({ length: 40 }, (_, k) => ({ [`k${k}`]: i })))))));
    });
    for (const bytes of inputs) {
      const { nodes } = inspect(bytes, R);
      const text = await cli(["inspect", "--records", "--no-color"], bytes);
      expect([text.code, text.stdout]).toEqual([0, renderText(inspect(bytes, R))]);
      const json = await cli(["to-json", "--records"], bytes);
      expect([json.code, json.stdout]).toEqual([0, nodes.map((n) => nodeJsonLine(n, bytes) + "\n").join("")]);
    }
  });

  test("to-json --records: one line per value, as the plain maps", async () => {
    const r = await cli(["to-json", "--records"], BYTES);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(VALUES.map((v) => toJson(encode(v))).join(""));
  });

  test("stats --records: records counted under the form \"record\", fields as key paths", async () => {
    const r = await cli(["stats", "--json", "--records"], BYTES);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.values).toBe(3);
    expect(out.bytes).toBe(BYTES.length);
    const records = [...walk(inspect(BYTES, R).nodes)].filter((n) => n.type === "record");
    expect(records.length).toBe(3 * 3 + 2); // 3 api records, each with an address and a geo; { a: 1 }, { a: 2 }
    expect(out.forms.record.count).toBe(records.length);
    expect(out.forms.record.bytes).toBe(records.filter((n) => !n.definition).length);
    expect(out.forms["record definition"].count).toBe(4); // the api record, its address, its geo; { a }
    expect(out.forms["positive fixint"]).toBeDefined();
    expect(out.paths["$[].address.city"].count).toBe(3);
    expect(out.paths["$.a"].count).toBe(2);
    expect(out.error).toBeNull();
    const text = await cli(["stats", "--records"], BYTES);
    expect(text.stdout).toMatch(/\nrecord {16}\s+11 /);
  });

  test("stats --records (now read as a stream) prints the numbers of the whole input's tree; on mutated input, decodeMulti's error", async () => {
    const byBytes = (m: Map<string, { count: number; bytes: number }>) => [...m].sort((a, b) => b[1].bytes - a[1].bytes || (a[0] < b[0] ? -1 : 1));
    const expected = (bytes: Uint8Array) => {
      const t = treeStats(inspect(bytes, R));
      return { bytes: t.offset, values: t.values, forms: Object.fromEntries(byBytes(t.forms)), paths: Object.fromEntries(byBytes(t.paths).slice(0, 1000)), error: null };
    };
    const plain = new msgpackr.Packr();
    const inputs = [BYTES, new Uint8Array(plain.pack(apiRecords(40))), encode(apiRecords(7), R)];
    forSeeds(3, (r) => {
      // a sequential Packr of its own: its structures carry over from message to message, not from other inputs
      const seq = new msgpackr.Packr({ sequential: true });
      inputs.push(encode(recordData(r), R), new Uint8Array(Buffer.concat([seq.pack(recordData(r)), seq.pack(recordData(r))])));
    });
    for (const [i, bytes] of inputs.entries()) {
      writeFileSync(join(work, "stats.bin"), bytes);
      const fromFile = await cli(["stats", "--json", "--top", "1000", "--records", "stats.bin"]);
      expect(fromFile.code, fromFile.stdout).toBe(0);
      expect(JSON.parse(fromFile.stdout), `input ${i}`).toEqual(expected(bytes));
      const fromStdin = await cli(["stats", "--json", "--top", "1000", "--records"], bytes);
      expect(fromStdin.stdout).toBe(fromFile.stdout);
    }
    forSeeds(10, (r) => {
      const bytes = BYTES.slice(0, r.bool(0.3) ? r.int(1, BYTES.length) : BYTES.length);
      bytes[r.int(0, bytes.length - 1)] = r.pick([0x40, 0x41, 0x7f, 0xd4, 0xd5, 0x72, 0x91, 0xc1, 0x00]);
      inputs.push(bytes);
    });
    for (const bytes of inputs.slice(-10)) {
      const { error } = decodeAll(bytes, R);
      const r = await cli(["stats", "--json", "--records"], bytes);
      const out = JSON.parse(r.stdout);
      expect([r.code, out.bytes]).toEqual([error ? 1 : 0, bytes.length]);
      expect(out.error).toEqual(error && { code: error.code, offset: error.offset, message: error.message });
    }
  });

  test("validate --records agrees with decodeMulti(bytes, { useRecords: true }) on valid and mutated inputs", async () => {
    expect((await cli(["validate", "--records"], BYTES)).stdout).toBe(`valid: 3 values, ${BYTES.length} bytes\n`);
    // without it, the records are read as other values: more of them
    expect((await cli(["validate"], BYTES)).stdout).toMatch(/^valid: \d{2,} values/);
    const cases: Uint8Array[] = [new Uint8Array([0x92, 0x01, 0x45])];
    forSeeds(12, (r) => {
      const bytes = BYTES.slice(0, r.bool(0.3) ? r.int(1, BYTES.length) : BYTES.length);
      bytes[r.int(0, bytes.length - 1)] = r.pick([0x40, 0x41, 0x7f, 0xd4, 0xd5, 0x72, 0x91, 0xc1, 0x00]);
      cases.push(bytes);
    });
    for (const bytes of cases) {
      const { error } = decodeAll(bytes, R);
      const r = await cli(["validate", "--records"], bytes);
      if (error === null) expect(r.code).toBe(0);
      else {
        expect(r.code).toBe(1);
        expect(r.stdout.split("\n")[0]).toBe(`invalid: ${error.code} at offset ${error.offset} (0x${error.offset.toString(16)}): ${error.message}`);
      }
    }
  });
});
