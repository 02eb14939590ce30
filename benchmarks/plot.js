// A small SVG writer for the benchmark plots: line charts with a log x axis,
// laid out in a grid of panels with one shared legend, each panel with an
// optional horizontal reference line (gridSvg: the strategies chart), and
// grouped horizontal bar charts on a log or linear axis with a reference
// line (barChartSvg: the peers and memory charts).
// Dependency-free plain ESM; returns strings, writes nothing.

/** @typedef {{ name: string, color: string, dash?: string, points: [number, number][] }} Series */
/**
 * @typedef {{ title: string, series: Series[], xLabel?: string, yLabel?: string, yMax?: number, note?: string, markers?: { x: number, label: string }[], reference?: { y: number, label: string } }} Panel
 * `markers` are dashed vertical lines at an x; `reference` is a solid horizontal line at a y (e.g. 1 for a
 * ratio to a baseline), labelled at its right end.
 */

/** One colour per runtime in every chart. */
export const RUNTIME_COLORS = { node: "#3f8f3a", bun: "#d9822b", deno: "#3a6fb0", node20: "#3f8f3a", node24: "#7cc46a", node26: "#1d4d1a" };

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

/** @param {string} s */
function esc(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Decimal byte label for a power of ten. @param {number} e exponent */
function bytesLabel(e) {
  const units = ["B", "kB", "MB", "GB", "TB"];
  const u = Math.min(units.length - 1, Math.floor(e / 3));
  return `${10 ** (e - 3 * u)} ${units[u]}`;
}

/** A "nice" step for about `n` ticks up to `max`. @param {number} max @param {number} n */
function niceStep(max, n) {
  const raw = max / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/**
 * One panel as an SVG group at (x0, y0).
 * @param {Panel} panel @param {number} x0 @param {number} y0 @param {number} w @param {number} h
 */
function panelSvg(panel, x0, y0, w, h) {
  const m = { l: 56, r: 14, t: 26, b: 40 };
  const pw = w - m.l - m.r, ph = h - m.t - m.b;
  const pts = panel.series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && Number.isFinite(y));
  const out = [`<g transform="translate(${x0},${y0})">`];
  out.push(`<text x="${m.l + pw / 2}" y="16" text-anchor="middle" font-size="13" font-weight="600" ${FONT}>${esc(panel.title)}</text>`);
  if (pts.length === 0) {
    out.push(`<text x="${m.l + pw / 2}" y="${m.t + ph / 2}" text-anchor="middle" font-size="12" fill="#888" ${FONT}>no data</text></g>`);
    return out.join("\n");
  }
  const ex0 = Math.floor(Math.log10(Math.min(...pts.map((p) => p[0]))));
  const ex1 = Math.max(ex0 + 1, Math.ceil(Math.log10(Math.max(...pts.map((p) => p[0])))));
  const yTop = panel.yMax ?? Math.max(...pts.map((p) => p[1]));
  const step = niceStep(yTop || 1, 5);
  const yMax = Math.ceil((yTop || 1) / step) * step;
  const X = (/** @type {number} */ x) => m.l + ((Math.log10(x) - ex0) / (ex1 - ex0)) * pw;
  const Y = (/** @type {number} */ y) => m.t + ph - (y / yMax) * ph;
  // grid and axes
  for (let e = ex0; e <= ex1; e++) {
    const x = X(10 ** e).toFixed(1);
    out.push(`<line x1="${x}" y1="${m.t}" x2="${x}" y2="${m.t + ph}" stroke="#e5e5e5"/>`);
    if ((ex1 - ex0 <= 9 || e % 2 === 0) && e >= 0)
      out.push(`<text x="${x}" y="${m.t + ph + 15}" text-anchor="middle" font-size="10" fill="#444" ${FONT}>${bytesLabel(e)}</text>`);
  }
  for (let y = 0; y <= yMax + 1e-9; y += step) {
    const yy = Y(y).toFixed(1);
    out.push(`<line x1="${m.l}" y1="${yy}" x2="${m.l + pw}" y2="${yy}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${m.l - 5}" y="${Number(yy) + 3}" text-anchor="end" font-size="10" fill="#444" ${FONT}>${+y.toFixed(3)}</text>`);
  }
  out.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`);
  if (panel.xLabel)
    out.push(`<text x="${m.l + pw / 2}" y="${h - 6}" text-anchor="middle" font-size="11" fill="#222" ${FONT}>${esc(panel.xLabel)}</text>`);
  if (panel.yLabel)
    out.push(
      `<text transform="translate(13,${m.t + ph / 2}) rotate(-90)" text-anchor="middle" font-size="11" fill="#222" ${FONT}>${esc(panel.yLabel)}</text>`,
    );
  for (const mk of panel.markers ?? []) {
    if (mk.x < 10 ** ex0 || mk.x > 10 ** ex1) continue;
    const x = X(mk.x).toFixed(1);
    out.push(`<line x1="${x}" y1="${m.t}" x2="${x}" y2="${m.t + ph}" stroke="#aaa" stroke-dasharray="3,3"/>`);
    out.push(`<text x="${Number(x) + 3}" y="${m.t + ph - 4}" font-size="9" fill="#888" ${FONT}>${esc(mk.label)}</text>`);
  }
  for (const s of panel.series) {
    const p = s.points.filter(([x, y]) => x > 0 && Number.isFinite(y)).sort((a, b) => a[0] - b[0]);
    if (p.length === 0) continue;
    const d = p.map(([x, y], i) => `${i ? "L" : "M"}${X(x).toFixed(1)},${Y(Math.min(y, yMax)).toFixed(1)}`).join(" ");
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.8"${s.dash ? ` stroke-dasharray="${s.dash}"` : ""}/>`);
    for (const [x, y] of p) out.push(`<circle cx="${X(x).toFixed(1)}" cy="${Y(Math.min(y, yMax)).toFixed(1)}" r="2.2" fill="${s.color}"/>`);
  }
  if (panel.reference && panel.reference.y <= yMax) {
    const y = Y(panel.reference.y).toFixed(1);
    out.push(`<line x1="${m.l}" y1="${y}" x2="${m.l + pw}" y2="${y}" stroke="#333" stroke-width="1.2"/>`);
    out.push(`<text x="${m.l + pw - 4}" y="${Number(y) - 4}" text-anchor="end" font-size="10" fill="#333" stroke="#fff" stroke-width="3" paint-order="stroke" ${FONT}>${esc(panel.reference.label)}</text>`);
  }
  if (panel.note) out.push(`<text x="${m.l + 4}" y="${m.t + 12}" font-size="10" fill="#666" ${FONT}>${esc(panel.note)}</text>`);
  out.push("</g>");
  return out.join("\n");
}

