// Code lines of src/ per job, against the core's size targets (printed by
// `npm run size`; `node test/tools/code-lines.mjs` alone prints them too).
// A code line is a line that holds a character outside a comment: blank
// lines and lines that are only a comment do not count; strings and template
// literals are code. The targets are where the core is heading, not ceilings
// that fail a build: the report says how far each job is from its own.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The code lines of one file's text. */
export function codeLines(text) {
  let count = 0;
  let code = false; // this line holds code
  let block = false; // inside /* */
  let quote = ""; // inside a string or template literal opened by this character
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") {
      if (code) count++;
      code = false;
      if (quote === '"' || quote === "'") quote = ""; // an unterminated string ends with its line
      continue;
    }
    if (block) {
      if (c === "*" && text[i + 1] === "/") (block = false), i++;
    } else if (quote !== "") {
      code = true;
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === "/" && text[i + 1] === "/") {
      const eol = text.indexOf("\n", i);
      i = (eol < 0 ? text.length : eol) - 1;
    } else if (c === "/" && text[i + 1] === "*") {
      block = true;
      i++;
    } else if (c === '"' || c === "'" || c === "`") {
      quote = c;
      code = true;
    } else if (c !== " " && c !== "\t" && c !== "\r") code = true;
  }
  return count + (code ? 1 : 0);
}

/** Code lines of every .ts file under src/, by path relative to src/. */
export function sourceLines(src = join(ROOT, "src")) {
  const lines = new Map();
  (function walk(dir) {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) lines.set(relative(src, path), codeLines(readFileSync(path, "utf8")));
    }
  })(src);
  return lines;
}

/** Each job of the core: the files it is made of, and its target in code lines. */
const JOBS = [
  { job: "library without inspect/ and the CLI", target: 3500, has: (f) => !f.startsWith("inspect/") && !f.startsWith("cli/") },
  { job: "encode/", target: 850, has: (f) => f.startsWith("encode/") },
  { job: "stream/", target: 450, has: (f) => f.startsWith("stream/") },
  { job: "options, all sides (the options.ts files)", target: 150, has: (f) => f.endsWith("/options.ts") },
];

/** Each job's code lines and target, and by how much it is over (0 when within). */
export function jobLines(lines = sourceLines()) {
  return JOBS.map(({ job, target, has }) => {
    let n = 0;
    for (const [file, count] of lines) if (has(file)) n += count;
    return { job, lines: n, target, over: Math.max(0, n - target) };
  });
}

/** The report's lines, for humans. */
export function describeJobs(jobs = jobLines()) {
  return jobs.map((j) => `target: ${j.job} ${j.lines} code lines of ${j.target}${j.over === 0 ? " -- within" : ` -- over by ${j.over}`}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const line of describeJobs()) console.log(line);
  if (process.argv.includes("--files")) for (const [file, n] of sourceLines()) console.log(`${String(n).padStart(6)}  src/${file}`);
}
