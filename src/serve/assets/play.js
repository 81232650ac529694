// Play and analyse on one board, as lichess does: turns entered by clicks, the model at any
// seat, the last move highlighted, the move list by round and clickable (a turn played from
// an earlier position starts a variation), undo/redo, keyboard navigation and flip, resign,
// the strength in plain words, the engine (eval bar, arrows, policy map, its line), and
// games exported and imported as text.
import { $, guard } from "./util.js";
import { drawBoard, pathCells } from "./board.js";
import { createEngine } from "./engine.js";
import { exportGame, parseGame, fillMoveList, roundTexts } from "./gametext.js";

let api, info, engine;
// line: [{view, turn, resigned?}]; a resignation belongs to the entry it was made at, so a
// variation played from an earlier position is not over.
const P = {
  game: "rematch", board: null, line: [], cursor: 0, redo: [], entry: null, flip: false,
  seats: [], thinking: false, stalled: null, mainline: null, forkAt: 0, token: 0,
  moving: null,  // the AbortController of the model's move under way
};
// Drops the model's move under way: its request is aborted, so the server stops its search.
function dropMove() {
  P.token++;
  if (P.moving) { P.moving.abort(); P.moving = null; }
}
const cur = () => P.line[P.cursor].view;
const atEnd = () => P.cursor === P.line.length - 1;
const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";
const fmt = n => Number(n).toLocaleString("en-US");
const resignation = () => atEnd() && P.line[P.cursor].resigned || null;
const outcome = () => resignation() || cur().outcome;

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

// Turns played one after the other from `position`, on the server only (the page is not
// touched): their line entries. Fails naming the first turn that is not legal.
async function replayTurns(game, position, turns) {
  const out = [];
  for (const [i, turn] of turns.entries()) {
    let r;
    try { r = await api("/api/play", { game, position, turn }); }
    catch (err) { throw new Error(`turn ${i + 1} (${turn}): ${err.message}`); }
    out.push({ view: r, turn: r.turn });
    position = r.position;
  }
  return out;
}

// A whole game, from `start` (the start position when null), on the server only: its line.
async function replay(game, start, turns) {
  const view = await api("/api/new", start ? { game, position: start } : { game });
  return [{ view, turn: null }, ...await replayTurns(game, view.position, turns)];
}

// Shows `line` (from `replay`) as the game on the board, the cursor at its start; what was
// on the board before (a model's move under way included) is dropped.
function setGame(game, line) {
  $("game").value = game;
  P.game = game;
  P.board = line[0].view.board;
  P.line = line;
  Object.assign(P, { cursor: 0, redo: [], mainline: null, stalled: null, thinking: false });
  dropMove();
  seatControls();
  engine.sidesChanged(P.board.sides);
  message("");
}

