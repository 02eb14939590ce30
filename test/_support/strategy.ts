// Forcing the encoder's output strategy in tests, through its internal
// store-plan hook (the plans live with the benchmarks, in
// benchmarks/lib/output-strategies.js). Only `new Encoder(options)` reads the
// hook: `encode(value, options)` ignores it.
import { STRATEGY_NAMES, type StrategyName, strategyOptions } from "../../benchmarks/lib/output-strategies.js";
import type { EncodeOptions } from "../../src/index.ts";

export type { StrategyName };

/** Every strategy: "default" (resizable store sized from the estimate, else chunks), "resizable-no-est", "exact", "chunks", "doubling". */
export const STRATEGIES: readonly StrategyName[] = STRATEGY_NAMES;

/** `options` plus the hook that makes a `new Encoder(...)` store its output with strategy `name`. */
export function withStrategy<C = undefined>(name: StrategyName, options: EncodeOptions<C> = {}): EncodeOptions<C> {
  return strategyOptions(name, options);
}
