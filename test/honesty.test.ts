/**
 * Tests that can fail, and fail only for a reason: a scan of every
 * test/**\/*.test.ts (TypeScript's parser, not regular expressions) that
 * fails on
 *
 *   - a test body with no assertion: no `expect`/`assert` call, no
 *     `throw`, and no call of a function (in the file or in test/_support)
 *     that asserts, directly or through another such function;
 *   - `if (...) return` in a test body's own statements whose branch
 *     asserts nothing: the test stops and reports a pass (skip visibly with
 *     `test.skipIf(cond)` instead, or fail);
 *   - an assertion that compares an expression with itself
 *     (`expect(x).toBe(x)`), which cannot fail;
 *   - a duration compared in an assertion: `performance.now()`,
 *     `Date.now()` or `process.hrtime` differences (or functions returning
 *     them) under an ordering matcher (`toBeLessThan`...). Durations belong
 *     to the benchmark scripts, where the machine's load is part of the
 *     measurement.
 *
 * Each finding names file:line and the test. The scan is itself tested on
 * small sources below, so a scan that finds nothing cannot pass unnoticed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const TEST_DIR = fileURLToPath(new URL(".", import.meta.url));
const ROOT = join(TEST_DIR, "..");

/** Calls that assert, by name: vitest's and node's assertions, and the fail-if-nothing-thrown helpers. */
const ASSERTING_CALL = /^(expect|assert\w*|thrown|rejection|fail)$/;

/**
 * Findings let through, each with the reason: known defects being fixed
 * elsewhere (never a new test). An entry that matches nothing fails the
 * scan, so the list only shrinks.
 */
const ALLOWED: { file: string; test: string; finding: Finding["kind"]; why: string }[] = [
  // Known defects, not exceptions: these command-line tests return early as a pass where
  // /proc, /dev/zero or script(1) is missing. They are to skip visibly (test.skipIf) instead;
  // when they do, the scan reports these entries as stale and they must go.
  ...[
    "stats holds no more than a chunk of a large input (peak memory far below its size)",
    "stats --records and validate --records stream too: peak memory far below the input's size",
    "inspect --records and to-json --records hold one value at a time: peak memory far below the input's size",
    "from-json < /dev/zero: exit 1 at once with its own error, in bounded memory",
    "to-json writes a large value as it walks it: no tree, the bytes of one value in a small heap",
    "validate --records and stats --records keep constant memory for a declaration of 10 million fields",
    "from-json does not write MessagePack to a terminal",
    "on a terminal, the progress line shows the share read and the time left for a file of known size",
  ].map((test) => ({ file: "test/cli.test.ts", test, finding: "early return" as const, why: "known defect: returns as a pass where the platform lacks a tool" })),
];

type Finding = { kind: "no assertion" | "early return" | "duration" | "tautology"; file: string; line: number; test: string; detail?: string };

/** The source files of test/, recursively. */
function files(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, suffix));
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}

/** The name a call is made by: `f(...)` and `a.b.f(...)` give "f". */
function calleeName(call: ts.CallExpression): string | undefined {
  const c = call.expression;
  if (ts.isIdentifier(c)) return c.text;
  if (ts.isPropertyAccessExpression(c)) return c.name.text;
  return undefined;
}

/** The root identifier of a callee chain: `expect(x).not.toBe` and `expect.soft(x)` give "expect"; `test.each(t)(...)` gives "test". */
function rootName(e: ts.Expression): string | undefined {
  while (true) {
    if (ts.isIdentifier(e)) return e.text;
    if (ts.isPropertyAccessExpression(e)) e = e.expression;
    else if (ts.isCallExpression(e)) e = e.expression;
    else if (ts.isNonNullExpression(e) || ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) e = e.expression;
    else return undefined;
  }
}

/** Whether `node` holds an assertion: an asserting call (by name or a known asserting function), or a `throw`. */
function asserts(node: ts.Node, helpers: Set<string>): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isThrowStatement(n)) found = true;
    else if (ts.isCallExpression(n)) {
      const name = calleeName(n);
      const root = rootName(n.expression);
      if ((name !== undefined && (ASSERTING_CALL.test(name) || helpers.has(name))) || (root !== undefined && ASSERTING_CALL.test(root))) found = true;
    }
    if (!found) ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** Whether `node` calls or constructs anything (then the same text may give two values). */
