// Tests for src/streams.ts: stream decoding split at every byte, random
// chunkings, linear buffering (counted, not timed), backpressure, framing,
// the stream API under Bun and Deno, and the README's examples. The 1 GiB
// pipeline and the encodings past 4 GiB are in streams-huge.test.ts.
import { execFile } from "node:child_process";
import { once } from "node:events";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { chunked, collect, concat, cut, expectLinear, readableOf, sameBytes } from "./_support/streams.ts";
import { mulberry32 } from "./_support/arbitrary.ts";
import { expectEqual } from "./_support/equal.ts";
import { decode, DecodeError, type DecodeOptions, decodeMulti, Decoder as MainDecoder, encode, EncodeError, Encoder, ExtData, ExtensionCodec } from "../src/index.ts";
import {
  createStreamStats,
  decodeArrayStream,
  decodeAsync,
  DecoderStream,
  decodeMultiStream,
  encodeIterable,
  EncoderStream,
  encodeToReadableStream,
  encodeToStream,
  type StreamEncodeOptions,
  type StreamStats,
} from "../src/streams.ts";

// ---- helpers ----

const KiB = 1024;
const MiB = 1024 * KiB;

/** A seeded generator (mulberry32), so a failure can be replayed from its seed. */
const rng = mulberry32;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Reads `reader` to the end slowly (a 2 ms pause every 10 items) and returns
 * how many items came and how far the producer, whose progress `produced()`
 * reports, ever got ahead of the reader.
 */
async function readSlowly(reader: ReadableStreamDefaultReader<unknown>, produced: () => number): Promise<{ read: number; maxAhead: number }> {
  let read = 0;
  let maxAhead = 0;
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    read++;
    await sleep(read % 10 === 0 ? 2 : 0);
    maxAhead = Math.max(maxAhead, produced() - read);
  }
  return { read, maxAhead };
}

/** Varied values: every family and header width, multi-byte UTF-8, extensions. */
function variedValues(): unknown[] {
  const s = (n: number, unit: string): string => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
  return [
    0,
    127,
    128,
    -1,
    -33,
    255,
    65535,
    65536,
    2 ** 32,
    -(2 ** 40),
    1.5,
    -0.25,
    true,
    false,
    null,
    2n ** 63n,
    -(2n ** 63n),
    "",
    "a",
    "héllo wörld ✓ 😀 日本語",
    s(31, "x"),
    s(32, "x"),
    s(100, "€😀a"), // str 8/16 with 2-, 3- and 4-byte sequences
    s(300, "日本"),
    new Uint8Array(0),
    new Uint8Array([1, 2, 3]),
    new Uint8Array(300).map((_, i) => i),
    [],
    [1, [2, [3, [4]]]],
    { a: 1, b: [true, null], ключ: "значение", "😀": { nested: [1.25, "x"] } },
    new Map<unknown, unknown>([
      [1, "one"],
      ["two", 2],
    ]),
    new Date(0),
    new Date(1_700_000_000_123),
    new Date(-1),
    new Date(2 ** 40 * 1000),
    new ExtData(5, new Uint8Array([9, 8, 7])),
    new ExtData(-100, new Uint8Array(20)),
    new ExtData(1, new Uint8Array(4)),
    Array.from({ length: 20 }, (_, i) => i * 1000),
    Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i % 2 ? `v${i}` : i])),
  ];
}

/** Split positions: all of them for small inputs; for large ones the first and last 64 and every 997th. */
function splitPositions(n: number): number[] {
  if (n <= 2048) return Array.from({ length: n + 1 }, (_, i) => i);
  const out = new Set<number>();
  for (let i = 0; i <= 64; i++) {
    out.add(i);
    out.add(n - i);
  }
  for (let i = 0; i <= n; i += 997) out.add(i);
  return [...out].sort((a, b) => a - b);
}

// ---- decoding split streams ----

describe("stream decoders: values split at every byte", () => {
  const values = variedValues();

  it("decodeAsync() decodes each value cut into two chunks at every position", async () => {
    for (const value of values) {
      const bytes = encode(value);
      const expected = decode(bytes);
      for (const i of splitPositions(bytes.length)) {
        expectEqual(await decodeAsync(chunked(cut(bytes, [i]))), expected);
      }
    }
    // str 32 and bin 32: compared by re-encoding (deep equality of 70,000 elements is slow)
    for (const value of ["x€".repeat(35_000), new Uint8Array(70_000).fill(7)]) {
      const bytes = encode(value);
      for (const i of splitPositions(bytes.length)) {
        if (!sameBytes(encode(await decodeAsync(chunked(cut(bytes, [i])))), bytes)) throw new Error(`split at ${i} differs`);
      }
    }
  });

  it("decodeAsync() decodes each value cut into three chunks at every pair of adjacent positions, and into single bytes", async () => {
    for (const value of values) {
      const bytes = encode(value);
      const expected = decode(bytes);
      for (let i = 0; i + 1 <= bytes.length && i < 40; i++) {
        expectEqual(await decodeAsync(chunked(cut(bytes, [i, i + 1]))), expected);
      }
      const stats = createStreamStats();
      const ones = Array.from(bytes, (b) => Uint8Array.of(b));
      expectEqual(await decodeAsync(chunked(ones), { stats }), expected);
      expectLinear(stats, bytes.length, 2);
    }
  });

  it("decodeMultiStream() decodes all values back to back, cut at every position", async () => {
    const encoded = values.map((v) => encode(v));
    const bytes = concat(encoded);
    const expected = encoded.map((b) => decode(b));
    expect(bytes.length).toBeGreaterThan(1500);
    for (let i = 0; i <= bytes.length; i++) {
      expectEqual(await collect(decodeMultiStream(chunked(cut(bytes, [i])))), expected);
    }
  });

  it("DecoderStream decodes all values back to back from one-byte chunks, and from a ReadableStream source", async () => {
    const bytes = concat(values.map((v) => encode(v)));
    const expected = [...decodeMulti(bytes)];
    const ones = Array.from(bytes, (b) => Uint8Array.of(b));
    const decoder = new DecoderStream();
    expectEqual(await collect(readableOf(ones).pipeThrough(decoder)), expected);
    expectLinear(decoder.stats, bytes.length, 2);
    expectEqual(await collect(decodeMultiStream(readableOf(cut(bytes, [1, 2, 3, 500])))), expected);
  });

  it("decodeArrayStream() yields each item of one array, cut at every position", async () => {
    const bytes = encode(values);
    const expected = decode(bytes);
    for (const i of splitPositions(bytes.length)) {
      expectEqual(await collect(decodeArrayStream(chunked(cut(bytes, [i])))), expected);
    }
    expect(await collect(decodeArrayStream(chunked([encode([])])))).toEqual([]);
    const big = Array.from({ length: 70_000 }, (_, i) => i); // array 32 header
    expectEqual(await collect(decodeArrayStream(chunked(cut(encode(big), [1, 2, 3, 4])))), big);
  });

  it("decodeArrayStream() yields an item as soon as its last byte arrives", async () => {
    const bytes = encode([{ id: 1 }, "second", 3]);
    const firstEnd = 1 + encode({ id: 1 }).length;
    let sent = 0;
    async function* source(): AsyncGenerator<Uint8Array> {
      // one byte at a time; the consumer checks how far the source got
      for (; sent < bytes.length; ) {
        sent++;
        yield bytes.subarray(sent - 1, sent);
      }
    }
    const seen: number[] = [];
    for await (const _ of decodeArrayStream(source())) seen.push(sent);
    expect(seen[0]).toBe(firstEnd);
    expect(seen[1]).toBe(firstEnd + encode("second").length);
  });

  it("decodes Node Buffers, ArrayBuffers and other views as chunks", async () => {
    const bytes = encode({ a: "b" });
    const parts: (Uint8Array | ArrayBuffer | DataView)[] = [Buffer.from(bytes.subarray(0, 2)), bytes.slice(2, 4).buffer, new DataView(bytes.slice(4).buffer)];
    expect(await decodeAsync(chunked(parts as Uint8Array[]))).toEqual({ a: "b" });
    // arrays of byte values, as @msgpack/msgpack accepts
    const numbers = [Array.from(bytes.subarray(0, 3)), Array.from(bytes.subarray(3))];
    expect(await decodeAsync(readableOf(numbers))).toEqual({ a: "b" });
  });
});

