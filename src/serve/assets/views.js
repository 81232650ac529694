// Watch (self-play games and recorded games as replays: the file's games listed with their
// results, a move list, autoplay, the value graph with the current turn marked, "open in
// analysis") and Dashboard (a run's metrics
// charted by topic, Elo with its interval, checkpoints), both refreshing while the run goes on
// (less often while the page's tab is hidden).
import { $, guard, fillRuns, every } from "./util.js";
import { drawBoard, pathCells } from "./board.js";
import { lineChart } from "./charts.js";
import { fillMoveList, replayMovers } from "./gametext.js";

const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";

// Short names for files: the fewest last parts of each path that tell it from the others
// ("games/00000001.jsonl" -> "00000001.jsonl"; two "w1/games.jsonl" and "w2/games.jsonl").
function shortNames(paths) {
  const parts = paths.map(p => p.split("/"));
  return parts.map(mine => {
    for (let n = 1; n < mine.length; n++) {
      const tail = mine.slice(-n).join("/");
      if (parts.every(other => other === mine || other.slice(-n).join("/") !== tail)) return tail;
    }
    return mine.join("/");
  });
}

export function initWatch(api, info, openInAnalysis) {
  const W = { replay: null, board: null, timer: null, key: "", chart: null, auto: null, count: 0, names: new Map(), listed: "" };
  const at = () => parseInt($("watch-slider").value, 10);
  const shortName = file => W.names.get(file) || file;
  async function refreshFiles() {
    const { files } = await api(`/api/games?run=${encodeURIComponent($("watch-run").value)}`);
    const keep = $("watch-file").value;
    const names = shortNames(files.map(f => f.path));
    W.names = new Map(files.map((f, i) => [f.path, names[i]]));
    $("watch-file").replaceChildren();
    for (const f of files) {
      const option = new Option(shortName(f.path), f.path);
      option.title = f.path;
      $("watch-file").add(option);
    }
    if (!$("watch-live").checked && files.some(f => f.path === keep)) $("watch-file").value = keep;
    $("watch-file").title = $("watch-file").value;
  }
  // The games of the chosen file, newest first (the newest 100): each with its result in
  // words, its length and who played; a click shows that game.
  async function listGames(file, listed) {
    const { games } = listed || await api(`/api/game?file=${encodeURIComponent(file)}&list=true`);
    const key = `${file}#${games.length}`;
    if (key !== W.listed) {
      W.listed = key;
      const body = $("watch-games").tBodies[0];
      body.replaceChildren();
      for (const g of games.slice(-100).reverse()) {
        const row = body.insertRow();
        row.dataset.index = g.index;
        row.className = "watch-game";
        for (const v of [`${g.index}`, g.result, `${g.turns ?? "–"}`, g.agents.join(" – ")]) row.insertCell().textContent = v;
        row.onclick = guard(() => { $("watch-index").value = g.index; return manual(); }, "watch-info");
      }
      $("watch-games-note").textContent = games.length > 100 ? `The newest 100 of ${games.length} games.` : `${games.length} ${games.length === 1 ? "game" : "games"}.`;
    }
    for (const row of $("watch-games").tBodies[0].rows) {
      row.classList.toggle("current", W.replay !== null && Number(row.dataset.index) === W.replay.index);
    }
  }
  // By round, each seat in its own column, as in Play (gametext.js).
  function moveList() {
    const frames = W.replay.frames;
    fillMoveList($("watch-moves").tBodies[0], W.board, frames.slice(1).map(f => f.turn),
      replayMovers(W.board, frames), at(), i => { stopAuto(); $("watch-slider").value = i; step(); });
  }
  async function load() {
    const file = $("watch-file").value;
    if (!file) { $("watch-info").textContent = "No game files yet: self-play writes them under games/."; return; }
    const idx = $("watch-index").value, live = $("watch-live").checked;
    let q = `file=${encodeURIComponent(file)}`, listed = null;
    if (idx !== "" && !live) {
      listed = await api(`/api/game?${q}&list=true`);
      const { games } = listed;
      const n = Number(idx);
      if (!Number.isInteger(n) || n < 0 || n >= games.length) {
        $("watch-info").textContent = `${shortName(file)} holds ${games.length} games: choose a game from 0 to ${games.length - 1}.`;
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
    $("watch-info").textContent = `${replay.game}, game ${replay.index} of ${shortName(file)}${who}. ${replay.result}.`;
    $("watch-info").title = file;
    const xs = replay.frames.map((f, i) => i);
    const values = replay.frames.map(f => f.value ?? null);
    W.chart = lineChart($("watch-values"), xs, [{ name: `value for ${cap(W.board.sides[0])}`, values }],
      { title: "The search's value by turn", xLabel: "turn", yRange: [-1, 1], marker: () => at() });
    moveList();
    step();
    await listGames(file, listed);
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
    if ($("view-watch").classList.contains("hidden")) { W.timer.stop(); W.timer = null; stopAuto(); return; }
    if ($("watch-live").checked) { await refreshFiles(); await load(); }
  }
  const manual = () => { $("watch-live").checked = false; W.key = ""; return load(); };
  $("watch-slider").oninput = () => { stopAuto(); step(); };
  // One turn back or forward (the buttons, ←/→), the start or the end (Home/End).
  const goTo = i => { if (!W.replay) return; stopAuto(); $("watch-slider").value = i; step(); };
  $("watch-prev").onclick = () => goTo(at() - 1);
  $("watch-next").onclick = () => goTo(at() + 1);
  document.addEventListener("keydown", ev => {
    if ($("view-watch").classList.contains("hidden") || ev.ctrlKey || ev.altKey || ev.metaKey) return;
    const t = ev.target, typing = t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "checkbox" && t.type !== "range"));
    const to = { ArrowLeft: at() - 1, ArrowRight: at() + 1, Home: 0, End: W.replay ? W.replay.frames.length - 1 : 0 }[ev.key];
    if (to === undefined || typing || !W.replay) return;
    ev.preventDefault();
    goTo(to);
  });
  $("watch-autoplay").onclick = () => W.replay && autoplay();
  $("watch-speed").onchange = () => { if (W.auto) { stopAuto(); autoplay(); } };
  $("watch-file").onchange = guard(() => { $("watch-file").title = $("watch-file").value; return manual(); }, "watch-info");
  $("watch-index").onchange = guard(manual, "watch-info");
  $("watch-run").onchange = guard(async () => { await refreshFiles(); W.key = ""; await load(); }, "watch-info");
  $("watch-open").onclick = () => {
    if (!W.replay) return;
    stopAuto();
    const f = W.replay.frames;
    openInAnalysis(W.replay.game, f[0].position, f.slice(1).map(x => x.turn), at(), W.replay.result);
  };
  return async () => {
    if (!info.run_dir) { $("watch-info").textContent = "Start the server with --run-dir to watch games."; return; }
    await fillRuns(api, $("watch-run"));
    await refreshFiles();
    await load();
    // The newest game every 3 s while the page is in view, every 30 s while its tab is hidden.
    if (!W.timer) W.timer = every(3000, 30000, guard(tick, "watch-info"));
  };
}

export { initDashboard } from "./dashboard.js";
