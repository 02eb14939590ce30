// A guard against back doors in src/: each module reaches another only
// through what it exports. Read with TypeScript's parser (syntax only, no
// type checking), it fails on
//
//   cycle       an import cycle among src files (type-only imports and
//               `import("...")` types count: a cycle of types still ties the
//               modules' designs together);
//   swap        a method swapped per instance: an assignment through a cast
//               of `this`, through `unknown` or `any`, or to a type written in
//               place (`(this as unknown as { m: ... }).m = ...`), or a class's own
//               method assigned to or stored in `this` (`this.m = ...`,
//               `this.f = this.m`);
//   bracket     a member reached by a string literal, `obj["name"]`, which
//               TypeScript lets through to private members (code that
//               `new Function` compiles is text, and not read here);
//   call-this   `.call(this, ...)` or `.apply(this, ...)`: a function run as a
//               method of a class that does not declare it;
//   class-name  two classes with the same name;
//   new-error   an error made outside src/common/errors.ts, whose module
//               comment gives the rule: `new` or a call of `Error`, a
//               built-in error class, or a class of src/ that extends one.
//
// Each check is shown failing on a small snippet first, so that it cannot
// pass by checking nothing.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, dirname } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

type Check = "cycle" | "swap" | "bracket" | "call-this" | "class-name" | "new-error";

/** One thing a check flags: `where` is `file:line` (for a cycle, its files joined by " -> "), `text` the code. */
interface Finding {
  check: Check;
  file: string;
  where: string;
  text: string;
}

/**
 * Errors that are the command-line program's own: it prints their messages
 * and never lets a caller catch them (the JSON splitter is the program's
 * reader of JSON input, exported by no entry). Not back doors: kept.
 */
const PROGRAM_ERRORS: readonly { file: string; pattern: string }[] = [
  { file: "src/cli/args.ts", pattern: "" },
  { file: "src/cli/io.ts", pattern: "" },
  { file: "src/cli/commands.ts", pattern: "" },
  { file: "src/cli/main.ts", pattern: "" },
  { file: "src/inspect/json.ts", pattern: "new JsonTooLong(" },
];

const ROOT = resolve(import.meta.dirname, "..");
const ERRORS_MODULE = "src/common/errors.ts";
const BUILT_IN_ERRORS = new Set(["Error", "TypeError", "RangeError", "SyntaxError", "ReferenceError", "EvalError", "URIError", "AggregateError", "DOMException"]);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Every .ts file under `dir`, as paths from the repository root. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out.sort();
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function visit(node: ts.Node, f: (n: ts.Node) => void): void {
  f(node);
  ts.forEachChild(node, (child) => visit(child, f));
}

function finding(check: Check, sf: ts.SourceFile, node: ts.Node): Finding {
  const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  return { check, file: sf.fileName, where: `${sf.fileName}:${line}`, text: node.getText(sf).replace(/\s+/g, " ") };
}

function unparenthesized(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

/**
 * Whether `e` is a cast that opens a back door: of `this`, through
 * `unknown` or `any`, or to an object type written in place. A cast down
 * to a named class (`(spill as CountSpill).length += n`) is not one.
 */
function isBackDoorCast(e: ts.Expression): boolean {
  e = unparenthesized(e);
  if (!ts.isAsExpression(e) && !ts.isTypeAssertionExpression(e)) return false;
  const operand = unparenthesized(e.expression);
  const through = ts.isAsExpression(operand) || ts.isTypeAssertionExpression(operand) ? operand.type.kind : null;
  return (
    operand.kind === ts.SyntaxKind.ThisKeyword ||
    through === ts.SyntaxKind.UnknownKeyword ||
    through === ts.SyntaxKind.AnyKeyword ||
    e.type.kind === ts.SyntaxKind.AnyKeyword ||
    ts.isTypeLiteralNode(e.type)
  );
}

/** `this.name` (through parentheses), else null. */
function memberOfThis(e: ts.Expression): string | null {
  e = unparenthesized(e);
  return ts.isPropertyAccessExpression(e) && e.expression.kind === ts.SyntaxKind.ThisKeyword ? e.name.text : null;
}

function isAssignment(n: ts.Node): n is ts.BinaryExpression {
  return ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
}

/** The names of the methods (and accessors) a class declares. */
function methodsOf(c: ts.ClassLikeDeclaration): Set<string> {
  const names = new Set<string>();
  for (const m of c.members) {
    if ((ts.isMethodDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m)) && m.name !== undefined && (ts.isIdentifier(m.name) || ts.isPrivateIdentifier(m.name))) names.add(m.name.text);
  }
  return names;
}