// ---- errors ----

describe("stream decoders: truncation and malformed input", () => {
  it("a stream ending inside a value throws DecodeError TRUNCATED with the bytes missing", async () => {
    const bytes = encode("x".repeat(40)); // str 8: 2 + 40 bytes
    const err = await decodeAsync(chunked(cut(bytes.subarray(0, 30), [10]))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DecodeError);
    expect(err).toMatchObject({ code: "TRUNCATED", needed: 12, offset: 0 });
    expect((err as Error).message).toMatch(/^Cannot decode string at offset 0: insufficient data, input is 12 byte\(s\) short \(the stream ended at offset 30\)$/);
    // decode()'s message for the same bytes, and where the stream ended
    expect(() => decode(bytes.subarray(0, 30))).toThrow(expect.objectContaining({ message: (err as Error).message.replace(/ \(the stream ended at offset 30\)$/, "") }));
    // one Decoder for both: its stream ended, then decode() of the same bytes says nothing of a stream
    const decoder = new MainDecoder();
    await expect(decoder.decodeAsync(chunked([bytes.subarray(0, 30)]))).rejects.toMatchObject({ message: (err as Error).message });
    expect(() => decoder.decode(bytes.subarray(0, 30))).toThrow(expect.objectContaining({ message: "Cannot decode string at offset 0: insufficient data, input is 12 byte(s) short" }));
  });

  it("the missing count of a truncated container counts every item still to come", async () => {
    const bytes = encode([1, 2, 3, 4, 5, 6, 7, 8]);
    const err = (await decodeAsync(chunked(cut(bytes.subarray(0, 4), [2]))).catch((e: unknown) => e)) as DecodeError;
    expect(err).toMatchObject({ code: "TRUNCATED", needed: 5 });
  });

  it("an empty stream throws TRUNCATED with 1 byte missing; a header cut short counts its bytes", async () => {
    await expect(decodeAsync(chunked([]))).rejects.toMatchObject({ code: "TRUNCATED", needed: 1, message: expect.stringMatching(/short \(the stream ended at offset 0\)$/) });
    await expect(decodeAsync(chunked([Uint8Array.of(0xdb, 0, 0)]))).rejects.toMatchObject({ code: "TRUNCATED", needed: 2 });
  });

  it("decodeMultiStream() and DecoderStream report a stream that stops mid-value, with stream offsets", async () => {
    const bytes = concat([encode(1), encode("abc"), encode([1, 2, 3]).subarray(0, 2)]);
    const values: unknown[] = [];
    const err = await (async () => {
      for await (const v of decodeMultiStream(chunked(cut(bytes, [3])))) values.push(v);
    })().catch((e: unknown) => e);
    expect(values).toEqual([1, "abc"]);
    expect(err).toMatchObject({ code: "TRUNCATED", offset: 5, needed: 2 });
    await expect(collect(readableOf([bytes]).pipeThrough(new DecoderStream()))).rejects.toMatchObject({ code: "TRUNCATED", offset: 5 });
  });

  it("decodeArrayStream() reports a truncated array, a non-array and trailing bytes", async () => {
    const bytes = encode([1, "two", 3]);
    await expect(collect(decodeArrayStream(chunked([bytes.subarray(0, 4)])))).rejects.toMatchObject({ code: "TRUNCATED" });
    await expect(collect(decodeArrayStream(chunked([encode({ a: 1 })])))).rejects.toMatchObject({ code: "INVALID_BYTE" });
    await expect(collect(decodeArrayStream(chunked([bytes, Uint8Array.of(1)])))).rejects.toMatchObject({ code: "EXTRA_BYTES", offset: bytes.length });
    await expect(collect(decodeArrayStream(chunked([concat([bytes, Uint8Array.of(1)])])))).rejects.toMatchObject({ code: "EXTRA_BYTES" });
  });

  it("decodeAsync() rejects bytes after the value", async () => {
    await expect(decodeAsync(chunked([Uint8Array.of(1, 2)]))).rejects.toMatchObject({ code: "EXTRA_BYTES", offset: 1 });
    await expect(decodeAsync(chunked([Uint8Array.of(1), Uint8Array.of(2)]))).rejects.toMatchObject({ code: "EXTRA_BYTES", offset: 1 });
    // decode()'s error for the bytes at hand: what the stream looks like, while its first bytes are among them
    const json = new TextEncoder().encode('{"id":1,"name":"a value of JSON text"}');
    const whole = (() => {
      try {
        return decode(json);
      } catch (e) {
        return e;
      }
    })();
    expect(whole).toMatchObject({ code: "EXTRA_BYTES", message: expect.stringContaining("the input looks like JSON text, not MessagePack") });
    await expect(decodeAsync(chunked([json]))).rejects.toMatchObject({ code: "EXTRA_BYTES", offset: 1, message: (whole as Error).message });
    await expect(decodeAsync(chunked(cut(json, [20])))).rejects.toMatchObject({ code: "EXTRA_BYTES", offset: 1, message: "Cannot decode value: extra 19 byte(s) at offset 1; the input looks like JSON text, not MessagePack" });
    await expect(decodeAsync(chunked(cut(Uint8Array.of(1, 2, 3), [1])))).rejects.toMatchObject({ code: "EXTRA_BYTES", offset: 1, message: "Cannot decode value: extra 2 byte(s) at offset 1; see decodeMulti" });
  });

  it("malformed bytes report offsets counted from the start of the stream", async () => {
    const bytes = concat([encode("hello"), encode([1, 2]), Uint8Array.of(0x92, 0x01, 0xc1)]);
    const err = (await collect(decodeMultiStream(chunked(cut(bytes, [4, 9])))).catch((e: unknown) => e)) as DecodeError;
    expect(err).toBeInstanceOf(DecodeError);
    expect(err.code).toBe("INVALID_BYTE");
    expect(err.offset).toBe(bytes.length - 1);
    expect(err.message).toContain(`offset ${bytes.length - 1}`);
  });

  it("limits and maxDepth apply to values split across chunks, before the rest arrives", async () => {
    const str = encode("x".repeat(1000));
    await expect(decodeAsync(chunked([str.subarray(0, 2), str.subarray(2, 3)]), { maxStrLength: 100 })).rejects.toMatchObject({ code: "MAX_LENGTH" });
    const deep = encode([[[[[1]]]]]);
    await expect(decodeAsync(chunked(Array.from(deep, (b) => Uint8Array.of(b))), { maxDepth: 3 })).rejects.toMatchObject({ code: "MAX_DEPTH" });
    // the scanner stops at the bad header: the source is cancelled without being read to the end
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield Uint8Array.of(0x91, 0x91);
      for (;;) {
        pulled++;
        yield Uint8Array.of(0x91);
      }
    }
    await expect(decodeAsync(endless(), { maxDepth: 10 })).rejects.toMatchObject({ code: "MAX_DEPTH" });
    expect(pulled).toBeLessThan(20);
  });

  it("maxValueBytes stops a value that grows past it, before the rest arrives, and bounds the bytes held", async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      yield Uint8Array.of(0xdd, 0xff, 0xff, 0xff, 0xff); // array 32 of 4294967295 items
      for (;;) {
        pulled++;
        yield new Uint8Array(1000);
      }
    }
    const stats = createStreamStats();
    const err = (await collect(decodeMultiStream(endless(), { maxValueBytes: 100_000, stats })).catch((e: unknown) => e)) as DecodeError;
    expect(err).toBeInstanceOf(DecodeError);
    expect(err).toMatchObject({ code: "MAX_LENGTH", offset: 0 });
    expect(err.message).toMatch(/^Cannot decode value at offset 0: max length exceeded, it takes more than \d+ bytes, over maxValueBytes \(100000\)$/);
    expect(pulled).toBeLessThanOrEqual(101);
    // the queue's buffer: at most twice the bytes it held when it last grew
    expect(stats.maxBufferedBytes).toBeLessThanOrEqual(2 * (100_000 + 1005));
    // a complete value over the limit, inside one chunk or split
    const big = encode("z".repeat(500));
    await expect(decodeAsync(chunked([big]), { maxValueBytes: 400 })).rejects.toMatchObject({ code: "MAX_LENGTH", message: expect.stringContaining("it takes 503 bytes") });
    await expect(decodeAsync(chunked(cut(big, [10, 20])), { maxValueBytes: 400 })).rejects.toMatchObject({ code: "MAX_LENGTH" });
    // items of decodeArrayStream are limited one by one
    const items = encode(Array.from({ length: 100 }, () => "y".repeat(300)));
    expect((await collect(decodeArrayStream(chunked(cut(items, [7, 1000, 1001])), { maxValueBytes: 400 }))).length).toBe(100);
  });

  it("leaving the loop early cancels the source; a source's error reaches the caller", async () => {
    let cancelled: unknown = "no";
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(encode("tick"));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    for await (const v of decodeMultiStream(stream)) {
      expect(v).toBe("tick");
      break;
    }
    expect(cancelled).toBeUndefined();
    expect(stream.locked).toBe(false);
    const failing = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encode([1, 2]).subarray(0, 2));
        c.error(new Error("connection reset"));
      },
    });
    await expect(decodeAsync(failing)).rejects.toThrow("connection reset");
  });

  it("rejects a source that is not a stream", async () => {
    await expect(decodeAsync(encode(1) as unknown as AsyncIterable<Uint8Array>)).rejects.toThrow(TypeError);
  });
});

