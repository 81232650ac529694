// The page: tabs, Play (turns entered by clicks, the model at any seat) and Analyse.
import { drawBoard } from "./board.js";
import { initWatch, initDashboard } from "./views.js";

const $ = id => document.getElementById(id);

// Requests in flight (tests wait for 0 before they look at the page).
let pending = 0;
window.__czPending = () => pending;

export async function api(path, body) {
  const init = body === undefined ? {} :
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  pending++;
  try {
    const r = await fetch(path, init);
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  } finally {
    pending--;
  }
}

const play = {
  game: "rematch", board: null, history: [], steps: [], selected: null, entry: null,
  flip: false, seats: [], thinking: false,
};
const current = () => play.history[play.history.length - 1];

function message(text, refused = false) {
  $("message").textContent = text || "";
  $("message").className = refused ? "refused" : "";
}

function seatControls() {
  const box = $("seat-controls");
  box.replaceChildren();
  play.board.seats.forEach((name, i) => {
    const label = document.createElement("label");
    label.textContent = `${name} `;
    const sel = document.createElement("select");
    sel.id = `seat-${i}`;
    for (const who of ["person", "model"]) sel.add(new Option(who, who));
    sel.value = play.seats[i] || (i === 0 ? "person" : "model");
    play.seats[i] = sel.value;
    sel.onchange = () => { play.seats[i] = sel.value; maybeModel(); };
    label.appendChild(sel);
    box.appendChild(label);
  });
}

async function newGame(position) {
  play.game = $("game").value;
  const view = await api("/api/new", position ? { game: play.game, position } : { game: play.game });
  play.board = view.board;
  play.history = [{ view, turn: null }];
  seatControls();
  await resetEntry();
  maybeModel();
}

async function resetEntry() {
  play.steps = []; play.selected = null;
  const v = current().view;
  play.entry = v.outcome ? null : await api("/api/entry", { game: play.game, position: v.position });
  render();
}

function render() {
  const v = current().view, e = play.entry;
  drawBoard($("board"), play.board, {
    pieces: e ? e.pieces : v.pieces, flip: play.flip,
    clickable: e ? e.clickable : [], targets: e ? e.targets : [], selected: e ? e.selected : null,
    paths: e ? e.paths : [], onClick: onCell,
  });
  const status = v.outcome ? `Game over: ${v.outcome}` :
    `${v.seat} to move` + (play.thinking ? " (model thinking...)" : "");
  $("status").textContent = status;
  const list = $("moves");
  list.replaceChildren();
  for (const h of play.history.slice(1)) {
    const li = document.createElement("li");
    li.textContent = h.turn;
    list.appendChild(li);
  }
  $("position-text").value = v.position;
  window.__cz = { history: play.history.map(h => h.turn), position: v.position, outcome: v.outcome };
}

function personToMove() {
  const v = current().view;
  return !v.outcome && play.seats[v.seat_index] === "person";
}

async function onCell(cell) {
  if (!personToMove() || play.thinking) {
    message(current().view.outcome ? "the game is over" : "not your turn", true);
    return;
  }
  const e = await api("/api/entry", {
    game: play.game, position: current().view.position, steps: play.entry.steps,
    selected: play.entry.selected, click: cell,
  });
  if (e.refused) { message(e.refused, true); return; }
  message("");
  play.entry = e;
  if (e.turn) {
    play.history.push({ view: e.after, turn: e.turn });
    await resetEntry();
    maybeModel();
  } else {
    render();
  }
}

async function maybeModel() {
  const v = current().view;
  if (v.outcome || play.seats[v.seat_index] !== "model" || play.thinking) return;
  play.thinking = true; render();
  try {
    const visits = parseInt($("visits").value, 10) || 200;
    const r = await api("/api/play", { game: play.game, position: v.position, visits });
    play.history.push({ view: r, turn: r.turn });
  } catch (err) {
    message(err.message, true);
  }
  play.thinking = false;
  await resetEntry();
  maybeModel();
}

