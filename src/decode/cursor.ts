/**
 * The decoder's cursor: what the readers off its hot path (cold.ts) and
 * the records module read through. The decoder is the cursor: its input,
 * position and limits, and its readers of values and map keys.
 *
 * @module
 */

import type { DecodeLimits } from "../common/limits.ts";
import type { ResolvedDecodeOptions } from "./options.ts";
import type { TextWindow } from "./text-window.ts";

/** A decoder as its readers off the hot path and the records module see it. */
export interface Cursor {
  /** The input; the offset of the next byte to read; where the input ends. */
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;
  /** The offset of `bytes[0]` in the user's input, added to every offset an error reports. */
  readonly base: number;
  /** Whether the input ends where a stream ended: a TRUNCATED error then says where. */
  readonly ended: boolean;
  readonly limits: DecodeLimits;
  /** The decoder's options, resolved once. */
  readonly options: ResolvedDecodeOptions;
  /** Strings of the input as slices of a window of it: reset after user code ran (it may have written into the input). */
  readonly window: TextWindow;
  /** A string of `n` bytes whose header is at `start` (the cursor after the header): text, or a binary with `rawStrings`. */
  readString(n: number, start: number): string | Uint8Array;
  /** The value at `pos`, at nesting depth `depth`. */
  readValue(depth: number): unknown;
  /** A map key (or a record's field name): a short string from the key cache, any string as text (even with `rawStrings`), or any other value. */
  readKey(depth: number): unknown;
}
