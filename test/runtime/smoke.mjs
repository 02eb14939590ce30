// Runtime smoke test: the shared msgpack vectors and seeded round trips,
// without a test runner, as-is under node (18+), bun and deno.
//
//   node test/runtime/smoke.mjs dist/index.js [--streams dist/streams.js]
//   bun  test/runtime/smoke.mjs src/index.ts  [--streams src/streams.ts]
//   deno run --allow-read test/runtime/smoke.mjs src/index.ts
//
// The module may also be given as SMOKE_MODULE (and SMOKE_STREAMS). Options:
// --seed N (default 1), --count N (random small values, default 400),
// --no-big (skip the > 1 MiB values), --suite-if-installed (leave out msgpack-test-suite when node_modules lacks
// it, as in a checkout without `npm ci`).
// Prints one line starting with "SMOKE_OK " followed by a JSON summary, or
// throws (exit code 1).
import { pathToFileURL } from "node:url";
import process from "node:process";
import { runAll } from "./checks.mjs";
import { loadVectorFiles } from "./vectors.mjs";

/** Reads an environment variable; undefined where that is not allowed (deno without --allow-env). */
function env(name) {
  try {
    return process.env[name];
  } catch {
    return undefined;
  }
}

function parseArgs(argv) {
  const args = { module: undefined, streams: undefined, with: [], seed: 1, count: 400, big: true, suite: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--streams") args.streams = argv[++i];
    else if (a === "--with") args.with.push(argv[++i]);
    else if (a === "--seed") args.seed = Number(argv[++i]);
    else if (a === "--count") args.count = Number(argv[++i]);
    else if (a === "--no-big") args.big = false;
    else if (a === "--suite-if-installed") args.suite = "if-installed";
    else if (a.startsWith("--")) throw new Error(`smoke: unknown option ${a}`);
    else args.module = a;
  }
  args.module ??= env("SMOKE_MODULE");
  args.streams ??= env("SMOKE_STREAMS");
  if (!args.module) throw new Error("smoke: give the module to test as an argument or SMOKE_MODULE");
  if (!Number.isInteger(args.seed) || !Number.isInteger(args.count)) throw new Error("smoke: --seed and --count take integers");
  return args;
}

function moduleUrl(specifier) {
  if (/^[a-z]+:/i.test(specifier) && !/^[a-z]:[\\/]/i.test(specifier)) return specifier;
  return pathToFileURL(specifier.startsWith("/") ? specifier : `${process.cwd()}/${specifier}`).href;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  // modules imported for what they install first (the compatibility entries)
  for (const specifier of args.with) await import(moduleUrl(specifier));
  const lib = await import(moduleUrl(args.module));
  const streams = args.streams ? await import(moduleUrl(args.streams)) : undefined;
  const started = Date.now();
  const summary = await runAll(lib, loadVectorFiles({ suite: args.suite }), { streams, seed: args.seed, count: args.count, big: args.big });
  summary.module = args.module;
  summary.ms = Date.now() - started;
  console.log(`SMOKE_OK ${JSON.stringify(summary)}`);
}

await main();
