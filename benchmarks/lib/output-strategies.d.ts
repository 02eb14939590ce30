// Types of output-strategies.js (plain JS so the benchmarks run as-is under node, bun and deno; the tests use it too).

/** The key of the encoder's internal store-plan option. */
export declare const STORE_PLAN: unique symbol;
/** A strategy's name. */
export type StrategyName = "default" | "resizable-no-est" | "exact" | "chunks" | "doubling";
/** The store plans by strategy name (the default has none: the encoder's own). */
export declare const STORE_PLANS: Readonly<Record<Exclude<StrategyName, "default">, object>>;
/** Strategy names, the default first. */
export declare const STRATEGY_NAMES: readonly StrategyName[];
/** Encoder options for a strategy, merged into `options`: for `new Encoder(...)` only. */
export declare function strategyOptions<T extends object>(name: StrategyName | "auto", options?: T): T;
