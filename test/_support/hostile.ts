// Hostile inputs shared by the inspector's and the command line's tests:
// every character a terminal acts on, a check that text holds none of
// them raw, and a record declaration of very many fields.

/** Every character a terminal may act on: C0, DEL, C1, and the bidi controls (marks, embeddings, overrides, isolates). */
export const CONTROLS: readonly string[] = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x061c,
  0x200e,
  0x200f,
  ...[0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069],
].map((c) => String.fromCharCode(c));

/**
 * The controls found raw in `text`, by code ("U+001b"), each once: line
 * ends allowed where `lines`, the views' own colour sequences (SGR) where
 * `colors`.
 */
export function rawControls(text: string, { lines = false, colors = false } = {}): string[] {
  const plain = colors ? text.replace(/\x1b\[[0-9;]*m/g, "") : text;
  return [...new Set([...plain].filter((c) => CONTROLS.includes(c) && !(lines && c === "\n")))].map((c) => "U+" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

/**
 * A msgpackr record declaration (identifier 0x40) of `n` field names, the
 * numbers 0-63 over and over, and its record of `n` fields of 1: about 2
 * bytes per field, the input whose structure a reader must not keep whole.
 */
export function wideDeclaration(n: number): Uint8Array {
  const b = new Uint8Array(8 + 2 * n);
  b.set([0xd4, 0x72, 0x40, 0xdd]);
  new DataView(b.buffer).setUint32(4, n);
  for (let i = 0; i < n; i++) b[8 + i] = i % 0x40;
  b.fill(1, 8 + n);
  return b;
}
