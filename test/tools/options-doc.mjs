// Makes the option tables of docs/options.md from the options interfaces:
// each option's type from its declaration, its default from its `@default`
// and its meaning from the first paragraph of its documentation (the rest,
// such as a list of hazards, stays in the interface for editors). Each
// side's resolver, beside its interface, is typed against it key for key
// (src/common/options.ts), so each option is described in one place;
// test/options-doc.test.ts checks that docs/options.md is what this script
// makes, and that each interface documents exactly the options its
// resolver reads.
//
//   node test/tools/options-doc.mjs          write docs/options.md
//   node test/tools/options-doc.mjs --check  exit 1 when docs/options.md differs from what it would write
//
// Each table sits between `<!-- options: NAME -->` and `<!-- end of options -->`,
// NAME being one of the tables below; the text around them is written by hand.

import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The file the tables go into. */
export const DOC = "docs/options.md";

/** Each table: the interface it documents, and the file that declares it. */
export const TABLES = {
  encode: { file: "src/encode/options.ts", name: "EncodeOptions" },
  decode: { file: "src/decode/options.ts", name: "DecodeOptions" },
  "stream encode": { file: "src/encode/options.ts", name: "StreamEncodeOptions" },
  "stream decode": { file: "src/decode/options.ts", name: "StreamDecodeOptions" },
};

/**
 * The options `name` declares in `file` (its own members, not those it
 * extends): each with its type, its `@default` text and the first
 * paragraph of its documentation, in the order of the declaration.
 */
export function optionsOf(file, name, root = ROOT) {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.ES2022, true);
  const aliases = new Map();
  let found;
  source.forEachChild((node) => {
    if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, node.type.getText(source));
    if (ts.isInterfaceDeclaration(node) && node.name.text === name) found = node;
  });
  if (found === undefined) throw new Error(`${file}: no interface ${name}`);
  const typeParameters = new Set((found.typeParameters ?? []).map((p) => p.name.text));
  return found.members.filter(ts.isPropertySignature).map((member) => {
    const doc = member.jsDoc?.at(-1);
    if (doc === undefined) throw new Error(`${file}: ${name}.${member.name.getText(source)} has no documentation`);
    const { text, tags } = parseDoc(doc.getText(source));
    if (!("default" in tags)) throw new Error(`${file}: ${name}.${member.name.getText(source)} has no @default`);
    return {
      name: member.name.getText(source),
      type: typeText(member.type.getText(source), aliases, typeParameters),
      fallback: tags.default,
      meaning: text.split(/\n\s*\n/)[0].replace(/\s+/g, " ").trim(),
    };
  });
}

/** The text of a `/** ... *\/` comment, and its tags' texts by name. */
function parseDoc(comment) {
  const body = comment
    .replace(/^\/\*\*/, "")
    .replace(/\*\/$/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .join("\n");
  const [text, ...rest] = body.split(/(?:^|\s)@(?=\w+\s)/);
  const tags = {};
  for (const tag of rest) {
    const [, tagName, value] = /^(\w+)\s+([\s\S]*)$/.exec(tag);
    tags[tagName] = value.replace(/\s+/g, " ").trim();
  }
  return { text: text.trim(), tags };
}

/** The type as a reader wants it: without `| undefined`, aliases of the file spelled out, a type parameter or `unknown` as "any". */
function typeText(type, aliases, typeParameters) {
  let t = type.replace(/\s*\|\s*undefined$/, "");
  if (aliases.has(t)) t = aliases.get(t);
  if (typeParameters.has(t) || t === "unknown") return "any";
  // `ExtensionCodecType<ContextType>`: the interface's own type parameter says nothing to a reader
  for (const p of typeParameters) t = t.replaceAll(`<${p}>`, "");
  return `\`${t}\``;
}

/** A `@default` text as a cell: a literal first word in code (`false`, `512`, `"auto"`), the rest as written. */
function defaultText(text) {
  return text.replace(/^(true|false|-?\d[\d_.]*|\d+\*\*\d+(?:-\d+)?|Infinity|undefined|"[^"]*")(?=$|[\s,;:)])/, "`$1`");
}

/** Documentation text as Markdown: `{@link X}` as code, `docs/x.md` as a link from docs/, `|` escaped for a table cell. */
function markdown(text) {
  return text
    .replace(/\{@link\s+([^}\s]+)\s*\}/g, "`$1`")
    .replace(/\bdocs\/([\w-]+)\.md\b/g, "[$1.md]($1.md)")
    .replace(/\|/g, "\\|");
}

/** The Markdown table of the options `name` declares in `file`. */
export function optionsTable(file, name, root = ROOT) {
  const rows = optionsOf(file, name, root).map(
    (o) => `| \`${o.name}\` | ${markdown(o.type)} | ${markdown(defaultText(o.fallback))} | ${markdown(o.meaning)} |`,
  );
  return ["| option | type | default | meaning |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

/** `doc` with each generated table made again from its interface. */
export function withTables(doc, root = ROOT) {
  let seen = 0;
  const out = doc.replace(/(<!-- options: ([\w ]+) -->\n)[\s\S]*?(^<!-- end of options -->)/gm, (_all, open, table, close) => {
    const from = TABLES[table];
    if (from === undefined) throw new Error(`${DOC}: no table named "${table}" (known: ${Object.keys(TABLES).join(", ")})`);
    seen++;
    return `${open}${optionsTable(from.file, from.name, root)}\n${close}`;
  });
  if (seen !== Object.keys(TABLES).length) throw new Error(`${DOC}: ${seen} option tables, expected ${Object.keys(TABLES).length}`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = join(ROOT, DOC);
  const before = readFileSync(path, "utf8");
  const after = withTables(before);
  if (process.argv.includes("--check")) {
    if (after !== before) {
      console.error(`${DOC} is not what the options interfaces make: run npm run docs:options`);
      process.exit(1);
    }
  } else if (after !== before) {
    writeFileSync(path, after);
    console.log(`wrote ${DOC}`);
  } else {
    console.log(`${DOC} is up to date`);
  }
}
