/**
 * What the encoder's and the decoder's options have in common: the names
 * of every option (so a misspelled one is caught, not silently ignored),
 * and the cache that finds the coder for options written inline in a call.
 *
 * Each direction reads its options in one function (encode/options.ts,
 * decode/options.ts): every option exactly once, by property access, so a
 * getter is read once and an inherited or non-enumerable option counts.
 * What it read, in a fixed order, is the list of values this cache is
 * keyed by: no object can change a coder after it was made.
 *
 * @module
 */

/**
 * Every option name of this library, both directions and the stream
 * helpers: a name close to one of these that is not one of them is a
 * misspelling ({@link misspelledOption}). A name of either direction is
 * accepted by both, so one options object may serve an encoder and a
 * decoder.
 */
const OPTION_NAMES: readonly string[] = [
  // encode
  "extensionCodec", "context", "sortKeys", "forceFloat32", "forceIntegerToFloat", "useBigInt64", "ignoreUndefined",
  "maxDepth", "initialBufferSize", "maxByteLength", "poolResults",
  // decode
  "int64", "useMap", "rawStrings", "mapKeyConverter", "keyDecoder", "binaryAsView",
  "maxStrLength", "maxBinLength", "maxArrayLength", "maxMapLength", "maxExtLength",
  // streams
  "lengthPrefixed", "chunkSize", "preventClose", "maxValueBytes", "stats",
];

/**
 * The option name `name` was likely meant to be, when it is not an option
 * but differs from one only in letter case or by at most two edits (one
 * for names under six letters; a swap of two neighbours is one edit), as
 * `maxStrLenght` from `maxStrLength`; else undefined. Names of other
 * libraries' options are far from ours and pass.
 */
function meant(name: string): string | undefined {
  if (name.length > 64) return undefined;
  const lower = name.toLowerCase();
  for (const known of OPTION_NAMES) {
    if (known === name) return undefined;
  }
  for (const known of OPTION_NAMES) {
    if (known.toLowerCase() === lower) return known;
    const most = Math.min(known.length, name.length) < 6 ? 1 : 2;
    if (Math.abs(known.length - name.length) <= most && editDistance(name, known, most) <= most) return known;
  }
  return undefined;
}

/**
 * The first enumerable name of `options` (own or inherited) that looks
 * like a misspelled option, with the option it was meant to be; or null.
 */
export function misspelledOption(options: object): [name: string, meant: string] | null {
  for (const name in options) {
    const m = meant(name);
    if (m !== undefined) return [name, m];
  }
  return null;
}

/**
 * Edit distance between `a` and `b` where a swap of two neighbouring
 * letters counts as one edit; any result above `most` is `most + 1`.
 */
function editDistance(a: string, b: string, most: number): number {
  const m = a.length;
  const n = b.length;
  let before: number[] = [];
  let prev: number[] = [];
  let row: number[] = [];
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    row = [i];
    let best = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row[j] = d;
      if (d < best) best = d;
    }
    if (best > most) return most + 1;
    before = prev;
    prev = row;
  }
  return Math.min(prev[n]!, most + 1);
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
  private readonly keys: (readonly unknown[])[] = [];
  private readonly coders: T[] = [];
  private readonly make: (values: readonly unknown[]) => T;

  /** @param make builds the coder for the values read from an options argument */
  constructor(make: (values: readonly unknown[]) => T) {
    this.make = make;
  }

  /** The coder made from `values`, made on first need. */
  get(values: readonly unknown[]): T {
    const keys = this.keys;
    for (let i = 0; i < keys.length; i++) {
      if (sameValues(keys[i]!, values)) {
        const coder = this.coders[i]!;
        if (i !== 0) {
          // most recent first
          keys.splice(i, 1);
          this.coders.splice(i, 1);
          keys.unshift(values);
          this.coders.unshift(coder);
        }
        return coder;
      }
    }
    const coder = this.make(values);
    keys.unshift(values);
    this.coders.unshift(coder);
    if (keys.length > KEPT_CODERS) {
      keys.pop();
      this.coders.pop();
    }
    return coder;
  }
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
