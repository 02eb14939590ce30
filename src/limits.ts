/**
 * Defaults shared by the encoder and the decoder.
 *
 * @module
 */

/**
 * The default `maxDepth` of the encoder and the decoder: deeper than real
 * data nests, shallow enough that recursion stays far from the stack limit
 * of every engine (two frames per level).
 */
export const DEFAULT_MAX_DEPTH = 512;
