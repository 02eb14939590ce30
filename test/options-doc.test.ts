// docs/options.md's option tables are made from the options interfaces by test/tools/options-doc.mjs:
// the file is what the generator makes, each side's interfaces (its own, its stream helpers') document
// exactly the options its resolver reads, and each documented default is what the resolver gives.

import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { decodeOptionsOf } from "../src/decode/options.ts";
import { encodeOptionsOf } from "../src/encode/options.ts";
// @ts-expect-error: a JavaScript tool without declarations
import { DOC, optionsOf, TABLES, withTables } from "./tools/options-doc.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

interface DocOption {
  name: string;
  type: string;
  fallback: string;
  meaning: string;
}
type Generator = {
  DOC: string;
  TABLES: Record<string, { file: string; name: string }>;
  optionsOf: (file: string, name: string, root?: string) => DocOption[];
  withTables: (doc: string, root?: string) => string;
};
const gen = { DOC, TABLES, optionsOf, withTables } as Generator;

/** Each side's resolver (the keys of what it returns are the side's options) and its documented tables. */
const SIDES: Record<string, { resolve: (o: unknown) => object; tables: string[] }> = {
  encode: { resolve: encodeOptionsOf, tables: ["encode", "stream encode"] },
  decode: { resolve: decodeOptionsOf, tables: ["decode", "stream decode"] },
};

/** Documented options that are accepted and never read (@msgpack/msgpack's): no resolver reads them. */
const IGNORED = ["keyDecoder"];

/** The value a `@default` text starts with, when it starts with a literal (`false`, `512`, `"auto"`, `Infinity`, none); else NOT_LITERAL. */
const NOT_LITERAL = Symbol("not a literal");
function literalOf(text: string): unknown {
  const first = text.replaceAll("`", "").split(/[\s:,]/)[0]!;
  if (first === "none" || first === "undefined") return undefined;
  if (first === "true" || first === "false") return first === "true";
  if (first === "Infinity") return Infinity;
  if (/^\d+$/.test(first)) return Number(first);
  if (/^"[^"]*"$/.test(first)) return first.slice(1, -1);
  return NOT_LITERAL;
}

describe("docs/options.md: the option tables are made from the options interfaces", () => {
  test("docs/options.md is what npm run docs:options makes", () => {
    const doc = readFileSync(join(ROOT, gen.DOC), "utf8");
    expect(gen.withTables(doc), "run npm run docs:options").toBe(doc);
  });

  test.each(Object.entries(SIDES))("%s: the side's interfaces document exactly the options its resolver reads, each with a type, a default and a meaning", (_side, { resolve, tables }) => {
    expect(Object.keys(gen.TABLES).filter((t) => tables.includes(t))).toEqual(tables);
    const documented = tables.flatMap((t) => gen.optionsOf(gen.TABLES[t]!.file, gen.TABLES[t]!.name));
    const names = new Set(documented.map((o) => o.name).filter((n) => !IGNORED.includes(n)));
    expect([...names].sort()).toEqual(Object.keys(resolve({})).sort());
    for (const o of documented) {
      expect(o.type, o.name).not.toBe("");
      expect(o.meaning.length, o.name).toBeGreaterThan(10);
      expect(o.meaning, o.name).not.toMatch(/\n|@default/);
    }
  });

  test.each(Object.entries(gen.TABLES))("%s: a default documented as a literal is what the option resolves to when left out", (table, { file, name }) => {
    const { resolve } = Object.values(SIDES).find((s) => s.tables.includes(table))!;
    const resolved = resolve({}) as Record<string, unknown>;
    let literals = 0;
    for (const o of gen.optionsOf(file, name)) {
      const documented = literalOf(o.fallback);
      if (documented === NOT_LITERAL || IGNORED.includes(o.name)) continue;
      literals++;
      expect(resolved[o.name] ?? undefined, `${o.name}: @default ${o.fallback}`).toBe(documented);
    }
    expect(literals).toBeGreaterThan(0);
  });

  test("a table out of date is made again; an option without @default, or an unknown table, is an error", () => {
    const doc = readFileSync(join(ROOT, gen.DOC), "utf8");
    const stale = doc.replace("| `sortKeys` | `boolean` | `false` |", "| `sortKeys` | `boolean` | `true` |");
    expect(stale).not.toBe(doc);
    expect(gen.withTables(stale)).toBe(doc);
    expect(() => gen.withTables(doc.replace("<!-- options: encode -->", "<!-- options: encoder -->"))).toThrow(/no table named "encoder"/);
    expect(() => gen.withTables(doc.replace("<!-- options: encode -->", "<!-- removed -->"))).toThrow(/3 option tables, expected 4/);
    const root = mkdtempSync(join(tmpdir(), "options-doc-"));
    try {
      mkdirSync(join(root, "src"));
      writeFileSync(join(root, "src/o.ts"), "export interface O {\n  /** Documented. @default 1 */\n  a?: number;\n  /** Not documented by default. */\n  b?: boolean;\n}\n");
      expect(() => gen.optionsOf("src/o.ts", "O", root)).toThrow(/O\.b has no @default/);
      writeFileSync(join(root, "src/o.ts"), "export type Mode = \"x\" | \"y\";\nexport interface O<C> {\n  /** A | B, see {@link O}.\n   *\n   * Second paragraph. @default \"x\" */\n  a?: Mode | undefined;\n  /** @default none */\n  c?: C;\n}\n");
      const [a, c] = gen.optionsOf("src/o.ts", "O", root);
      expect(a).toEqual({ name: "a", type: '`"x" | "y"`', fallback: '"x"', meaning: "A | B, see {@link O}." });
      expect(c).toMatchObject({ name: "c", type: "any", fallback: "none" });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