/**
 * A grid of panels with one legend (the series names and colours of the
 * first panel that has them), a title and lines of notes under the grid, as
 * a standalone SVG document.
 * @param {{ title: string, subtitle?: string, notes?: string[], panels: Panel[], columns: number, panelWidth?: number, panelHeight?: number }} opts
 */
export function gridSvg(opts) {
  const { title, subtitle, panels, columns } = opts;
  const pw = opts.panelWidth ?? 440, ph = opts.panelHeight ?? 280;
  const rows = Math.ceil(panels.length / columns);
  const width = pw * columns + 20;
  const legend = panels.find((p) => p.series.length > 0)?.series ?? [];
  // legend items, wrapped to the width
  /** @type {{ s: Series, x: number, line: number }[]} */
  const items = [];
  let lx = 12, line = 0;
  for (const s of legend) {
    const w = 40 + s.name.length * 6;
    if (lx + w > width - 10 && lx > 12) {
      line++;
      lx = 12;
    }
    items.push({ s, x: lx, line });
    lx += w;
  }
  const top = subtitle ? 52 : 36;
  const head = top + (line + 1) * 16 + 4;
  const notes = opts.notes ?? [];
  const height = head + ph * rows + 10 + (notes.length ? 8 + notes.length * 14 : 0);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="20" font-size="15" font-weight="700" ${FONT}>${esc(title)}</text>`,
  ];
  if (subtitle) out.push(`<text x="12" y="37" font-size="11" fill="#555" ${FONT}>${esc(subtitle)}</text>`);
  for (const { s, x, line: l } of items) {
    const ly = top + l * 16 + 4;
    out.push(`<line x1="${x}" y1="${ly}" x2="${x + 22}" y2="${ly}" stroke="${s.color}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ""}/>`);
    out.push(`<text x="${x + 27}" y="${ly + 4}" font-size="11" ${FONT}>${esc(s.name)}</text>`);
  }
  panels.forEach((p, i) => out.push(panelSvg(p, 10 + (i % columns) * pw, head + Math.floor(i / columns) * ph, pw, ph)));
  notes.forEach((n, i) => out.push(`<text x="12" y="${head + ph * rows + 16 + i * 14}" font-size="10" fill="#555" ${FONT}>${esc(n)}</text>`));
  out.push("</svg>");
  return out.join("\n") + "\n";
}