async function newGame(position) {
  const game = $("game").value;
  setGame(game, await replay(game, position, []));
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

// The turns of the line and the seat that made each.
const lineTurns = () => P.line.slice(1).map(h => h.turn);
const lineMovers = () => P.line.slice(0, -1).map(h => h.view.seat_index);

// By round: one turn of each side a row, each seat in its own column (gametext.js).
function moveList() {
  fillMoveList($("moves").tBodies[0], P.board, lineTurns(), lineMovers(), P.cursor, guard(goTo));
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
    heat: engine.heat(v.position),
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
    thinking: P.thinking, stalled: P.stalled, flip: P.flip,
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
function place(entry) {
  const next = P.line[P.cursor + 1];
  if (next && next.view.position === entry.view.position) { P.cursor++; return; }
  if (!atEnd()) {
    if (!P.mainline) { P.mainline = P.line.slice(); P.forkAt = P.cursor; }
    P.line = P.line.slice(0, P.cursor + 1);
  }
  P.line.push(entry);
  P.cursor = P.line.length - 1;
  P.redo = [];
}

async function addTurn(view, turn) {
  place({ view, turn });
  await moved();
}

async function maybeModel() {
  const v = cur();
  if (!atEnd() || outcome() || P.seats[v.seat_index] !== "model" || P.thinking || P.stalled) return;
  const s = strength();
  if (s.error) { P.stalled = s.error; message(s.error, true); render(); return; }
  P.thinking = true; render();
  const token = P.token;
  const moving = P.moving = new AbortController();
  let r;
  try {
    r = await api("/api/play", { game: P.game, position: v.position, ...s.budget }, undefined,
      moving.signal);
  } catch (err) {
    if (token !== P.token) return;
    P.thinking = false;
    P.stalled = err.message;
    message(`The model could not move: ${err.message}`, true);
    render();
    return;
  }
  P.thinking = false;
  if (P.moving === moving) P.moving = null;
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
  dropMove(); P.thinking = false; P.stalled = null;
  const taken = [];
  do taken.unshift(P.line.pop());
  while (P.line.length > 1 && P.seats[P.line[P.line.length - 1].view.seat_index] !== "person");
  for (const h of taken) delete h.resigned;
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
  if (!atEnd() || outcome()) return;
  const v = cur();
  const sides = P.board.sides;
  P.line[P.cursor].resigned = `${cap(sides[1 - v.side])} wins: ${cap(sides[v.side])} resigned`;
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

// The engine's line up to a turn, played from the cursor (a variation where it leaves the
// line); nothing changes if the position moved on meanwhile.
async function playLine(line) {
  const token = P.token, from = P.cursor, game = P.game;
  const entries = await replayTurns(game, cur().position, line);
  if (token !== P.token || from !== P.cursor || game !== P.game) return;
  for (const entry of entries) place(entry);
  await moved();
}

function seatLabel(i) {
  if (P.seats[i] !== "model") return "a person";
  return `the model (${info.models[P.game] || "random playouts"})`;
}

function exportText() {
  const last = P.line[P.line.length - 1];
  $("game-text").value = exportGame({
    game: P.game, seats: P.board.seats.map((name, i) => [cap(name), seatLabel(i)]),
    result: last.resigned || last.view.outcome || "unfinished",
    date: new Date().toISOString().slice(0, 10), start: P.line[0].view.position,
    rounds: roundTexts(P.board, lineTurns(), lineMovers()),
  });
  message("The game is in the text box below, in the project's notation.");
}

// A recorded game (imported, or opened from Watch) on this board, every seat a person, the
// cursor at turn `at`. The whole game is replayed first: a game that does not replay is
// refused and the game on the board stays as it was.
async function loadGame(game, start, gameTurns, at, result) {
  const line = await replay(game, start, gameTurns);
  const end = line[line.length - 1];
  if (result && /resigned/.test(result) && !end.view.outcome) end.resigned = result;
  P.seats = ["person", "person", "person"];
  setGame(game, line);
  P.cursor = Math.max(0, Math.min(at, line.length - 1));
}

// An imported game: its game and start, every seat a person, replayed turn by turn.
async function importText() {
  const g = parseGame($("game-text").value);
  if (!info.games.includes(g.game)) throw new Error(`Import: unknown game '${g.game}' (known: ${info.games.join(", ")})`);
  try { await loadGame(g.game, g.start, g.turns, g.turns.length, g.tags.result); }
  catch (err) { throw new Error(`Import: ${err.message.replace(/\.$/, "")}. The game on the board is unchanged.`); }
  message(`Imported ${g.turns.length} turns.`);
  await moved();
}

// Watch's "open in analysis": a recorded game on this board, every seat a person.
export async function openGame(game, start, gameTurns, at, result) {
  await loadGame(game, start, gameTurns, at, result);
  if (!$("engine-on").checked) { $("engine-on").checked = true; engine.setOn(true); }
  await moved();
}

// Keys that type: navigation keys are theirs while one of these has the focus.
const TYPING = new Set(["text", "number", "search", "email", "url", "password", "tel",
  "date", "time", "datetime-local", "month", "week", "range"]);
function typing(el) {
  if (!el || !el.tagName) return false;
  if (el.isContentEditable || el.tagName === "TEXTAREA") return true;
  return el.tagName === "INPUT" && TYPING.has((el.type || "text").toLowerCase());
}

// ←/→, Home/End and F (flip), whatever has the focus but a text field: a checkbox, a button
// or a menu just used included (a menu then keeps its choice).
function onKey(ev) {
  if ($("view-play").classList.contains("hidden")) return;
  if (ev.ctrlKey || ev.altKey || ev.metaKey || typing(ev.target)) return;
  if (ev.key === "f" || ev.key === "F") { ev.preventDefault(); flip(); return; }
  const to = { ArrowLeft: P.cursor - 1, ArrowRight: P.cursor + 1, Home: 0, End: P.line.length - 1 }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  guard(goTo)(to);
}

function flip() {
  P.flip = !P.flip;
  render();
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
  $("flip").onclick = flip;
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
    render: () => render(), playLine: guard(playLine),
    side: () => cur().side, sides: () => P.board.sides,
    changed: () => { render(); engine.follow(P.game, cur().position, Boolean(outcome())); },
  });
  wire();
  await newGame();
  return { onShow: () => {}, openGame: guard(openGame, "watch-info") };
}
