/**
 * The timestamp helpers @msgpack/msgpack exports, against @msgpack/msgpack
 * itself: the same outputs for the same inputs (valid or not), and the same
 * errors (class name and the inputs that throw).
 */
import * as peer from "@msgpack/msgpack";
import { describe, expect, test } from "vitest";
import {
  DecodeError,
  decodeTimestampExtension,
  decodeTimestampToTimeSpec,
  encodeDateToTimeSpec,
  encodeTimeSpecToTimestamp,
  encodeTimestampExtension,
  EXT_TIMESTAMP,
} from "../src/index.ts";
import { hex, Random } from "./_support/arbitrary.ts";

type Outcome = { value: unknown } | { error: string };

/** What `run` returns (bytes as hex, Dates as their time) or the name of the error class it throws. */
function outcome(run: () => unknown): Outcome {
  try {
    const v = run();
    if (v instanceof Uint8Array) return { value: hex(v) };
    if (v instanceof Date) return { value: `Date ${v.getTime()}` };
    return { value: v };
  } catch (e) {
    return { error: (e as Error).name };
  }
}

function same(ours: () => unknown, theirs: () => unknown, what: string): void {
  expect(outcome(ours), what).toEqual(outcome(theirs));
}

const r = new Random(5);
const EDGE_MS = [0, 1, -1, 999, -999, 1000, -1000, 1.7e12, 1.7e12 + 1, -1.7e12 - 1, 2 ** 32 * 1000, 2 ** 32 * 1000 - 1, 2 ** 34 * 1000, 2 ** 34 * 1000 - 1, 8.64e15, -8.64e15, NaN];
const RANDOM_MS = Array.from({ length: 500 }, () => Math.round((r.next() * 2 - 1) * 10 ** r.int(0, 15)) || 0);

describe("timestamp helpers match @msgpack/msgpack", () => {
  test("EXT_TIMESTAMP", () => {
    expect(EXT_TIMESTAMP).toBe(peer.EXT_TIMESTAMP);
  });

  test("encodeDateToTimeSpec, encodeTimestampExtension over edge and random times, Invalid Date and non-Dates", () => {
    expect(encodeDateToTimeSpec(new Date(-1))).toEqual({ sec: -1, nsec: 999000000 });
    for (const ms of [...EDGE_MS, ...RANDOM_MS]) {
      same(() => encodeDateToTimeSpec(new Date(ms)), () => peer.encodeDateToTimeSpec(new Date(ms)), `${ms}`);
      same(() => encodeTimestampExtension(new Date(ms)), () => peer.encodeTimestampExtension(new Date(ms)), `${ms}`);
    }
    for (const x of [null, undefined, 0, "2020-01-01", {}, { getTime: () => 5 }]) {
      same(() => encodeDateToTimeSpec(x as Date), () => peer.encodeDateToTimeSpec(x as Date), String(x));
      same(() => encodeTimestampExtension(x), () => peer.encodeTimestampExtension(x), String(x));
    }
  });

  test("encodeTimeSpecToTimestamp over valid, boundary and invalid time specs", () => {
    const secs = [0, 1, -1, 2 ** 32 - 1, 2 ** 32, 2 ** 34 - 1, 2 ** 34, -(2 ** 34), 2 ** 53, -(2 ** 53), 1.5, -0.5, NaN, Infinity];
    const nsecs = [0, 1, 999_999_999, 1e9, 2 ** 30, 2 ** 32, -1, 0.5, NaN];
    const specs = secs.flatMap((sec) => nsecs.map((nsec) => ({ sec, nsec })));
    for (let i = 0; i < 500; i++) specs.push({ sec: Math.floor((r.next() * 2 - 1) * 10 ** r.int(0, 15)), nsec: r.int(0, 999_999_999) });
    for (const spec of specs) same(() => encodeTimeSpecToTimestamp(spec), () => peer.encodeTimeSpecToTimestamp(spec), JSON.stringify(spec));
  });

  test("decodeTimestampToTimeSpec and decodeTimestampExtension over every length 0..16 and random payloads", () => {
    const payloads: Uint8Array[] = [];
    for (let n = 0; n <= 16; n++) payloads.push(r.bytes(n), new Uint8Array(n).fill(0xff), new Uint8Array(n));
    for (let i = 0; i < 500; i++) payloads.push(r.bytes(r.pick([4, 8, 12])));
    // a view into a larger buffer, and another typed array
    payloads.push(new Uint8Array(r.bytes(20).buffer, 3, 8), new Uint16Array([1, 2, 3, 4, 5, 6]) as unknown as Uint8Array);
    for (const data of payloads) {
      same(() => decodeTimestampToTimeSpec(data), () => peer.decodeTimestampToTimeSpec(data), hex(data));
      same(() => decodeTimestampExtension(data), () => peer.decodeTimestampExtension(data), hex(data));
    }
  });

  test("round trips: every encoded time decodes to the same time spec and Date", () => {
    for (const ms of [...EDGE_MS.filter((x) => !Number.isNaN(x)), ...RANDOM_MS]) {
      const bytes = encodeTimestampExtension(new Date(ms))!;
      expect(decodeTimestampExtension(bytes).getTime(), `${ms}`).toBe(ms);
      expect(decodeTimestampToTimeSpec(bytes)).toEqual(encodeDateToTimeSpec(new Date(ms)));
    }
  });

  test("a payload of a wrong length is a DecodeError (INVALID_EXT), a RangeError, with @msgpack/msgpack's words", () => {
    for (const n of [0, 3, 5, 16]) {
      let error: unknown;
      try {
        decodeTimestampToTimeSpec(new Uint8Array(n));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DecodeError);
      expect(error).toBeInstanceOf(RangeError);
      expect((error as DecodeError).code).toBe("INVALID_EXT");
      expect((error as DecodeError).message).toBe(`Cannot decode timestamp at offset 0: unrecognized data size for timestamp, ${n} bytes, not 4, 8 or 12`);
      expect(() => peer.decodeTimestampToTimeSpec(new Uint8Array(n))).toThrow(/Unrecognized data size for timestamp/);
    }
  });
});
