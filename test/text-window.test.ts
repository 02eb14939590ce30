import { Buffer } from "node:buffer";
import { describe, expect, test, vi } from "vitest";
import { DecodeError, Decoder, decodeMultiStream, encode, ExtensionCodec } from "../src/index.ts";
import { Decoder as RecordsDecoder, Encoder as RecordsEncoder } from "../src/records.ts";
import { forSeeds, Random } from "./_support/arbitrary.ts";
import { thrown } from "./_support/thrown.ts";

// The decoder reads short strings as slices of a window: one string of up to
// 4 KiB of input bytes (src/decode/text-window.ts), after 8 strings made one by one
// within 1 KiB. These tests build messages dense in short strings, so windows are
// read, and check every string against the platform's strict UTF-8 decoder.

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8 = new TextEncoder();

/** One string of the kinds a window meets: ASCII of 0-60 bytes, a non-ASCII character somewhere, or bytes that are not UTF-8. */
function piece(r: Random): Uint8Array {
  const n = r.bool(0.1) ? r.int(13, 60) : r.int(0, 20);
  const bytes = Uint8Array.from({ length: n }, () => r.int(0x20, 0x7e));
  if (n > 0 && r.bool(0.15)) {
    const at = r.int(0, n - 1);
    const odd = r.pick([[0xc3, 0xa9], [0xe6, 0x97, 0xa5], [0xf0, 0x9f, 0x98, 0x80], [0x80], [0xff], [0xc3], [0x9f]]);
    const out = new Uint8Array(n + odd.length);
    out.set(bytes.subarray(0, at));
    out.set(odd, at);
    out.set(bytes.subarray(at), at + odd.length);
    return out;
  }
  return bytes;
}

/** An array 32 of `count` strings (fixstr or str 8), with here and there a float 64 of high bytes between them; where each string's bytes start. */
function message(r: Random, count: number): { bytes: Uint8Array; strings: Uint8Array[]; starts: number[] } {
  const out: number[] = [0xdd, 0, 0, 0, 0];
  const strings: Uint8Array[] = [];
  const starts: number[] = [];
  let items = 0;
  for (let i = 0; i < count; i++) {
    if (r.bool(0.2)) {
      out.push(0xcb, ...Array.from({ length: 8 }, () => r.int(0x80, 0xff))); // float 64 of high bytes
      items++;
    }
    const s = piece(r);
    strings.push(s);
    if (s.length < 32 && r.bool(0.5)) out.push(0xa0 | s.length);
    else out.push(0xd9, s.length);
    starts.push(out.length);
    out.push(...s);
    items++;
  }
  out[3] = items >> 8;
  out[4] = items & 0xff;
  return { bytes: Uint8Array.from(out), strings, starts };
}

/** What a decoder must give for each string: its text, or null where it must throw INVALID_UTF8. */
function expected(s: Uint8Array): string | null {
  try {
    return strict.decode(s);
  } catch {
    return null;
  }
}

/** `bytes` at byte offset `offset` of a larger buffer whose length is `offset + bytes.length + tail`. */
function placed(bytes: Uint8Array, offset: number, tail: number): Uint8Array {
  const buffer = new Uint8Array(offset + bytes.length + tail).fill(0xff);
  buffer.set(bytes, offset);
  return buffer.subarray(offset, offset + bytes.length);
}

/** A codec whose extension type 1 decodes to "ext" and turns every later "a" of the input (`input()`) into "b". */
function aToB(input: () => Uint8Array): ExtensionCodec {
  const codec = new ExtensionCodec();
  codec.register({
    type: 1,
    encode: () => null,
    decode: () => {
      const bytes = input();
      for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x61) bytes[i] = 0x62;
      return "ext";
    },
  });
  return codec;
}

