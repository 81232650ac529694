// Small SVG line charts, drawn without any library: series of [x, y] points on shared axes.
import { el } from "./board.js";

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];

function fmt(v) {
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e4 || a < 1e-2)) return v.toExponential(1);
  return (Math.round(v * 100) / 100).toString();
}

// series: [{name, points: [[x, y], ...]}]; opts: {title, yMin, yMax}
export function lineChart(svg, series, opts = {}) {
  svg.replaceChildren();
  const W = 330, H = 190, L = 46, R = 8, T = 18, B = 22;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const pts = series.flatMap(s => s.points).filter(p => Number.isFinite(p[1]));
  const title = el("text", { x: L, y: 12, class: "title" }, svg);
  title.textContent = opts.title || "";
  if (pts.length === 0) return;
  let x0 = Math.min(...pts.map(p => p[0])), x1 = Math.max(...pts.map(p => p[0]));
  let y0 = opts.yMin ?? Math.min(...pts.map(p => p[1])), y1 = opts.yMax ?? Math.max(...pts.map(p => p[1]));
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const sx = x => L + (x - x0) / (x1 - x0) * (W - L - R);
  const sy = y => H - B - (y - y0) / (y1 - y0) * (H - T - B);
  el("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }, svg);
  el("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }, svg);
  for (const [y, v] of [[sy(y0), y0], [sy(y1), y1]]) {
    const t = el("text", { x: 2, y: y + 3 }, svg); t.textContent = fmt(v);
  }
  for (const [x, v, a] of [[sx(x0), x0, "start"], [sx(x1), x1, "end"]]) {
    const t = el("text", { x, y: H - 6, "text-anchor": a }, svg); t.textContent = fmt(v);
  }
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const line = s.points.filter(p => Number.isFinite(p[1])).map(p => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`);
    if (line.length === 1) el("circle", { cx: line[0].split(",")[0], cy: line[0].split(",")[1], r: 2.5, fill: colour }, svg);
    else el("polyline", { points: line.join(" "), class: "line", stroke: colour }, svg);
    if (series.length > 1) {
      const t = el("text", { x: W - R - 4, y: T + 10 + 11 * i, "text-anchor": "end", fill: colour }, svg);
      t.textContent = s.name;
    }
  });
}
