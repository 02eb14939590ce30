/**
 * Timestamps as ISO 8601 text with nanoseconds, for the text view and the
 * JSON form: `2024-05-01T12:00:00.123456789Z` (fractions cut to 3, 6 or 9
 * digits, none when whole; years past 9999 or before 0 as `+YYYYYY` and
 * `-YYYYYY`, as `Date` writes them).
 *
 * @module
 */

/** The seconds and nanoseconds of a timestamp as ISO 8601 text (the seconds within `Date`'s range). */
export function isoTime(sec: number, nsec: number): string {
  const whole = new Date(sec * 1000).toISOString().slice(0, -5); // without ".000Z"
  if (nsec === 0) return whole + "Z";
  let digits = String(nsec).padStart(9, "0");
  while (digits.endsWith("000")) digits = digits.slice(0, -3);
  return `${whole}.${digits}Z`;
}

/**
 * The seconds and nanoseconds of ISO 8601 text in UTC (`Z`) with up to 9
 * fraction digits; null for anything else, and for a time that does not
 * exist (February 30, hour 24, second 60), which `Date.parse` would move
 * to another day.
 */
export function parseIsoTime(text: string): { sec: number; nsec: number } | null {
  const m = /^([+-]\d{6}|\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z$/.exec(text);
  if (m === null) return null;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  if (ms !== ms) return null;
  const d = new Date(ms);
  if (d.getUTCFullYear() !== Number(m[1]) || d.getUTCMonth() + 1 !== Number(m[2]) || d.getUTCDate() !== Number(m[3]) || d.getUTCHours() !== Number(m[4]) || d.getUTCMinutes() !== Number(m[5]) || d.getUTCSeconds() !== Number(m[6])) return null;
  return { sec: ms / 1000, nsec: Number((m[7] ?? "").padEnd(9, "0")) };
}
