// Runs test/runtime/smoke.mjs (shared vectors + seeded round trips, > 1 MiB
// values included) under every runtime the package claims: Node 18 (no
// resizable ArrayBuffer, so only the chunk fallback), 20, 22, 24, Bun and
// Deno, against the built dist/ and, where the runtime runs TypeScript, src/.
// A missing runtime binary fails the test: `npm ci` installs all of them.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test, beforeAll } from "vitest";
import { ROOT, RUNTIMES, assertBuilt, entrySubpaths, explain, requireBinary, run } from "./tools/harness.ts";

type Runtime = keyof typeof RUNTIMES;

interface Case {
  runtime: Runtime;
  /** "dist" (the built ESM or CJS bundle) or "src" (TypeScript as-is). */
  target: "dist" | "dist-cjs" | "src";
  /** What `runtime` in the summary must start with. */
  name: RegExp;
  resizable: boolean;
  flags?: string[];
}

const CASES: Case[] = [
  { runtime: "node18", target: "dist", name: /^node 18\./, resizable: false },
  { runtime: "node18", target: "dist-cjs", name: /^node 18\./, resizable: false },
  { runtime: "node20", target: "dist", name: /^node 20\./, resizable: true },
  { runtime: "node20", target: "dist-cjs", name: /^node 20\./, resizable: true },
  { runtime: "node22", target: "dist", name: /^node 22\./, resizable: true },
  { runtime: "node22", target: "src", name: /^node 22\./, resizable: true, flags: ["--experimental-strip-types", "--no-warnings"] },
  { runtime: "node24", target: "dist", name: /^node 24\./, resizable: true },
  { runtime: "node24", target: "src", name: /^node 24\./, resizable: true },
  { runtime: "bun", target: "src", name: /^bun 1\./, resizable: true },
  { runtime: "bun", target: "dist", name: /^bun 1\./, resizable: true },
  { runtime: "deno", target: "src", name: /^deno 2\./, resizable: true, flags: ["run", "--allow-read", "--no-lock"] },
];

/** The compatibility entries, imported first for what they install (`buffers`, `invalidUtf8: "replace"`), as `--with` arguments. */
function withCompat(dir: string, ext: string): string[] {
  return entrySubpaths()
    .filter((s) => s.startsWith("./compat/"))
    .flatMap((s) => ["--with", `${dir}${s.slice("./compat/".length)}${ext}`]);
}

function modulesFor(target: Case["target"]): string[] {
  const hasStreams = entrySubpaths().includes("./streams");
  switch (target) {
    case "src":
      return ["src/index.ts", ...(hasStreams ? ["--streams", "src/streams.ts"] : []), ...withCompat("src/compat/", ".ts")];
    case "dist":
      return ["dist/index.js", ...(hasStreams ? ["--streams", "dist/streams.js"] : []), ...withCompat("dist/compat/", ".js")];
    case "dist-cjs":
      return ["dist/index.cjs", ...(hasStreams ? ["--streams", "dist/streams.cjs"] : []), ...withCompat("dist/compat/", ".cjs")];
  }
}

describe("runtime smoke (test/runtime/smoke.mjs)", () => {
  beforeAll(() => assertBuilt());

  const form = (c: Case) => (c.target === "src" ? "src/*.ts" : c.target === "dist" ? "dist ESM" : "dist CJS");
  const label = (c: Case) => `${c.runtime} passes the vectors, round trips and streams on ${form(c)}`;
  test.for(CASES.map((c) => [label(c), c] as const))("%s", async ([, c]) => {
    const binary = requireBinary(RUNTIMES[c.runtime], "run `npm ci` to install the runtimes from devDependencies");
    const args = [...(c.flags ?? []), "test/runtime/smoke.mjs", ...modulesFor(c.target)];
    const r = await run(binary, args, { env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" }, timeout: 180_000 });
    expect(r.code, explain(`${c.runtime} ${args.join(" ")}`, r)).toBe(0);
    const line = r.stdout.split("\n").find((l) => l.startsWith("SMOKE_OK "));
    expect(line, explain("smoke summary", r)).toBeDefined();
    const summary = JSON.parse(line!.slice("SMOKE_OK ".length));
    expect(summary.runtime).toMatch(c.name);
    // Node 18 has no resizable ArrayBuffer: the encoder's chunk fallback is
    // the only path there; everywhere else the resizable store is used.
    expect(summary.resizable).toBe(c.resizable);
    expect(summary.buffers, "Node, Bun and Deno have a global Buffer: the buffers option is checked with it").toBe(true);
    expect(summary.invalidUtf8, 'invalidUtf8: "replace" is installed by compat/msgpack').toBe(true);
    expect(summary.decoded).toBeGreaterThan(200);
    expect(summary.encoded).toBeGreaterThan(50);
    expect(summary.largest).toBeGreaterThan(1024 * 1024);
    if (entrySubpaths().includes("./streams")) expect(summary.streamChecks).toBeGreaterThan(50);
    console.log(`${c.runtime} ${c.target}: ${line}`);
  });
});

describe("src/ under Node's type stripping", () => {
  // Node strips types without a compiler: TypeScript it cannot strip (a
  // method named `declare` reads as the keyword) stops the module, and with
  // it every import of it, only when loaded there. cli/main.ts runs its command
  // when imported; the modules it imports are loaded here one by one.
  test("every module of src/ but cli/main.ts loads under Node 24 (--experimental-strip-types)", async () => {
    const files = (readdirSync(join(ROOT, "src"), { recursive: true }) as string[]).filter((f) => f.endsWith(".ts") && f !== join("cli", "main.ts")).sort();
    expect(files.length).toBeGreaterThan(40);
    const base = `${pathToFileURL(join(ROOT, "src")).href}/`;
    const script = `const failed = [];
for (const f of ${JSON.stringify(files)}) {
  try { await import(new URL(f, ${JSON.stringify(base)})); } catch (e) { failed.push(f + ": " + String(e)); }
}
console.log(JSON.stringify(failed));`;
    const binary = requireBinary(RUNTIMES.node24, "run `npm ci` to install the runtimes from devDependencies");
    const r = await run(binary, ["--experimental-strip-types", "--no-warnings", "--input-type=module", "-e", script], { timeout: 60_000 });
    expect(r.code, explain("node24 importing every module of src/", r)).toBe(0);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toEqual([]);
  });
});
