/**
 * What the encoder's, the decoder's and the stream helpers' options have
 * in common: how an options table declares each option, the rules their
 * values are checked by, the reader that checks them (misspelled names
 * included), and the cache that finds the coder for options written
 * inline in a call.
 *
 * Each side declares each of its options once, in its table
 * ({@link OptionTable}: the rule and the default by name, typed key for
 * key against its options interface, whose documentation describes each
 * option and is what docs/options.md's tables are made from, by
 * test/tools/options-doc.mjs). The table's order is the order the options
 * are read in: {@link optionSide} takes the names, the rules and the
 * known names from it once per side. A side reads its options through
 * {@link readOptions}: every option exactly once, by property access, so a
 * getter is read once and an inherited or non-enumerable option counts,
 * each checked by its table's rule. What it read, in the table's order, is
 * the list of values the {@link CoderCache} is keyed by: no object can
 * change a coder after it was made. The readers load each option by its
 * literal name (a load by a name held in a variable is megamorphic and
 * doubled the cost of a call with options); test/options.test.ts checks
 * that each reads exactly its table's names, in the table's order.
 *
 * @module
 */

/**
 * What an option takes: the text an error says its value should be, and
 * the test of a value (never given undefined, which every option takes for
 * its default); null for an option that takes anything.
 */
export type OptionRule = readonly [expected: string, accepts: (v: unknown) => boolean] | null;

/**
 * One option of one side, as its table declares it: what it takes
 * ({@link OptionRule}) and its default (what `undefined` resolves to).
 * The description is the option's documentation in the side's options
 * interface, which the table is typed against key for key.
 */
export type OptionSpec = readonly [rule: OptionRule, fallback: unknown];

/** A side's options: each name with its {@link OptionSpec}, in the order they are read. */
export type OptionTable<Options> = { readonly [K in keyof Options]-?: OptionSpec };

/** Each option of `Options` as a side uses it once resolved: present, and never `undefined`. */
export type Resolved<Options> = { readonly [K in keyof Options]-?: Exclude<Options[K], undefined> };

/** A side's options as {@link readOptions} uses them, taken from its table by {@link optionSide}. */
export interface OptionSide {
  /** The table. */
  readonly table: Readonly<Record<string, OptionSpec>>;
  /** The option names, in the table's order (the order of the values read). */
  readonly names: readonly string[];
  /** Each option's rule, in the same order. */
  readonly rules: readonly OptionRule[];
  /** The names that are options of this side, accepted and not a misspelling: the table's, and `accepted`. */
  readonly known: ReadonlySet<string>;
  /** Reads the values of the options of `o`, each once, by name, in the table's order. */
  readonly read: (o: Record<string, unknown>) => unknown[];
  /** The error for an option `name` whose value is not `expected`. */
  readonly fail: (name: string, value: unknown, expected: string) => Error;
}

/**
 * A side's options as {@link readOptions} uses them: the names and rules of
 * `table` in its order, and the names known to it (the table's and
 * `accepted`: options accepted and never read), made once per side.
 */
export function optionSide(
  table: Readonly<Record<string, OptionSpec>>,
  read: (o: Record<string, unknown>) => unknown[],
  fail: (name: string, value: unknown, expected: string) => Error,
  accepted: readonly string[] = [],
): OptionSide {
  const names = Object.keys(table);
  return { table, names, rules: names.map((name) => table[name]![0]), known: new Set([...names, ...accepted]), read, fail };
}

/**
 * The values read by {@link readOptions} by name, each `undefined` replaced
 * by its default from the side's table: what a side resolves its options
 * from (on the cold path: once per encoder or decoder made).
 */
export function withDefaults(side: OptionSide, values: readonly unknown[]): Record<string, unknown> {
  const named: Record<string, unknown> = {};
  side.names.forEach((name, i) => (named[name] = values[i] === undefined ? side.table[name]![1] : values[i]));
  return named;
}

/** A flag. */
export const BOOLEAN: OptionRule = ["a boolean", (v) => typeof v === "boolean"];