function calls(node: ts.Node): boolean {
  let found = ts.isCallExpression(node) || ts.isNewExpression(node);
  if (!found) ts.forEachChild(node, (c) => void (found ||= calls(c)));
  return found;
}

/** Functions declared in `source` (declarations, and consts holding a function), by name, with their bodies. */
function functionsOf(source: ts.SourceFile): Map<string, ts.Node> {
  const out = new Map<string, ts.Node>();
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionDeclaration(n) && n.name && n.body) out.set(n.name.text, n.body);
    else if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer))) out.set(n.name.text, n.initializer.body);
    else if (ts.isMethodDeclaration(n) && ts.isIdentifier(n.name) && n.body) out.set(n.name.text, n.body);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return out;
}

/** Adds to `helpers` every function of `fns` that asserts, directly or through one already known, until none is added. */
function addAssertingFunctions(fns: Map<string, ts.Node>, helpers: Set<string>): void {
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, body] of fns) {
      if (!helpers.has(name) && asserts(body, helpers)) {
        helpers.add(name);
        grew = true;
      }
    }
  }
}

/** The test callback of a call of `test`/`it` (also `test.each(t)`, `it.skipIf(c)`, `test.for(t)`...), or undefined. */
function testCallback(call: ts.CallExpression): { name: string; body: ts.ConciseBody } | undefined {
  const root = rootName(call.expression);
  if (root !== "test" && root !== "it") return undefined;
  // `test.each(table)` itself is not the test: the call of what it returns is
  if (ts.isPropertyAccessExpression(call.expression) && ["each", "for", "skipIf", "runIf", "extend"].includes(call.expression.name.text)) return undefined;
  if (ts.isPropertyAccessExpression(call.expression) && call.expression.name.text === "todo") return undefined;
  const fn = call.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a)) as ts.ArrowFunction | ts.FunctionExpression | undefined;
  if (fn === undefined) return undefined;
  const first = call.arguments[0];
  const name = first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)) ? first.text : first ? first.getText() : "(unnamed)";
  return { name, body: fn.body };
}

