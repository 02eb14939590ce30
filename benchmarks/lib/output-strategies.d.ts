// Types of output-strategies.js (plain JS so the benchmarks run as-is under node, bun and deno).

/** A strategy's name. */
export type StrategyName = "default" | "exact" | "chunks";
/** Strategy names, the default first. */
export declare const STRATEGY_NAMES: readonly StrategyName[];
/** `encode(value)` under strategy `name`, with `encoder` (an `Encoder` of the library). */
export declare function strategyEncode(
  name: StrategyName,
  encoder: { encode(v: unknown): Uint8Array; encodedSize(v: unknown): number; encodeInto(v: unknown, t: Uint8Array): number; encodeChunks(v: unknown): Uint8Array[] },
): (value: unknown) => Uint8Array;
