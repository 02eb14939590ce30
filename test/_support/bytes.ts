/** Comparing large byte arrays without per-byte diffs: one memcmp, and on a mismatch the first differing offset. */
import { expect } from "vitest";

/** The first offset where `a` and `b` differ (the shorter length if one is a prefix of the other), or -1 when they are equal. */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const x = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const y = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (x.equals(y)) return -1;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return i;
  return n;
}

const window = (b: Uint8Array, at: number): string => Array.from(b.subarray(Math.max(0, at - 4), at + 8), (x) => x.toString(16).padStart(2, "0")).join(" ");

/** Asserts that `actual` holds exactly the bytes of `expected`; a failure names the lengths and the first differing offset with the bytes around it. */
export function expectSameBytes(actual: Uint8Array, expected: Uint8Array, label = "bytes"): void {
  const at = firstDifference(actual, expected);
  const message = at < 0 ? "" : `${label}: ${actual.length} bytes against ${expected.length} expected, first difference at offset ${at}: ${window(actual, at)} against ${window(expected, at)}`;
  expect(message).toBe("");
}
