import { describe, expect, test } from "vitest";
import { decode, Encoder } from "../src/index.ts";

const MiB = 1 << 20;
const COUNT = 1100; // 1100 x (1 MiB + 5) bytes: over 1 GiB of output

/** Checks byte for byte that `out` is an array 32 header then COUNT bin 32 items of `blob`. */
function checkBytes(out: Uint8Array, blob: Uint8Array): void {
  expect(out.length).toBe(3 + COUNT * (5 + MiB));
  expect([...out.subarray(0, 3)]).toEqual([0xdc, COUNT >> 8, COUNT & 0xff]); // array 16
  let at = 3;
  for (let i = 0; i < COUNT; i++) {
    expect([...out.subarray(at, at + 5)]).toEqual([0xc6, 0, 0x10, 0, 0]); // bin 32 of 1 MiB
    at += 5;
    if (Buffer.compare(out.subarray(at, at + MiB), blob) !== 0) throw new Error(`item ${i} differs`);
    at += MiB;
  }
}

describe("a value whose encoding is over 1 GiB", () => {
  const blob = new Uint8Array(MiB);
  for (let i = 0; i < MiB; i++) blob[i] = (i * 131 + 7) & 0xff;
  const value = new Array(COUNT).fill(blob);

  test("crosses a 256 MiB store ceiling into chunks and round-trips byte-exact", () => {
    const out = new Encoder({ maxByteLength: 256 * MiB }).encode(value);
    checkBytes(out, blob);
    const back = decode(out, { binaryAsView: true }) as Uint8Array[];
    expect(back.length).toBe(COUNT);
    expect(Buffer.compare(back[COUNT - 1]!, blob)).toBe(0);
  });

  test("fits one resizable store sized from the estimate, byte-exact", () => {
    const out = new Encoder().encode(value);
    checkBytes(out, blob);
  });
});