// ---- linear buffering ----

describe("stream decoders: linear buffering", () => {
  const total = 64 * MiB;
  const chunkSize = 64 * KiB;

  it("a 64 MiB array of records in 64 KiB chunks: each byte copied at most 3 times, decoded about once, scanned at most once", async () => {
    const n = 74_000;
    const text = "lorem ipsum dolor sit amet, 😀 ".repeat(40);
    const value = Array.from({ length: n }, (_, i) => ({ i, f: i / 7, s: text.slice(i % 100, 800 + (i % 100)), b: new Uint8Array(i % 64), t: [i, -i, null] }));
    const bytes = encode(value);
    expect(bytes.length).toBeGreaterThan(total);
    const stats = createStreamStats();
    const result = (await decodeAsync(chunked(cut(bytes, Array.from({ length: Math.ceil(bytes.length / chunkSize) - 1 }, (_, i) => (i + 1) * chunkSize))), {
      stats,
    })) as unknown[];
    expect(result.length).toBe(n);
    expect(sameBytes(encode(result), bytes)).toBe(true);
    // a retry per chunk would copy and decode ~n^2 / (2 * chunk) bytes: 1024 times more;
    // appending to a buffer that doubles moves each byte at most twice more
    expect(stats.bytesCopied).toBeLessThanOrEqual(3 * bytes.length);
    expect(stats.bytesDecoded).toBeLessThanOrEqual(bytes.length + chunkSize);
    expect(stats.bytesScanned).toBeLessThanOrEqual(bytes.length);
    expect(stats.maxBufferedBytes).toBeLessThanOrEqual(2 * (bytes.length + chunkSize));
  });

  it("a 64 MiB binary in 64 KiB chunks is copied at most 3 times", async () => {
    const bin = new Uint8Array(total).map((_, i) => i * 7);
    const bytes = encode(bin);
    const stats = createStreamStats();
    const positions = Array.from({ length: Math.ceil(bytes.length / chunkSize) - 1 }, (_, i) => (i + 1) * chunkSize);
    const result = (await decodeAsync(chunked(cut(bytes, positions)), { stats })) as Uint8Array;
    expect(sameBytes(result, bin)).toBe(true);
    expect(stats.bytesCopied).toBeLessThanOrEqual(3 * bytes.length);
    expect(stats.bytesDecoded).toBeLessThanOrEqual(bytes.length + chunkSize);
  });

  it("random chunkings of a large record stream decode every record, with linear work", async () => {
    const random = rng(12345);
    const records: Uint8Array[] = [];
    for (let i = 0; i < 10_000; i++) {
      const kind = i % 100 === 0 ? 3 : Math.floor(random() * 3);
      const record =
        kind === 0
          ? { id: i, name: `user ${i} ✓`, score: random() * 100, tags: ["a", "bé", "😀"].slice(0, i % 4), active: i % 2 === 0 }
          : kind === 1
            ? [i, -i, 2n ** 40n + BigInt(i), new Date(1_600_000_000_000 + i), new Uint8Array(i % 40)]
            : kind === 2
              ? new Map<unknown, unknown>([[i, "n"], ["nested", { deep: [[i]] }]])
              : { blob: new Uint8Array(20_000 + (i % 997)).fill(i & 0xff), text: "日本語".repeat(3000) };
      records.push(encode(record));
    }
    const bytes = concat(records);
    const n = bytes.length;
    const largest = Math.max(...records.map((r) => r.length));
    const plans: [string, number, () => number][] = [
      ["1..8 bytes", 8, () => 1 + Math.floor(random() * 8)],
      ["1..300 bytes", 300, () => 1 + Math.floor(random() * 300)],
      ["1..64 KiB", 64 * KiB, () => 1 + Math.floor(random() * 64 * KiB)],
      ["mixed", 256 * KiB, () => (random() < 0.5 ? 1 + Math.floor(random() * 4) : Math.floor(random() * 256 * KiB))],
    ];
    for (const [label, maxChunk, size] of plans) {
      const positions: number[] = [];
      for (let p = size(); p < n; p += size()) positions.push(p);
      const stats = createStreamStats();
      let k = 0;
      for await (const value of decodeMultiStream(chunked(cut(bytes, positions)), { stats, useMap: true })) {
        if (!sameBytes(encode(value), records[k]!)) throw new Error(`record ${k} differs with chunks of ${label} (seed 12345)`);
        k++;
      }
      expect(k, label).toBe(records.length);
      expectLinear(stats, n, 3);
      // held at most: the chunk being decoded, and the queue's buffer (twice a split record and a chunk)
      expect(stats.maxBufferedBytes, label).toBeLessThanOrEqual(3 * maxChunk + 2 * largest);
    }
  });
});

