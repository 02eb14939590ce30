/**
 * The decoder as a drop-in for @msgpack/msgpack 3.x: its options with its
 * meaning, its inputs, and errors that the same `catch` clauses match.
 * @msgpack/msgpack itself is the oracle where both libraries agree by design.
 */
import * as peer from "@msgpack/msgpack";
import { describe, expect, test } from "vitest";
import { decode, DecodeError, decodeMulti, Decoder, type DecoderOptions, encode, ExtensionCodec } from "../src/compat/msgpack.ts";
import { forSeeds, fromHex, value } from "./_support/arbitrary.ts";
import { thrown } from "./_support/thrown.ts";

/** What `run` throws (failing if it returns). */
describe("decode() options of @msgpack/msgpack", () => {
  test("rawStrings: string values as Uint8Array copies, map keys as strings, checked against maxBinLength", () => {
    const long = "k".repeat(40);
    const bytes = encode({ a: "xyz", [long]: ["é", { b: "" }] });
    const options: DecoderOptions = { rawStrings: true };
    const got = decode(bytes, options) as Record<string, unknown>;
    expect(got).toEqual(peer.decode(bytes, { rawStrings: true }));
    expect(Object.keys(got)).toEqual(["a", long]);
    expect(got["a"]).toEqual(new TextEncoder().encode("xyz"));
    expect((got["a"] as Uint8Array).buffer).not.toBe(bytes.buffer);
    expect(((decode(bytes, { rawStrings: true, binaryAsView: true }) as Record<string, Uint8Array>)["a"]!).buffer).toBe(bytes.buffer);
    // invalid UTF-8 is no error as raw bytes
    expect(decode(fromHex("a2-c3-28"), { rawStrings: true })).toEqual(new Uint8Array([0xc3, 0x28]));
    // values are held to maxBinLength, keys to maxStrLength
    expect(decode(bytes, { rawStrings: true, maxStrLength: 40, maxBinLength: 3 })).toEqual(got);
    const e = thrown(() => decode(encode(["abcd"]), { rawStrings: true, maxBinLength: 3, maxStrLength: 100 })) as DecodeError;
    expect(e).toBeInstanceOf(DecodeError);
    expect(e.code).toBe("MAX_LENGTH");
    expect(e.message).toMatch(/^Cannot decode string at offset 1: max length exceeded, length 4 exceeds maxBinLength \(3\)$/);
    const k = thrown(() => decode(bytes, { rawStrings: true, maxStrLength: 39 })) as DecodeError;
    expect(k.code).toBe("MAX_LENGTH");
    expect(k.message).toMatch(/exceeds maxStrLength \(39\)/);
  });

  test("mapKeyConverter: called with every key, its result is the key", () => {
    const bytes = fromHex("83-a1-61-01-c4-02-0a-0b-02-01-03");
    const seen: unknown[] = [];
    const mapKeyConverter = (key: unknown): string | number => {
      seen.push(key);
      return key instanceof Uint8Array ? [...key].join("+") : typeof key === "string" ? key.toUpperCase() : (key as number) * 10;
    };
    const got = decode(bytes, { mapKeyConverter });
    expect(got).toEqual({ A: 1, "10+11": 2, "10": 3 });
    expect(got).toEqual(peer.decode(bytes, { mapKeyConverter }));
    expect(seen).toEqual(["a", new Uint8Array([10, 11]), 1, "a", new Uint8Array([10, 11]), 1]);
    // with useMap, number results stay numbers
    expect([...(decode(bytes, { mapKeyConverter, useMap: true }) as Map<unknown, unknown>)]).toEqual([["A", 1], ["10+11", 2], [10, 3]]);
  });

  test("useBigInt64, limits, extensionCodec and context as in @msgpack/msgpack", () => {
    const bytes = encode([1, 2n ** 60n, -(2n ** 60n)]);
    expect(decode(bytes, { useBigInt64: true })).toEqual(peer.decode(bytes, { useBigInt64: true }));
    for (const [name, data] of [["maxStrLength", "abcd"], ["maxBinLength", new Uint8Array(4)], ["maxArrayLength", [1, 2, 3, 4]], ["maxMapLength", { a: 1, b: 2, c: 3, d: 4 }]] as const) {
      const bytes = encode(data);
      expect(thrown(() => peer.decode(bytes, { [name]: 3 }))).toBeInstanceOf(peer.DecodeError);
      const e = thrown(() => decode(bytes, { [name]: 3 })) as DecodeError;
      expect(e).toBeInstanceOf(DecodeError);
      expect(e.code).toBe("MAX_LENGTH");
      expect(e.message).toMatch(new RegExp(`length 4 exceeds ${name} \\(3\\)`));
      expect(decode(bytes, { [name]: 4 })).toEqual(peer.decode(bytes, { [name]: 4 }));
    }
    const codec = new ExtensionCodec<{ scale: number }>();
    codec.register({ type: 7, encode: () => null, decode: (data, type, context) => data[0]! * context.scale + type });
    const ext = fromHex("d4-07-05");
    const peerCodec = new peer.ExtensionCodec<{ scale: number }>();
    peerCodec.register({ type: 7, encode: () => null, decode: (data, type, context) => data[0]! * context.scale + type });
    expect(decode(ext, { extensionCodec: codec, context: { scale: 3 } })).toBe(22);
    expect(peer.decode(ext, { extensionCodec: peerCodec, context: { scale: 3 } })).toBe(22);
    // registered after the decoder was made: still used
    const late = new ExtensionCodec();
    const decoder = new Decoder({ extensionCodec: late });
    late.register({ type: 7, encode: () => null, decode: () => "late" });
    expect(decoder.decode(ext)).toBe("late");
  });

  test("keyDecoder is accepted and ignored", () => {
    expect(decode(encode({ a: 1 }), { keyDecoder: null })).toEqual({ a: 1 });
  });
});

