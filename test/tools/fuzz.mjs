#!/usr/bin/env node
// The long fuzz pass: runs the targets of test/_support/fuzz.ts (through
// test/fuzz.test.ts, under vitest) for a chosen time, from a chosen or
// random base seed. `npm run fuzz -- --help` lists the options.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const TARGETS = ["decode", "stream", "encode", "size"];
const HELP = `Usage: npm run fuzz -- [options]

Runs the fuzz targets on seeds base, base+1, ... and prints every failure
with its seed and a shrunk reproducer (hex bytes or the value, the options,
the chunking).

Options:
  --duration <s>       seconds in all, shared by the chosen targets (default 60)
  --seed <n>           base seed (default: random, printed)
  --target <names>     comma-separated: ${TARGETS.join(", ")} or all (default all)
  --runs <n>           run exactly n seeds per target instead of a duration
  --max-failures <n>   failures to collect per target before stopping (default 5)
  --no-shrink          report failures without shrinking them (faster)
  --help               show this help

Replay one failing case (a failure prints this line):
  npm run fuzz -- --target decode --seed 1234 --runs 1

Targets:
  decode   random, mutated, truncated, length-inflated and deep inputs through
           decode, decodeMulti and Decoder, random options
  stream   the same inputs in random chunks (1-byte too) through decodeAsync,
           decodeMultiStream, decodeArrayStream and DecoderStream, against
           decode/decodeMulti of the whole bytes
  encode   values with side-effecting getters, containers changed while they
           are encoded and Proxies, through every encode entry
  size     encodedSize against encode
`;

function parse(argv) {
  const o = { duration: 60, seed: undefined, target: "all", runs: undefined, maxFailures: 5, shrink: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const next = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) fail(`${flag} needs a value`);
      return v;
    };
    const num = (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) fail(`${flag} needs a non-negative number, got ${v}`);
      return n;
    };
    if (flag === "--help" || flag === "-h") {
      process.stdout.write(HELP);
      process.exit(0);
    } else if (flag === "--duration") o.duration = num(next());
    else if (flag === "--seed") o.seed = Math.floor(num(next()));
    else if (flag === "--target") o.target = next();
    else if (flag === "--runs") o.runs = Math.floor(num(next()));
    else if (flag === "--max-failures") o.maxFailures = Math.max(1, Math.floor(num(next())));
    else if (flag === "--no-shrink") o.shrink = false;
    else fail(`unknown option ${a}`);
  }
  const chosen = o.target === "all" ? TARGETS : o.target.split(",");
  for (const t of chosen) if (!TARGETS.includes(t)) fail(`unknown target ${t}; one of ${TARGETS.join(", ")}, all`);
  o.targets = chosen;
  return o;
}

function fail(message) {
  process.stderr.write(`fuzz: ${message}\n\n${HELP}`);
  process.exit(2);
}

const o = parse(process.argv.slice(2));
const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
const msPerTarget = Math.max(1, Math.round((o.duration * 1000) / o.targets.length));
const root = fileURLToPath(new URL("../..", import.meta.url));
const env = {
  ...process.env,
  FUZZ_SEED: String(seed),
  FUZZ_TARGET: o.targets.join(","),
  FUZZ_MAX_FAILURES: String(o.maxFailures),
  FUZZ_VERBOSE: "1",
  ...(o.runs !== undefined ? { FUZZ_RUNS: String(o.runs) } : { FUZZ_MS: String(msPerTarget) }),
  ...(o.shrink ? {} : { FUZZ_NO_SHRINK: "1" }),
};
process.stdout.write(
  `fuzz: targets ${o.targets.join(", ")}, base seed ${seed}, ` +
    (o.runs !== undefined ? `${o.runs} seed(s) per target` : `${(msPerTarget / 1000).toFixed(1)} s per target`) +
    `\n`,
);
const result = spawnSync(
  process.execPath,
  ["test/node_modules/vitest/vitest.mjs", "run", "--config", "test/vitest.config.ts", "test/fuzz.test.ts", "--testNamePattern", "target "],
  { cwd: root, env, stdio: "inherit" },
);
process.exit(result.status ?? 1);
