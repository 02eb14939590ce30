// The code-line counter behind `npm run size`'s targets: what counts as a
// line of code, checked on texts whose count is known, and its per-job sums
// checked against the files they are made of.
import { describe, expect, test } from "vitest";
// @ts-expect-error: a plain .mjs tool without declarations
import { codeLines, jobLines, sourceLines } from "./tools/code-lines.mjs";

describe("code lines (test/tools/code-lines.mjs)", () => {
  test.each([
    ["", 0],
    ["\n\n   \n\t\n", 0],
    ["// a comment\n  // another\n", 0],
    ["/**\n * JSDoc\n */\n", 0],
    ["const a = 1;\n", 1],
    ["const a = 1; // and a comment\n", 1],
    ["/* before */ a();\n", 1],
    ["a(); /* opens\n still a comment\n ends */\n", 1],
    ["const s = '// not a comment';\nconst t = \"/* nor this */\";\n", 2],
    ["const u = `line one\n\nline three`;\n", 2], // a template literal's lines are code; a blank one holds no character
    ["const v = 'a\\'b'; // escaped quote\n", 1],
    ["x = 1", 1], // no final newline
    ["const w = 1;\r\n\r\n// c\r\n", 1],
  ])("%j has %i", (text, expected) => {
    expect(codeLines(text)).toBe(expected);
  });

  test("each job's count is the sum of its files' counts, and the library's is every file outside inspect/ and cli/", () => {
    const lines: Map<string, number> = sourceLines();
    expect(lines.size).toBeGreaterThan(20);
    const sum = (keep: (f: string) => boolean): number => [...lines].reduce((n, [f, c]) => (keep(f) ? n + c : n), 0);
    const jobs: { job: string; lines: number; target: number; over: number }[] = jobLines(lines);
    const byName = Object.fromEntries(jobs.map((j) => [j.job.split(" ")[0], j]));
    expect(byName["library"]!.lines).toBe(sum((f) => !/^(inspect|cli)\//.test(f)));
    expect(byName["encode/"]!.lines).toBe(sum((f) => f.startsWith("encode/")));
    expect(byName["stream/"]!.lines).toBe(sum((f) => f.startsWith("stream/")));
    expect(byName["options,"]!.lines).toBe(sum((f) => /(^|\/)options\.ts$/.test(f)));
    for (const j of jobs) expect(j.over).toBe(Math.max(0, j.lines - j.target));
  });
});
