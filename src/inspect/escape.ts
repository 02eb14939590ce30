/**
 * Text from an input made safe to print: the characters a terminal acts
 * on or that reorder what a reader sees are written as `\uXXXX` escapes.
 * Those are the C0 controls (ESC starts colour, cursor, title and
 * clipboard sequences), DEL, the C1 controls (U+009B is a one-character
 * CSI that xterm and VTE act on in UTF-8) and the bidirectional controls
 * (U+202E reverses the text after it). Every text the inspector's views
 * and the command line print that comes from their input goes through
 * {@link escapeControls}; in JSON text the escapes stay valid JSON for the
 * same value.
 *
 * @module
 */

/** The characters escaped: C0, DEL, C1, and the bidi controls (embeddings, overrides, isolates, marks). */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, "g");

/** `\u001b` for ESC. */
function escapeOne(c: string): string {
  return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
}

/**
 * `text` with every C0 control, DEL, C1 control and bidi control written
 * as a `\uXXXX` escape (the rest unchanged): safe to print to a terminal.
 * Applied to JSON text without line breaks, it gives JSON text of the same
 * value. For example ESC `]0;title` BEL (which sets a terminal's title)
 * becomes the twelve characters `\u001b]0;title\u0007`.
 */
export function escapeControls(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, escapeOne) : text;
}

/** A string as a JSON string literal that is safe to print: `JSON.stringify`, then {@link escapeControls}. */
export function quote(s: string): string {
  // short printable ASCII without quotes or backslashes, the usual key or word: as it is
  const n = s.length;
  if (n <= 32) {
    let plain = true;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
        plain = false;
        break;
      }
    }
    if (plain) return '"' + s + '"';
  }
  return escapeControls(JSON.stringify(s));
}
