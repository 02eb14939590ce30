/**
 * The command line's words for amounts: values, sizes, durations, and the
 * progress line `stats` and `validate` show on a terminal.
 *
 * @module
 */

/** "1 value", "2 values". */
export function values(n: number): string {
  return `${n} value${n === 1 ? "" : "s"}`;
}

/** Bytes as "12.3 MB". */
export function size(n: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let u = 0;
  let x = n;
  while (x >= 1000 && u < units.length - 1) ((x /= 1000), u++);
  return u === 0 ? `${n} B` : `${x.toFixed(1)} ${units[u]}`;
}

/** Seconds as "42 s", "3 min 20 s", "2 h 05 min". */
export function duration(s: number): string {
  const t = Math.round(s);
  if (t < 60) return `${t} s`;
  if (t < 3600) return `${Math.floor(t / 60)} min ${String(t % 60).padStart(2, "0")} s`;
  return `${Math.floor(t / 3600)} h ${String(Math.floor(t / 60) % 60).padStart(2, "0")} min`;
}

/** The progress line: bytes and values read and, when the input's size is known, the share read and the time left. */
export function progress(read: number, total: number | null, count: number, elapsedMs: number): string {
  let line = `read ${size(read)}`;
  if (total !== null && total > 0) {
    line += ` of ${size(total)} (${Math.min(100, Math.floor((100 * read) / total))}%)`;
    if (read > 0 && elapsedMs >= 1000) line += `, ${duration(((total - read) * elapsedMs) / read / 1000)} left`;
  }
  return `${line}, ${values(count)}`;
}