/** Identifiers of `source` that hold a time reading or a duration, and functions that return one. */
function timeNames(source: ts.SourceFile, fns: Map<string, ts.Node>): Set<string> {
  const names = new Set<string>();
  const isTimeSource = (n: ts.Node): boolean => {
    let hit = false;
    const visit = (m: ts.Node): void => {
      if (hit) return;
      if (ts.isCallExpression(m)) {
        const text = m.expression.getText(source);
        if (/^(performance\.now|Date\.now|process\.hrtime(\.bigint)?)$/.test(text)) hit = true;
        const name = calleeName(m);
        if (name !== undefined && names.has(name)) hit = true;
      }
      if (ts.isIdentifier(m) && names.has(m.text)) hit = true;
      if (!hit) ts.forEachChild(m, visit);
    };
    visit(n);
    return hit;
  };
  for (let grew = true; grew; ) {
    grew = false;
    const add = (name: string) => {
      if (!names.has(name)) {
        names.add(name);
        grew = true;
      }
    };
    for (const [name, body] of fns) if (isTimeSource(body)) add(name);
    const visit = (n: ts.Node): void => {
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && !ts.isArrowFunction(n.initializer) && !ts.isFunctionExpression(n.initializer) && isTimeSource(n.initializer)) add(n.name.text);
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
  return names;
}

const ORDERING = /^(toBeLessThan|toBeLessThanOrEqual|toBeGreaterThan|toBeGreaterThanOrEqual|toBeCloseTo|toBeWithin)$/;

/** Test bodies the scans have looked at (so a scan that finds no tests fails). */
let testsSeen = 0;

/** Scans one test file's text; `helpers` are the asserting functions of test/_support. */
function scan(file: string, text: string, helpers: Set<string> = new Set()): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const fns = functionsOf(source);
  const known = new Set(helpers);
  addAssertingFunctions(fns, known);
  const times = timeNames(source, fns);
  const usesTime = (n: ts.Node): boolean => {
    let hit = false;
    const visit = (m: ts.Node): void => {
      if (hit) return;
      if (ts.isCallExpression(m) && /^(performance\.now|Date\.now|process\.hrtime(\.bigint)?)$/.test(m.expression.getText(source))) hit = true;
      if (ts.isIdentifier(m) && times.has(m.text)) hit = true;
      if (!hit) ts.forEachChild(m, visit);
    };
    visit(n);
    return hit;
  };
  const findings: Finding[] = [];
  const lineOf = (n: ts.Node) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;
  /** The name of the test `n` is in. */
  const testNameOf = (n: ts.Node): string => {
    for (let owner = n.parent; owner !== undefined; owner = owner.parent) {
      const t = ts.isCallExpression(owner) ? testCallback(owner) : undefined;
      if (t !== undefined) return t.name;
    }
    return "(outside a test)";
  };

  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const t = testCallback(n);
      if (t !== undefined) {
        testsSeen++;
        if (!asserts(t.body, known)) findings.push({ kind: "no assertion", file, line: lineOf(n), test: t.name });
        if (ts.isBlock(t.body)) {
          for (const s of t.body.statements) {
            if (!ts.isIfStatement(s)) continue;
            const branch = s.thenStatement;
            const returns = ts.isReturnStatement(branch) || (ts.isBlock(branch) && branch.statements.some(ts.isReturnStatement));
            if (returns && !asserts(branch, known)) findings.push({ kind: "early return", file, line: lineOf(s), test: t.name, detail: s.expression.getText(source) });
          }
        }
      }
      // expect(x).toBe(x): the same expression on both sides
      if (ts.isPropertyAccessExpression(n.expression) && /^(toBe|toEqual|toStrictEqual)$/.test(n.expression.name.text) && n.arguments.length === 1) {
        const e = n.expression.expression;
        if (ts.isCallExpression(e) && rootName(e.expression) === "expect" && ts.isIdentifier(e.expression) && e.arguments[0] !== undefined && e.arguments[0].getText(source) === n.arguments[0]!.getText(source) && !calls(e.arguments[0])) {
          findings.push({ kind: "tautology", file, line: lineOf(n), test: testNameOf(n), detail: n.getText(source).slice(0, 120) });
        }
      }
      // expect(<duration>).toBeLessThan(...) or expect(x).toBeGreaterThan(<duration>)
      if (ts.isPropertyAccessExpression(n.expression) && ORDERING.test(n.expression.name.text) && rootName(n.expression) === "expect") {
        let e: ts.Expression = n.expression.expression;
        while (ts.isPropertyAccessExpression(e)) e = e.expression;
        const subject = ts.isCallExpression(e) ? e.arguments[0] : undefined;
        if ((subject !== undefined && usesTime(subject)) || n.arguments.some(usesTime)) {
          findings.push({ kind: "duration", file, line: lineOf(n), test: testNameOf(n), detail: n.getText(source).slice(0, 120) });
        }
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return findings;
}

/** The asserting functions exported (or declared) by test/_support and test/tools. */
function supportHelpers(): Set<string> {
  const helpers = new Set<string>();
  const all = new Map<string, ts.Node>();
  for (const f of [...files(join(TEST_DIR, "_support"), ".ts"), ...files(join(TEST_DIR, "tools"), ".ts")]) {
    const source = ts.createSourceFile(f, readFileSync(f, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    for (const [name, body] of functionsOf(source)) all.set(name, body);
  }
  addAssertingFunctions(all, helpers);
  return helpers;
}

const format = (f: Finding) => `${f.file}:${f.line}: ${f.kind} in test "${f.test}"${f.detail ? `: ${f.detail}` : ""}`;

describe("the scan finds what it looks for", () => {
  const wrap = (body: string) => `import { test, expect } from "vitest";\n${body}\n`;
  test("a test with no assertion, and not one that asserts through a helper or a throw", () => {
    const src = wrap(`
      function check(x: number) { expect(x).toBe(1); }
      const viaHelper = (x: number) => check(x);
      test("nothing", () => { const x = 1 + 1; });
      test.each([1, 2])("each %s", (n) => { n * 2; });
      test("helper", () => viaHelper(1));
      test("throws", () => { if (Math.random() > 2) throw new Error("no"); });
      test("expect.soft", () => { expect.soft(1).toBe(1); });
      test.skipIf(false)("skipIf nothing", async () => { await Promise.resolve(); });
    `);
    expect(scan("x.test.ts", src).map((f) => `${f.kind} ${f.test} :${f.line}`)).toEqual(["no assertion nothing :5", "no assertion each %s :6", "no assertion skipIf nothing :10"]);
  });

  test("an early return in a test body, unless its branch asserts", () => {
    const src = wrap(`
      test("returns", () => {
        if (!process.env.HOME) return;
        expect(process.env.HOME).toBe("/root");
      });
      test("asserts then returns", () => {
        if (process.env.X) { expect(process.env.X).toBe("1"); return; }
        expect(process.env.X).toBeUndefined();
      });
      test("nested function returns are fine", () => {
        const f = (x: number) => { if (x) return 1; return 2; };
        expect(f(0)).toBe(2);
      });
    `);
    expect(scan("x.test.ts", src).map((f) => `${f.kind} ${f.test} :${f.line} ${f.detail}`)).toEqual(["early return returns :4 !process.env.HOME"]);
  });

  test("a duration under an ordering matcher, directly, through variables or through a timing function", () => {
    const src = wrap(`
      function time(f: () => void) { const t = performance.now(); f(); return performance.now() - t; }
      test("direct", () => {
        const t0 = performance.now();
        expect(performance.now() - t0).toBeLessThan(1000);
      });
      test("helper", () => {
        const a = time(() => {});
        const ratio = a / 2;
        expect(ratio).toBeGreaterThan(3);
      });
      test("Date.now as the bound", () => {
        const start = Date.now();
        expect(5).toBeLessThan(Date.now() - start + 1);
      });
      test("a timestamp value is not a duration comparison", () => {
        const now = Date.now();
        expect(new Date(now).getTime()).toBe(now);
      });
    `);
    expect(scan("x.test.ts", src).map((f) => `${f.kind} ${f.test} :${f.line}`)).toEqual(["duration direct :6", "duration helper :11", "duration Date.now as the bound :15"]);
  });
});

test("the scan finds an expression compared with itself", () => {
  const src = `import { test, expect } from "vitest";
test("same", () => {
  expect(Codec.default).toBe(Codec.default);
  expect(Codec.default).not.toBe(other);
  expect(f(1)).toEqual(f(2));
  expect(cache.get(1)).toBe(cache.get(1));
});
`;
  expect(scan("x.test.ts", src).map((f) => `${f.kind} :${f.line}`)).toEqual(["tautology :3"]);
});

describe("every test file", () => {
  test("has assertions in every test, no silent early returns and no duration asserts", () => {
    const helpers = supportHelpers();
    const testFiles = files(TEST_DIR, ".test.ts");
    expect(testFiles.length).toBeGreaterThan(40);
    const before = testsSeen;
    const findings = testFiles.flatMap((f) => scan(relative(ROOT, f), readFileSync(f, "utf8"), helpers));
    expect(testsSeen - before).toBeGreaterThan(600); // 778 test calls (a test.each counts once) when written
    const allowedUsed = new Set<number>();
    const open = findings.filter((f) => {
      const i = ALLOWED.findIndex((a) => a.file === f.file && a.test === f.test && a.finding === f.kind);
      if (i >= 0) allowedUsed.add(i);
      return i < 0;
    });
    const stale = ALLOWED.filter((_, i) => !allowedUsed.has(i)).map((a) => `${a.file}: allowed ${a.finding} in "${a.test}" no longer found: remove it from ALLOWED in test/honesty.test.ts`);
    expect([...open.map(format), ...stale].join("\n")).toBe("");
  });
});
