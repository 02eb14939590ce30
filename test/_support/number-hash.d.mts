// Types of number-hash.mjs (plain JS so the tests and the benchmarks share it).

/** V8's ComputeLongHash: how a Map hashes a heap number, from its bits. */
export declare function computeLongHash(key: bigint): number;
/** `n` distinct doubles (no NaN, no integers that V8 would hash as Smis) with one ComputeLongHash. */
export declare function collidingFloats(n: number, hash?: number): number[];
/** V8's ComputeUnseededHash: how a Map hashes a Smi or a uint32-valued number. */
export declare function computeUnseededHash(key: number): number;
/** `n` (at most 65536) distinct uint32 keys whose ComputeUnseededHash shares its low 16 bits. */
export declare function collidingUint32(n: number, low?: number): number[];
/** MessagePack bytes of a map 32 of `n` entries, each key written by `key` (`keyBytes` long), each value nil. */
export declare function mapOfKeys(n: number, keyBytes: number, key: (dv: DataView, at: number, i: number) => void): Uint8Array;
/** A map whose keys are these numbers as float 64. */
export declare function float64Keys(keys: number[]): Uint8Array;
/** A map whose keys are these numbers as uint 32. */
export declare function uint32Keys(keys: number[]): Uint8Array;
