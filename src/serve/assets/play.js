// Play and analyse on one board, as lichess does: turns entered by clicks, the model at any
// seat, the last move highlighted, the move list paired by round and clickable (a turn
// played from an earlier position starts a variation), undo/redo, keyboard navigation,
// resign, the strength in plain words, the engine (eval bar, arrows, its line), and games
// exported and imported as text.
import { $, guard } from "./util.js";
import { drawBoard, pathCells } from "./board.js";
import { createEngine } from "./engine.js";
import { exportGame, parseGame } from "./gametext.js";

let api, info, engine;
const P = {
  game: "rematch", board: null, line: [], cursor: 0, redo: [], entry: null, flip: false,
  seats: [], thinking: false, stalled: null, mainline: null, forkAt: 0, resigned: null, token: 0,
};
const cur = () => P.line[P.cursor].view;
const atEnd = () => P.cursor === P.line.length - 1;
const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";
const fmt = n => Number(n).toLocaleString("en-US");
const outcome = () => (atEnd() && P.resigned) || cur().outcome;

function message(text, refused = false) {
  $("message").textContent = text || "";
  $("message").className = refused ? "refused" : "";
}

function seatControls() {
  const box = $("seat-controls");
  box.replaceChildren();
  P.board.seats.forEach((name, i) => {
    const label = document.createElement("label");
    label.textContent = `${cap(name)} `;
    const sel = document.createElement("select");
    sel.id = `seat-${i}`;
    sel.add(new Option("a person", "person"));
    sel.add(new Option("the model", "model"));
    sel.value = P.seats[i] || (i === 0 ? "person" : "model");
    P.seats[i] = sel.value;
    sel.onchange = guard(() => { P.seats[i] = sel.value; P.stalled = null; return moved(); });
    label.appendChild(sel);
    box.appendChild(label);
  });
}

// The strength the user asked for, checked against the server's limits before it is sent.
function strength() {
  const value = Number($("strength").value), unit = $("strength-unit").value;
  const l = info.limits;
  if (unit === "seconds") {
    if (value > 0 && value <= l.max_seconds) return { budget: { seconds: value } };
    return { error: `Strength: the model may think more than 0 and at most ${fmt(l.max_seconds)} seconds a move` };
  }
  if (Number.isInteger(value) && value >= 1 && value <= l.max_visits) return { budget: { visits: value } };
  return { error: `Strength: the model may search at least 1 and at most ${fmt(l.max_visits)} visits a move` };
}

async function newGame(position) {
  P.game = $("game").value;
  const view = await api("/api/new", position ? { game: P.game, position } : { game: P.game });
  P.board = view.board;
  P.line = [{ view, turn: null }];
  Object.assign(P, { cursor: 0, redo: [], mainline: null, resigned: null, stalled: null, thinking: false });
  P.token++;
  seatControls();
  engine.sidesChanged(P.board.sides);
  message("");
  await moved();
}

function personToMove() {
  return !outcome() && P.seats[cur().seat_index] === "person";
}

// The position at the cursor changed: the turn entry, the engine and the model follow.
async function moved() {
  P.entry = null;
  render();
  if (personToMove()) P.entry = await api("/api/entry", { game: P.game, position: cur().position });
  render();
  engine.follow(P.game, cur().position, Boolean(outcome()));
  await maybeModel();
}

function moveList() {
  const body = $("moves").tBodies[0];
  body.replaceChildren();
  const n = P.board.seats.length;
  let row = null;
  for (let i = 1; i < P.line.length; i++) {
    if ((i - 1) % n === 0) {
      row = body.insertRow();
      row.insertCell().textContent = `${(i - 1) / n + 1}.`;
    }
    const td = row.insertCell();
    td.textContent = P.line[i].turn;
    td.className = "mv" + (i === P.cursor ? " current" : "");
    td.dataset.index = i;
    td.onclick = guard(() => goTo(i));
  }
  const box = $("moves-box");
  const current = box.querySelector(".current");
  if (current) box.scrollTop = current.offsetTop - box.clientHeight / 2;
}