describe("decode() inputs of @msgpack/msgpack", () => {
  const bytes = encode({ a: [1, "b", null] });
  const want = { a: [1, "b", null] };

  test("an array of byte values, ArrayBuffer, SharedArrayBuffer, DataView, any typed array, Buffer", () => {
    const shared = new SharedArrayBuffer(bytes.length);
    new Uint8Array(shared).set(bytes);
    const even = new Uint8Array(bytes.length + (bytes.length % 2));
    even.set(bytes);
    const inputs: unknown[] = [[...bytes], { ...[...bytes], length: bytes.length }, bytes.slice().buffer, shared, new DataView(bytes.slice().buffer), Buffer.from(bytes)];
    for (const input of inputs) {
      expect(decode(input as never), String(input)).toEqual(want);
      expect([...decodeMulti(input as never)]).toEqual([want]);
    }
    // a Uint16Array is read as its bytes
    expect([...decodeMulti(new Uint16Array(even.buffer))]).toEqual(bytes.length % 2 ? [want, 0] : [want]);
  });

  test.each([
    ["300", [0x92, 1, 300], 2, /^Cannot decode: input\[2\] is 300, not a byte \(an integer in 0\.\.255\)$/],
    ["-1", [0x91, -1], 1, /input\[1\] is -1, not a byte/],
    ["1.5", [0x91, 1.5], 1, /input\[1\] is 1\.5, not a byte/],
    ["a string", [0x91, "1"], 1, /input\[1\] is "1", not a byte/],
    ["a hole", [0x91, , 1], 1, /input\[1\] is undefined, not a byte/], // eslint-disable-line no-sparse-arrays
    ["NaN", [NaN], 0, /input\[0\] is NaN, not a byte/],
  ])("an array element of %s is INVALID_ARGUMENT at its index, never wrapped", (_, input, offset, message) => {
    for (const run of [() => decode(input as never), () => decodeMulti(input as never)]) {
      const e = thrown(run) as DecodeError;
      expect(e).toBeInstanceOf(DecodeError);
      expect(e.code).toBe("INVALID_ARGUMENT");
      expect(e.offset).toBe(offset);
      expect(e.message).toMatch(message);
    }
  });
});

describe("decode() errors that code written for @msgpack/msgpack catches", () => {
  test.each([
    ["truncated input", "92-01", RangeError, "TRUNCATED", /^Cannot decode array of 2 items at offset 0: insufficient data, input is 1 byte\(s\) short$/],
    ["empty input", "", RangeError, "TRUNCATED", /^Cannot decode value at offset 0: insufficient data/],
    ["extra bytes", "01-02-03", RangeError, "EXTRA_BYTES", /^Cannot decode value: extra 2 byte\(s\) at offset 1; see decodeMulti$/],
    ["the byte 0xc1", "92-01-c1", peer.DecodeError, "INVALID_BYTE", /^Cannot decode value at offset 2: unrecognized type byte 0xc1 \(reserved\)$/],
  ])("%s: ours is a DecodeError and a RangeError, so the peer's catch clauses match", (_, h, peerClass, code, message) => {
    const bytes = fromHex(h);
    expect(thrown(() => peer.decode(bytes))).toBeInstanceOf(peerClass);
    const e = thrown(() => decode(bytes)) as DecodeError;
    expect(e).toBeInstanceOf(DecodeError);
    expect(e).toBeInstanceOf(RangeError);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("DecodeError");
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });
});

describe("decode() agrees with @msgpack/msgpack", () => {
  test("on seeded values whose maps have string keys (no extensions)", () => {
    let compared = 0;
    let refused = 0;
    forSeeds(500, (r) => {
      const bytes = peer.encode(value(r, { maxDepth: 4 }));
      for (const options of [undefined, { useBigInt64: true }, { rawStrings: true }] as const) {
        let want: unknown;
        try {
          want = peer.decode(bytes, options);
        } catch {
          refused++; // a map key the peer refuses: covered above
          continue;
        }
        expect(decode(bytes, options)).toEqual(want);
        compared++;
      }
    });
    // every seed under every option is counted; refusals (none with these
    // seeds) must stay the exception, or this test compares next to nothing
    expect(compared + refused).toBe(1500);
    expect(compared).toBeGreaterThanOrEqual(1350);
  });
});
