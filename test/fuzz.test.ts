/**
 * The short fuzz pass of `npm test`: every target of test/_support/fuzz.ts
 * for a fixed number of seeds from a fixed base seed, so every run checks
 * the same cases however loaded the machine (override with FUZZ_SEED,
 * FUZZ_RUNS, FUZZ_MS per target, FUZZ_TARGET; `npm run fuzz` sets them for
 * long runs). A failure prints its seed and a shrunk reproducer.
 */
import { describe, expect, test } from "vitest";
import { DecodeError, Decoder } from "../src/index.ts";
import { formatFailure, runTarget, setShrinking, TARGETS } from "./_support/fuzz.ts";

const env = process.env;
const BASE_SEED = Number(env.FUZZ_SEED ?? 1);
const RUNS = env.FUZZ_RUNS ? Number(env.FUZZ_RUNS) : undefined;
const MS = env.FUZZ_MS ? Number(env.FUZZ_MS) : undefined;
const ONLY = env.FUZZ_TARGET && env.FUZZ_TARGET !== "all" ? env.FUZZ_TARGET.split(",") : null;
/** Seeds per target in the short pass (about 10 s for all four on a loaded 2-core machine). */
const SHORT_RUNS: Record<string, number> = { decode: 3000, stream: 1000, encode: 1500, size: 5000 };
const MAX_FAILURES = Number(env.FUZZ_MAX_FAILURES ?? 3);
setShrinking(!env.FUZZ_NO_SHRINK);

describe("fuzz", () => {
  for (const name of Object.keys(TARGETS)) {
    // a time budget (FUZZ_MS) only when asked for, as the long runs do
    const runs = RUNS ?? (MS === undefined ? SHORT_RUNS[name]! : undefined);
    test.skipIf(ONLY !== null && !ONLY.includes(name))(
      `target ${name}: ${runs ?? "timed"} seeds from ${BASE_SEED}`,
      async () => {
        const result = await runTarget(name, BASE_SEED, { runs, ms: MS, maxFailures: MAX_FAILURES });
        if (env.FUZZ_VERBOSE) console.log(`fuzz ${name}: ${result.runs} seeds from ${BASE_SEED}, ${result.failures.length} failure(s)`);
        expect(result.failures.map(formatFailure).join("\n\n")).toBe("");
        if (runs !== undefined) expect(result.runs).toBe(runs);
        else expect(result.runs).toBeGreaterThan(0);
      },
      MS !== undefined ? MS * 3 + 60_000 : 600_000,
    );
  }
});

describe("decode: declared lengths", () => {
  test("headers declaring 4 GiB containers in a few bytes allocate nothing large", () => {
    const decoder = new Decoder();
    const before = process.memoryUsage().rss;
    for (const first of [0xdd, 0xdf, 0xdb, 0xc6, 0xc9]) {
      for (let i = 0; i < 1000; i++) {
        expect(() => decoder.decode(new Uint8Array([first, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]))).toThrow(DecodeError);
      }
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });
});
