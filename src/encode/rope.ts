/**
 * Reading strings that programs built by concatenation without growing
 * them in place.
 *
 * V8 keeps a string made with `+`, a template literal or `repeat` as a rope
 * (a tree of its pieces). The first read of its characters, `encodeInto`
 * included, flattens it in place: a flat copy is allocated next to the
 * rope (in the old generation, where a long-lived input lives), and the
 * pieces it replaces stay in memory until the next full collection. An
 * encoder reading every string of a large input that way holds a second
 * copy of its strings beside the output: 2.3x the output at its peak for
 * 130 MB of string-rich records, against 1.3x for the same records with
 * flat strings (Node 20, benchmarks/memory.js).
 *
 * Reading a one-character rope put in front of the string instead
 * flattens only that new, short-lived rope: the copy is young garbage,
 * collected by the next scavenge, and the input is left as it was.
 *
 * @module
 */

import { ON_BUN } from "../common/engine.ts";

/**
 * Strings are copied only once this much output is written. The copy costs
 * time on flat strings too (records of 64-2,000-unit flat strings: 1.12-1.15x
 * the encode time at 1-10 MB when copying from 256 KiB on), while the
 * memory it saves only matters for large outputs: for 130 MB of rope
 * records the peak was the same within noise from 256 KiB or from 8 MiB.
 */
export const ROPE_COPY_AFTER_BYTES: number = 8_388_608; // 8 MiB

/** Strings shorter than this are read in place (the JS loop reads them, and a copy costs more than it saves). */
export const ROPE_COPY_MIN_CHARS: number = 64;

/**
 * Longer strings are read in place, as before: at this size, reading
 * through the copy takes ~3x the time of `encodeInto` alone (Node 20), and
 * past 128 KiB a copy is a large object of its own rather than
 * young-generation garbage; the copy was not measured beyond this length.
 */
export const ROPE_COPY_MAX_CHARS: number = 65_536;

/**
 * `str`, or, once the output is past {@link ROPE_COPY_AFTER_BYTES} and
 * `str` is {@link ROPE_COPY_MIN_CHARS}..{@link ROPE_COPY_MAX_CHARS} units
 * long, an equal string whose reading leaves `str` as it is: a slice of a
 * short-lived flat copy. Whether `str` is a rope cannot be seen from
 * JavaScript, so a flat string is copied too (a `memcpy` of at most 128 KiB).
 *
 * @param str the string about to be encoded
 * @param written bytes of output written so far in this call
 * @returns a string equal to `str`
 */
export function readWithoutFlattening(str: string, written: number): string {
  const len = str.length;
  // not on Bun (JavaScriptCore), where copying does not pay: 130 MB of rope records peaked at 3.30x the output with the copy and 3.26x without
  if (written < ROPE_COPY_AFTER_BYTES || len > ROPE_COPY_MAX_CHARS || len < ROPE_COPY_MIN_CHARS || ON_BUN) return str;
  // flattening the new rope copies str's pieces into a young string; slice(1) views that copy
  return (" " + str).slice(1);
}