describe("short strings read through the window", () => {
  test("equal the strict UTF-8 decoding at every offset and buffer end, or throw INVALID_UTF8 at their offset", () => {
    const decoder = new Decoder();
    forSeeds(300, (r) => {
      const { bytes, strings, starts } = message(r, r.int(1, 400));
      const bad = strings.findIndex((s) => expected(s) === null);
      const input = placed(bytes, r.int(0, 7), r.int(0, 5));
      if (bad === -1) {
        const values = decoder.decode(r.bool(0.5) ? Buffer.from(input.buffer, input.byteOffset, input.length) : input) as unknown[];
        expect(values.filter((v) => typeof v === "string")).toEqual(strings.map(expected));
      } else {
        const error = thrown(() => decoder.decode(input));
        expect(error).toBeInstanceOf(DecodeError);
        expect((error as DecodeError).code).toBe("INVALID_UTF8");
        expect((error as DecodeError).offset).toBe(starts[bad]); // where the first bad string's bytes start
      }
    });
  });

  test("in a stream, after another message: the same strings, or INVALID_UTF8 at its offset in the stream", async () => {
    const first = encode("first message");
    let failures = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const r = new Random(seed);
      const { bytes, strings, starts } = message(r, r.int(20, 300));
      const bad = strings.findIndex((s) => expected(s) === null);
      const input = Uint8Array.from([...first, ...bytes]);
      const size = r.int(1, 200);
      async function* chunks(): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < input.length; i += size) yield input.slice(i, i + size);
      }
      const values: unknown[] = [];
      let error: unknown = null;
      try {
        for await (const value of decodeMultiStream(chunks())) values.push(value);
      } catch (e) {
        error = e;
      }
      if (bad === -1) {
        expect(error, `seed ${seed}`).toBeNull();
        expect(values[0]).toBe("first message");
        expect((values[1] as unknown[]).filter((v) => typeof v === "string"), `seed ${seed}`).toEqual(strings.map(expected));
      } else {
        failures++;
        expect(error, `seed ${seed}`).toBeInstanceOf(DecodeError);
        expect([(error as DecodeError).code, (error as DecodeError).offset], `seed ${seed}`).toEqual(["INVALID_UTF8", first.length + starts[bad]!]);
      }
    }
    expect(failures).toBeGreaterThan(0);
  });

  test("strings up to the end of the input, for inputs at every offset of buffers of every length mod 4", () => {
    // the window ends before the buffer's last partial word: the strings there are read without it
    const decoder = new Decoder();
    for (let count = 1; count < 700; count += 7) {
      const strings = Array.from({ length: count }, (_, i) => "s" + "x".repeat(i % 23) + i);
      const bytes = encode(strings);
      for (let offset = 0; offset < 4; offset++) {
        for (let tail = 0; tail < 4; tail++) expect(decoder.decode(placed(bytes, offset, tail)), `${count} strings, offset ${offset}, tail ${tail}`).toEqual(strings);
      }
    }
  });

  test("records read their string fields the same way", () => {
    const encoder = new RecordsEncoder({ useRecords: true });
    const decoder = new RecordsDecoder({ useRecords: true });
    forSeeds(100, (r) => {
      const rows = Array.from({ length: r.int(1, 300) }, () => ({
        a: strict.decode(piece(r).filter((b) => b < 0x80)),
        b: r.bool(0.5) ? "é" + strict.decode(piece(r).filter((b) => b < 0x80)) : r.int(-1000, 1000),
        c: (r.next() - 0.5) * 1e9,
      }));
      const bytes = encoder.encode(rows);
      expect(decoder.decode(placed(bytes, r.int(0, 3), r.int(0, 3)))).toEqual(rows);
    });
  });

  test("an extension decoder that writes into the input: the strings after it are read from the bytes as they are then", () => {
    let input: Uint8Array = new Uint8Array(0);
    const codec = aToB(() => input);
    const before = Array.from({ length: 40 }, (_, i) => "a".repeat(1 + (i % 20)));
    const head = encode(before).subarray(3); // the strings of an array of 40, without its header (array 16)
    input = Uint8Array.from([0xdc, 0, 81, ...head, 0xd4, 1, 0, ...head]);
    const values = new Decoder({ extensionCodec: codec }).decode(input) as string[];
    expect(values.slice(0, 40)).toEqual(before);
    expect(values[40]).toBe("ext");
    expect(values.slice(41)).toEqual(before.map((s) => s.replaceAll("a", "b")));
  });

  test("a map key converter that writes into the input: the same", () => {
    let input: Uint8Array = new Uint8Array(0);
    const decoder = new Decoder({
      mapKeyConverter: (key) => {
        if (key === "turn") for (let i = 0; i < input.length; i++) if (input[i] === 0x61) input[i] = 0x62;
        return key as string;
      },
    });
    const strings = Array.from({ length: 40 }, (_, i) => "a".repeat(1 + (i % 20)));
    input = encode({ first: strings, turn: strings }).slice();
    const value = decoder.decode(input) as { first: string[]; turn: string[] };
    expect(value.first).toEqual(strings);
    expect(value.turn).toEqual(strings.map((s) => s.replaceAll("a", "b")));
  });

  test("a SharedArrayBuffer input decodes the same", () => {
    const strings = Array.from({ length: 200 }, (_, i) => `s${i}-${"x".repeat(i % 30)}`);
    const bytes = encode(strings);
    const shared = new Uint8Array(new SharedArrayBuffer(bytes.length + 3), 3, bytes.length);
    shared.set(bytes);
    expect(new Decoder().decode(shared)).toEqual(strings);
  });

  test("windows are read where the platform has latin1Slice (Node), and each string is still right", async () => {
    vi.resetModules();
    const spy = vi.spyOn(Buffer.prototype, "latin1Slice");
    try {
      const fresh = await import("../src/index.ts");
      const strings = Array.from({ length: 500 }, (_, i) => `name ${i} ${"abc".repeat(i % 7)}`);
      expect(fresh.decode(fresh.encode(strings))).toEqual(strings);
      expect(spy.mock.calls.length).toBeGreaterThan(0);
      expect(spy.mock.calls.length).toBeLessThan(20); // a window serves many strings
    } finally {
      spy.mockRestore();
      vi.resetModules();
    }
  });
});

