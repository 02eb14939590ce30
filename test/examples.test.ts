/**
 * Runs every `@example` in the JSDoc of src/ and every TypeScript block of
 * README.md that imports the package, against src/. `console.assert` in an
 * example throws here, so the examples are real tests.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";

const root = join(import.meta.dirname, "..");
const outDir = join(import.meta.dirname, ".examples");

interface Example {
  name: string;
  code: string;
}

function fromJsDoc(file: string): Example[] {
  const text = readFileSync(join(root, "src", file), "utf8");
  const examples: Example[] = [];
  const re = /\* @example([^\n]*)\n((?:\s*\*.*\n)*?)\s*\*\s*```ts\n((?:\s*\*.*\n)*?)\s*\*\s*```/g;
  for (const m of text.matchAll(re)) {
    const code = m[3]!.split("\n").map((line) => line.replace(/^\s*\* ?/, "")).join("\n");
    examples.push({ name: `${file}: ${m[1]!.trim() || "example"} #${examples.length + 1}`, code });
  }
  return examples;
}

function fromReadme(): Example[] {
  const text = readFileSync(join(root, "README.md"), "utf8");
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .filter((code) => /from "@resizable\/msgpack(\/mini)?"/.test(code))
    .map((code, i) => ({ name: `README.md block #${i + 1}`, code }));
}

const files = readdirSync(join(root, "src")).filter((f) => f.endsWith(".ts"));
const examples = [...files.flatMap(fromJsDoc), ...fromReadme()];

function prepare(example: Example, i: number): string {
  const code = example.code
    .replaceAll('"@resizable/msgpack/streams"', JSON.stringify(join(root, "src", "streams.ts")))
    .replaceAll('"@resizable/msgpack/mini"', JSON.stringify(join(root, "src", "mini.ts")))
    .replaceAll('"@resizable/msgpack"', JSON.stringify(join(root, "src", "index.ts")))
    .replaceAll("console.assert(", "__assert(");
  const file = join(outDir, `example-${i}.ts`);
  writeFileSync(file, `const __assert = (ok: unknown, ...m: unknown[]): void => { if (!ok) throw new Error("assertion failed " + m.join(" ")); };\n${code}\nexport {};\n`);
  return file;
}

describe("documentation examples run and their assertions hold", () => {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  test("every src module with exports has examples", () => {
    expect(examples.length).toBeGreaterThan(20);
  });

  test.each(examples.map((e, i) => [e.name, e, i] as const))("%s", async (_, example, i) => {
    const file = prepare(example, i);
    await import(pathToFileURL(file).href);
  });
});
