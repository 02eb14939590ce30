// Types of number-hash.mjs (plain JS so the tests and the benchmarks share it).

/** V8's ComputeLongHash: how a Map hashes a heap number, from its bits. */
export declare function computeLongHash(key: bigint): number;
/** `n` distinct doubles (no NaN, no integers that V8 would hash as Smis) with one ComputeLongHash. */
export declare function collidingFloats(n: number, hash?: number): number[];
/** V8's ComputeUnseededHash: how a Map hashes a Smi or a uint32-valued number. */
export declare function computeUnseededHash(key: number): number;
/** `n` (at most 65536) distinct uint32 keys whose ComputeUnseededHash shares its low 16 bits. */
export declare function collidingUint32(n: number, low?: number): number[];
