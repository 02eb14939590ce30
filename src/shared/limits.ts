/**
 * Defaults shared by the encoder and the decoder, the validation of the
 * decode options, and the nesting depth that decode calls made from inside
 * an extension decoder continue from.
 *
 * @module
 */

import { badArgument } from "./errors.ts";

/**
 * The default `maxDepth` of the encoder and the decoder: deeper than real
 * data nests, shallow enough that recursion stays far from the stack limit
 * of every engine (two frames per level).
 */
export const DEFAULT_MAX_DEPTH = 512;

/** The largest length MessagePack can declare, and the default of every `max*Length` limit. */
export const MAX_U32 = 0xffffffff;

/** The decode limits, resolved from the options once. */
export interface DecodeLimits {
  readonly maxDepth: number;
  readonly maxStrLength: number;
  readonly maxBinLength: number;
  readonly maxArrayLength: number;
  readonly maxMapLength: number;
  readonly maxExtLength: number;
}

/**
 * The depth at which a decode starts: 0, except while an extension decoder
 * runs, when it is the extension's depth + 1. So a decode called from
 * inside an extension decoder (with any decoder or options) continues the
 * nesting of the outer one, and `maxDepth` bounds nesting through
 * extensions too. The one piece of module state of the decoders; it is
 * always restored when the extension decoder returns or throws.
 */
export const decodeNesting: { depth: number } = { depth: 0 };

/** Each checked option's kind: an index into {@link EXPECTED}. */
const KINDS: Record<string, number> = {
  maxDepth: 0,
  maxStrLength: 0,
  maxBinLength: 0,
  maxArrayLength: 0,
  maxMapLength: 0,
  maxExtLength: 0,
  useBigInt64: 1,
  useMap: 1,
  binaryAsView: 1,
  rawStrings: 1,
  int64: 2,
  mapKeyConverter: 3,
  extensionCodec: 4,
};
const EXPECTED = ["a non-negative integer", "a boolean", '"auto", "number" or "bigint"', "a function", "an ExtensionCodec, or an object with a decode method"];

/**
 * Throws a `DecodeError` (`INVALID_ARGUMENT`) naming the first invalid
 * decode option: limits that are not non-negative integers (or Infinity),
 * flags that are not booleans, an unknown `int64` mode, a `mapKeyConverter`
 * that is not a function, an `extensionCodec` that is neither an
 * `ExtensionCodec` nor an object with a `decode` method. Unknown option
 * names are ignored.
 */
export function checkDecodeOptions(o: unknown): void {
  if (o == null) return;
  if (typeof o !== "object") throw badArgument("the options argument", o, "an object");
  for (const name in KINDS) {
    const v = (o as Record<string, unknown>)[name];
    const k = KINDS[name]!;
    const ok =
      k === 0 ? typeof v === "number" && v >= 0 && (v % 1 === 0 || v === Infinity)
      : k === 1 ? typeof v === "boolean"
      : k === 2 ? v === "auto" || v === "number" || v === "bigint"
      : k === 3 ? typeof v === "function"
      : typeof (v as { decode?: unknown } | null)?.decode === "function";
    if (v !== undefined && !ok) throw badArgument(`option ${name}`, v, EXPECTED[k]!);
  }
}

/** Resolves the limit options of a decoder (or stream decoder), filling in the defaults; throws for invalid ones (see {@link checkDecodeOptions}). */
export function decodeLimits(options: { readonly [K in keyof DecodeLimits]?: number | undefined } | null | undefined): DecodeLimits {
  checkDecodeOptions(options);
  return {
    maxDepth: options?.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxStrLength: options?.maxStrLength ?? MAX_U32,
    maxBinLength: options?.maxBinLength ?? MAX_U32,
    maxArrayLength: options?.maxArrayLength ?? MAX_U32,
    maxMapLength: options?.maxMapLength ?? MAX_U32,
    maxExtLength: options?.maxExtLength ?? MAX_U32,
  };
}