// ---- framing ----

describe("length-prefixed framing", () => {
  it("EncoderStream writes a u32 big-endian prefix before each value, DecoderStream reads it back at any split", async () => {
    const values = [...variedValues(), "y".repeat(100_000)];
    const encoded = await collect(readableOf(values).pipeThrough(new EncoderStream({ lengthPrefixed: true })));
    const bytes = concat(encoded);
    const first = encode(values[0]);
    expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 0, first.length]);
    const expected = values.map((v) => decode(encode(v)));
    for (const step of [1, 3, 1000, 70_000]) {
      const positions = Array.from({ length: Math.ceil(bytes.length / step) - 1 }, (_, i) => (i + 1) * step);
      const decoder = new DecoderStream({ lengthPrefixed: true });
      expectEqual(await collect(readableOf(cut(bytes, positions)).pipeThrough(decoder)), expected);
      expect(decoder.stats.bytesCopied).toBeLessThanOrEqual(3 * bytes.length);
      expectEqual(await collect(decodeMultiStream(chunked(cut(bytes, positions)), { lengthPrefixed: true })), expected);
    }
  });

  it("a truncated frame, a frame over maxValueBytes and a frame with extra bytes are errors", async () => {
    const frame = concat([Uint8Array.of(0, 0, 0, 4), encode("abc")]);
    await expect(collect(decodeMultiStream(chunked([frame.subarray(0, 6)]), { lengthPrefixed: true }))).rejects.toMatchObject({
      code: "TRUNCATED",
      needed: 2,
    });
    await expect(collect(decodeMultiStream(chunked([frame.subarray(0, 2)]), { lengthPrefixed: true }))).rejects.toMatchObject({
      code: "TRUNCATED",
      needed: 2,
    });
    // where the frame starts, how many bytes it lacks, and where the stream ended
    const later = concat([frame, frame.subarray(0, 5)]);
    await expect(collect(decodeMultiStream(chunked(cut(later, [9])), { lengthPrefixed: true }))).rejects.toMatchObject({
      code: "TRUNCATED",
      offset: 8,
      needed: 3,
      message: "Cannot decode frame at offset 8: insufficient data, input is 3 byte(s) short (the stream ended at offset 13)",
    });
    await expect(collect(decodeMultiStream(chunked([later.subarray(0, 10)]), { lengthPrefixed: true }))).rejects.toMatchObject({
      offset: 8,
      needed: 2,
      message: "Cannot decode frame at offset 8: insufficient data, input is 2 byte(s) short (the stream ended at offset 10)",
    });
    await expect(collect(decodeMultiStream(chunked([frame]), { lengthPrefixed: true, maxValueBytes: 3 }))).rejects.toMatchObject({ code: "MAX_LENGTH" });
    const padded = concat([Uint8Array.of(0, 0, 0, 5), encode("abc"), Uint8Array.of(0)]);
    await expect(collect(decodeMultiStream(chunked([padded]), { lengthPrefixed: true }))).rejects.toMatchObject({ code: "EXTRA_BYTES", offset: 8 });
  });
});

// ---- backpressure ----

describe("backpressure", () => {
  it("EncoderStream: a slow reader keeps the source from running ahead by more than a few values", async () => {
    let pulled = 0;
    const source = new ReadableStream<unknown>(
      {
        pull(c) {
          if (pulled === 200) c.close();
          else c.enqueue({ n: pulled++, pad: "x".repeat(1000) });
        },
      },
      { highWaterMark: 1 },
    );
    const { read, maxAhead } = await readSlowly(source.pipeThrough(new EncoderStream()).getReader(), () => pulled);
    expect(read).toBe(200);
    expect(maxAhead).toBeLessThanOrEqual(4);
  });

  it("DecoderStream: a slow reader keeps the writer from running ahead by more than a few chunks", async () => {
    const record = encode({ pad: "y".repeat(500) });
    const decoder = new DecoderStream();
    const writer = decoder.writable.getWriter();
    let written = 0;
    const writing = (async () => {
      for (let i = 0; i < 300; i++) {
        await writer.ready;
        void writer.write(record);
        written++;
      }
      await writer.close();
    })();
    const { read, maxAhead } = await readSlowly(decoder.readable.getReader(), () => written);
    await writing;
    expect(read).toBe(300);
    expect(maxAhead).toBeLessThanOrEqual(4);
    expect(decoder.stats.maxBufferedBytes).toBeLessThanOrEqual(2 * record.length);
  });

  it("encodeToReadableStream(): the encoder stays within a few chunks of a slow reader", async () => {
    // the size estimate reads each item once up front; the encoder reads it a second time when it
    // encodes it: so the highest index read twice is how far the encoding got
    let maxIndex = -1;
    const items = Array.from({ length: 200 }, (_, i) => new Uint8Array(64 * KiB).fill(i));
    const reads = new Array<number>(items.length).fill(0);
    const watched = new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key) && ++reads[Number(key)]! >= 2) maxIndex = Math.max(maxIndex, Number(key));
        return Reflect.get(target, key, receiver);
      },
    });
    const reader = encodeToReadableStream(watched).getReader();
    let bytesRead = 0;
    let maxAhead = 0;
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      bytesRead += r.value.length;
      await sleep(0);
      // items encoded so far vs. items the reader has received
      maxAhead = Math.max(maxAhead, maxIndex + 1 - Math.floor(bytesRead / (64 * KiB + 5)));
    }
    expect(bytesRead).toBe(encode(items).length);
    expect(maxAhead).toBeLessThanOrEqual(2);
  });

  it("encodeToStream(): waits for a slow writable, then closes it; an encode error aborts it", async () => {
    const received: Uint8Array[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const value = { rows: Array.from({ length: 3000 }, (_, i) => ({ i, s: `row ${i}`.repeat(10) })) };
    let closed = false;
    const writable = new WritableStream<Uint8Array>(
      {
        async write(chunk) {
          inFlight--;
          received.push(chunk);
          await sleep(1);
        },
        close() {
          closed = true;
        },
      },
      { highWaterMark: 2 },
    );
    const tracked = new WritableStream<Uint8Array>({
      async write(chunk) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const w = writable.getWriter();
        await w.write(chunk);
        w.releaseLock();
      },
      async close() {
        await writable.close();
      },
    });
    await encodeToStream(value, tracked, { chunkSize: 4096 });
    expect(closed).toBe(true);
    expect(received.length).toBeGreaterThan(10);
    expectEqual(decode(concat(received)), value);
    expect(maxInFlight).toBeLessThanOrEqual(2);

    let aborted: unknown = null;
    const sink = new WritableStream<Uint8Array>({ abort: (reason) => void (aborted = reason) });
    await expect(encodeToStream([new Uint8Array(100_000), () => 1], sink, { chunkSize: 1000 })).rejects.toBeInstanceOf(EncodeError);
    expect(aborted).toBeInstanceOf(EncodeError);
  });
});

