/**
 * Extension values on decode: an extension decoder run as one more level
 * of nesting, the built-in types (timestamps; `undefined` with
 * `undefinedAsExtension`; else an `ExtData`), and the nesting depth that
 * decodes called from inside an extension decoder continue.
 *
 * @module
 */

import { fromExtension, inputShrank, tooDeepToDecode } from "../common/errors.ts";
import { ExtData, type ExtensionDecoderType } from "../format/extensions.ts";
import { TIMESTAMP_TYPE, readTimestamp } from "../format/timestamp.ts";
import type { DecodeCursor } from "./record-hook.ts";

/**
 * The depth at which a decode starts: 0, except while an extension decoder
 * runs, when it is the extension's depth + 1. So a decode called from
 * inside an extension decoder (with any decoder or options) continues the
 * nesting of the outer one, and `maxDepth` bounds nesting through
 * extensions too. Module state (with {@link baseOf}'s input), changed only
 * by {@link callExtension}, and always restored when the extension decoder
 * returns or throws.
 */
export let nesting = 0;

/**
 * While an extension decoder runs, the input of the decoder that called it
 * and that input's base (the offset of its byte 0 in the user's input);
 * else null. Changed with {@link nesting}.
 */
let outerInput: Uint8Array | null = null;
let outerBase = 0;

/**
 * The base of an input given to a decode: for a view into the input of
 * the decoder whose extension decoder is running (its payload, as the
 * extension decoder is given it), the offset of the view's byte 0 in the
 * user's input, so that errors count their offsets there; else 0.
 */
export function baseOf(bytes: Uint8Array): number {
  const outer = outerInput;
  if (outer === null || outer.buffer !== bytes.buffer) return 0;
  const shift = bytes.byteOffset - outer.byteOffset;
  return shift > 0 && shift + bytes.length <= outer.length ? outerBase + shift : 0;
}

/**
 * Runs an extension decoder on a view of its payload (`n` bytes at `at` of
 * the decoder's input, the header at `start`), as one more level of
 * nesting: decodes it calls continue at `depth + 1`. Called by the
 * decoder's own reader, so that each level of nested extensions costs the
 * stack two frames.
 */
export function callExtension<C>(d: DecodeCursor, decodeExt: ExtensionDecoderType<C>, context: C, type: number, at: number, n: number, start: number, depth: number): unknown {
  if (depth >= d.limits.maxDepth) throw tooDeepToDecode(d.base + start, d.limits.maxDepth);
  const outer = nesting;
  const input = outerInput;
  const base = outerBase;
  nesting = depth + 1; // decodes the extension decoder calls continue one level down
  outerInput = d.bytes;
  outerBase = d.base;
  try {
    const value = decodeExt(d.bytes.subarray(at, at + n), type, context);
    // the extension decoder may have shrunk (or detached) the input's buffer: its missing bytes must not read as values
    if (d.bytes.length < d.end) throw inputShrank(d.base + at + n, d.base + d.end, d.bytes.length);
    return value;
  } catch (e) {
    throw fromExtension(e, type, d.base + start);
  } finally {
    nesting = outer;
    outerInput = input;
    outerBase = base;
    d.window.reset(); // the extension decoder may have written into the input
  }
}

/**
 * An extension of `type` that the codec has no decoder for (payload and
 * header as for {@link callExtension}): a timestamp, `undefined` with
 * `undefinedAsExtension`, else an `ExtData` of a copy of the payload.
 */
export function builtInExtension(d: DecodeCursor, type: number, at: number, n: number, start: number, undefinedAsExtension: boolean): unknown {
  if (type === TIMESTAMP_TYPE) return readTimestamp(d.bytes.subarray(at, at + n), d.base + start);
  if (type === 0 && n === 1 && undefinedAsExtension) return undefined; // msgpackr's and notepack.io's undefined
  return new ExtData(type, d.bytes.slice(at, at + n));
}
