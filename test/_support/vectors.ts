/**
 * Loads the shared vectors: the msgpack-test-suite package (cross-language
 * pairs of value and every accepted encoding) and test/vectors/*.json (the
 * project's own edge cases, in the same format plus `special` for -0, NaN
 * and ±Infinity). Files are read by test/runtime/vectors.mjs and entries by
 * fixtures.mjs, the same code the runtime and browser checks use.
 */
import { ExtData } from "../../src/index.ts";
import { loadVectorFiles } from "../runtime/vectors.mjs";
import { readVectors } from "./fixtures.mjs";

export interface Vector {
  /** file, group and index, for test names: `<file>/<group>[<index>]` */
  name: string;
  /** what decoding any of the encodings must give (default options) */
  value: unknown;
  /** the accepted encodings */
  encodings: Uint8Array[];
  /** whether `encode(value)` must produce one of them (false where a JS value cannot express the entry exactly, or the entry is `decodeOnly`) */
  encodable: boolean;
  /** whether decoding the encodings must give `value` (false for an `encodeOnly` entry) */
  decodable: boolean;
}

export function loadVectors(): Vector[] {
  return readVectors(loadVectorFiles(), ExtData).map((e) => ({
    name: e.name,
    value: e.expected,
    encodings: e.encodings,
    encodable: !e.decodeOnly && e.input !== undefined,
    decodable: !e.encodeOnly,
  }));
}