/** A list (the record `structures`). */
export const ARRAY: OptionRule = ["an array of field name arrays", Array.isArray];

/** A decode limit: a non-negative integer, or Infinity. */
export const LIMIT: OptionRule = ["a non-negative integer", isLimit];

/**
 * Reads the options of `side` from `options` (null or undefined: none),
 * each exactly once, by property access, so a getter is read once and an
 * inherited or non-enumerable option counts; checks each value that is
 * not undefined against its rule and the enumerable names for misspelled
 * options (`maxStrLenght`); returns the values in the table's order.
 *
 * @throws what the side's `fail` makes, for options that are not an
 *   object, a value its rule refuses, or a misspelled name
 */
export function readOptions(options: unknown, side: OptionSide): unknown[] {
  if (options == null) return side.read({});
  if (typeof options !== "object") throw side.fail("options", options, "an object");
  const o = options as Record<string, unknown>;
  // read by name in the side's reader (`o.sortKeys`...): a load by a name held in a variable is megamorphic,
  // and reading 17 options that way took a call with options from ~220 to ~480 ns on Node 20
  const values = side.read(o);
  const rules = side.rules;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const rule = rules[i];
    if (v !== undefined && rule && !rule[1](v)) throw side.fail(side.names[i]!, v, rule[0]);
  }
  for (const name in o) {
    if (side.known.has(name)) continue;
    const meant = misspelling(name, side.known);
    // a name that is not a plain identifier is quoted, so a control character in it reaches no terminal
    if (meant !== undefined) throw side.fail(/^[\w$]+$/.test(name) ? name : JSON.stringify(name), o[name], `an option: did you mean ${meant}?`);
  }
  return values;
}

/** Whether `v` is a limit: a non-negative integer, or Infinity. */
export function isLimit(v: unknown): boolean {
  return typeof v === "number" && v >= 0 && (v % 1 === 0 || v === Infinity);
}

/**
 * The option of `known` that `name` was likely meant to be, when it is
 * not one but differs from one only in letter case or by one edit
 * (inserting, deleting or changing a letter, or swapping two neighbours),
 * as `maxStrLenght` from `maxStrLength`; else undefined. Other libraries'
 * option names are far from ours and pass.
 */
export function misspelling(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  for (const option of known) if (oneEditApart(lower, option.toLowerCase())) return option;
  return undefined;
}

/** Whether `a` and `b` are equal, or one insertion, deletion, change or swap of neighbours apart. */
function oneEditApart(a: string, b: string): boolean {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return (
    a.slice(i + 1) === b.slice(i + 1) || // changed (or equal)
    a.slice(i + 1) === b.slice(i) || // a letter too many
    a.slice(i) === b.slice(i + 1) || // a letter missing
    (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)) // swapped
  );
}

/**
 * How many coders a {@link CoderCache} keeps (the most recently used):
 * programs use a few option sets; more only happens with a new `context`
 * or `extensionCodec` object per call, and each coder costs little to make.
 */
const KEPT_CODERS = 64;

/**
 * Coders by the option values they were made from. The values are what a
 * direction's read function read from an options argument, in its fixed
 * order; two arguments that read the same (objects and functions by
 * identity) share a coder. The last one found is tried first, so hoisted
 * options and an inline literal written the same way on every call cost
 * one comparison of their values.
 */
export class CoderCache<T> {
  /** Each option values read, with the coder made for them, the most recently used first. */
  private readonly entries: (readonly [values: readonly unknown[], coder: T])[];
  private readonly make: (values: readonly unknown[]) => T;

  /** @param make builds the coder for the values read from an options argument */
  constructor(make: (values: readonly unknown[]) => T) {
    this.entries = [];
    this.make = make;
  }

  /** The coder made from `values`, made on first need. */
  get(values: readonly unknown[]): T {
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (sameValues(entry[0], values)) {
        if (i !== 0) entries.unshift(entries.splice(i, 1)[0]!); // most recent first
        return entry[1];
      }
    }
    const coder = this.make(values);
    if (entries.unshift([values, coder]) > KEPT_CODERS) entries.pop();
    return coder;
  }
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
