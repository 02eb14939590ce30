/**
 * The depth at which an `encode` called from inside an extension encoder
 * starts (the walk writes extensions: walk.ts).
 *
 * @module
 */

/**
 * The depth at which an `encode` called from inside an extension encoder
 * starts: the depth of that extension's payload; 0 outside extensions.
 * Set around each extension call and restored after it, so any encoder
 * (another `Encoder`, another options object) continues the count.
 */
let extensionDepth = 0;

/** The depth a call starting now starts at: see {@link extensionDepth}. */
export function startDepth(): number {
  return extensionDepth;
}

/** Makes `depth` the depth calls starting now start at (see {@link extensionDepth}); returns the one it replaces. */
export function setStartDepth(depth: number): number {
  const saved = extensionDepth;
  extensionDepth = depth;
  return saved;
}
