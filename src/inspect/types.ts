/**
 * The inspector's public types: the nodes of the tree {@link inspect} reads,
 * its result and its options.
 *
 * @module
 */

import type { DecodeError } from "../common/errors.ts";

/** What a node holds: the kind of value its first byte starts. */
export type InspectType = "nil" | "boolean" | "int" | "float" | "str" | "bin" | "array" | "map" | "ext" | "reserved" | "record";

/** One value in the bytes, as {@link inspect} reads it. */
export interface InspectNode {
  /** Where its first byte is (plus the `offset` option). */
  offset: number;
  /** Bytes of its header: the first byte, a length field, an extension's type byte (for a number, only the first byte). */
  headerLength: number;
  /** Bytes it takes, items included; for a value cut short, the bytes it has. */
  length: number;
  /** The form of its first byte, as the spec names it: `fixmap`, `str 8`, `uint 64`, `ext 8 (type -1, timestamp 96)`. */
  form: string;
  /** The kind of value. */
  type: InspectType;
  /** For str, bin and ext: the payload's declared bytes; for array: items; for map: entries; for a record: fields. */
  count?: number;
  /**
   * The value, as `decode` gives it with default options: null, a boolean,
   * a number or bigint, a string, a `Uint8Array` (a view into the input),
   * a `Date` (timestamps) or an `ExtData`. Not set for containers, nor
   * when the bytes are cut short.
   */
  value?: unknown;
  /** For a timestamp: its seconds and nanoseconds (a `Date` keeps milliseconds only). */
  time?: { sec: number; nsec: number };
  /** For an extension: its type, -128..127. */
  extType?: number;
  /**
   * Items of an array; keys and values of a map, alternating; for a
   * record (`useRecords`), its field names and values, alternating, as a
   * map's (a field name's node has the offset of that name in the
   * structure's definition, and no bytes of its own: `length` 0); for a
   * record definition, the array of field names.
   */
  children?: InspectNode[];
  /**
   * For a record (`useRecords`): its identifier, the first byte 0x40-0x7f
   * and, for a two-byte identifier, the high byte (`[0x60, 1]`).
   */
  recordId?: number[];
  /**
   * For a record whose structure is declared where it starts: the
   * declaration (form `record definition`, a fixext of type 0x72, its
   * child the array of field names); the record's fields follow it.
   */
  definition?: InspectNode;
  /** The error found at this value, if any (the first one is also {@link InspectResult.error}). */
  error?: DecodeError;
  /**
   * For a container read in full whose items (entries, fields) are not
   * all in `children`: how many are left out. Only the command line sets
   * a limit on the nodes kept; `inspect` keeps them all.
   */
  omitted?: number;
}

/** What {@link inspect} returns. */
export interface InspectResult {
  /** The input, as bytes. */
  bytes: Uint8Array;
  /** The offset of the first byte (the `offset` option). */
  start: number;
  /** The back-to-back values read, in order. */
  nodes: InspectNode[];
  /** The first error, as `decodeMulti` throws it for these bytes and limits; null for valid input. */
  error: DecodeError | null;
  /** Where reading stopped (plus the `offset` option): the end of the input, or, after an error that loses the framing, the byte after the last one read. */
  end: number;
}

/**
 * Options of {@link inspect}: the decoder's limits, which it checks as
 * `decode` does, the offset of the first byte, and the decoder's record
 * options.
 */
export interface InspectOptions {
  /** As the decode option: containers nested deeper are an error (`MAX_DEPTH`). @default 512 */
  readonly maxDepth?: number;
  /** As the decode option. @default 4294967295 */
  readonly maxStrLength?: number;
  /** As the decode option. @default 4294967295 */
  readonly maxBinLength?: number;
  /** As the decode option. @default 4294967295 */
  readonly maxArrayLength?: number;
  /** As the decode option. @default 4294967295 */
  readonly maxMapLength?: number;
  /** As the decode option. @default 4294967295 */
  readonly maxExtLength?: number;
  /** Added to every offset (nodes and errors): the position of the input's first byte in a larger file or stream. @default 0 */
  readonly offset?: number;
  /**
   * As the decode option: read msgpackr's record extension. A structure
   * declaration (fixext 1 or 2 of type 0x72) and the record that follows
   * it are one node of type `"record"` with the declaration as its
   * `definition`; a record's identifier byte (0x40-0x7f) starts a node of
   * type `"record"` whose children are its field names and values,
   * alternating, as a map's; structures carry over from one back-to-back
   * value to the next, as in `decodeMulti`. Without it, such bytes show as
   * what they are in plain MessagePack (an extension, positive fixints).
   * @default false
   *
   * @example A record written with `useRecords`
   * ```ts
   * import { encode } from "@resizable/msgpack/records";
   * import { inspect, nodeValue } from "@resizable/msgpack/inspect";
   * const bytes = encode([{ a: 1 }, { a: 2 }], { useRecords: true });
   * const { nodes } = inspect(bytes, { useRecords: true });
   * const [first, second] = nodes[0]!.children!;
   * console.assert(first!.form === "record 0x40 (1 field)" && first!.definition!.form === "record definition 0x40");
   * console.assert(second!.form === "record 0x40 (1 field)" && second!.children![0]!.value === "a");
   * console.assert(JSON.stringify(nodeValue(nodes[0]!)) === '[{"a":1},{"a":2}]');
   * ```
   */
  readonly useRecords?: boolean;
  /** As the decode option: record structures shared with the encoder (arrays of field names), used with `useRecords`. @default undefined */
  readonly structures?: ReadonlyArray<readonly string[] | null | undefined>;
}
