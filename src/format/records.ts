/**
 * What the encoder's and the decoder's sides of msgpackr's record
 * extension share: its extension type, the most shared structures, and
 * the check of a `structures` array's entries.
 *
 * Identifiers are structure indexes: index i is the byte 0x40 + i, or
 * with two-byte identifiers, from index 32, the bytes 0x60 + (i & 31) and
 * (i - 32) >> 5 (a "high byte"), which the decoder reads back as
 * 0x60 + (i & 31) - 0x40 + (high << 5) = i.
 *
 * Spec: https://github.com/kriszyp/msgpackr#record-structure-extension-definition
 *
 * @module
 */

/** The extension type that declares a record structure ("r"). */
export const RECORD_EXT_TYPE = 0x72;

/** Most shared structures (msgpackr's ceiling for `maxSharedStructures`): 32 one-byte identifiers and 32 x 255 two-byte ones. */
export const MAX_SHARED_STRUCTURES = 8160;

/** Whether `keys` is an entry of a `structures` array: an array of field names. */
export function isFieldNames(keys: unknown): keys is string[] {
  return Array.isArray(keys) && keys.every((k) => typeof k === "string");
}
