// The tests come in three tiers, run together by `npm test` and one at a
// time by `npm run test:unit`, `test:integration` and `test:bench` (or
// `vitest run --config test/vitest.config.ts --project <tier>`):
//
//   unit         module tests in this process: src/ against the vectors,
//                property and fuzz passes, compatibility with the peers.
//                Every test file not listed below is a unit test.
//   integration  the package as users get it: npm pack (also of a fresh
//                clone), the built bundles in Node, Bun, Deno and Chromium,
//                the README, docs/ and JSDoc examples, values and stream
//                pipelines of more than 1 GiB.
//   bench        the benchmark scripts' smoke tests (--quick, --help).
import { existsSync } from "node:fs";
import { configDefaults, defineConfig } from "vitest/config";

const INTEGRATION = [
  "test/browser.test.ts",
  "test/bundle-targets.test.ts",
  "test/cli.test.ts",
  "test/bundle-size.test.ts",
  "test/compat-async.test.ts",
  "test/deno-tasks.test.ts",
  "test/examples.test.ts",
  "test/exports.test.ts",
  "test/huge.test.ts",
  "test/identity.test.ts",
  "test/install.test.ts",
  "test/package.test.ts",
  "test/playground.test.ts",
  "test/runtimes.test.ts",
  "test/streams-huge.test.ts",
];
const BENCH = ["test/bench-*.test.ts"];

// A renamed or deleted file must leave this list too, or it would be
// silently dropped from the integration tier's name and land in none.
const missing = INTEGRATION.filter((f) => !existsSync(new URL(`../${f}`, import.meta.url)));
if (missing.length > 0) throw new Error(`test/vitest.config.ts lists integration tests that do not exist: ${missing.join(", ")}`);

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: "forks",
    // vitest's default is one worker fewer than the cores: one file at a time
    // on a 2-core machine. Most files wait on child processes (other
    // runtimes, the built CLI, Chromium) or run one thread, so two at a time
    // take about half the wall time; no test asserts a duration.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...INTEGRATION, ...BENCH] } },
      { extends: true, test: { name: "integration", include: INTEGRATION } },
      { extends: true, test: { name: "bench", include: BENCH } },
    ],
  },
});