/** @typedef {{ name: string, color: string }} BarSeries */
/** @typedef {{ label: string, values: (number | null)[], note?: string }} BarRow */
/**
 * @typedef {{ title: string, rows: BarRow[], xLabel?: string, scale: "log" | "linear", reference?: { x: number, label: string }, min?: number, max?: number }} BarPanel
 * `values` has one entry per series (null: not measured, drawn as "n/a"; the row's note when all are null).
 * A log panel draws each bar from the reference (1 by default) to its value, so bars
 * left of the line are below it and bars right of it above; a linear one from 0 to
 * its value, so a bar at the reference (1 on a memory chart: the output alone) is as
 * long as the reference is far from 0, not a sliver, and the reference is a line
 * across the bars.
 */

/** The largest power of two <= x, and the smallest >= x. @param {number} x */
const pow2Floor = (x) => 2 ** Math.floor(Math.log2(x) + 1e-9);
const pow2Ceil = (x) => 2 ** Math.ceil(Math.log2(x) - 1e-9);

/** A ratio for a bar's label: 2 decimals, 3 significant digits from 10. @param {number} x */
function barValue(x) {
  return x >= 10 ? x.toPrecision(3) : x.toFixed(2);
}

/**
 * One bar panel (grouped horizontal bars, one group per row) as an SVG group at (x0, y0).
 * @param {BarPanel} panel @param {BarSeries[]} series @param {number} x0 @param {number} y0 @param {number} w
 * @param {number} labelWidth @param {number} rowHeight @param {boolean} showLabels
 */
