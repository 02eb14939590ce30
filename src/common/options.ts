/**
 * What the encoder's, the decoder's and the stream helpers' options have
 * in common: the rules their values are checked by, the check of the
 * options object (misspelled names included), and the cache that finds the
 * coder for options written inline in a call.
 *
 * Each side declares each of its options twice, side by side in one file:
 * in its options interface (the type, and the documentation that
 * docs/options.md's tables are made from, by test/tools/options-doc.mjs)
 * and as one line of its resolver, which reads the option once by its
 * literal name, checks it by its rule and fills in its default, into an
 * object of fixed shape typed against the interface key for key. The
 * names a side knows, for the misspelling check and the docs' tables, are
 * the names its resolver reads ({@link optionNames}).
 *
 * @module
 */

/** What an option takes: the text an error says its value should be, and the test of a value (never given undefined). */
export type Rule<T> = readonly [expected: string, accepts: (v: unknown) => v is T];

/** Each option of `Options` as a side uses it once resolved: present, and never `undefined`; marked with the side. */
export type Resolved<Options> = { readonly [K in keyof Options]-?: Exclude<Options[K], undefined> } & { readonly [RESOLVED]?: OptionSide };

/**
 * A side: its error for option `name` whose value is not `expected` (`name` "options": the options argument),
 * its resolver (whose reads name its options), the names it accepts and never reads, and its names once found.
 */
export type OptionSide = { fail: (name: string, value: unknown, expected: string) => Error; resolve: (o: unknown) => object; accepted: string[]; names?: Set<string> };

/** A flag. */
export const BOOLEAN: Rule<boolean> = ["a boolean", (v): v is boolean => typeof v === "boolean"];

/** A list (the record `structures`). */
export const ARRAY: Rule<never[]> = ["an array of field name arrays", (v): v is never[] => Array.isArray(v)];

/** A limit: an integer from 0 to `max`, or Infinity when `max` is; `text` says so in an error. */
export const upTo = (max: number, text = `an integer from 0 to ${max}`): Rule<number> => [text, (v): v is number => typeof v === "number" && v >= 0 && v <= max && (v % 1 === 0 || v === Infinity)];

/** The key of the side that resolved an options object: its resolver, given the object, returns it as it is. */
export const RESOLVED: unique symbol = Symbol("resolved by") as never;

/** Whether `o` was made by `side`'s resolver. */
export const isResolved = (o: unknown, side: OptionSide): boolean => (o as { [RESOLVED]?: unknown } | null | undefined)?.[RESOLVED] === side;

/** The value `v` of option `name`, checked by `rule` (with `side`'s error), or `fallback` when undefined. */
export function take<T, F = T>(side: OptionSide, v: unknown, name: string, rule: Rule<T>, fallback: F): T | F {
  if (v !== undefined && !rule[1](v)) throw side.fail(name, v, rule[0]);
  return v === undefined ? fallback : v;
}

/**
 * `options` as a side reads it: the object itself, or for null and
 * undefined an empty one. Every name it has, own or inherited (up to
 * `Object.prototype`), enumerable or not, accessors included, is checked
 * against the side's options: a name one edit from an option
 * (`maxStrLenght`) throws, with the option meant; other names pass. No
 * value is read but a misspelled one's, for the message.
 *
 * @throws what the side's `fail` makes, for options that are not an object or a misspelled name
 */
export function optionsIn(options: unknown, side: OptionSide): Record<string | symbol, unknown> {
  if (options == null) return {};
  if (typeof options !== "object") throw side.fail("options", options, "an object");
  const known = optionNames(side);
  for (let o: object | null = options; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      const meant = known.has(name) ? undefined : misspelling(name, known);
      // a name that is not a plain identifier is quoted, so a control character in it reaches no terminal
      if (meant !== undefined) throw side.fail(/^[\w$]+$/.test(name) ? name : JSON.stringify(name), (options as Record<string, unknown>)[name], `an option: did you mean ${meant}?`);
    }
  }
  return options as Record<string | symbol, unknown>;
}

/** The names of `side`'s options, in the order its resolver reads them, then those it accepts and never reads. */
export function optionNames(side: OptionSide): ReadonlySet<string> {
  if (side.names !== undefined) return side.names;
  const names = (side.names = new Set()); // the resolver's own check, below, sees an object without names
  side.resolve(new Proxy({}, { get: (_, name) => (typeof name === "string" && names.add(name), undefined) }));
  for (const name of side.accepted) names.add(name);
  return names;
}

/**
 * The option of `known` that `name` was likely meant to be, when it is
 * not one but differs from one only in letter case or by one edit
 * (inserting, deleting or changing a letter, or swapping two neighbours),
 * as `maxStrLenght` from `maxStrLength`; else undefined. Other libraries'
 * option names are far from ours and pass.
 */
export function misspelling(name: string, known: Iterable<string>): string | undefined {
  const a = name.toLowerCase();
  for (const option of known) {
    const b = option.toLowerCase();
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    // changed (or equal), a letter too many, a letter missing, two neighbours swapped
    const tail = a.slice(i + 1);
    if (tail === b.slice(i + 1) || tail === b.slice(i) || a.slice(i) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))) return option;
  }
  return undefined;
}

/**
 * Coders by the resolved options they were made from, compared field by
 * field (objects and functions by identity), at most 64, the most recently
 * used first: hoisted options and an inline literal written the same way
 * on every call find one coder. A new `context` or `extensionCodec` object
 * per call makes a coder per call, and each costs little to make.
 */
export class CoderCache<T> {
  private readonly entries: [options: object, coder: T][];
  private readonly make: (options: never) => T;

  /** @param make builds the coder for resolved options */
  constructor(make: (options: never) => T) {
    this.entries = [];
    this.make = make;
  }

  /** The coder made from options equal to `options` (resolved: two objects of one resolver have the same keys), made on first need. */
  get(options: object): T {
    const entries = this.entries;
    search: for (let i = 0; i < entries.length; i++) {
      for (const key in options) if (!Object.is((entries[i]![0] as Record<string, unknown>)[key], (options as Record<string, unknown>)[key])) continue search;
      if (i > 0) entries.unshift(entries.splice(i, 1)[0]!);
      return entries[0]![1];
    }
    if (entries.unshift([options, this.make(options as never)]) > 64) entries.pop();
    return entries[0]![1];
  }
}
