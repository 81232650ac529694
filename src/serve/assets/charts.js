// Line charts drawn with uPlot (vendored: /assets/uplot.min.js, MIT licence): gridlines,
// values on hover, a marker shape per series, intervals as bands, and an axis that keeps a
// constant series readable.
import { fmt } from "./util.js";

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];
const DASHES = [[], [6, 3], [2, 2], [8, 3, 2, 3]];

// Numbers in the charts: `fmt`'s short form (util.js).
const short = v => fmt(v, true);

// An axis's numbers in one notation: all in scientific notation when any needs it (a tiny
// learning rate: 7.5e-4, not beside 0.001), else `short`.
export function axisValues(vs) {
  const tiny = vs.some(v => v !== null && v !== 0 && Math.abs(v) < 1e-3);
  return vs.map(v => (v === null || v === undefined ? "" : tiny ? (v === 0 ? "0" : Number(v).toExponential(1)) : short(v)));
}

// A constant series gets a range around its value (not -1..1); others a 5% margin.
function range(u, min, max) {
  if (min === null || max === null) return [0, 1];
  if (min === max) { const d = Math.abs(min) * 0.1 || 1; return [min - d, max + d]; }
  const pad = (max - min) * 0.05;
  return [min - pad, max + pad];
}

// target: a container; xs: the x values; series: [{name, values}]; opts: {title, xLabel,
// yLabel (the unit), yRange: [lo, hi], band: [hiIndex, loIndex] (series indices from 0),
// marker: (u) => x}.
export function lineChart(target, xs, series, opts = {}) {
  target.replaceChildren();
  const width = Math.min(opts.width || 390, Math.max(260, target.parentElement?.clientWidth - 10 || 390));
  const few = xs.length <= 40;
  const uSeries = [{ label: opts.xLabel || "step", value: (u, v) => short(v) }];
  series.forEach((s, i) => uSeries.push({
    label: s.name, stroke: COLOURS[i % COLOURS.length], width: 1.6, dash: DASHES[i % DASHES.length],
    spanGaps: true, value: (u, v) => short(v),
    points: { show: few || xs.length === 1, size: 5 + (i % 3) * 2, fill: i % 2 ? "#fff" : COLOURS[i % COLOURS.length] },
  }));
  const hooks = opts.marker ? { draw: [u => drawMarker(u, opts.marker())] } : {};
  const chart = new window.uPlot({
    title: opts.title, width, height: opts.height || 220, hooks,
    scales: { x: { time: false }, y: { range: opts.yRange ? () => opts.yRange : range } },
    axes: [
      { label: opts.xLabel || "step", grid: { stroke: "#eee" }, values: (u, vs) => vs.map(short) },
      { label: opts.yLabel, grid: { stroke: "#eee" }, values: (u, vs) => axisValues(vs), size: 60 },
    ],
    series: uSeries,
    bands: opts.band ? [{ series: opts.band.map(i => i + 1), fill: "rgba(31,119,180,0.15)" }] : [],
    legend: { live: true },
  }, [xs, ...series.map(s => s.values)], target);
  target.dataset.series = series.map(s => s.name).join("|");
  target.chart = chart;
  return chart;
}

// A vertical line at x (the current turn of a replay).
function drawMarker(u, x) {
  if (x === null || x === undefined) return;
  const cx = Math.round(u.valToPos(x, "x", true));
  const ctx = u.ctx;
  ctx.save();
  ctx.strokeStyle = "#e0a030"; ctx.lineWidth = 2 * devicePixelRatio;
  ctx.beginPath(); ctx.moveTo(cx, u.bbox.top); ctx.lineTo(cx, u.bbox.top + u.bbox.height); ctx.stroke();
  ctx.restore();
}