function barPanelSvg(panel, series, x0, y0, w, labelWidth, rowHeight, showLabels) {
  const m = { l: showLabels ? labelWidth : 8, r: 34, t: 24, b: 38 };
  const pw = w - m.l - m.r, ph = panel.rows.length * rowHeight;
  const values = panel.rows.flatMap((r) => r.values).filter((v) => v !== null && Number.isFinite(v) && v > 0);
  const ref = panel.reference?.x ?? (panel.scale === "log" ? 1 : 0);
  /** @type {(v: number) => number} */
  let X;
  /** @type {number[]} */
  let ticks;
  if (panel.scale === "log") {
    const lo = panel.min ?? Math.min(0.5, pow2Floor(Math.min(ref, ...values)));
    const hi = panel.max ?? Math.max(2, pow2Ceil(Math.max(ref, ...values)));
    X = (v) => m.l + ((Math.log2(Math.min(hi, Math.max(lo, v))) - Math.log2(lo)) / (Math.log2(hi) - Math.log2(lo))) * pw;
    ticks = [];
    for (let t = lo; t <= hi * 1.0001; t *= 2) ticks.push(t);
  } else {
    const top = panel.max ?? Math.max(ref, ...values);
    const step = niceStep(top || 1, 6);
    const hi = Math.ceil((top || 1) / step) * step;
    X = (v) => m.l + (Math.min(hi, Math.max(0, v)) / hi) * pw;
    ticks = [];
    for (let t = 0; t <= hi + 1e-9; t += step) ticks.push(+t.toFixed(6));
  }
  const out = [`<g transform="translate(${x0},${y0})">`];
  out.push(`<text x="${m.l + pw / 2}" y="15" text-anchor="middle" font-size="13" font-weight="600" ${FONT}>${esc(panel.title)}</text>`);
  for (const t of ticks) {
    const x = X(t).toFixed(1);
    out.push(`<line x1="${x}" y1="${m.t}" x2="${x}" y2="${m.t + ph}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x}" y="${m.t + ph + 13}" text-anchor="middle" font-size="10" fill="#444" ${FONT}>${esc(t < 1 && panel.scale === "log" ? `${+t.toFixed(4)}` : String(t))}</text>`);
  }
  panel.rows.forEach((row, i) => {
    const ry = m.t + i * rowHeight;
    if (i % 2 === 1) out.push(`<rect x="${m.l}" y="${ry}" width="${pw}" height="${rowHeight}" fill="#f7f7f7"/>`);
    if (showLabels) out.push(`<text x="${m.l - 6}" y="${(ry + rowHeight / 2 + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#222" ${FONT}>${esc(row.label)}</text>`);
    const barH = Math.max(3, (rowHeight - 6) / Math.max(1, series.length));
    const missing = (/** @type {number | null} */ v) => v === null || !Number.isFinite(v) || v <= 0;
    if (row.values.every(missing)) {
      out.push(`<text x="${X(ref) + 4}" y="${(ry + rowHeight / 2 + 3).toFixed(1)}" font-size="9" fill="#888" ${FONT}>${esc(row.note ?? "n/a")}</text>`);
      return;
    }
    row.values.forEach((v, k) => {
      const by = ry + 3 + k * barH;
      if (v === null || missing(v)) {
        out.push(`<text x="${X(ref) + 3}" y="${(by + barH - 1.5).toFixed(1)}" font-size="8" fill="#888" ${FONT}>n/a</text>`);
        return;
      }
      const a = X(panel.scale === "log" ? ref : 0), b = X(v);
      out.push(`<rect x="${Math.min(a, b).toFixed(1)}" y="${by.toFixed(1)}" width="${Math.max(1, Math.abs(b - a)).toFixed(1)}" height="${(barH - 1).toFixed(1)}" fill="${series[k]?.color ?? "#888"}"><title>${esc(`${row.label}, ${series[k]?.name ?? ""}: ${barValue(v)}`)}</title></rect>`);
      const right = b >= a;
      out.push(`<text x="${(right ? b + 2 : b - 2).toFixed(1)}" y="${(by + barH - 1.5).toFixed(1)}" text-anchor="${right ? "start" : "end"}" font-size="8" fill="#333" ${FONT}>${barValue(v)}</text>`);
    });
  });
  out.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`);
  if (panel.reference) {
    const x = X(panel.reference.x).toFixed(1);
    out.push(`<line x1="${x}" y1="${m.t - 4}" x2="${x}" y2="${m.t + ph}" stroke="#333" stroke-width="1.2"/>`);
  }
  if (panel.xLabel) out.push(`<text x="${m.l + pw / 2}" y="${m.t + ph + 30}" text-anchor="middle" font-size="11" fill="#222" ${FONT}>${esc(panel.xLabel)}</text>`);
  out.push("</g>");
  return out.join("\n");
}

/**
 * Grouped horizontal bar charts side by side (one panel per column, the row
 * labels drawn once, left of the first), one legend of the series, a title
 * and a subtitle, as a standalone SVG document.
 * @param {{ title: string, subtitle?: string, notes?: string[], series: BarSeries[], panels: BarPanel[], panelWidth?: number, labelWidth?: number, rowHeight?: number }} opts
 */
export function barChartSvg(opts) {
  const { title, subtitle, series, panels } = opts;
  // wide enough for the longest row label at 11 px (about 6.3 px a character)
  const longest = Math.max(0, ...panels.flatMap((p) => p.rows.map((r) => r.label.length)));
  const labelWidth = opts.labelWidth ?? Math.max(100, Math.ceil(14 + 6.3 * longest)), panelWidth = opts.panelWidth ?? 380;
  const rowHeight = opts.rowHeight ?? Math.max(18, 8 + 9 * series.length);
  const widths = panels.map((_, i) => panelWidth + (i === 0 ? labelWidth - 8 : 0));
  const width = 20 + widths.reduce((a, b) => a + b, 0);
  const notes = opts.notes ?? [];
  const top = subtitle ? 52 : 36;
  const head = top + 22;
  const rows = Math.max(...panels.map((p) => p.rows.length));
  const height = head + rows * rowHeight + 24 + 38 + notes.length * 14 + 8;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="12" y="20" font-size="15" font-weight="700" ${FONT}>${esc(title)}</text>`,
  ];
  if (subtitle) out.push(`<text x="12" y="37" font-size="11" fill="#555" ${FONT}>${esc(subtitle)}</text>`);
  let lx = 12;
  for (const s of series) {
    out.push(`<rect x="${lx}" y="${top - 6}" width="14" height="10" fill="${s.color}"/>`);
    out.push(`<text x="${lx + 19}" y="${top + 3}" font-size="11" ${FONT}>${esc(s.name)}</text>`);
    lx += 30 + s.name.length * 6.5;
  }
  // one scale for all panels of a kind, so bars compare across panels by eye
  for (const scale of ["log", "linear"]) {
    const same = panels.filter((p) => p.scale === scale);
    const vs = same.flatMap((p) => p.rows.flatMap((r) => r.values)).filter((v) => v !== null && Number.isFinite(v) && v > 0);
    if (vs.length === 0) continue;
    for (const p of same) {
      const ref = p.reference?.x ?? (scale === "log" ? 1 : 0);
      if (scale === "log") {
        p.min ??= Math.min(0.5, pow2Floor(Math.min(ref, ...vs)));
        p.max ??= Math.max(2, pow2Ceil(Math.max(ref, ...vs)));
      } else p.max ??= Math.max(ref, ...vs);
    }
  }
  let x = 10;
  panels.forEach((p, i) => {
    out.push(barPanelSvg(p, series, x, head, widths[i], labelWidth, rowHeight, i === 0));
    x += widths[i];
  });
  notes.forEach((n, i) => out.push(`<text x="12" y="${head + rows * rowHeight + 24 + 38 + 10 + i * 14}" font-size="10" fill="#555" ${FONT}>${esc(n)}</text>`));
  out.push("</svg>");
  return out.join("\n") + "\n";
}
