// Arguments the encoder and the decoders refuse with their own error (INVALID_ARGUMENT) before doing anything:
// encodeInto's target and offset, and detached (transferred) buffers given to decode and the stream decoders.

import { describe, expect, it } from "vitest";
import { chunked, collect } from "./_support/streams.ts";
import { decode, DecodeError, decodeMulti, encode, EncodeError, Encoder, ExtensionCodec } from "../src/index.ts";
import { decodeAsync, decodeMultiStream, DecoderStream } from "../src/streams.ts";

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("no error");
}

/** `buffer` after transferring it away: detached, `byteLength` 0. */
function detach<T extends ArrayBuffer>(buffer: T): T {
  structuredClone(buffer, { transfer: [buffer] });
  return buffer;
}

describe("Encoder#encodeInto: target and offset", () => {
  it("an offset that is no integer from 0 is INVALID_ARGUMENT, before any extension runs, the target unchanged", () => {
    let calls = 0;
    const codec = new ExtensionCodec();
    codec.register({ type: 1, encode: (v) => (v instanceof Date ? (calls++, Uint8Array.of(1)) : null), decode: (d) => d });
    const encoder = new Encoder({ extensionCodec: codec });
    for (const offset of [NaN, null, -1, 1.5, "1", Infinity, 2 ** 53, {}]) {
      const target = new Uint8Array(16).fill(7);
      const e = thrown(() => encoder.encodeInto([new Date(0), "abc"], target, offset as number));
      expect(e, String(offset)).toBeInstanceOf(EncodeError);
      expect(e).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("offset") });
      expect(target.every((b) => b === 7)).toBe(true);
    }
    expect(calls).toBe(0);
    const target = new Uint8Array(16);
    expect(encoder.encodeInto("abc", target, 2)).toBe(4);
    expect(encoder.encodeInto("abc", target, undefined)).toBe(4);
    expect(Array.from(target.subarray(0, 6))).toEqual([0xa3, 0x61, 0x62, 0x63, 0x62, 0x63]);
  });

  it("a target that is no Uint8Array (a Uint16Array would widen each byte) is INVALID_ARGUMENT; a Buffer is one", () => {
    for (const target of [new Uint16Array(16), new Int8Array(16), new DataView(new ArrayBuffer(16)), new ArrayBuffer(16), [0, 0, 0, 0], null]) {
      const e = thrown(() => new Encoder().encodeInto([1, 2, 300], target as unknown as Uint8Array));
      expect(e, Object.prototype.toString.call(target)).toBeInstanceOf(EncodeError);
      expect(e).toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("Uint8Array") });
    }
    const wide = new Uint16Array(8);
    thrown(() => new Encoder().encodeInto([1, 2, 300], wide as unknown as Uint8Array));
    expect(wide.every((x) => x === 0)).toBe(true);
    const buffer = Buffer.alloc(8);
    expect(new Encoder().encodeInto([1, 2, 300], buffer, 1)).toBe(6);
    expect(Array.from(buffer.subarray(1, 7))).toEqual(Array.from(encode([1, 2, 300])));
  });
});

describe("decoders: a detached buffer is INVALID_ARGUMENT, not a TypeError", () => {
  const bytes = (): Uint8Array => encode({ a: [1, 2, 3] });

  it("decode() and decodeMulti() of a detached ArrayBuffer, or a view over one", () => {
    const inputs: [string, () => unknown][] = [
      ["ArrayBuffer", () => detach(bytes().slice().buffer)],
      ["Uint8Array", () => {
        const view = bytes().slice();
        detach(view.buffer);
        return view;
      }], // prettier-ignore
      ["DataView", () => {
        const buffer = bytes().slice().buffer;
        const view = new DataView(buffer);
        detach(buffer);
        return view;
      }], // prettier-ignore
      ["Buffer", () => {
        const b = Buffer.from(bytes().slice().buffer);
        detach(b.buffer as ArrayBuffer);
        return b;
      }], // prettier-ignore
    ];
    for (const [label, make] of inputs) {
      for (const run of [(x: unknown) => decode(x as Uint8Array), (x: unknown) => [...decodeMulti(x as Uint8Array)]]) {
        const e = thrown(() => run(make()));
        expect(e, label).toBeInstanceOf(DecodeError);
        expect(e, label).toMatchObject({ code: "INVALID_ARGUMENT", offset: 0, message: expect.stringMatching(/^Cannot decode: the input is \[object \w+\], not bytes: its buffer was detached \(transferred\)$/) });
      }
    }
    // an empty buffer that was never transferred is still just empty
    expect(thrown(() => decode(new ArrayBuffer(0)))).toMatchObject({ code: "TRUNCATED" });
  });

  it("a detached chunk in a stream: every stream decoder gives INVALID_ARGUMENT at the chunk's offset", async () => {
    const whole = bytes();
    const chunks = (): unknown[] => {
      const second = whole.slice(3);
      detach(second.buffer);
      return [whole.slice(0, 3), second];
    };
    for (const [label, run] of [
      ["decodeAsync", () => decodeAsync(chunked(chunks() as Uint8Array[]))],
      ["decodeMultiStream", () => collect(decodeMultiStream(chunked(chunks() as Uint8Array[])))],
      ["DecoderStream", async () => {
        const stream = new DecoderStream();
        const writer = stream.writable.getWriter();
        const read = collect(stream.readable);
        for (const c of chunks()) await writer.write(c as Uint8Array).catch(() => undefined);
        await writer.close().catch(() => undefined);
        return read;
      }], // prettier-ignore
    ] as const) {
      const e = await run().then(
        () => null,
        (err: unknown) => err,
      );
      expect(e, label).toBeInstanceOf(DecodeError);
      expect(e, label).toMatchObject({ code: "INVALID_ARGUMENT", offset: 3, message: expect.stringMatching(/^Cannot decode: the stream chunk at offset 3 is \[object Uint8Array\], not bytes: its buffer was detached/) });
    }
  });
});