// ---- streaming encode of one value ----

describe("encodeIterable()", () => {
  const check = (value: unknown, options: StreamEncodeOptions): Uint8Array[] => {
    const chunks = [...encodeIterable(value, options)];
    const expected = new Encoder(options).encode(value);
    expect(sameBytes(concat(chunks), expected)).toBe(true);
    return chunks;
  };

  it("yields exactly the bytes of encode() for varied values and chunk sizes", () => {
    const random = rng(7);
    const big = {
      list: Array.from({ length: 5000 }, (_, i) => ({ i, name: `n${i}`, f: random(), b: i % 100 === 0 ? new Uint8Array(3000) : null })),
      map: new Map<unknown, unknown>(Array.from({ length: 2000 }, (_, i) => [i % 3 ? `k${i}` : i, [i, "v".repeat(i % 50)]])),
      set: new Set(Array.from({ length: 1000 }, (_, i) => `s${i}`)),
      bin: new Float64Array(5000).map((_, i) => i / 3),
      text: "長い文字列😀".repeat(5000),
      nested: [[[Array.from({ length: 3000 }, (_, i) => [i, { x: i }])]]],
      sparse: [1, , 3, undefined, ...new Array(2000).fill(7)], // eslint-disable-line no-sparse-arrays
      date: new Date(123456789),
      ext: new ExtData(9, new Uint8Array(50_000)),
    };
    const size = encode(big).length;
    for (const chunkSize of [1, 7, 100, 4096, 65536, 1 << 22]) {
      const chunks = check(big, { chunkSize });
      if (chunkSize <= 4096) expect(chunks.length).toBeGreaterThan(Math.min(1000, size / chunkSize / 4));
    }
    for (const v of variedValues()) check(v, { chunkSize: 8 });
  });

  it("honours sortKeys, ignoreUndefined, extensions, maxDepth and __proto__ keys like encode()", () => {
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) obj[`key${(i * 7919) % 3000}`] = i % 5 === 0 ? undefined : { v: i, u: undefined };
    Object.defineProperty(obj, "__proto__", { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
    check(obj, { chunkSize: 512, sortKeys: true, ignoreUndefined: true });
    check(obj, { chunkSize: 512 });

    class Point {
      readonly x: number;
      readonly y: number;
      constructor(x: number, y: number) {
        this.x = x;
        this.y = y;
      }
    }
    const codec = new ExtensionCodec();
    codec.register({
      type: 3,
      encode: (v) => (v instanceof Point ? Uint8Array.of(v.x, v.y) : null),
      decode: (d) => new Point(d[0]!, d[1]!),
    });
    const points = { pts: Array.from({ length: 3000 }, (_, i) => new Point(i & 0xff, 1)), plain: Array.from({ length: 3000 }, (_, i) => i) };
    check(points, { chunkSize: 256, extensionCodec: codec });

    const deep: unknown[] = [];
    let cur = deep;
    for (let i = 0; i < 20; i++) {
      const next: unknown[] = [new Uint8Array(1000)];
      cur.push(next);
      cur = next;
    }
    check(deep, { chunkSize: 100, maxDepth: 30 });
    expect(() => [...encodeIterable(deep, { chunkSize: 100, maxDepth: 10 })]).toThrow(EncodeError);
    const cycle: unknown[] = [new Uint8Array(1000)];
    cycle.push(cycle);
    let expected: unknown;
    try {
      encode(cycle);
    } catch (e) {
      expected = e;
    }
    expect(expected).toMatchObject({ code: "CYCLE", message: expect.stringContaining("at $[1] (the object at $)") });
    expect(() => [...encodeIterable(cycle, { chunkSize: 100 })]).toThrow(expect.objectContaining({ code: "CYCLE", message: (expected as Error).message }));
    expect(() => [...encodeIterable(1, { chunkSize: 0 })]).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  });

  it("never encodes a container whole that holds a rare huge item, even one a sampled size estimate would miss", () => {
    const bin = new Uint8Array(4 * MiB).fill(1);
    const list: unknown[] = Array.from({ length: 5000 }, (_, i) => i);
    list[4323] = bin; // estimateSize() samples 1024 of the 5000 items, not this one
    for (const value of [list, { wrapper: [list] }]) {
      const chunks = check(value, {});
      expect(chunks.some((c) => c.buffer === bin.buffer)).toBe(true);
      expect(Math.max(...chunks.filter((c) => c.buffer !== bin.buffer).map((c) => c.length))).toBeLessThanOrEqual(64 * KiB);
    }
  });

  it("yields large binaries as views, without copying, and chunks are never written after they are yielded", () => {
    const bin = new Uint8Array(1 * MiB).fill(3);
    const chunks = [...encodeIterable([bin, bin], { chunkSize: 64 * KiB })];
    expect(chunks.some((c) => c.buffer === bin.buffer)).toBe(true);
    const snapshot = chunks.map((c) => c.slice());
    const again = [...encodeIterable({ other: new Uint8Array(300_000).fill(9) }, { chunkSize: 64 * KiB })];
    expect(again.length).toBeGreaterThan(1);
    chunks.forEach((c, i) => expect(sameBytes(c, snapshot[i]!)).toBe(true));
  });
});

// ---- runtimes ----

const bin = (name: string): string => fileURLToPath(new URL(`./node_modules/.bin/${name}`, import.meta.url));
const streamsPath = fileURLToPath(new URL("../src/streams.ts", import.meta.url));
const indexPath = fileURLToPath(new URL("../src/index.ts", import.meta.url));

const smoke = `
import { encode, Decoder, decodeAsync as mainDecodeAsync, decodeMultiStream as mainDecodeMultiStream } from ${JSON.stringify(indexPath)};
import { DecoderStream, EncoderStream, decodeAsync, decodeMultiStream, encodeToReadableStream } from ${JSON.stringify(streamsPath)};
const values = [1, "two", { three: [3] }, new Uint8Array(100000).fill(5)];
for (const lengthPrefixed of [false, true]) {
  const src = new ReadableStream({ start(c) { for (const v of values) c.enqueue(v); c.close(); } });
  const out = [];
  for await (const v of src.pipeThrough(new EncoderStream({ lengthPrefixed })).pipeThrough(new DecoderStream({ lengthPrefixed }))) out.push(v);
  if (out.length !== 4 || out[1] !== "two" || out[2].three[0] !== 3 || out[3].length !== 100000) throw new Error("pipeThrough failed");
}
const body = new Response(encodeToReadableStream({ big: "x".repeat(200000) }, { chunkSize: 4096 })).body;
const value = await decodeAsync(body);
if (value.big.length !== 200000) throw new Error("decodeAsync failed");
const bytes = encode([1, 2, 3]);
const multi = [];
for await (const v of decodeMultiStream(new Response(new Blob([bytes, bytes])).body)) multi.push(v);
if (multi.length !== 2) throw new Error("decodeMultiStream failed");
// the main entry's stream API, as @msgpack/msgpack's
const fromMain = [];
for await (const v of new Decoder().decodeStream(new Blob([bytes, bytes]).stream())) fromMain.push(v);
if (fromMain.length !== 2 || (await mainDecodeAsync(new Blob([bytes]).stream()))[2] !== 3) throw new Error("main entry stream API failed");
async function* ones(b) { for (const x of b) yield [x]; }
const err = await mainDecodeAsync(ones([0x92, 0x85, 0x01, 0xc1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])).catch((e) => e);
if (!(err instanceof RangeError) || err.code !== "INVALID_BYTE" || err.offset !== 3) throw new Error("malformed split input: " + err);
const bad = await (async () => { for await (const v of mainDecodeMultiStream(ones([0x93, 300]))) {} })().catch((e) => e);
if (bad?.code !== "INVALID_ARGUMENT") throw new Error("array chunk with 300 accepted: " + bad);
console.log("streams ok");
`;

describe("runtimes", () => {
  const dir = mkdtempSync(join(tmpdir(), "msgpack-streams-"));
  const script = join(dir, "smoke.ts");
  writeFileSync(script, smoke);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (program: string, args: string[]): Promise<{ code: number; out: string }> =>
    new Promise((resolve) => {
      execFile(program, args, { timeout: 60_000 }, (error, stdout, stderr) => resolve({ code: error ? 1 : 0, out: `${stdout}${stderr}` }));
    });
  it.each([
    ["bun", () => run(bin("bun"), [script])],
    ["deno", () => run(bin("deno"), ["run", "--allow-read", script])],
  ])("EncoderStream, DecoderStream (pipeThrough) and decodeAsync run under %s", async (_, go) => {
    const r = await go();
    expect(r.out).toContain("streams ok");
    expect(r.code).toBe(0);
  });
});

// ---- the README's streaming examples, in Node ----

describe("README streaming examples (Node)", () => {
  it("a Node socket: messages split anywhere, replies, and a large value written with backpressure", async () => {
    const server = createNetServer(async (socket) => {
      for await (const message of decodeMultiStream(socket)) {
        const m = message as { op: string; data?: Uint8Array };
        socket.write(encode({ ok: true, op: m.op, size: m.data?.length ?? 0 }));
      }
    });
    server.listen(0);
    await once(server, "listening");
    const port = (server.address() as { port: number }).port;

    const socket = connect(port);
    await once(socket, "connect");
    socket.write(encode({ op: "hello" }));
    for (const chunk of encodeIterable({ op: "upload", data: new Uint8Array(5 * MiB).fill(1) })) {
      if (!socket.write(chunk)) await once(socket, "drain");
    }
    const replies: unknown[] = [];
    for await (const reply of decodeMultiStream(socket)) {
      replies.push(reply);
      if (replies.length === 2) break; // leaving the loop destroys the socket
    }
    expect(replies).toEqual([
      { ok: true, op: "hello", size: 0 },
      { ok: true, op: "upload", size: 5 * MiB },
    ]);
    server.close();
  });

  it("a Node socket with length-prefixed frames: EncoderStream pumped into the socket", async () => {
    // (Writable.toWeb(socket) would do, but Node 20's adapter throws an uncaught TypeError when the socket closes)
    const pump = async (frames: ReadableStream<Uint8Array>, socket: import("node:net").Socket): Promise<void> => {
      const reader = frames.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        if (!socket.write(r.value)) await once(socket, "drain");
      }
    };
    const server = createNetServer((socket) => {
      // echo server: frames in, frames out
      const replies = new EncoderStream({ lengthPrefixed: true });
      void pump(replies.readable, socket).catch(() => undefined);
      const writer = replies.writable.getWriter();
      void (async () => {
        for await (const m of decodeMultiStream(socket, { lengthPrefixed: true, maxValueBytes: 1 << 20 })) await writer.write({ echo: m });
        await writer.close();
      })().catch(() => undefined);
    });
    server.listen(0);
    await once(server, "listening");
    const socket = connect((server.address() as { port: number }).port);
    await once(socket, "connect");
    const requests = new EncoderStream({ lengthPrefixed: true });
    void pump(requests.readable, socket).catch(() => undefined);
    const writer = requests.writable.getWriter();
    await writer.write({ op: "ping" });
    await writer.write([1, 2, 3]);
    const replies: unknown[] = [];
    for await (const reply of decodeMultiStream(socket, { lengthPrefixed: true })) {
      replies.push(reply);
      if (replies.length === 2) break;
    }
    expect(replies).toEqual([{ echo: { op: "ping" } }, { echo: [1, 2, 3] }]);
    server.close();
  });

  it("fetch: a streamed response read item by item, and a streamed request body", async () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => ({ i, name: `row ${i}` }));
    const server = createHttpServer(async (req, res) => {
      res.setHeader("content-type", "application/msgpack");
      if (req.method === "POST") {
        const body = (await decodeAsync(req)) as { rows: unknown[] };
        res.end(encode({ received: body.rows.length }));
      } else {
        Readable.fromWeb(encodeToReadableStream(rows) as import("node:stream/web").ReadableStream).pipe(res);
      }
    });
    server.listen(0);
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;

    const response = await fetch(url);
    let count = 0;
    for await (const row of decodeArrayStream(response.body!)) {
      if ((row as { i: number }).i !== count++) throw new Error("out of order");
    }
    expect(count).toBe(rows.length);

    const posted = await fetch(url, {
      method: "POST",
      body: encodeToReadableStream({ rows }),
      headers: { "content-type": "application/msgpack" },
      duplex: "half",
    } as RequestInit);
    expect(await decodeAsync(posted.body!)).toEqual({ received: rows.length });
    server.close();
  });

  it("a file: a large value written with bounded memory, read back item by item", async () => {
    const dir = mkdtempSync(join(tmpdir(), "msgpack-file-"));
    const path = join(dir, "records.msgpack");
    try {
      const records = Array.from({ length: 100_000 }, (_, i) => ({ id: i, tags: ["a", "b"], score: i / 3 }));
      await encodeToStream(records, Writable.toWeb(createWriteStream(path)) as WritableStream<Uint8Array>);
      let n = 0;
      for await (const record of decodeArrayStream(createReadStream(path))) {
        if ((record as { id: number }).id !== n++) throw new Error("out of order");
      }
      expect(n).toBe(records.length);
      // values appended one by one, read back with decodeMultiStream
      const log = createWriteStream(path);
      for (let i = 0; i < 1000; i++) log.write(encode({ event: i }));
      log.end();
      await once(log, "finish");
      expect((await collect(decodeMultiStream(createReadStream(path, { highWaterMark: 1000 })))).length).toBe(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---- options, decodeArrayStream against decode(), errors from extension decoders ----

/** What a promise or an async iterable gives: its values, then the DecodeError (code, offset, message) it ends with. */
async function outcome(run: () => Promise<unknown> | AsyncIterable<unknown>): Promise<{ values: unknown[]; error?: { code: string; offset: number; message: string } }> {
  const values: unknown[] = [];
  try {
    const r = run();
    if (r instanceof Promise) values.push(await r);
    else for await (const v of r) values.push(v);
    return { values };
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return { values, error: { code: e.code, offset: e.offset, message: e.message } };
  }
}

/** decode()'s error for `bytes`: code, offset and message. */
function decodeFailure<C>(bytes: Uint8Array, options?: DecodeOptions<C>): { code: string; offset: number; message: string } {
  try {
    decode(bytes, options);
  } catch (e) {
    if (e instanceof DecodeError) return { code: e.code, offset: e.offset, message: e.message };
    throw e;
  }
  throw new Error("decode() succeeded");
}

describe("stream decoders: the stream options under the decoders' option checks", () => {
  it("decodeAsync, decodeArrayStream, decodeMultiStream, DecoderStream and the main Decoder take maxValueBytes, stats and lengthPrefixed with decode options", async () => {
    const bytes = encode([1, "two", { three: 3 }]);
    const framed = concat([Uint8Array.of(0, 0, 0, bytes.length), bytes]);
    const stats = createStreamStats();
    const decodeOptions = { maxDepth: 4, useMap: false, int64: "auto" as const, maxStrLength: 10 };
    expect(await decodeAsync(chunked(cut(bytes, [2])), { ...decodeOptions, maxValueBytes: 100, stats })).toEqual([1, "two", { three: 3 }]);
    expect(stats.bytesIn).toBe(bytes.length);
    const items: unknown[] = [];
    for await (const v of decodeArrayStream(chunked([bytes]), { ...decodeOptions, maxValueBytes: 10, stats: createStreamStats() })) items.push(v);
    expect(items).toEqual([1, "two", { three: 3 }]);
    const values: unknown[] = [];
    for await (const v of decodeMultiStream(chunked(cut(framed, [3])), { ...decodeOptions, lengthPrefixed: true, maxValueBytes: 100 })) values.push(v);
    expect(values).toEqual([[1, "two", { three: 3 }]]);
    const reader = readableOf([framed]).pipeThrough(new DecoderStream({ ...decodeOptions, lengthPrefixed: true, stats: createStreamStats() })).getReader();
    expect((await reader.read()).value).toEqual([1, "two", { three: 3 }]);
    const decoder = new MainDecoder({ ...decodeOptions, maxValueBytes: 100, lengthPrefixed: true, stats: createStreamStats() });
    const fromDecoder: unknown[] = [];
    for await (const v of decoder.decodeStream(chunked([framed]))) fromDecoder.push(v);
    expect(fromDecoder).toEqual([[1, "two", { three: 3 }]]);
    // undefined means the default
    expect(await decodeAsync(chunked([bytes]), { maxValueBytes: undefined, stats: undefined, maxDepth: undefined })).toEqual([1, "two", { three: 3 }]);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ["maxValueBytes -1", { maxValueBytes: -1 }, /^Cannot decode: option maxValueBytes is -1, not a non-negative integer$/],
    ["maxValueBytes 1.5", { maxValueBytes: 1.5 }, /^Cannot decode: option maxValueBytes is 1\.5, not a non-negative integer$/],
    ["lengthPrefixed 1", { lengthPrefixed: 1 }, /^Cannot decode: option lengthPrefixed is 1, not a boolean$/],
    ["stats 5", { stats: 5 }, /^Cannot decode: option stats is 5, not a StreamStats object$/],
    ["maxDepth -1 (a decode option)", { maxDepth: -1 }, /^Cannot decode: option maxDepth is -1, not a non-negative integer$/],
  ])("an invalid option (%s) is INVALID_ARGUMENT from every stream decoder", async (_, options, message) => {
    const check = (e: unknown) => {
      expect(e).toBeInstanceOf(DecodeError);
      expect(e).toMatchObject({ code: "INVALID_ARGUMENT", offset: 0 });
      expect((e as Error).message).toMatch(message);
    };
    const bytes = encode([1]);
    check(await decodeAsync(chunked([bytes]), options).catch((e: unknown) => e));
    check(await decodeArrayStream(chunked([bytes]), options).next().catch((e: unknown) => e));
    check(await decodeMultiStream(chunked([bytes]), options).next().catch((e: unknown) => e));
    check((() => { try { new DecoderStream(options); } catch (e) { return e; } })());
    check((() => { try { new MainDecoder(options); } catch (e) { return e; } })());
  });
  it("lengthPrefixed: true where no back-to-back values are read is INVALID_ARGUMENT; where they are, it frames them", async () => {
    const check = (e: unknown) => {
      expect(e).toBeInstanceOf(DecodeError);
      expect(e).toMatchObject({ code: "INVALID_ARGUMENT", offset: 0 });
      expect((e as Error).message).toMatch(/^Cannot decode: option lengthPrefixed is true, not false here: length-prefixed frames are read by decodeMultiStream/);
    };
    const bytes = encode([1]);
    const framed = concat([Uint8Array.of(0, 0, 0, bytes.length), bytes]);
    check(await decodeAsync(chunked([framed]), { lengthPrefixed: true }).catch((e: unknown) => e));
    check(await decodeArrayStream(chunked([framed]), { lengthPrefixed: true }).next().catch((e: unknown) => e));
    const decoder = new MainDecoder({ lengthPrefixed: true });
    check(await decoder.decodeAsync(chunked([framed])).catch((e: unknown) => e));
    check(await decoder.decodeArrayStream(chunked([framed])).next().catch((e: unknown) => e));
    // false is the default there, and framing works where values are back to back
    expect(await decodeAsync(chunked([bytes]), { lengthPrefixed: false })).toEqual([1]);
    expect(await collect(decodeMultiStream(chunked([framed, framed]), { lengthPrefixed: true }))).toEqual([[1], [1]]);
    expect(await collect(decoder.decodeStream(chunked([framed])))).toEqual([[1]]);
  });
});

describe("decodeArrayStream(): what decode() of the same bytes gives, at the depth decode() reads the items", () => {
  const nest = (levels: number): Uint8Array => concat([new Uint8Array(levels).fill(0x91), Uint8Array.of(0xc0)]);
  const cases: [string, Uint8Array, Record<string, unknown>][] = [
    ["items past maxDepth", nest(7), { maxDepth: 5 }],
    ["the array itself past maxDepth 0", encode([1, 2]), { maxDepth: 0 }],
    ["the array past maxDepth 0, with bytes after it", concat([encode([1, 2]), Uint8Array.of(5)]), { maxDepth: 0 }],
    ["an array over maxArrayLength", encode([1, 2, 3]), { maxArrayLength: 2 }],
    ["an array cut short after an item", encode([1, 2, 3]).subarray(0, 3), {}],
    ["an array declaring more items than bytes, with a reserved byte inside", Uint8Array.of(0x95, 0x01, 0xc1, 0x02), {}],
    ["an array with a reserved byte, long enough", Uint8Array.of(0x93, 0x01, 0xc1, 0x02), {}],
  ];
  it.each(cases)("%s: the same error code, offset and message (1-byte and whole chunks)", async (_, bytes, options) => {
    const want = decodeFailure(bytes, options);
    for (const chunks of [[bytes], Array.from(bytes, (b) => Uint8Array.of(b))]) {
      const got = await outcome(() => decodeArrayStream(chunked(chunks), options));
      expect(got.error, `${chunks.length} chunk(s)`).toBeDefined();
      expect({ code: got.error!.code, offset: got.error!.offset }).toEqual({ code: want.code, offset: want.offset });
      expect(got.error!.message.replace(/ \(the stream ended at offset \d+\)$/, "")).toBe(want.message);
    }
  });

  it("items within maxDepth decode as decode() gives them", async () => {
    const bytes = nest(5);
    const got = await outcome(() => decodeArrayStream(chunked([bytes]), { maxDepth: 5 }));
    expect(got).toEqual({ values: (decode(bytes, { maxDepth: 5 }) as unknown[]) });
  });
});

describe("errors from decodes nested in extension decoders: offsets count in the stream, as in decode()", () => {
  const codec = new ExtensionCodec();
  codec.register({ type: 1, encode: () => null, decode: (data) => new Set(decode(data, { extensionCodec: codec }) as unknown[]) });
  // Set([Set(["ok", 0xc1])]): the reserved byte sits inside two extension payloads
  const inner = Uint8Array.of(0x92, 0xa2, 0x6f, 0x6b, 0xc1);
  const mid = concat([Uint8Array.of(0xc7, inner.length + 1, 1, 0x91), inner]);
  const bytes = concat([Uint8Array.of(0xc7, mid.length + 1, 1, 0x91), mid]);
  const at = bytes.length - 1;

  it("decode() reports the byte's offset in its input, for each decoder", () => {
    expect(decodeFailure(bytes, { extensionCodec: codec })).toEqual({ code: "INVALID_BYTE", offset: at, message: `Cannot decode value at offset ${at}: unrecognized type byte 0xc1 (reserved)` });
    expect(() => new MainDecoder({ extensionCodec: codec }).decode(bytes)).toThrow(expect.objectContaining({ offset: at }));
  });

  it("the stream decoders report it at its stream offset, after any bytes before it", async () => {
    const lead = encode("lead");
    const all = concat([lead, bytes]);
    for (const chunks of [[all], Array.from(all, (b) => Uint8Array.of(b)), cut(all, [3, 9])]) {
      const got = await outcome(() => decodeMultiStream(chunked(chunks), { extensionCodec: codec }));
      expect(got.values).toEqual(["lead"]);
      expect(got.error).toMatchObject({ code: "INVALID_BYTE", offset: lead.length + at });
      expect(got.error!.message).toBe(`Cannot decode value at offset ${lead.length + at}: unrecognized type byte 0xc1 (reserved)`);
    }
    const arrayed = concat([Uint8Array.of(0x92, 0x01), bytes]);
    const items = await outcome(() => decodeArrayStream(chunked(Array.from(arrayed, (b) => Uint8Array.of(b))), { extensionCodec: codec }));
    expect(items).toMatchObject({ values: [1], error: { code: "INVALID_BYTE", offset: 2 + at } });
  });
});

describe("encodeIterable(): values that change while they are encoded, as encode()", () => {
  const run = (value: unknown, options: StreamEncodeOptions): Uint8Array => concat([...encodeIterable(value, options)]);
  const failure = (f: () => unknown): EncodeError => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(EncodeError);
      return e as EncodeError;
    }
    throw new Error("no error");
  };

  it("reads every getter once, in split and whole parts, with and without sortKeys / ignoreUndefined", () => {
    for (const options of [{ chunkSize: 16 }, { chunkSize: 64, sortKeys: true }, { chunkSize: 16, ignoreUndefined: true }, { chunkSize: 4096 }]) {
      const reads: string[] = [];
      const counted = (name: string, v: unknown): PropertyDescriptor => ({ enumerable: true, get: () => (reads.push(name), v) });
      const inner = Object.defineProperties({}, { a: counted("a", "x".repeat(40)), b: counted("b", [1, 2, 3]) });
      const value = { list: [inner, Object.defineProperty({}, "c", counted("c", { d: 1 }))], e: 5 };
      Object.defineProperty(value, "f", counted("f", undefined));
      const bytes = run(value, options);
      expect(reads.sort(), JSON.stringify(options)).toEqual(["a", "b", "c", "f"]);
      const want: Record<string, unknown> = { list: [{ a: "x".repeat(40), b: [1, 2, 3] }, { c: { d: 1 } }], e: 5, f: null };
      if (options.ignoreUndefined) delete want.f;
      expect(decode(bytes)).toEqual(want);
    }
  });

  it("reads every getter on array items once, whether the item is written in a part or split further", () => {
    for (const chunkSize of [1, 16, 64, 4096]) {
      const reads: number[] = [];
      const arr: unknown[] = [];
      for (let i = 0; i < 40; i++) {
        const v = i % 10 === 0 ? { s: "y".repeat(50), list: [i, i] } : i % 3 === 0 ? "x".repeat(i) : i;
        Object.defineProperty(arr, i, { enumerable: true, get: () => (reads.push(i), v) });
      }
      const want = arr.map((v) => v); // reads each once, then reset
      reads.length = 0;
      const bytes = run(arr, { chunkSize });
      expect(reads.sort((a, b) => a - b), `chunkSize ${chunkSize}`).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(decode(bytes)).toEqual(want);
    }
  });

  it("an array whose length an item's getter changes throws CHANGED instead of writing a truncated array", () => {
    for (const op of ["clear", "shrink", "grow"] as const) {
      const arr: unknown[] = [null];
      arr.push({
        get x() {
          if (op === "clear") arr.length = 0;
          else if (op === "shrink") arr.pop();
          else arr.push("added");
          return null;
        },
      });
      const e = failure(() => run(arr, { chunkSize: 16 }));
      expect(e.code, op).toBe("CHANGED");
      expect(e.message).toMatch(/^Cannot encode array at \$: it changed while being encoded \(2 entries, then \d\)$/);
    }
  });

  it("a Map or Set whose size an entry's getter changes throws CHANGED instead of writing a wrong count", () => {
    const map = new Map<unknown, unknown>([["a", "x".repeat(20)]]);
    map.set("b", { get x() { map.set("c", 1); return null; } });
    const e = failure(() => run(map, { chunkSize: 16 }));
    expect(e.code).toBe("CHANGED");
    expect(e.message).toMatch(/^Cannot encode Map at \$: it changed while being encoded \(2 entries, then more\)$/);
    const shrunk = new Map<unknown, unknown>([["a", "x".repeat(20)]]);
    shrunk.set("b", { get x() { shrunk.delete("c"); return null; } });
    shrunk.set("c", 1);
    expect(failure(() => run(shrunk, { chunkSize: 16 })).code).toBe("CHANGED");
    const set = new Set<unknown>(["x".repeat(20)]);
    set.add({ get x() { set.add("more"); return null; } });
    const s = failure(() => run(set, { chunkSize: 16 }));
    expect(s.code).toBe("CHANGED");
    expect(s.message).toMatch(/^Cannot encode Set at \$: it changed while being encoded \(2 entries, then 3\)$/);
  });

  it("a Proxy around a Map or Set throws the EncodeError encode() throws, not a TypeError", () => {
    for (const inner of [new Proxy(new Map([[1, 2]]), {}), new Proxy(new Set([1]), {})]) {
      for (const value of [inner, { a: inner, b: "x".repeat(40) }]) {
        const e = failure(() => run(value, { chunkSize: 16 }));
        expect(e.code).toBe("UNSUPPORTED_TYPE");
        expect(e.message).toMatch(/^Cannot encode (Map|Set) at \$\S*: its entries cannot be read \(TypeError: /);
      }
    }
  });

  it("still writes the bytes of encode() for the same values left unchanged", () => {
    const value = { list: Array.from({ length: 300 }, (_, i) => ({ i, s: `v${i}` })), m: new Map([[1, "a"], [2, "b"]]), set: new Set([1, 2, 3]) };
    for (const chunkSize of [1, 16, 64, 4096]) expect(sameBytes(run(value, { chunkSize }), encode(value))).toBe(true);
  });
});
