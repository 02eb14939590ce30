// Every `deno task` in deno.json runs, in the two places a user runs them:
// a fresh checkout (the repository's files only: no node_modules, no dist/),
// with a `deno` on PATH, and this checkout with the test tools installed
// (`npm test` installs them), where the `deno` npm package sits in
// test/node_modules/.bin. Each task gets quick arguments and a timeout, so a
// task that hangs fails.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT, RUNTIMES, explain, readJson, requireBinary, run } from "./tools/harness.ts";

/** Quick arguments per task, appended by `deno task <name> ...args`. */
const QUICK_ARGS: Record<string, string[]> = {
  test: [],
  smoke: ["--count", "20", "--no-big"],
  bench: ["--quick"],
};
/** What each task prints when it worked. */
const SUCCESS: Record<string, RegExp> = {
  test: /ok \| \d+ passed \| 0 failed/,
  smoke: /^SMOKE_OK /m,
  bench: /^done in /m,
};

const tasks = Object.keys(readJson("deno.json").tasks as Record<string, string>);

test("deno.json has a quick run defined here for every task", () => {
  expect(tasks.sort()).toEqual(Object.keys(QUICK_ARGS).sort());
});

function denoEnv(pathDir?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" };
  // No npm variables: a user types `deno task` in a shell, not under npm.
  for (const key of Object.keys(env)) if (/^npm_/i.test(key) || key === "INIT_CWD") delete env[key];
  if (pathDir) env.PATH = `${pathDir}:${env.PATH}`;
  return env;
}

describe("deno tasks in a fresh checkout (no node_modules, deno on PATH)", () => {
  let work: string;
  let checkout: string;
  let bin: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "msgpack-deno-tasks-"));
    checkout = join(work, "checkout");
    // The files a clone of this working tree would have: tracked and new, not ignored.
    const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
      .split("\0")
      .filter(Boolean);
    for (const file of files) {
      mkdirSync(dirname(join(checkout, file)), { recursive: true });
      try {
        cpSync(join(ROOT, file), join(checkout, file));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; // deleted, not yet committed
      }
    }
    // A PATH with deno on it and nothing else from node_modules/.bin.
    bin = join(work, "bin");
    mkdirSync(bin);
    symlinkSync(requireBinary(RUNTIMES.deno, "deno is in test/package.json"), join(bin, "deno"));
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  test.each(tasks)("deno task %s", async (task) => {
    const r = await run(join(bin, "deno"), ["task", task, ...(QUICK_ARGS[task] ?? [])], { cwd: checkout, env: denoEnv(bin), timeout: 300_000 });
    expect(r.code, explain(`deno task ${task}`, r)).toBe(0);
    expect(r.stdout, explain(`deno task ${task}`, r)).toMatch(SUCCESS[task]!);
  }, 320_000);
});

describe("deno tasks in this checkout (the deno npm package of test/package.json, on PATH)", () => {
  test.each(tasks)("deno task %s", async (task) => {
    const deno = requireBinary(RUNTIMES.deno, "deno is in test/package.json");
    const r = await run(deno, ["task", task, ...(QUICK_ARGS[task] ?? [])], { cwd: ROOT, env: denoEnv(dirname(deno)), timeout: 300_000 });
    expect(r.code, explain(`deno task ${task}`, r)).toBe(0);
    expect(r.stdout, explain(`deno task ${task}`, r)).toMatch(SUCCESS[task]!);
  }, 320_000);
});
