/**
 * Runs every code block of README.md and docs/*.md and every code block in
 * the JSDoc of src/, each in a fresh process with a timeout, as written: only the package
 * name is pointed at this checkout (src/ for TypeScript and JavaScript, the
 * built dist/browser/ bundles for HTML). `console.assert` throws there, so an
 * example's assertions are real tests; an example must also end by itself
 * (open sockets, servers or timers make it time out and fail).
 *
 * Languages: ts/typescript and js/javascript run as modules, under Node 24
 * (which strips types), or under Deno or Bun when the code uses `Deno.` or
 * `Bun.`; html runs its `<script type="module">` under Node. Shell blocks
 * (sh, shell, bash, console) are commands for the reader's terminal
 * (installing, running the tests and benchmarks): CI runs them as scripts
 * (.ci/run, package.json), so they are not run here, nor are text blocks
 * (diagrams). Any other language, or
 * a block without one, fails the test until it is classified here.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { ROOT, RUNTIMES, assertBuilt, explain, requireBinary, run } from "./tools/harness.ts";

const outDir = join(import.meta.dirname, ".examples");
const TIMEOUT_MS = 60_000;

const RUN_AS: Record<string, "ts" | "js" | "html" | "skip"> = {
  ts: "ts",
  typescript: "ts",
  js: "js",
  javascript: "js",
  mjs: "js",
  html: "html",
  sh: "skip",
  shell: "skip",
  bash: "skip",
  console: "skip",
  text: "skip", // diagrams
};

interface Example {
  name: string;
  lang: string;
  code: string;
}

/** Every fenced block of a Markdown text: its info string's first word and its body. */
function fences(text: string): { lang: string; code: string; line: number }[] {
  const out: { lang: string; code: string; line: number }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^\\s*${fence![0]}{${fence!.length},}\\s*$`).test(lines[j]!); j++) {
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!);
    }
    out.push({ lang: info!.trim().split(/\s+/)[0]!.toLowerCase(), code: body.join("\n"), line: i + 1 });
    i = j;
  }
  return out;
}

/** The code blocks in the JSDoc comments of one src file (the ` * ` prefixes removed). */
function fromJsDoc(file: string): Example[] {
  const text = readFileSync(join(ROOT, "src", file), "utf8");
  const examples: Example[] = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const startLine = text.slice(0, comment.index).split("\n").length;
    const body = comment[0]
      .split("\n")
      .map((line) => line.replace(/^\s*\/?\*+\/?\s?/, "").replace(/\s*\*\/$/, ""))
      .join("\n");
    for (const f of fences(body)) examples.push({ name: `src/${file}:${startLine + f.line - 1} (${f.lang || "no language"})`, lang: f.lang, code: f.code });
  }
  return examples;
}

function fromMarkdown(path: string): Example[] {
  return fences(readFileSync(join(ROOT, path), "utf8")).map((f) => ({ name: `${path}:${f.line} (${f.lang || "no language"})`, lang: f.lang, code: f.code }));
}

const files = (readdirSync(join(ROOT, "src"), { recursive: true }) as string[]).filter((f) => f.endsWith(".ts")).sort();
const pages = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
const all = [...files.flatMap(fromJsDoc), ...pages.flatMap(fromMarkdown)];
const isPage = (e: Example) => !e.name.startsWith("src/");
const runnable = all.filter((e) => RUN_AS[e.lang] !== "skip");

/** The package's specifiers, pointed at this checkout (relative to `from`, if given, for tsc). */
function localize(code: string, from?: string): string {
  const src = (file: string) => JSON.stringify(from ? relative(from, join(ROOT, "src", file)) : join(ROOT, "src", file));
  return code
    .replace(/(["'])@resizable\/msgpack\/([\w/-]+)\1/g, (_all, _quote, subpath: string) => src(`${subpath}.ts`))
    .replace(/(["'])@resizable\/msgpack\1/g, src("index.ts"))
    .replace(/(["'])(?:\.\/)?node_modules\/@resizable\/msgpack\/dist\//g, `$1${join(ROOT, "dist")}/`);
}

const PRELUDE =
  'console.assert = (ok, ...message) => { if (!ok) throw new Error("console.assert failed" + (message.length ? ": " + message.join(" ") : "")); };\n';

/** Writes the example as a module file; returns [runtime binary, args]. */
function prepare(example: Example, i: number): [string, string[]] {
  const kind = RUN_AS[example.lang];
  let code = example.code;
  let ext = kind === "ts" ? "ts" : "mjs";
  if (kind === "html") {
    const scripts = [...code.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts.length, `${example.name}: an html block must hold a <script type="module">`).toBeGreaterThan(0);
    code = scripts.join("\n");
    ext = "mjs";
  }
  const file = join(outDir, `example-${i}.${ext}`);
  writeFileSync(file, `${PRELUDE}${localize(code)}\nexport {};\n`);
  if (/\bDeno\./.test(code)) return [requireBinary(RUNTIMES.deno, "run npm ci"), ["run", "-A", "--no-lock", file]];
  if (/\bBun\./.test(code)) return [requireBinary(RUNTIMES.bun, "run npm ci"), [file]];
  return [requireBinary(RUNTIMES.node24, "run npm ci"), ["--experimental-strip-types", "--no-warnings", file]];
}

describe("documentation code blocks", () => {
  beforeAll(() => {
    assertBuilt(); // the html blocks load dist/browser/
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
  });

  test("every block has a language this test knows (run, or skipped for a stated reason)", () => {
    const unknown = all.filter((e) => !(e.lang in RUN_AS)).map((e) => e.name);
    expect(unknown).toEqual([]);
    expect(runnable.filter((e) => e.name.startsWith("src/")).length).toBeGreaterThan(20);
    expect(runnable.filter((e) => e.name.startsWith("README.md")).length).toBeGreaterThan(1);
    expect(runnable.filter((e) => e.name.startsWith("docs/")).length).toBeGreaterThan(10);
  });

  test("the TypeScript blocks of the README and docs/ type-check (strict, against src/)", async () => {
    // JSDoc examples are type-checked by `deno task test` (test/deno-tasks.test.ts).
    const blocks = all.filter((e) => isPage(e) && RUN_AS[e.lang] === "ts");
    expect(blocks.length).toBeGreaterThan(3);
    const dir = join(outDir, "typecheck");
    mkdirSync(dir, { recursive: true });
    blocks.forEach((e, i) => writeFileSync(join(dir, `page-${i}.ts`), `// ${e.name}\n${localize(e.code, dir)}\nexport {};\n`));
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../../tsconfig.json", compilerOptions: { noEmit: true }, include: ["page-*.ts"] }));
    const r = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json")], { timeout: 120_000 });
    expect(r.code, explain("tsc on the TypeScript blocks of the README and docs/ (test/.examples/typecheck/)", r)).toBe(0);
  }, 130_000);

  test.each(runnable.map((e, i) => [e.name, e, i] as const))("%s runs and ends", async (_, example, i) => {
    const [bin, args] = prepare(example, i);
    // NODE_COMPILE_CACHE: Node keeps the stripped and compiled src/ modules (keyed by their
    // contents) for the next example, so each one does not parse and compile src/ again
    const env = { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", NODE_COMPILE_CACHE: join(outDir, "compile-cache") };
    const r = await run(bin, args, { timeout: TIMEOUT_MS, env });
    expect(r.code, explain(`${example.name}: ${bin} ${args.join(" ")}`, r)).toBe(0);
  }, TIMEOUT_MS + 10_000);
});
