/**
 * Defaults shared by the encoder and the decoder, and the decode limits'
 * shape.
 *
 * @module
 */

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