function render() {
  const v = cur(), e = P.entry;
  drawBoard($("board"), P.board, {
    pieces: e ? e.pieces : v.pieces, flip: P.flip, onClick: guard(onCell),
    clickable: e ? e.clickable : [], targets: e ? e.targets : [], selected: e ? e.selected : null,
    paths: e ? e.paths : [], lastmove: pathCells(P.line[P.cursor].turn), arrows: engine.arrows(v.position),
  });
  const over = outcome();
  $("status").textContent = over ? `Game over. ${over}` :
    v.mover + (P.thinking ? " — the model is thinking…" : "");
  moveList();
  $("variation").hidden = !P.mainline;
  // Only when the position changes: a position being typed or pasted is kept.
  if (P.shown !== v.position) { P.shown = v.position; $("position-text").value = v.position; }
  $("undo").disabled = P.line.length < 2; $("redo").disabled = P.redo.length === 0;
  $("resign").disabled = Boolean(over) || !atEnd() || !personToMove();
  window.__cz = {
    history: P.line.map(h => h.turn), cursor: P.cursor, position: v.position, outcome: over,
    thinking: P.thinking, stalled: P.stalled,
  };
}

async function onCell(cell) {
  if (P.thinking) { message("Wait: the model is thinking.", true); return; }
  if (outcome()) { message("The game is over.", true); return; }
  if (!personToMove()) { message(`The model plays ${cap(cur().seat)}: choose "a person" for that seat to move here.`, true); return; }
  const e = await api("/api/entry", {
    game: P.game, position: cur().position, steps: P.entry.steps, selected: P.entry.selected, click: cell,
  });
  if (e.refused) { message(e.refused, true); return; }
  message("");
  if (e.turn) { await addTurn(e.after, e.turn); return; }
  P.entry = e;
  render();
}

// A turn played at the cursor: the next turn of the line, or the start of a variation.
async function addTurn(view, turn) {
  const next = P.line[P.cursor + 1];
  if (next && next.view.position === view.position) { P.cursor++; await moved(); return; }
  if (!atEnd()) {
    if (!P.mainline) { P.mainline = P.line.slice(); P.forkAt = P.cursor; }
    P.line = P.line.slice(0, P.cursor + 1);
  }
  P.line.push({ view, turn });
  P.cursor = P.line.length - 1;
  P.redo = [];
  await moved();
}

async function maybeModel() {
  const v = cur();
  if (!atEnd() || outcome() || P.seats[v.seat_index] !== "model" || P.thinking || P.stalled) return;
  const s = strength();
  if (s.error) { P.stalled = s.error; message(s.error, true); render(); return; }
  P.thinking = true; render();
  const token = P.token;
  let r;
  try {
    r = await api("/api/play", { game: P.game, position: v.position, ...s.budget });
  } catch (err) {
    P.thinking = false;
    P.stalled = err.message;
    message(`The model could not move: ${err.message}`, true);
    render();
    return;
  }
  P.thinking = false;
  if (token === P.token && atEnd() && cur().position === v.position) await addTurn(r, r.turn);
  else render();
}

async function goTo(i) {
  const to = Math.max(0, Math.min(P.line.length - 1, i));
  if (to === P.cursor) return;
  P.cursor = to;
  message("");
  await moved();
}

// Take back: to the last earlier position where a person moves; redo puts it back.
async function undo() {
  if (P.line.length < 2) return;
  P.token++; P.thinking = false; P.stalled = null; P.resigned = null;
  const taken = [];
  do taken.unshift(P.line.pop());
  while (P.line.length > 1 && P.seats[P.line[P.line.length - 1].view.seat_index] !== "person");
  P.redo.push(taken);
  P.cursor = P.line.length - 1;
  message("");
  await moved();
}

async function redo() {
  const group = P.redo.pop();
  if (!group) return;
  P.line.push(...group);
  P.cursor = P.line.length - 1;
  await moved();
}

function resign() {
  const v = cur();
  const sides = P.board.sides;
  P.resigned = `${cap(sides[1 - v.side])} wins: ${cap(sides[v.side])} resigned`;
  P.entry = null;
  message("");
  render();
  engine.follow(P.game, v.position, true);
}

async function backToGame() {
  P.line = P.mainline; P.mainline = null;
  P.cursor = P.forkAt;
  await moved();
}

