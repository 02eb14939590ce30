import { describe, expect, test } from "vitest";
import { decode, encode, Encoder } from "../src/index.ts";
import { readWithoutFlattening, ROPE_COPY_AFTER_BYTES, ROPE_COPY_MAX_CHARS, ROPE_COPY_MIN_CHARS } from "../src/encode/rope.ts";
import { STRATEGIES, withStrategy } from "./_support/strategy.ts";

/** A flat copy of `s`, as `JSON.parse` would give it. */
function flat(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** `s` rebuilt by concatenating pieces of 1..7 units: a rope in V8 and JSC (pieces may split a surrogate pair). */
function rope(s: string): string {
  let out = "";
  for (let i = 0, k = 0; i < s.length; k++) {
    const n = 1 + (k % 7);
    out += s.slice(i, i + n);
    i += n;
  }
  return out;
}

/** Whether two byte arrays are equal (vitest's deep equality is slow on large typed arrays). */
function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** `n` UTF-16 units cycling through `alphabet`'s units. */
function text(alphabet: string, n: number): string {
  let out = "";
  while (out.length < n) out += alphabet;
  return flat(out.slice(0, n));
}

const ALPHABETS: Record<string, string> = {
  ascii: "the quick brown fox jumps over the lazy dog 0123456789 ",
  latin: "àéîõü ßøåæ ",
  cjk: "漢字かなカナ한글 ",
  emoji: "😀🎉🚀 ",
  "lone surrogates": "a\ud800b\udc00c",
};

/** Lengths around the thresholds: the JS loop's end, the copy's window, and the str 8/16/32 headers. */
const LENGTHS = [
  1, 12, 13, 31, 32, ROPE_COPY_MIN_CHARS - 1, ROPE_COPY_MIN_CHARS, ROPE_COPY_MIN_CHARS + 1, 85, 86, 255, 256, 257, 21_845, 21_846, 65_535,
  ROPE_COPY_MAX_CHARS, ROPE_COPY_MAX_CHARS + 1, 70_000,
];

/** The MessagePack str header for `n` bytes of UTF-8, then the bytes, built without the encoder. */
function expectedStr(s: string): Uint8Array {
  const utf8 = new TextEncoder().encode(s);
  const n = utf8.length;
  const head = n < 32 ? [0xa0 | n] : n < 0x100 ? [0xd9, n] : n < 0x10000 ? [0xda, n >> 8, n & 0xff] : [0xdb, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  const out = new Uint8Array(head.length + n);
  out.set(head);
  out.set(utf8, head.length);
  return out;
}

/** Past the point where long strings are copied: a binary of this size comes first in the array. */
const LEAD = new Uint8Array(ROPE_COPY_AFTER_BYTES + 1000).fill(7);
const LEAD_HEAD = [0xc6, 0, (LEAD.length >> 16) & 0xff, (LEAD.length >> 8) & 0xff, LEAD.length & 0xff]; // bin 32

describe("strings built as ropes encode byte for byte as flat strings", () => {
  for (const [name, alphabet] of Object.entries(ALPHABETS)) {
    test(`${name}, every length around the thresholds, early and past ${ROPE_COPY_AFTER_BYTES} bytes of output`, () => {
      for (const len of LENGTHS) {
        const s = text(alphabet, len);
        const want = expectedStr(s);
        // early in the output (the copy is off), as the whole value and inside an array
        expect(same(encode(rope(s)), want), `${name} ${len} alone`).toBe(true);
        expect(same(encode([rope(s)]).subarray(1), want), `${name} ${len} in an array`).toBe(true);
        // past the scratch: after a large binary, twice (the second copy starts at another offset)
        const late = encode([LEAD, rope(s), rope(s)]);
        expect(late.length, `${name} ${len} late`).toBe(1 + 5 + LEAD.length + 2 * want.length);
        expect([...late.subarray(0, 6)]).toEqual([0x93, ...LEAD_HEAD]); // fixarray 3
        const at = 6 + LEAD.length;
        expect(same(late.subarray(at, at + want.length), want), `${name} ${len} late, first`).toBe(true);
        expect(same(late.subarray(at + want.length), want), `${name} ${len} late, second`).toBe(true);
        expect(same(late, encode([LEAD, flat(s), flat(s)])), `${name} ${len} rope vs flat`).toBe(true);
      }
    });
  }

  test("records of rope strings round-trip and equal their flat twins, with every output strategy", () => {
    const records = [];
    for (let i = 0; i < 3000; i++) {
      let body = `record ${i}:`;
      for (let k = 0; k < i % 40; k++) body += ` word${k} ünï 漢 😀`;
      records.push({ id: i, title: `title #${i} ${"=-".repeat(i % 50)}`, body, tags: [body + "!", `${i}`] });
    }
    const twin = JSON.parse(JSON.stringify(records)) as typeof records;
    // the records start past the copy threshold: after a large binary
    const want = encode([LEAD, twin]);
    expect(want.length).toBeGreaterThan(LEAD.length + 1_000_000);
    for (const strategy of STRATEGIES) {
      expect(same(new Encoder(withStrategy(strategy)).encode([LEAD, records]), want), strategy).toBe(true);
      expect(same(new Encoder(withStrategy(strategy)).encode(records), encode(twin)), `${strategy}, early`).toBe(true);
    }
    expect((decode(want) as unknown[])[1]).toEqual(twin);
  });
});

describe("readWithoutFlattening", () => {
  test("gives a string equal to its input, at every length and offset", () => {
    for (const len of LENGTHS) {
      const s = rope(text(ALPHABETS.emoji!, len));
      for (const written of [0, ROPE_COPY_AFTER_BYTES - 1, ROPE_COPY_AFTER_BYTES, 1 << 30]) {
        const r = readWithoutFlattening(s, written);
        expect(r.length).toBe(len);
        expect(r === s).toBe(true);
      }
    }
  });
});
