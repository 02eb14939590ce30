// Runs test/runtime/compat-async.mjs (the async decoders of @msgpack/msgpack's
// API: decodeAsync, decodeArrayStream, decodeMultiStream, Decoder#decodeAsync,
// #decodeArrayStream, #decodeStream, from ReadableStreams, async iterables,
// Blob streams and Response bodies of every chunk form) under Node, Bun and
// Deno against src/compat/msgpack.ts (the entry programs written for
// @msgpack/msgpack import), and once under Node against @msgpack/msgpack
// itself, so the checks are known to say what @msgpack/msgpack does.
// A missing runtime binary fails the test: `npm ci` installs all of them.
import { describe, expect, test } from "vitest";
import { RUNTIMES, explain, requireBinary, run } from "./tools/harness.ts";

interface Case {
  runtime: keyof typeof RUNTIMES;
  module: string;
  /** What `runtime` in the summary must start with. */
  name: RegExp;
  flags?: string[];
  oracle?: boolean;
}

const CASES: Case[] = [
  { runtime: "node20", module: "test/node_modules/@msgpack/msgpack/dist.esm/index.mjs", name: /^node 20\./, oracle: true },
  // Node 24 runs TypeScript as-is (type stripping)
  { runtime: "node24", module: "src/compat/msgpack.ts", name: /^node 24\./ },
  { runtime: "bun", module: "src/compat/msgpack.ts", name: /^bun 1\./ },
  { runtime: "deno", module: "src/compat/msgpack.ts", name: /^deno 2\./, flags: ["run", "--allow-read", "--no-lock"] },
];

describe("@msgpack/msgpack's async decoders (test/runtime/compat-async.mjs)", () => {
  const label = (c: Case) => (c.oracle ? `the checks pass on @msgpack/msgpack itself (${c.runtime})` : `${c.runtime} passes them on ${c.module}`);
  test.for(CASES.map((c) => [label(c), c] as const))("%s", async ([, c]) => {
    const binary = requireBinary(RUNTIMES[c.runtime], "run `npm ci` to install the runtimes from devDependencies");
    const args = [...(c.flags ?? []), "test/runtime/compat-async.mjs", c.module, ...(c.oracle ? ["--oracle"] : [])];
    const r = await run(binary, args, { env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" }, timeout: 180_000 });
    expect(r.code, explain(`${c.runtime} ${args.join(" ")}`, r)).toBe(0);
    const line = r.stdout.split("\n").find((l) => l.startsWith("COMPAT_ASYNC_OK "));
    expect(line, explain("compat-async summary", r)).toBeDefined();
    const summary = JSON.parse(line!.slice("COMPAT_ASYNC_OK ".length));
    expect(summary.runtime).toMatch(c.name);
    expect(summary.oracle).toBe(c.oracle ?? false);
    expect(summary.checks).toBeGreaterThan(200);
    console.log(`${c.runtime} ${c.module}: ${line}`);
  });
});
