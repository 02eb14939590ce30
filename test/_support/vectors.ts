/**
 * Loads the shared vectors: the msgpack-test-suite package (cross-language
 * pairs of value and every accepted encoding) and test/vectors/*.json (the
 * project's own edge cases, in the same format plus `special` for -0, NaN
 * and ±Infinity).
 */
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ExtData } from "../../src/index.ts";
import { fromHex } from "./arbitrary.ts";

export interface Vector {
  /** file and index, for test names */
  name: string;
  /** what decoding any of the encodings must give (default options) */
  value: unknown;
  /** the accepted encodings */
  encodings: Uint8Array[];
  /** whether `encode(value)` must produce one of them (false where a JS value cannot express the entry exactly) */
  encodable: boolean;
}

type Entry = Record<string, unknown> & { msgpack: string[] };

const SPECIAL: Record<string, number> = { "-0": -0, NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

function toVector(name: string, e: Entry): Vector {
  const encodings = e.msgpack.map(fromHex);
  if ("bignum" in e) {
    const big = BigInt(e.bignum as string);
    const safe = big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER);
    // auto int64 mode: safe integers decode as numbers, others as bigint
    return { name, value: safe ? Number(big) : big, encodings, encodable: true };
  }
  if ("special" in e) return { name, value: SPECIAL[e.special as string], encodings, encodable: true };
  if ("timestamp" in e) {
    const [sec, nsec] = e.timestamp as [number, number];
    const value = new Date(sec * 1000 + Math.floor(nsec / 1e6));
    // Date holds milliseconds: only whole-millisecond timestamps can be encoded back
    return { name, value, encodings, encodable: nsec % 1e6 === 0 };
  }
  if ("ext" in e) {
    const [type, data] = e.ext as [number, string];
    return { name, value: new ExtData(type, fromHex(data)), encodings, encodable: true };
  }
  if ("binary" in e) return { name, value: fromHex(e.binary as string), encodings, encodable: true };
  for (const key of ["nil", "bool", "number", "string", "array", "map"]) {
    if (key in e) return { name, value: e[key], encodings, encodable: true };
  }
  throw new Error(`unknown vector ${name}: ${JSON.stringify(e)}`);
}

function fromFile(file: string, json: Record<string, Entry[]>): Vector[] {
  return Object.entries(json).flatMap(([group, entries]) => entries.map((e, i) => toVector(`${file}/${group}#${i}`, e)));
}

export function loadVectors(): Vector[] {
  const require = createRequire(import.meta.url);
  const suite = require("msgpack-test-suite") as Record<string, Entry[]>;
  const dir = join(import.meta.dirname, "..", "vectors");
  const own = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .flatMap((f) => fromFile(f, JSON.parse(readFileSync(join(dir, f), "utf8"))));
  return [...fromFile("msgpack-test-suite", suite), ...own];
}
