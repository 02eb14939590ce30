// Post-processes the declarations that `tsc --emitDeclarationOnly` writes to
// dist/, then checks them. Run by `npm run build:types`.
//
// 1. tsc keeps the `.ts` specifiers of src/ in .d.ts files
//    (`rewriteRelativeImportExtensions` only rewrites JavaScript output), and a
//    consumer without `allowImportingTsExtensions` rejects them. Rewrite every
//    relative specifier to `.js`.
// 2. With "type": "module", a .d.ts describes an ES module, so `require()`
//    users need CommonJS declarations: write a `.d.cts` twin of every file
//    whose relative specifiers end in `.cjs`.
// 3. Verify: every relative specifier ends in `.js` (`.cjs`) and names a
//    declaration file that exists. Exit 1 otherwise.
import { readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join, dirname, relative } from "node:path";

const DIST = process.argv[2] ?? "dist";

/** Matches `from "x"`, `import "x"`, `import("x")` and `export ... from "x"`. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])([^"']+)\2/g;

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

function rewrite(text, ext) {
  return text.replace(SPECIFIER, (all, head, quote, spec) => {
    if (!spec.startsWith("./") && !spec.startsWith("../")) return all;
    const bare = spec.replace(/\.(d\.)?[cm]?[tj]s$/, "");
    return `${head}${quote}${bare}${ext}${quote}`;
  });
}

function check(file, text, ext, declExt) {
  const problems = [];
  for (const [, , , spec] of text.matchAll(SPECIFIER)) {
    if (!spec.startsWith("./") && !spec.startsWith("../")) continue;
    if (!spec.endsWith(ext)) {
      problems.push(`${file}: specifier "${spec}" does not end in ${ext}`);
      continue;
    }
    const target = join(dirname(file), spec.slice(0, -ext.length) + declExt);
    if (!existsSync(target)) problems.push(`${file}: "${spec}" has no ${relative(".", target)}`);
  }
  return problems;
}

const declarations = [...walk(DIST)].filter((f) => f.endsWith(".d.ts"));
if (declarations.length === 0) {
  console.error(`fix-dts: no .d.ts files under ${DIST}/; run tsc --emitDeclarationOnly first`);
  process.exit(1);
}
const problems = [];
for (const file of declarations) {
  const esm = rewrite(readFileSync(file, "utf8"), ".js");
  const cjs = rewrite(esm, ".cjs");
  const cjsFile = file.slice(0, -".d.ts".length) + ".d.cts";
  writeFileSync(file, esm);
  writeFileSync(cjsFile, cjs);
}
for (const file of declarations) {
  const cjsFile = file.slice(0, -".d.ts".length) + ".d.cts";
  problems.push(...check(file, readFileSync(file, "utf8"), ".js", ".d.ts"));
  problems.push(...check(cjsFile, readFileSync(cjsFile, "utf8"), ".cjs", ".d.cts"));
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`fix-dts: ${declarations.length} declaration files checked, .d.cts twins written`);