async function undo() {
  if (play.thinking) return;
  // Back to the last position where a person is to move (or the start).
  do { if (play.history.length > 1) play.history.pop(); }
  while (play.history.length > 1 && play.seats[current().view.seat_index] !== "person");
  message("");
  await resetEntry();
}

async function loadPosition() {
  try { await newGame($("position-text").value.trim()); message("position loaded"); }
  catch (err) { message(err.message, true); }
}

// ---- analysis ----
const analysis = { id: null, timer: null };

function drawAnalysis(snap) {
  const heat = {};
  for (const [cell, p] of snap ? snap.heat : []) heat[cell] = p;
  drawBoard($("analysis-board"), play.board, { pieces: current().view.pieces, flip: play.flip, heat });
  if (!snap) return;
  $("analysis-progress").textContent = `${snap.visits} visits, ${snap.elapsed_ms} ms` + (snap.done ? " (done)" : "") + (snap.error ? ` error: ${snap.error}` : "");
  $("wdl").textContent = (snap.wdl ? `net W/D/L ${snap.wdl.map(x => (100 * x).toFixed(1) + "%").join(" / ")}, ` : "no model: random playouts, ") + `search value ${snap.value.toFixed(3)}` + (snap.proven ? `, proven: ${snap.proven}` : "");
  $("pv").textContent = "PV: " + snap.pv.join(" ");
  const body = $("analysis-turns").tBodies[0];
  body.replaceChildren();
  for (const t of snap.turns.slice(0, 15)) {
    const row = body.insertRow();
    for (const v of [t.turn, t.visits, t.prior.toFixed(3), t.q.toFixed(3)]) row.insertCell().textContent = v;
  }
}

async function startAnalysis() {
  await stopAnalysis();
  clearInterval(analysis.timer);
  const visits = parseInt($("analysis-visits").value, 10) || 400;
  try {
    const { id } = await api("/api/analysis", { game: play.game, position: current().view.position, visits });
    analysis.id = id;
    $("analyse-stop").disabled = false;
    analysis.timer = setInterval(poll, 250);
  } catch (err) { $("analysis-progress").textContent = err.message; }
}

async function poll() {
  if (analysis.id === null) return;
  const snap = await api(`/api/analysis/${analysis.id}`);
  drawAnalysis(snap);
  if (snap.done) { clearInterval(analysis.timer); analysis.id = null; $("analyse-stop").disabled = true; }
}

async function stopAnalysis() {
  if (analysis.id === null) return;
  await fetch(`/api/analysis/${analysis.id}`, { method: "DELETE" });
}

// ---- tabs ----
const views = {};
function show(name) {
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("active", b.dataset.view === name);
  for (const s of document.querySelectorAll(".view")) s.classList.toggle("hidden", s.id !== `view-${name}`);
  if (name === "analyse") drawAnalysis(null);
  if (views[name]) views[name]();
}

async function main() {
  const info = await api("/api/info");
  for (const g of info.games) $("game").add(new Option(g, g));
  $("model-info").textContent = Object.keys(info.models).length ?
    "models: " + Object.entries(info.models).map(([g, m]) => `${g}: ${m}`).join(", ") :
    "no model: the computer searches with random playouts";
  $("visits").value = info.limits.default_visits;
  $("game").onchange = () => { play.seats = []; newGame(); };
  $("new-game").onclick = () => newGame();
  $("undo").onclick = undo;
  $("flip").onclick = () => { play.flip = !play.flip; render(); };
  $("copy-position").onclick = () => { $("position-text").select(); navigator.clipboard?.writeText($("position-text").value).catch(() => {}); };
  $("load-position").onclick = loadPosition;
  $("analyse-start").onclick = startAnalysis;
  $("analyse-stop").onclick = stopAnalysis;
  for (const b of document.querySelectorAll("nav button")) b.onclick = () => show(b.dataset.view);
  views.watch = initWatch(api, info);
  views.dashboard = initDashboard(api, info);
  await newGame();
  document.body.dataset.ready = "1";
}

main().catch(err => { $("status").textContent = `error: ${err.message}`; });
