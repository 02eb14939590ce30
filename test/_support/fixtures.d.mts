// Types of fixtures.mjs (plain JS so node, bun, deno, the browser test and the benchmarks share it).

/** mulberry32: a seedable PRNG giving floats in [0, 1); the same seed gives the same sequence everywhere. */
export declare function mulberry32(seed: number): () => number;
/** Draws from mulberry32; the same seed gives the same draws everywhere. */
export declare class Random {
  constructor(seed: number);
  readonly seed: number;
  /** A float in [0, 1). */
  readonly next: () => number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  /** An integer in [0, n). */
  below(n: number): number;
  /** One item of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p` (default 0.5). */
  bool(p?: number): boolean;
  /** `n` random bytes. */
  bytes(n: number): Uint8Array;
}
/** Bytes from hex pairs joined by "-" ("" is no bytes); throws on anything else. */
export declare function hexToBytes(hex: string): Uint8Array;
/** Bytes as lowercase hex pairs joined by "-". */
export declare function bytesToHex(bytes: ArrayLike<number>): string;

/** One entry of a vector file, read. */
export interface VectorEntry {
  /** `<file>/<group>[<index>]` */
  name: string;
  /** `name` plus the entry's description, for messages */
  where: string;
  file: string;
  group: string;
  index: number;
  /** what decoding any of the encodings must give (default options) */
  expected: unknown;
  /** what to encode; undefined where a JS value cannot express the entry exactly (a sub-millisecond timestamp) */
  input: unknown;
  /** the exact value of a `bignum` entry */
  bigint?: bigint;
  /** the accepted encodings as the file writes them */
  hex: string[];
  /** the accepted encodings */
  encodings: Uint8Array[];
  /** check decoding only */
  decodeOnly: boolean;
  /** check encoding only */
  encodeOnly: boolean;
}

/** Reads parsed vector files (`{ fileName: parsedJson }`) into entries, in order; throws on an entry it cannot read. */
export declare function readVectors(files: Record<string, unknown>, ExtData: new (type: number, data: Uint8Array) => unknown): VectorEntry[];
