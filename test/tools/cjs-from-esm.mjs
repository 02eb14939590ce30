// Writes the CommonJS build from the ESM build (npm run build:cjs).
//
// The ESM build is split: dist/index.js and dist/streams.js share one copy of
// the codec in dist/chunks/*.js, so `DecodeError`, `ExtData` and friends are
// the same classes whichever entry they come from. esbuild cannot split CJS
// output, and a separate CJS bundle per entry would give "./streams" its own
// copy of every class (`instanceof` across entries would fail). So each ESM
// output file is transformed one-to-one into a `.cjs` twin, and the relative
// `require("./chunks/x.js")` specifiers esbuild leaves are pointed at the
// `.cjs` twins. Platform "node" adds the export-name annotation Node's
// cjs-module-lexer reads, so `import { encode } from "./dist/index.cjs"` works.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { transformSync } from "esbuild";

const DIST = process.argv[2] ?? "dist";

function* esmFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      // browser bundles and the command line (dist/bin, built for Node as ESM) are no modules to convert
      if (entry.name !== "browser" && entry.name !== "bin") yield* esmFiles(path);
    } else if (entry.name.endsWith(".js")) {
      yield path;
    }
  }
}

/** `require("./a/b.js")` -> `require("./a/b.cjs")`, relative specifiers only. */
const RELATIVE_REQUIRE = /\brequire\((["'])(\.{1,2}\/[^"']+)\.js\1\)/g;

let count = 0;
for (const file of esmFiles(DIST)) {
  const source = readFileSync(file, "utf8").replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n");
  const { code } = transformSync(source, { format: "cjs", platform: "node", target: "es2022", sourcefile: file, logLevel: "warning" });
  const rewritten = code.replace(RELATIVE_REQUIRE, (_all, q, spec) => `require(${q}${spec}.cjs${q})`);
  const leftover = /\bimport\s*\(|\brequire\((["'])\.{1,2}\/[^"']+\.js\1\)/.exec(rewritten);
  if (leftover) {
    console.error(`cjs-from-esm: ${file}: unconverted import left: ${leftover[0]}`);
    process.exit(1);
  }
  writeFileSync(file.slice(0, -".js".length) + ".cjs", rewritten);
  count++;
}
if (count === 0) {
  console.error(`cjs-from-esm: no .js files under ${DIST}/; run the ESM build first`);
  process.exit(1);
}
console.log(`cjs-from-esm: ${count} files converted`);
