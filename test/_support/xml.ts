// A strict check that a document is well-formed XML, enough for the SVG
// charts the benchmark scripts write (no DTD, no CDATA, no processing
// instructions but an optional XML declaration): every tag is closed in
// order, attribute values are quoted and unique per element, text and
// attribute values hold no raw `<` and only the predefined or numeric
// entities, and there is exactly one root element. Returns the problems
// found, each with its offset; an empty list means well-formed.

const NAME = "[A-Za-z_][\\w.:-]*";
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;

/** Problems with `text` as XML, at most `limit` of them. */
export function xmlProblems(text: string, limit = 10): string[] {
  const problems: string[] = [];
  const stack: { name: string; at: number }[] = [];
  let roots = 0;
  let i = 0;
  const fail = (at: number, what: string) => problems.push(`offset ${at}: ${what}`);
  /** Checks a stretch of text or an attribute value for raw `<` and bare `&`. */
  const checkText = (from: number, to: number, where: string) => {
    for (let k = from; k < to; k++) {
      const c = text[k];
      if (c === "<") fail(k, `raw "<" in ${where}`);
      else if (c === "&") {
        ENTITY.lastIndex = k;
        if (!ENTITY.test(text)) fail(k, `bare "&" in ${where}`);
      }
    }
  };
  if (text.startsWith("<?xml")) {
    const end = text.indexOf("?>");
    if (end < 0) return [`offset 0: unterminated XML declaration`];
    i = end + 2;
  }
  const open = new RegExp(`<(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"]*"|'[^']*'))*)\\s*(/?)>`, "y");
  const close = new RegExp(`</(${NAME})\\s*>`, "y");
  const attr = new RegExp(`(${NAME})\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "g");
  while (i < text.length && problems.length < limit) {
    const lt = text.indexOf("<", i);
    const textEnd = lt < 0 ? text.length : lt;
    if (stack.length === 0 && text.slice(i, textEnd).trim() !== "") fail(i, "text outside the root element");
    else checkText(i, textEnd, "text");
    if (lt < 0) break;
    if (text.startsWith("<!--", lt)) {
      const end = text.indexOf("-->", lt + 4);
      if (end < 0) {
        fail(lt, "unterminated comment");
        break;
      }
      i = end + 3;
      continue;
    }
    close.lastIndex = lt;
    const c = close.exec(text);
    if (c) {
      const top = stack.pop();
      if (!top) fail(lt, `</${c[1]}> closes nothing`);
      else if (top.name !== c[1]) fail(lt, `</${c[1]}> closes <${top.name}> opened at ${top.at}`);
      i = close.lastIndex;
      continue;
    }
    open.lastIndex = lt;
    const o = open.exec(text);
    if (!o) {
      fail(lt, `malformed tag ${JSON.stringify(text.slice(lt, lt + 40))}`);
      break;
    }
    const seen = new Set<string>();
    for (const a of o[2]!.matchAll(attr)) {
      if (seen.has(a[1]!)) fail(lt, `attribute ${a[1]} twice on <${o[1]}>`);
      seen.add(a[1]!);
      const value = a[2] ?? a[3] ?? "";
      const from = lt + o[0].indexOf(value, o[0].indexOf(a[0]));
      checkText(from, from + value.length, `attribute ${a[1]} of <${o[1]}>`);
    }
    if (stack.length === 0) roots++;
    if (roots > 1 && stack.length === 0) fail(lt, "a second root element");
    if (o[3] !== "/") stack.push({ name: o[1]!, at: lt });
    i = open.lastIndex;
  }
  for (const s of stack) if (problems.length < limit) fail(s.at, `<${s.name}> never closed`);
  if (roots === 0 && problems.length === 0) problems.push("offset 0: no root element");
  return problems;
}
