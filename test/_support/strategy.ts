// The encoder's output paths, chosen through options a user has too: the
// default (the scratch, then the resizable store sized from the estimate),
// "chunks" (a ceiling of 1 byte: the chunk list from the first move on) and
// "ceiling" (a 64 KiB ceiling: the store fills, then the chunks continue).

import type { EncodeOptions } from "../../src/index.ts";

export type StrategyName = "default" | "chunks" | "ceiling";

/** Every output path. */
export const STRATEGIES: readonly StrategyName[] = ["default", "chunks", "ceiling"];

/** `options` with the `maxByteLength` that makes a `new Encoder(...)` take output path `name`. */
export function withStrategy<C = undefined>(name: StrategyName, options: EncodeOptions<C> = {}): EncodeOptions<C> {
  return name === "default" ? options : { ...options, maxByteLength: name === "chunks" ? 1 : 65_536 };
}