/** The findings of every check but `cycle` and `class-name` (which need all files) in one file. */
function fileFindings(sf: ts.SourceFile, errorClasses: ReadonlySet<string>): Finding[] {
  const out: Finding[] = [];
  visit(sf, (n) => {
    if (isAssignment(n)) {
      const target = unparenthesized(n.left);
      if ((ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) && isBackDoorCast(target.expression)) out.push(finding("swap", sf, n));
    }
    if (ts.isClassLike(n)) {
      const methods = methodsOf(n);
      visit(n, (m) => {
        if (!isAssignment(m) || m.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return;
        const target = memberOfThis(m.left);
        if (target === null) return;
        let value = unparenthesized(m.right);
        // this.f = this.m.bind(this)
        if (ts.isCallExpression(value) && ts.isPropertyAccessExpression(value.expression) && value.expression.name.text === "bind") value = value.expression.expression;
        const stored = memberOfThis(value);
        if (methods.has(target) || (stored !== null && methods.has(stored))) out.push(finding("swap", sf, m));
      });
    }
    if (ts.isElementAccessExpression(n) && ts.isStringLiteralLike(n.argumentExpression) && IDENTIFIER.test(n.argumentExpression.text)) out.push(finding("bracket", sf, n));
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && (n.expression.name.text === "call" || n.expression.name.text === "apply") && n.arguments[0]?.kind === ts.SyntaxKind.ThisKeyword) {
      out.push(finding("call-this", sf, n));
    }
    if (sf.fileName !== ERRORS_MODULE && (ts.isNewExpression(n) || ts.isCallExpression(n))) {
      const callee = unparenthesized(n.expression);
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === "globalThis" ? callee.name.text : null;
      if (name !== null && (BUILT_IN_ERRORS.has(name) || errorClasses.has(name))) out.push(finding("new-error", sf, n));
    }
  });
  return out;
}

/** The names of the classes of `files` that extend a built-in error or one of them (by name). */
function errorClassesOf(files: readonly ts.SourceFile[]): Set<string> {
  const parents = new Map<string, string>();
  for (const sf of files) {
    visit(sf, (n) => {
      if (!ts.isClassLike(n) || n.name === undefined) return;
      const base = n.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
      if (base !== undefined && ts.isIdentifier(base)) parents.set(n.name.text, base.text);
    });
  }
  const errors = new Set<string>();
  for (const name of parents.keys()) {
    const seen = new Set<string>();
    for (let p = parents.get(name); p !== undefined && !seen.has(p); p = parents.get(p)) {
      seen.add(p);
      if (BUILT_IN_ERRORS.has(p)) errors.add(name);
    }
  }
  return errors;
}

/** Two classes (declared or named class expressions) with the same name, each flagged. */
function classNameFindings(files: readonly ts.SourceFile[]): Finding[] {
  const byName = new Map<string, Finding[]>();
  for (const sf of files) {
    visit(sf, (n) => {
      if (!ts.isClassLike(n) || n.name === undefined) return;
      const list = byName.get(n.name.text) ?? [];
      list.push({ ...finding("class-name", sf, n.name), text: `class ${n.name.text}` });
      byName.set(n.name.text, list);
    });
  }
  return [...byName.values()].filter((list) => list.length > 1).flat();
}

