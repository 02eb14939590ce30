import { describe, expect, test } from "vitest";
import { DecodeError, Decoder, encode } from "../src/index.ts";
import { forSeeds, value } from "./_support/arbitrary.ts";

/** Decodes `bytes`; anything thrown other than DecodeError/RangeError fails the test. */
function decodeOrReject(decoder: Decoder, bytes: Uint8Array): void {
  try {
    decoder.decode(bytes);
  } catch (e) {
    if (e instanceof DecodeError || e instanceof RangeError) return;
    throw new Error(`decode threw ${(e as Error)?.constructor?.name}: ${String(e)}`);
  }
}

describe("decode fuzz", () => {
  test("random bytes throw only DecodeError/RangeError, fast, and the decoder stays usable", () => {
    const decoder = new Decoder();
    forSeeds(3000, (r) => {
      const bytes = r.bytes(r.int(0, 64));
      const t0 = performance.now();
      decodeOrReject(decoder, bytes);
      // no input of 64 bytes may take long: a generous bound that only a hang or blow-up would pass
      expect(performance.now() - t0).toBeLessThan(1000);
    });
    expect(decoder.decode(encode([1, "x"]))).toEqual([1, "x"]);
  });

  test("mutated valid encodings throw only DecodeError/RangeError or decode to something", () => {
    const decoder = new Decoder();
    forSeeds(1500, (r) => {
      const bytes = encode(value(r, { rich: true, maxDepth: 3 }));
      for (let k = r.int(1, 4); k > 0; k--) {
        const i = r.int(0, bytes.length - 1);
        bytes[i] = r.pick([0xff, 0x00, 0xc1, 0xdd, 0xdf, 0xdb, 0xc6, 0xc9, (r.next() * 256) | 0]);
      }
      const t0 = performance.now();
      decodeOrReject(decoder, bytes);
      decodeOrReject(decoder, bytes.subarray(0, r.int(0, bytes.length)));
      expect(performance.now() - t0).toBeLessThan(1000);
    });
    expect(decoder.decode(encode({ ok: true }))).toEqual({ ok: true });
  });

  test("headers declaring 4 GiB containers in a few bytes allocate nothing large", () => {
    const decoder = new Decoder();
    const before = process.memoryUsage().rss;
    for (const first of [0xdd, 0xdf, 0xdb, 0xc6, 0xc9]) {
      for (let i = 0; i < 1000; i++) decodeOrReject(decoder, new Uint8Array([first, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });
});
