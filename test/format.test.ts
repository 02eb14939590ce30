// The first-byte table of src/format/forms.ts against the spec's format table
// (written out below) and every reader against the spec, for all 256 first
// bytes: the Decoder (whose fast paths for the fix forms and the
// commonest numbers come before the table), the stream scanner and the
// array-header reader of decodeArrayStream read the kind,
// the header length and the errors the table says, so none of them can
// drift from it.
import { describe, expect, test } from "vitest";
import { CoreDecoder as Decoder } from "../src/decode/decoder.ts";
import { DecodeError, ExtData } from "../src/index.ts";
import {
  FIRST_BYTE,
  fixedSizeOf,
  headerLength,
  WIRE_ARRAY,
  WIRE_BIN,
  WIRE_EXT,
  WIRE_FALSE,
  WIRE_FLOAT,
  WIRE_INT,
  WIRE_MAP,
  WIRE_NIL,
  WIRE_RESERVED,
  WIRE_STR,
  WIRE_TRUE,
  WIRE_UINT,
  wireKindOf,
  lengthFieldOf,
} from "../src/format/forms.ts";
import { createStreamStats } from "../src/stream/queue.ts";
import { decodeArrayStream } from "../src/stream/decode.ts";
import { ItemCounter } from "../src/stream/scanner.ts";
import { type Kind, specForm } from "./_support/spec.ts";
import { chunked, collect, cut } from "./_support/streams.ts";

/** The length a message built by {@link message} declares in a length field. */
const DECLARED = 3;

/**
 * A whole value starting with `t`, built from the spec alone: the first
 * byte, a length field declaring {@link DECLARED}, an ext's type byte (5),
 * then the payload: 0xff bytes for a number (NaN as a float, negative as a
 * signed integer), "a"s for a string, bytes for a binary or an ext's data,
 * 0x01 items for an array, 0x01 keys and values for a map.
 */
function message(t: number): { bytes: Uint8Array; header: number; n: number } {
  const { kind, field, fixed, header } = specForm(t);
  const n = field === 0 ? fixed : DECLARED;
  const out = [t];
  for (let i = field - 1; i >= 0; i--) out.push((n >>> (8 * i)) & 0xff);
  if (kind === "ext") out.push(5);
  const payload = kind === "map" ? 2 * n : n;
  for (let i = 0; i < payload; i++) out.push(kind === "str" ? 0x61 : kind === "array" || kind === "map" ? 0x01 : 0xff);
  return { bytes: Uint8Array.from(out), header, n };
}

/** Whether `v` is a value of `kind` with `n` (the size the header says). */
function isKind(v: unknown, kind: Kind, n: number, t: number): boolean {
  switch (kind) {
    case "nil":
      return v === null;
    case "false":
      return v === false;
    case "true":
      return v === true;
    case "uint":
      if (n === 0) return v === t;
      return typeof v === "bigint" ? v === 2n ** BigInt(8 * n) - 1n : v === 2 ** (8 * n) - 1; // all bits set
    case "int":
      return n === 0 ? v === t - 0x100 : v === -1 || v === -1n;
    case "float":
      return Number.isNaN(v);
    case "str":
      return v === "a".repeat(n);
    case "bin":
      return v instanceof Uint8Array && v.length === n && v.every((b) => b === 0xff);
    case "array":
      return Array.isArray(v) && v.length === n && v.every((x) => x === 1);
    case "map":
      return typeof v === "object" && v !== null && JSON.stringify(v) === (n === 0 ? "{}" : '{"1":1}'); // n entries of the key 1
    case "ext":
      return v instanceof ExtData && v.type === 5 && v.data.length === n;
    default:
      return false;
  }
}