/** The relative modules a file imports or re-exports, type-only and `import("...")` types included, as paths from the root. */
function importsOf(sf: ts.SourceFile): string[] {
  const specifiers: string[] = [];
  visit(sf, (n) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier !== undefined && ts.isStringLiteral(n.moduleSpecifier)) specifiers.push(n.moduleSpecifier.text);
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) specifiers.push(n.argument.literal.text);
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] !== undefined && ts.isStringLiteral(n.arguments[0])) specifiers.push(n.arguments[0].text);
  });
  return specifiers.filter((s) => s.startsWith(".")).map((s) => relative(ROOT, resolve(ROOT, dirname(sf.fileName), s)));
}

/** Each import cycle (a strongly connected set of more than one file, or a file importing itself), its files in import order. */
function cycleFindings(files: readonly ts.SourceFile[]): Finding[] {
  const graph = new Map(files.map((sf) => [sf.fileName, [...new Set(importsOf(sf))]]));
  // Tarjan's strongly connected components
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      components.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return components
    .filter((c) => c.length > 1 || graph.get(c[0]!)!.includes(c[0]!))
    .map((c) => ({ check: "cycle", file: c[0]!, where: c.join(" -> ") + " -> " + c[0]!, text: c.join(" ") }));
}

/** Every finding in `sources` (path -> text). */
function findings(sources: ReadonlyMap<string, string>): Finding[] {
  return findingsIn([...sources].map(([path, text]) => parse(path, text)));
}

function findingsIn(files: readonly ts.SourceFile[]): Finding[] {
  const errorClasses = errorClassesOf(files);
  return [...cycleFindings(files), ...classNameFindings(files), ...files.flatMap((sf) => fileFindings(sf, errorClasses))];
}

function isProgramError(f: Finding): boolean {
  return f.check === "new-error" && PROGRAM_ERRORS.some((p) => p.file === f.file && f.text.includes(p.pattern));
}

function show(list: readonly Finding[]): string[] {
  return list.map((f) => `${f.check} ${f.where}: ${f.text.length > 120 ? f.text.slice(0, 120) + "..." : f.text}`);
}

/** The checks of one snippet, as `src/snippet.ts` (with `more` files beside it). */
function flags(snippet: string, more: Record<string, string> = {}): string[] {
  return findings(new Map([["src/snippet.ts", snippet], ...Object.entries(more)])).map((f) => f.check);
}

