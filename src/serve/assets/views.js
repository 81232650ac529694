// Watch (self-play games and recorded games as replays) and Dashboard (a run's metrics,
// ratings and checkpoints), both refreshing while the run goes on.
import { drawBoard } from "./board.js";
import { lineChart } from "./charts.js";

const $ = id => document.getElementById(id);

async function fillRuns(api, select) {
  const { runs } = await api("/api/runs");
  const keep = select.value;
  select.replaceChildren();
  for (const r of runs) select.add(new Option(r || "(this run)", r));
  if (runs.includes(keep)) select.value = keep;
}

export function initWatch(api, info) {
  const state = { replay: null, board: null, timer: null, key: "" };
  async function refreshFiles() {
    const { files } = await api(`/api/games?run=${encodeURIComponent($("watch-run").value)}`);
    const keep = $("watch-file").value;
    $("watch-file").replaceChildren();
    for (const f of files) $("watch-file").add(new Option(f.path, f.path));
    if (!$("watch-live").checked && files.some(f => f.path === keep)) $("watch-file").value = keep;
  }
  async function load() {
    const file = $("watch-file").value;
    if (!file) { $("watch-info").textContent = "no game files yet"; return; }
    const idx = $("watch-index").value;
    const q = `file=${encodeURIComponent(file)}` + (idx !== "" && !$("watch-live").checked ? `&index=${idx}` : "");
    const replay = await api(`/api/game?${q}`);
    const key = `${file}#${replay.index}#${replay.frames.length}`;
    if (key === state.key) return;
    state.key = key;
    state.replay = replay;
    state.board = (await api("/api/new", { game: replay.game })).board;
    const slider = $("watch-slider");
    slider.max = replay.frames.length - 1;
    slider.value = $("watch-live").checked ? replay.frames.length - 1 : 0;
    $("watch-info").textContent = `${replay.game}, game ${replay.index} of ${file}: ${replay.agents.join(" vs ")} - ${replay.result}`;
    const values = replay.frames.map((f, i) => [i, f.value]).filter(p => p[1] !== null && p[1] !== undefined);
    lineChart($("watch-values"), [{ name: "value", points: values }], { title: `value for ${state.board.sides[0]} by turn`, yMin: -1, yMax: 1 });
    step();
  }
  function step() {
    if (!state.replay) return;
    const i = parseInt($("watch-slider").value, 10);
    const f = state.replay.frames[i];
    drawBoard($("watch-board"), state.board, { pieces: f.pieces });
    $("watch-turn").textContent = `turn ${i}/${state.replay.frames.length - 1}: ${f.turn || "start"}` + (f.value !== null && f.value !== undefined ? ` (value ${f.value.toFixed(2)})` : "");
  }
  async function tick() {
    if ($("view-watch").classList.contains("hidden")) { clearInterval(state.timer); state.timer = null; return; }
    if ($("watch-live").checked) { await refreshFiles(); await load(); }
  }
  $("watch-slider").oninput = step;
  $("watch-file").onchange = () => { $("watch-live").checked = false; state.key = ""; load(); };
  $("watch-index").onchange = () => { $("watch-live").checked = false; state.key = ""; load(); };
  $("watch-run").onchange = async () => { await refreshFiles(); state.key = ""; load(); };
  return async () => {
    if (!info.run_dir) { $("watch-info").textContent = "start the server with --run-dir to watch games"; return; }
    await fillRuns(api, $("watch-run"));
    await refreshFiles();
    await load();
    if (!state.timer) state.timer = setInterval(() => tick().catch(() => {}), 3000);
  };
}

const SKIP = new Set(["type", "step", "iteration", "elapsed_s"]);

export function initDashboard(api, info) {
  let timer = null;
  async function refresh() {
    const run = encodeURIComponent($("dash-run").value);
    const { metrics, ratings } = await api(`/api/metrics?run=${run}`);
    const { checkpoints } = await api(`/api/checkpoints?run=${run}`);
    const byType = {};
    for (const m of metrics) (byType[m.type || "metrics"] ||= []).push(m);
    const charts = $("charts");
    charts.replaceChildren();
    const chart = (title, series) => {
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("class", "chart");
      svg.dataset.title = title;
      charts.appendChild(svg);
      lineChart(svg, series, { title });
    };
    for (const [type, rows] of Object.entries(byType)) {
      const keys = [...new Set(rows.flatMap(r => Object.keys(r)))]
        .filter(k => !SKIP.has(k) && rows.some(r => typeof r[k] === "number"));
      for (const k of keys) {
        chart(`${type}: ${k}`, [{ name: k, points: rows.filter(r => typeof r[k] === "number").map(r => [r.step ?? 0, r[k]]) }]);
      }
    }
    const rated = ratings.filter(r => r.step !== null && r.elo !== null);
    if (rated.length) chart("Elo by step", [{ name: "elo", points: rated.map(r => [r.step, r.elo]) }]);
    const body = $("checkpoints").tBodies[0];
    body.replaceChildren();
    for (const c of checkpoints) {
      const row = body.insertRow();
      const r = c.rating || {};
      for (const v of [c.name, c.step, r.games ?? "", r.elo != null ? r.elo.toFixed(0) : "unrated",
        r.elo_low != null ? `${r.elo_low.toFixed(0)}..${r.elo_high.toFixed(0)}` : ""]) row.insertCell().textContent = v;
    }
    $("dash-updated").textContent = `${metrics.length} metrics records, ${checkpoints.length} checkpoints; updated ${new Date().toLocaleTimeString()}`;
  }
  $("dash-run").onchange = () => refresh();
  return async () => {
    if (!info.run_dir) { $("dash-updated").textContent = "start the server with --run-dir to see a run"; return; }
    await fillRuns(api, $("dash-run"));
    await refresh();
    if (!timer) timer = setInterval(() => {
      if ($("view-dashboard").classList.contains("hidden")) { clearInterval(timer); timer = null; return; }
      refresh().catch(() => {});
    }, 5000);
  };
}
