// The documentation's shape: the README stays short enough to read (at most
// 4,000 words) and opens with a table of contents, and every relative link
// in README.md, docs/*.md and benchmarks/README.md leads somewhere: to a
// file that exists and, for `#anchor`, to a heading of that file under
// GitHub's rules for heading ids.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT } from "./tools/harness.ts";

const MAX_WORDS = 4000;

/** The Markdown files whose links are checked, relative to the repository. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs.sort(), "benchmarks/README.md"];
}

/** The lines of a Markdown text outside fenced code blocks (others replaced by ""). */
function proseLines(text: string): string[] {
  let fence: string | null = null;
  return text.split("\n").map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && m) {
      fence = m[1]!;
      return "";
    }
    if (fence !== null) {
      if (new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(line)) fence = null;
      return "";
    }
    return line;
  });
}

/** The id GitHub gives a heading: its text as rendered, lower-cased, punctuation other than - and _ dropped, each space a hyphen. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .replace(/<[^>]+>/g, "") // inline HTML tags
    .replace(/[`*]/g, "") // code spans, emphasis
    .replace(/(^|\s)_+|_+(\s|$)/g, "$1$2"); // _emphasis_ (not snake_case)
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** Every heading id of a Markdown text, with GitHub's -1, -2... for repeats. */
export function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) ids.add(m[1]!);
  return ids;
}

/** Inline links and images of the prose (code spans left out): [target, line number of its `](`]. */
export function links(text: string): [string, number][] {
  const out: [string, number][] = [];
  proseLines(text).forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push([m[1]!, i + 1]);
  });
  return out;
}

/** What is wrong with each relative link of one file ([] when every link resolves). */
export function brokenLinks(file: string, text: string, read: (path: string) => string | null): string[] {
  const problems: string[] = [];
  for (const [target, line] of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // https:, mailto:...
    const hash = target.indexOf("#");
    const path = hash === -1 ? target : target.slice(0, hash);
    const anchor = hash === -1 ? "" : decodeURIComponent(target.slice(hash + 1));
    const resolved = path === "" ? file : relative(".", join(dirname(file), path));
    const content = path === "" ? text : read(resolved);
    if (content === null) {
      problems.push(`${file}:${line}: ${target}: no file ${resolved}`);
      continue;
    }
    if (anchor && resolved.endsWith(".md") && !headingIds(content).has(anchor)) {
      problems.push(`${file}:${line}: ${target}: no heading #${anchor} in ${resolved}`);
    }
  }
  return problems;
}

const readFromRepo = (path: string): string | null => {
  const full = join(ROOT, path);
  if (!existsSync(full)) return null;
  return statSync(full).isDirectory() ? "" : readFileSync(full, "utf8");
};

describe("the link checker", () => {
  test("slugs follow GitHub's rules", () => {
    expect(slug("Coming from @msgpack/msgpack")).toBe("coming-from-msgpackmsgpack");
    expect(slug("Coming from notepack.io")).toBe("coming-from-notepackio");
    expect(slug("`fetch` bodies")).toBe("fetch-bodies");
    expect(slug("Where it is faster, and where slower")).toBe("where-it-is-faster-and-where-slower");
    expect(slug("max_depth and *limits*")).toBe("max_depth-and-limits");
    expect(slug("Größe & Ü")).toBe("größe--ü");
    expect([...headingIds("# A\n## A\n```\n# not a heading\n```\n### A")]).toEqual(["a", "a-1", "a-2"]);
  });

  test("finds a missing file, a missing heading and a wrapped link, and leaves code and absolute links alone", () => {
    const files: Record<string, string> = { "docs/a.md": "# Alpha\n\n## Beta\n", "README.md": "# Top\n" };
    const read = (p: string) => files[p] ?? null;
    const text = [
      "# Page",
      "[ok](a.md#beta) [self](#page) [up](../README.md#top) [web](https://example.com/x#y)",
      "[gone](b.md) [no heading](a.md#gamma) [up wrong](../README.md#bottom) `[code](c.md)`",
      "[wrapped",
      "text](a.md#delta)",
      "```md",
      "[in a fence](d.md)",
      "```",
    ].join("\n");
    expect(brokenLinks("docs/page.md", text, read)).toEqual([
      "docs/page.md:3: b.md: no file docs/b.md",
      "docs/page.md:3: a.md#gamma: no heading #gamma in docs/a.md",
      "docs/page.md:3: ../README.md#bottom: no heading #bottom in README.md",
      "docs/page.md:5: a.md#delta: no heading #delta in docs/a.md",
    ]);
  });
});

describe("README.md and docs/", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");

  test("the first screen (what, why, install, the first example) takes at most 500 words, and its first example uses encode and decode only", () => {
    const first = readme.slice(0, readme.indexOf("\n## First steps\n"));
    const steps = readme.slice(readme.indexOf("\n## First steps\n"));
    const example = /```ts\n([\s\S]*?)```/.exec(steps)![1]!;
    const words = (first + example).split(/\s+/).filter(Boolean).length;
    expect(words).toBeLessThanOrEqual(500);
    expect(/import \{ ([^}]*) \} from "@resizable\/msgpack";/.exec(example)![1]).toBe("decode, encode");
    // where Decoder costs bundle size, the README says so next to it
    expect(steps.slice(0, steps.indexOf("import { Decoder"))).toMatch(/`Decoder` from the main entry also brings the stream decoders into a\s+browser bundle/);
  });

  test(`the README has at most ${MAX_WORDS} words`, () => {
    const words = readme.split(/\s+/).filter(Boolean).length;
    expect(words).toBeLessThanOrEqual(MAX_WORDS);
  });

  test("a table of contents before the first section links every ## section of the README", () => {
    const lines = proseLines(readme);
    const first = lines.findIndex((l) => /^##\s/.test(l));
    expect(first).toBeGreaterThan(0);
    expect(first, "the first section starts within the first 80 lines").toBeLessThan(80);
    const head = lines.slice(0, first).join("\n");
    const sections = lines.filter((l) => /^##\s/.test(l)).map((l) => slug(l.replace(/^##\s+/, "")));
    expect(sections.length).toBeGreaterThan(4);
    const linked = new Set(links(head).map(([t]) => t));
    expect(sections.filter((s) => !linked.has(`#${s}`))).toEqual([]);
  });

  test("the README links every page of docs/", () => {
    const linked = new Set(links(readme).map(([t]) => t.split("#")[0]));
    const pages = markdownFiles().filter((f) => f.startsWith("docs/"));
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  test.each(markdownFiles())("every relative link in %s resolves to a file and heading", (file) => {
    expect(brokenLinks(file, readFileSync(join(ROOT, file), "utf8"), readFromRepo)).toEqual([]);
  });
});
