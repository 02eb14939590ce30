/**
 * What the encoder's and the decoder's options have in common: the names
 * of every option (so a misspelled one is caught, not silently ignored),
 * the rules their values are checked by, and the cache that finds the
 * coder for options written inline in a call.
 *
 * Each direction declares each of its options once, in its table
 * ({@link OptionTable}: the rule and the default by name, typed against its
 * options interface, whose documentation describes each). It reads them
 * through {@link readOptions}: every option exactly once, by property
 * access, so a getter is read once and an inherited or non-enumerable
 * option counts, each checked by its table's rule. What it read, in the
 * order of the direction's names below, is the list of values the
 * {@link CoderCache} is keyed by: no object can change a coder after it
 * was made. The readers load each option by its literal name (a load by a
 * name held in a variable is megamorphic and doubled the cost of a call
 * with options); test/options.test.ts checks that each reads exactly its
 * table's names, in this order.
 *
 * @module
 */

/** The encode options, in the order {@link readOptions} reads them for the encoder. */
export const ENCODE_OPTIONS: readonly string[] = [
  "extensionCodec", "context", "sortKeys", "forceFloat32", "forceIntegerToFloat", "useBigInt64", "ignoreUndefined",
  "poolResults", "maxDepth", "initialBufferSize", "maxByteLength", "useRecords", "structures", "maxSharedStructures", "sequential", "undefinedAsExtension", "buffers",
];

/** The decode options, in the order {@link readOptions} reads them for the decoder. */
export const DECODE_OPTIONS: readonly string[] = [
  "extensionCodec", "context", "useBigInt64", "useMap", "rawStrings", "binaryAsView", "int64", "mapKeyConverter",
  "maxDepth", "maxStrLength", "maxBinLength", "maxArrayLength", "maxMapLength", "maxExtLength", "useRecords", "structures",
  "buffers", "undefinedAsExtension", "invalidUtf8", "compileRecordReaders",
];

/**
 * Every option name of this library: both directions, `keyDecoder`
 * (accepted, unused) and the stream helpers'. A name of either direction
 * is accepted by both, so one options object may serve an encoder and a
 * decoder; a name close to one of these that is not one of them is a
 * misspelling.
 */
const OPTION_NAMES: readonly string[] = [...ENCODE_OPTIONS, ...DECODE_OPTIONS, "keyDecoder", "lengthPrefixed", "chunkSize", "preventClose", "maxValueBytes", "stats"];

/**
 * What an option takes: the text an error says its value should be, and
 * the test of a value (never given undefined, which every option takes for
 * its default); null for an option that takes anything. Each direction
 * lists one per option, in the order of its names.
 */
export type OptionRule = readonly [expected: string, accepts: (v: unknown) => boolean] | null;

/**
 * One option of one direction, as its table declares it: what it takes
 * ({@link OptionRule}) and its default (what `undefined` resolves to).
 * The description is the option's documentation in the direction's
 * options interface, which the table is typed against key for key.
 */
export type OptionSpec = readonly [rule: OptionRule, fallback: unknown];

/** A direction's options: each name with its {@link OptionSpec}, in the order `names` lists them. */
export type OptionTable<Options> = { readonly [K in keyof Options]-?: OptionSpec };

/**
 * The rules of `table`'s options, in the order of `names` (what
 * {@link readOptions} checks the values it read by), made once per direction.
 */
export function rulesOf(names: readonly string[], table: Readonly<Record<string, OptionSpec>>): OptionRule[] {
  return names.map((name) => table[name]![0]);
}

/**
 * The values read by {@link readOptions} by name, each `undefined` replaced
 * by its default from `table`: what a direction resolves its options from
 * (on the cold path: once per encoder or decoder made).
 */
export function withDefaults(names: readonly string[], values: readonly unknown[], table: Readonly<Record<string, OptionSpec>>): Record<string, unknown> {
  const named: Record<string, unknown> = {};
  names.forEach((name, i) => (named[name] = values[i] === undefined ? table[name]![1] : values[i]));
  return named;
}

/** A flag. */
export const BOOLEAN: OptionRule = ["a boolean", (v) => typeof v === "boolean"];

/** A list (the record `structures`). */
export const ARRAY: OptionRule = ["an array of field name arrays", Array.isArray];

/** A decode limit: a non-negative integer, or Infinity. */
export const LIMIT: OptionRule = ["a non-negative integer", isLimit];

/**
 * Reads the options `names` from `options` (null or undefined: none), each
 * exactly once, by property access, so a getter is read once and an
 * inherited or non-enumerable option counts; checks each value that is
 * not undefined against its rule in `rules` and the enumerable names for
 * misspelled options (`maxStrLenght`); returns the values in the order of
 * `names`.
 *
 * @throws what `fail` makes, for options that are not an object, a value
 *   its rule refuses, or a misspelled name
 */
export function readOptions(
  options: unknown,
  names: readonly string[],
  read: (o: Record<string, unknown>) => unknown[],
  rules: readonly OptionRule[],
  fail: (name: string, value: unknown, expected: string) => Error,
): unknown[] {
  if (options == null) return names.map(() => undefined);
  if (typeof options !== "object") throw fail("options", options, "an object");
  const o = options as Record<string, unknown>;
  // read by name in the caller (`o.sortKeys`...): a load by a name held in a variable is megamorphic,
  // and reading 17 options that way took a call with options from ~220 to ~480 ns on Node 20
  const values = read(o);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const rule = rules[i];
    if (v !== undefined && rule && !rule[1](v)) throw fail(names[i]!, v, rule[0]);
  }
  for (const name in o) {
    if (KNOWN.has(name)) continue;
    const meant = misspelling(name);
    if (meant !== undefined) throw fail(name, o[name], `an option: did you mean ${meant}?`);
  }
  return values;
}

/** {@link OPTION_NAMES} as a set, for the names of options passed on every call. */
const KNOWN: ReadonlySet<string> = /* @__PURE__ */ new Set(OPTION_NAMES);

/** Whether `v` is a limit: a non-negative integer, or Infinity. */
export function isLimit(v: unknown): boolean {
  return typeof v === "number" && v >= 0 && (v % 1 === 0 || v === Infinity);
}

/**
 * The option `name` was likely meant to be, when it is not an option but
 * differs from one only in letter case or by one edit (inserting,
 * deleting or changing a letter, or swapping two neighbours), as
 * `maxStrLenght` from `maxStrLength`; else undefined. Other libraries'
 * option names are far from ours and pass.
 */
function misspelling(name: string): string | undefined {
  const lower = name.toLowerCase();
  return OPTION_NAMES.find((known) => oneEditApart(lower, known.toLowerCase()));
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
  readonly #entries: (readonly [values: readonly unknown[], coder: T])[] = [];
  readonly #make: (values: readonly unknown[]) => T;

  /** @param make builds the coder for the values read from an options argument */
  constructor(make: (values: readonly unknown[]) => T) {
    this.#make = make;
  }

  /** The coder made from `values`, made on first need. */
  get(values: readonly unknown[]): T {
    const entries = this.#entries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (sameValues(entry[0], values)) {
        if (i !== 0) entries.unshift(entries.splice(i, 1)[0]!); // most recent first
        return entry[1];
      }
    }
    const coder = this.#make(values);
    if (entries.unshift([values, coder]) > KEPT_CODERS) entries.pop();
    return coder;
  }
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
