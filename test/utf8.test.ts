import { describe, expect, test } from "vitest";
import { DecodeError, encode } from "../src/index.ts";
import { DECODE_JS_MAX_BYTES, decodeUtf8, utf8Length, writeUtf8 } from "../src/format/utf8.ts";
import { forSeeds, string } from "./_support/arbitrary.ts";

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The native decoder's verdict: the string, or null for invalid UTF-8. */
function native(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}

function ours(bytes: Uint8Array): string | null {
  try {
    return decodeUtf8(bytes, 0, bytes.length);
  } catch (e) {
    expect(e).toBeInstanceOf(DecodeError);
    return null;
  }
}

describe("utf8: the JS decoder agrees with TextDecoder({ fatal: true })", () => {
  test("on random byte strings biased toward UTF-8 lead and continuation bytes", () => {
    const interesting = [0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x9f, 0x90, 0x8f];
    forSeeds(20000, (r) => {
      const n = r.int(0, DECODE_JS_MAX_BYTES - 1);
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = r.bool(0.6) ? r.pick(interesting) : r.int(0, 255);
      expect(ours(bytes), `bytes ${[...bytes].join(",")}`).toBe(native(bytes));
    });
  });

  test("ASCII of every short length, and the same with one byte of 0x80 or more at each position", () => {
    for (let n = 0; n < DECODE_JS_MAX_BYTES + 2; n++) {
      const ascii = Uint8Array.from({ length: n }, (_, i) => 0x20 + ((i * 7) % 0x5f));
      expect(ours(ascii)).toBe(native(ascii));
      for (let at = 0; at < n; at++) {
        for (const high of [0x80, 0xc3, 0xff]) {
          const bytes = ascii.slice();
          bytes[at] = high;
          expect(ours(bytes), `length ${n}, 0x${high.toString(16)} at ${at}`).toBe(native(bytes));
        }
        if (at + 1 < n) {
          const bytes = ascii.slice();
          bytes.set([0xc3, 0xa9], at); // é: valid two-byte UTF-8 in an ASCII run
          expect(ours(bytes)).toBe(native(bytes));
        }
      }
    }
  });

  test("long strings: valid text, literal U+FFFD, and every kind of invalid byte", () => {
    const interesting = [0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff];
    forSeeds(3000, (r) => {
      const text = string(r, 300) + (r.bool(0.3) ? "\ufffd" : "") + "x".repeat(DECODE_JS_MAX_BYTES);
      const bytes = new TextEncoder().encode(text);
      if (r.bool(0.6)) bytes[r.int(0, bytes.length - 1)] = r.pick(interesting);
      expect(ours(bytes)).toBe(native(bytes));
    });
  });

  test("on every valid encoding of random text, short and long", () => {
    forSeeds(2000, (r) => {
      const s = string(r, 200);
      const bytes = new TextEncoder().encode(s);
      expect(ours(bytes)).toBe(s);
    });
  });
});

describe("utf8: the JS encoder agrees with TextEncoder", () => {
  test("bytes and length, including lone surrogates", () => {
    forSeeds(5000, (r) => {
      let s = string(r, 80);
      if (r.bool(0.3)) s += String.fromCharCode(r.int(0xd800, 0xdfff)) + string(r, 5);
      const expected = new TextEncoder().encode(s);
      const out = new Uint8Array(s.length * 3);
      const end = writeUtf8(out, 0, s);
      expect([...out.subarray(0, end)]).toEqual([...expected]);
      expect(utf8Length(s)).toBe(expected.length);
    });
  });
});

describe("utf8: property names take their own loop and come out as string values do", () => {
  test("names of every length around the fixstr limit, with non-ASCII units anywhere", () => {
    forSeeds(3000, (r) => {
      let key = string(r, 40);
      if (r.bool(0.5)) {
        const at = r.int(0, key.length);
        const unit = r.pick(["é", "Ж", "東", "\u{1f642}", String.fromCharCode(r.int(0xd800, 0xdfff))]);
        key = key.slice(0, at) + unit + key.slice(at);
      }
      const value = r.pick(["v", 1, null]);
      const utf8 = new TextEncoder().encode(key);
      const header = utf8.length < 32 ? [0xa0 | utf8.length] : utf8.length < 256 ? [0xd9, utf8.length] : [0xda, utf8.length >> 8, utf8.length & 0xff];
      const expected = [0x81, ...header, ...utf8, ...encode(value)];
      const label = JSON.stringify(key);
      expect([...encode({ [key]: value })], label).toEqual(expected);
      expect([...encode({ [key]: value }, { sortKeys: true })], label).toEqual(expected);
    });
  });
});