// Turns played one after the other from the cursor (the engine's line, an imported game).
async function playTurns(turns) {
  for (const [i, turn] of turns.entries()) {
    let r;
    try { r = await api("/api/play", { game: P.game, position: cur().position, turn }); }
    catch (err) { throw new Error(`turn ${i + 1} (${turn}): ${err.message}`); }
    const next = P.line[P.cursor + 1];
    if (next && next.view.position === r.position) { P.cursor++; continue; }
    if (!atEnd()) {
      if (!P.mainline) { P.mainline = P.line.slice(); P.forkAt = P.cursor; }
      P.line = P.line.slice(0, P.cursor + 1);
    }
    P.line.push({ view: r, turn: r.turn });
    P.cursor = P.line.length - 1;
  }
  P.redo = [];
}

function seatLabel(i) {
  if (P.seats[i] !== "model") return "a person";
  return `the model (${info.models[P.game] || "random playouts"})`;
}

function exportText() {
  $("game-text").value = exportGame({
    game: P.game, seats: P.board.seats.map((name, i) => [cap(name), seatLabel(i)]),
    result: P.line.length && (P.resigned || P.line[P.line.length - 1].view.outcome) || "unfinished",
    date: new Date().toISOString().slice(0, 10), start: P.line[0].view.position,
    turns: P.line.slice(1).map(h => h.turn),
  });
  message("The game is in the text box below, in the project's notation.");
}

// An imported game: its game and start, every seat a person, replayed turn by turn.
async function importText() {
  const g = parseGame($("game-text").value);
  if (!info.games.includes(g.game)) throw new Error(`Import: unknown game '${g.game}' (known: ${info.games.join(", ")})`);
  $("game").value = g.game;
  P.seats = ["person", "person", "person"];
  await newGame(g.start);
  await playTurns(g.turns);
  message(`Imported ${g.turns.length} turns.`);
  await moved();
}

// Watch's "open in analysis": a recorded game on this board, every seat a person.
export async function openGame(game, start, turns, at) {
  $("game").value = game;
  P.seats = ["person", "person", "person"];
  await newGame(start);
  await playTurns(turns);
  P.cursor = Math.min(at, P.line.length - 1);
  if (!$("engine-on").checked) { $("engine-on").checked = true; engine.setOn(true); }
  await moved();
}

function onKey(ev) {
  if ($("view-play").classList.contains("hidden")) return;
  if (["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
  const to = { ArrowLeft: P.cursor - 1, ArrowRight: P.cursor + 1, Home: 0, End: P.line.length - 1 }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  guard(goTo)(to);
}

function wire() {
  $("game").onchange = guard(() => { P.seats = []; return newGame(); });
  $("new-game").onclick = guard(() => newGame());
  $("undo").onclick = guard(undo);
  $("redo").onclick = guard(redo);
  $("resign").onclick = resign;
  $("back-to-game").onclick = guard(backToGame);
  for (const [id, to] of [["nav-first", () => 0], ["nav-prev", () => P.cursor - 1], ["nav-next", () => P.cursor + 1], ["nav-last", () => P.line.length - 1]]) {
    $(id).onclick = guard(() => goTo(to()));
  }
  $("flip").onclick = () => { P.flip = !P.flip; render(); };
  $("copy-position").onclick = () => { $("position-text").select(); navigator.clipboard?.writeText($("position-text").value).catch(() => {}); };
  $("load-position").onclick = guard(async () => { await newGame($("position-text").value.trim()); message("Position loaded."); });
  $("export-game").onclick = exportText;
  $("import-game").onclick = guard(importText);
  for (const id of ["strength", "strength-unit"]) $(id).onchange = guard(() => { P.stalled = null; message(""); return maybeModel(); });
  document.addEventListener("keydown", onKey);
}

export async function initPlay(apiFn, infoIn) {
  api = apiFn; info = infoIn;
  for (const g of info.games) $("game").add(new Option(g, g));
  $("strength").value = info.limits.default_visits;
  $("strength-hint").textContent = `at most ${fmt(info.limits.max_visits)} visits or ${fmt(info.limits.max_seconds)} seconds a move`;
  engine = createEngine(api, info, {
    render: () => render(), playLine: guard(async turns => { await playTurns(turns); await moved(); }),
    side: () => cur().side, sides: () => P.board.sides,
    changed: () => { render(); engine.follow(P.game, cur().position, Boolean(outcome())); },
  });
  wire();
  await newGame();
  return { onShow: () => {}, openGame: guard(openGame, "watch-info") };
}