function failure(run: () => unknown): DecodeError {
  try {
    run();
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
  throw new Error("no DecodeError");
}

/** The item counter's answer for a value at the start of `bytes`: its length, or -1 while incomplete. */
function scan(bytes: Uint8Array): number {
  const counter = new ItemCounter(null);
  counter.mark(0, true);
  return counter.scan(bytes, 0, bytes.length, createStreamStats());
}

const firstBytes = Array.from({ length: 256 }, (_, t) => t);
const hex = (t: number): string => "0x" + t.toString(16).padStart(2, "0");

/** The table's kinds by the names the spec gives them. */
const KIND_NAMES: Record<number, Kind> = {
  [WIRE_NIL]: "nil", [WIRE_FALSE]: "false", [WIRE_TRUE]: "true", [WIRE_UINT]: "uint", [WIRE_INT]: "int", [WIRE_FLOAT]: "float",
  [WIRE_STR]: "str", [WIRE_BIN]: "bin", [WIRE_ARRAY]: "array", [WIRE_MAP]: "map", [WIRE_EXT]: "ext", [WIRE_RESERVED]: "reserved",
};

describe("the first-byte table", () => {
  test("has one reserved byte, 0xc1, and every kind", () => {
    expect(firstBytes.filter((t) => specForm(t).kind === "reserved")).toEqual([0xc1]);
    expect(new Set(Array.from(FIRST_BYTE, wireKindOf)).size).toBe(Object.keys(KIND_NAMES).length);
  });

  test.each(firstBytes.map((t) => [hex(t), t]))("%s: the table says what the spec says (kind, length field, fixed size, header)", (_, t) => {
    const want = specForm(t);
    const form = FIRST_BYTE[t]!;
    expect(KIND_NAMES[wireKindOf(form)!]).toBe(want.kind);
    expect(lengthFieldOf(form)).toBe(want.field);
    if (want.field === 0 && want.kind !== "reserved") expect(fixedSizeOf(form)).toBe(want.fixed);
    expect(headerLength(t)).toBe(want.header);
  });

  test.each(firstBytes.map((t) => [hex(t), t]))("%s: the Decoder and the scanner read the kind and the length the spec says", (_, t) => {
    const { bytes, header, n } = message(t);
    const { kind, field } = specForm(t);
    if (kind === "reserved") {
      expect(failure(() => new Decoder().readAt(bytes, 0, 0, 0, null))).toMatchObject({ code: "INVALID_BYTE", offset: 0 });
      expect(scan(bytes)).toBe(1); // an item of its own: the decoder refuses it
      return;
    }
    const [value, end] = new Decoder().readAt(bytes, 0, 0, 0, null);
    expect(isKind(value, kind, n, t), `${String(value)}`).toBe(true);
    expect(end).toBe(bytes.length);
    expect(scan(bytes)).toBe(bytes.length);
    // cut short anywhere: TRUNCATED, needing the rest of the length field while in it, then the
    // rest of the header (an ext's type byte), then the rest of the value
    const lengthEnd = 1 + field;
    for (let k = 1; k < bytes.length; k++) {
      const cut = bytes.subarray(0, k);
      const needed = (k < lengthEnd ? lengthEnd : k < header ? header : bytes.length) - k;
      expect(failure(() => new Decoder().readAt(cut, 0, 0, 0, null)), `cut at ${k}`).toMatchObject({ code: "TRUNCATED", offset: 0, needed });
      expect(scan(cut), `cut at ${k}`).toBe(-1);
    }
  });

  test.each(firstBytes.map((t) => [hex(t), t]))("%s: decodeArrayStream takes arrays only, with the spec's header length, split anywhere", async (_, t) => {
    const { bytes, header, n } = message(t);
    const items = (chunks: Uint8Array[]): Promise<unknown> => collect(decodeArrayStream(chunked(chunks))).catch((e: unknown) => e);
    if (specForm(t).kind !== "array") {
      expect(await items([bytes])).toMatchObject({ code: "INVALID_BYTE", offset: 0 });
      return;
    }
    const all = new Array(n).fill(1);
    expect(await items([bytes])).toEqual(all);
    for (let k = 1; k < header; k++) {
      // the stream ends inside the header: it lacks the rest of it; split there, the header is read across chunks
      expect(await items([bytes.subarray(0, k)])).toMatchObject({ code: "TRUNCATED", offset: 0, needed: header - k });
      expect(await items(cut(bytes, [k]))).toEqual(all);
    }
  });
});
