// Watch (self-play games and recorded games as replays: a move list, autoplay, the value
// graph with the current turn marked, "open in analysis") and Dashboard (a run's metrics
// charted by topic, Elo with its interval, checkpoints), both refreshing while the run goes on.
import { $, guard, fillRuns } from "./util.js";
import { drawBoard, pathCells } from "./board.js";
import { lineChart } from "./charts.js";

const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";

export function initWatch(api, info, openInAnalysis) {
  const W = { replay: null, board: null, timer: null, key: "", chart: null, auto: null, count: 0 };
  const at = () => parseInt($("watch-slider").value, 10);
  async function refreshFiles() {
    const { files } = await api(`/api/games?run=${encodeURIComponent($("watch-run").value)}`);
    const keep = $("watch-file").value;
    $("watch-file").replaceChildren();
    for (const f of files) $("watch-file").add(new Option(f.path, f.path));
    if (!$("watch-live").checked && files.some(f => f.path === keep)) $("watch-file").value = keep;
  }
  function moveList() {
    const body = $("watch-moves").tBodies[0];
    body.replaceChildren();
    const n = W.board.seats.length;
    let row = null;
    W.replay.frames.slice(1).forEach((f, k) => {
      if (k % n === 0) { row = body.insertRow(); row.insertCell().textContent = `${k / n + 1}.`; }
      const td = row.insertCell();
      td.textContent = f.turn; td.className = "mv"; td.dataset.index = k + 1;
      td.onclick = () => { stopAuto(); $("watch-slider").value = k + 1; step(); };
    });
  }
  async function load() {
    const file = $("watch-file").value;
    if (!file) { $("watch-info").textContent = "No game files yet: self-play writes them under games/."; return; }
    const idx = $("watch-index").value, live = $("watch-live").checked;
    let q = `file=${encodeURIComponent(file)}`;
    if (idx !== "" && !live) {
      const { games } = await api(`/api/game?${q}&list=true`);
      const n = Number(idx);
      if (!Number.isInteger(n) || n < 0 || n >= games.length) {
        $("watch-info").textContent = `${file} holds ${games.length} games: choose a game from 0 to ${games.length - 1}.`;
        return;
      }
      q += `&index=${n}`;
    }
    const replay = await api(`/api/game?${q}`);
    const key = `${file}#${replay.index}#${replay.frames.length}`;
    if (key === W.key) return;
    W.key = key; W.replay = replay;
    W.board = (await api("/api/new", { game: replay.game })).board;
    const slider = $("watch-slider");
    slider.max = replay.frames.length - 1;
    slider.value = live ? replay.frames.length - 1 : 0;
    const who = replay.agents.length ? `: ${replay.agents.join(" against ")}` : "";
    $("watch-info").textContent = `${replay.game}, game ${replay.index} of ${file}${who}. ${replay.result}.`;
    const xs = replay.frames.map((f, i) => i);
    const values = replay.frames.map(f => f.value ?? null);
    W.chart = lineChart($("watch-values"), xs, [{ name: `value for ${cap(W.board.sides[0])}`, values }],
      { title: "The search's value by turn", xLabel: "turn", yRange: [-1, 1], marker: () => at() });
    moveList();
    step();
  }
  function step() {
    if (!W.replay) return;
    const i = at(), f = W.replay.frames[i];
    drawBoard($("watch-board"), W.board, { pieces: f.pieces, lastmove: pathCells(f.turn) });
    const value = f.value !== null && f.value !== undefined ? `; value ${f.value.toFixed(2)} for ${cap(W.board.sides[0])}` : "";
    $("watch-turn").textContent = `Turn ${i} of ${W.replay.frames.length - 1}: ${f.turn || "the start"}${value}`;
    for (const td of document.querySelectorAll("#watch-moves td.mv")) td.classList.toggle("current", Number(td.dataset.index) === i);
    if (W.chart) W.chart.redraw(false);
  }
  function stopAuto() { clearInterval(W.auto); W.auto = null; $("watch-autoplay").textContent = "Autoplay"; }
  function autoplay() {
    if (W.auto) { stopAuto(); return; }
    $("watch-live").checked = false;
    if (at() >= W.replay.frames.length - 1) $("watch-slider").value = 0;
    $("watch-autoplay").textContent = "Pause";
    W.auto = setInterval(() => {
      if (!W.replay || at() >= W.replay.frames.length - 1) { stopAuto(); return; }
      $("watch-slider").value = at() + 1; step();
    }, Number($("watch-speed").value));
  }
  async function tick() {
    if ($("view-watch").classList.contains("hidden")) { clearInterval(W.timer); W.timer = null; stopAuto(); return; }
    if ($("watch-live").checked) { await refreshFiles(); await load(); }
  }
  const manual = () => { $("watch-live").checked = false; W.key = ""; return load(); };
  $("watch-slider").oninput = () => { stopAuto(); step(); };
  $("watch-prev").onclick = () => { stopAuto(); $("watch-slider").value = at() - 1; step(); };
  $("watch-next").onclick = () => { stopAuto(); $("watch-slider").value = at() + 1; step(); };
  $("watch-autoplay").onclick = () => W.replay && autoplay();
  $("watch-speed").onchange = () => { if (W.auto) { stopAuto(); autoplay(); } };
  $("watch-file").onchange = guard(manual, "watch-info");
  $("watch-index").onchange = guard(manual, "watch-info");
  $("watch-run").onchange = guard(async () => { await refreshFiles(); W.key = ""; await load(); }, "watch-info");
  $("watch-open").onclick = () => {
    if (!W.replay) return;
    stopAuto();
    const f = W.replay.frames;
    openInAnalysis(W.replay.game, f[0].position, f.slice(1).map(x => x.turn), at());
  };
  return async () => {
    if (!info.run_dir) { $("watch-info").textContent = "Start the server with --run-dir to watch games."; return; }
    await fillRuns(api, $("watch-run"));
    await refreshFiles();
    await load();
    if (!W.timer) W.timer = setInterval(guard(tick, "watch-info"), 3000);
  };
}

export { initDashboard } from "./dashboard.js";