describe("each check flags what it guards against", () => {
  test("cycle: a cycle of two files through a type-only import, a three-file cycle, an import(...) type; not a one-way import", () => {
    expect(flags(`import type { B } from "./b.ts"; export interface A { b: B }`, { "src/b.ts": `import type { A } from "./snippet.ts"; export interface B { a: A }` })).toEqual(["cycle"]);
    expect(flags(`import { b } from "./x/b.ts"; export const a = 1;`, { "src/x/b.ts": `export { c as b } from "../c.ts";`, "src/c.ts": `export * from "./snippet.ts"; export const c = 1;` })).toEqual(["cycle"]);
    expect(flags(`export type A = import("./b.ts").B;`, { "src/b.ts": `export type B = import("./snippet.ts").A | number;` })).toEqual(["cycle"]);
    expect(flags(`import { b } from "./b.ts"; export const a = b;`, { "src/b.ts": `export const b = 1;` })).toEqual([]);
  });

  test("swap: an assignment through a cast, a method of the class assigned in its constructor, a method stored in a field", () => {
    expect(flags(`class A { m(): void {} f(): void { (this as unknown as { m: () => void }).m = () => {}; } }`)).toEqual(["swap"]);
    expect(flags(`function f(o: object): void { (<{ x: number }>o).x = 1; }`)).toEqual(["swap"]);
    expect(flags(`function f(o: object): void { ((o as any) as Map<string, number>).size = 1; (o as any).y = 2; }`)).toEqual(["swap", "swap"]);
    expect(flags(`class B { n = 0; } function f(o: object): void { (o as B).n += 1; }`)).toEqual([]);
    expect(flags(`class A { constructor() { this.m = this.other; } m(): void {} other(): void {} }`)).toEqual(["swap"]);
    expect(flags(`class A { f = (): void => {}; constructor() { this.f = this.m.bind(this); } m(): void {} }`)).toEqual(["swap"]);
    expect(flags(`class A { x = 0; constructor() { this.x = 1; } m(): void { this.x++; } }`)).toEqual([]);
  });

  test("bracket: a member by a string literal, not a computed key, an index or a name no dot can reach", () => {
    expect(flags(`class A { private p = 1; } export const v = new A()["p"];`)).toEqual(["bracket"]);
    expect(flags("declare const o: { run(): void }; o[`run`]();")).toEqual(["bracket"]);
    expect(flags(`declare const o: Record<string, number>; declare const k: string; export const v = [o[k], o["content-type"], [1][0]];`)).toEqual([]);
  });

  test("call-this: .call(this) and .apply(this), not a call with another receiver", () => {
    expect(flags(`function f(this: object): void {} class A { m(): void { f.call(this); } }`)).toEqual(["call-this"]);
    expect(flags(`function f(this: object): void {} class A { m(): void { f.apply(this, []); } }`)).toEqual(["call-this"]);
    expect(flags(`function f(this: object): void {} f.call({});`)).toEqual([]);
  });

  test("class-name: two classes of one name in two files, each flagged", () => {
    expect(flags(`export class Decoder {}`, { "src/other.ts": `export class Decoder extends Object {}` })).toEqual(["class-name", "class-name"]);
    expect(flags(`export class Decoder {}`, { "src/other.ts": `export class StreamingDecoder {}` })).toEqual([]);
  });

  test("new-error: a built-in error made with new or a call, a class of src that extends one; not in the errors module", () => {
    expect(flags(`throw new TypeError("no");`)).toEqual(["new-error"]);
    expect(flags(`throw Error("no");`)).toEqual(["new-error"]);
    expect(flags(`throw new globalThis.RangeError("no");`)).toEqual(["new-error"]);
    expect(flags(`import { DecodeError } from "./common/errors.ts"; throw new DecodeError("no", 0, "INVALID_BYTE");`, { [ERRORS_MODULE]: `export class DecodeError extends RangeError {}` })).toEqual(["new-error"]);
    expect(flags(`class Mine extends Error {} class Deeper extends Mine {} throw new Deeper();`)).toEqual(["new-error"]);
    expect(flags(`export const e = 1;`, { [ERRORS_MODULE]: `export class DecodeError extends RangeError {} export const make = (): DecodeError => new DecodeError(); export const t = (): TypeError => new TypeError("t");` })).toEqual([]);
    expect(flags(`class Problem { constructor(readonly why: string) {} } throw new Problem("not an Error");`)).toEqual([]);
  });
});

describe("src/ has no back doors", () => {
  const files = sourceFiles("src").map((path) => parse(path, readFileSync(join(ROOT, path), "utf8")));
  const paths = new Set(files.map((sf) => sf.fileName));
  const found = findingsIn(files);
  const all = found.filter((f) => !isProgramError(f));

  test("every src file is read", () => {
    expect(paths.size).toBeGreaterThan(50);
    expect(paths).toContain(ERRORS_MODULE);
  });

  test("every relative import names a file that is read here, so that no cycle goes unseen", () => {
    // (the command-line program reads the package's version from package.json)
    const unresolved = files.flatMap((sf) => importsOf(sf).filter((target) => !paths.has(target) && target !== "package.json").map((target) => `${sf.fileName} -> ${target}`));
    expect(unresolved).toEqual([]);
  });

  test.each(["cycle", "swap", "bracket", "call-this", "class-name", "new-error"] as const)("%s: none", (check) => {
    expect(show(all.filter((f) => f.check === check))).toEqual([]);
  });

  test("each of the command-line program's own errors is still made where listed", () => {
    const made = found.filter(isProgramError);
    for (const p of PROGRAM_ERRORS) expect(made.some((f) => f.file === p.file && f.text.includes(p.pattern)), `${p.file} ${p.pattern}`).toBe(true);
  });
});