describe("short string values of small messages, through the key cache", () => {
  // before its first window, a message's short strings (up to 8 bytes; 16 on Bun) come from
  // the key cache that map keys use: each lookup must still give what the bytes decode to

  test("messages that repeat, collide and change their strings give each string as the strict decoder does, or INVALID_UTF8 at its offset", () => {
    const decoder = new Decoder();
    forSeeds(20, (r) => {
      // a pool larger than the cache's 4096 slots, of 0-16 bytes, some not UTF-8
      const pool = Array.from({ length: 6000 }, () => piece(r).subarray(0, r.int(0, 16)));
      for (let m = 0; m < 400; m++) {
        const strings = Array.from({ length: r.int(1, 6) }, () => (r.bool(0.7) ? pool[r.int(0, 99)]! : pool[r.int(0, pool.length - 1)]!));
        const out: number[] = [0x90 | strings.length];
        const starts: number[] = [];
        for (const s of strings) {
          out.push(0xa0 | s.length);
          starts.push(out.length);
          out.push(...s);
        }
        const input = Uint8Array.from(out);
        const bad = strings.findIndex((s) => expected(s) === null);
        if (bad === -1) expect(decoder.decode(input)).toEqual(strings.map(expected));
        else {
          const error = thrown(() => decoder.decode(input));
          expect((error as DecodeError).code).toBe("INVALID_UTF8");
          expect((error as DecodeError).offset).toBe(starts[bad]);
        }
      }
    });
  });

  test("an extension decoder that writes into a small message: the strings after it are read from the bytes as they are then", () => {
    let input: Uint8Array = new Uint8Array(0);
    const codec = aToB(() => input);
    input = Uint8Array.from([0x93, 0xa3, 0x61, 0x61, 0x61, 0xd4, 1, 0, 0xa3, 0x61, 0x61, 0x61]);
    expect(new Decoder({ extensionCodec: codec }).decode(input)).toEqual(["aaa", "ext", "bbb"]);
  });
});
