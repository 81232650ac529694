// Play and analyse on one board, as lichess does: turns entered by clicks, the model at any
// seat, the last move highlighted, the move list by round and clickable, a move tree (a turn
// played from an earlier position starts a variation; variations nest, are promoted or
// deleted, carry comments, and each game's tree is kept while another game is shown),
// undo/redo, keyboard navigation and flip, resign, the strength in plain words, the engine
// (eval bar, arrows, policy map, its lines), and games exported and imported as text with
// their variations and comments.
import { $, guard } from "./util.js";
import { drawBoard, pathCells } from "./board.js";
import { createEngine } from "./engine.js";
import { createGraph } from "./graph.js";
import { createEditor } from "./editor.js";
import { exportGame, parseGame, fillMoveList, treeItems } from "./gametext.js";

let api, info, engine, graph, editor;
// The move tree: nodes {view, turn, parent, children, next, comment, resigned?}; the first
// child is the main continuation, `next` the child the shown line follows. `line` is the
// shown line: from the root through the cursor's node, then along `next`. A resignation
// belongs to the node it was made at, so a variation played from an earlier position is
// not over. `trees`: each game's tree, cursor and seats while another game is shown.
const P = {
  game: "rematch", board: null, line: [], cursor: 0, redo: [], entry: null, flip: false,
  seats: [], thinking: false, stalled: null, token: 0, trees: {},
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

const node = (view, turn, parent) => ({ view, turn, parent, children: [], next: null, comment: "" });

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

// A move tree (`parsed`: nodes {turn, comment, children} from the game text) replayed from
// `start` (the start position when null) on the server only: its root. Fails naming the
// first turn that is not legal, by its depth.
async function replayTree(game, start, parsed) {
  const view = await api("/api/new", start ? { game, position: start } : { game });
  const root = node(view, null, null);
  root.comment = parsed.comment || "";
  const grow = async (to, from, depth) => {
    for (const child of from.children) {
      let r;
      try { r = await api("/api/play", { game, position: to.view.position, turn: child.turn }); }
      catch (err) { throw new Error(`turn ${depth} (${child.turn}): ${err.message}`); }
      const n = node(r, r.turn, to);
      n.comment = child.comment || "";
      to.children.push(n);
      await grow(n, child, depth + 1);
    }
  };
  await grow(root, parsed, 1);
  return root;
}

// A plain line of turns as a parsed tree.
function chain(turns) {
  const root = { turn: null, comment: "", children: [] };
  let at = root;
  for (const turn of turns) { const n = { turn, comment: "", children: [] }; at.children.push(n); at = n; }
  return root;
}

// Shows the line through `at` (from the root along `next`), the cursor on `at`.
function showLine(at) {
  const path = [];
  for (let n = at; n; n = n.parent) path.unshift(n);
  for (const [i, n] of path.entries()) if (i > 0) n.parent.next = n;
  P.cursor = path.length - 1;
  for (let n = at; n.children.length > 0;) { n = n.next && n.children.includes(n.next) ? n.next : n.children[0]; path.push(n); }
  P.line = path;
}

// Shows the tree of `root` as the game on the board, the cursor on `at` (the root when
// null); what was on the board before (a model's move under way included) is dropped.
function setGame(game, root, at) {
  editor.close();
  $("game").value = game;
  P.game = game;
  P.board = root.view.board;
  Object.assign(P, { redo: [], stalled: null, thinking: false });
  showLine(at || root);
  dropMove();
  seatControls();
  engine.sidesChanged(P.board.sides);
  message("");
}

async function newGame(position) {
  const game = $("game").value;
  setGame(game, await replayTree(game, position, chain([])));
  await moved();
}

// Another game chosen: the shown game's tree is kept, and the new game's tree comes back
// if it was shown before (a new game otherwise).
// Keeps the shown game's tree, its cursor and seats, for when `game` replaces it.
function keepTree(game) {
  if (P.line.length > 0 && game !== P.game) P.trees[P.game] = { at: P.line[P.cursor], seats: P.seats.slice() };
}

async function switchGame() {
  const game = $("game").value, kept = game === P.game ? null : P.trees[game];
  keepTree(game);
  if (!kept) { P.seats = []; await newGame(); return; }
  let root = kept.at;
  while (root.parent) root = root.parent;
  P.seats = kept.seats;
  setGame(game, root, kept.at);
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
  graph.follow(P.game, P.line.map(n => n.view));
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
  drawTree();
}

// The node where the shown line leaves the main line nearest the cursor (the variation the
// cursor is in), or null on the main line.
function variationAt() {
  for (let n = P.line[P.cursor]; n.parent; n = n.parent) if (n.parent.children[0] !== n) return n;
  return null;
}

// The whole tree as text (turns, variations in parentheses, comments), each turn a link.
function drawTree() {
  const box = $("tree");
  box.replaceChildren();
  const here = P.line[P.cursor];
  let root = here;
  while (root.parent) root = root.parent;
  let depth = 0;
  for (const item of treeItems(P.board, root, n => n.parent.view.seat_index)) {
    if (item.kind === "open" || item.kind === "close") {
      depth += item.kind === "open" ? 1 : -1;
      box.appendChild(document.createTextNode(item.kind === "open" ? " (" : ") "));
      continue;
    }
    const span = document.createElement("span");
    if (item.kind === "comment") {
      span.className = "tree-comment"; span.textContent = ` {${item.text}} `;
    } else {
      span.className = "tree-turn" + (item.node === here ? " current" : "") + (depth > 0 ? " in-variation" : "");
      span.dataset.depth = depth;
      span.textContent = item.number ? `${item.number} ${item.text}` : item.text;
      span.onclick = guard(() => goToNode(item.node));
    }
    box.appendChild(span);
    box.appendChild(document.createTextNode(" "));
  }
  const variation = variationAt();
  $("promote-variation").disabled = !variation;
  $("delete-variation").disabled = !variation;
  if (P.commented !== here) { P.commented = here; $("comment").value = here.comment || ""; }
  $("comment").disabled = !here.parent;
}

function render() {
  if (editor.active()) {
    drawBoard($("board"), P.board, { pieces: editor.pieces(), flip: P.flip, onClick: guard(cell => editor.click(cell)) });
    $("status").textContent = "Editing the position: choose a piece, then click cells.";
    window.__cz = { ...window.__cz, editing: editor.notation() };
    return;
  }
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
  graph.draw();
  $("variation").hidden = !variationAt();
  // Only when the position changes: a position being typed or pasted is kept.
  if (P.shown !== v.position) { P.shown = v.position; $("position-text").value = v.position; }
  $("undo").disabled = P.line.length < 2; $("redo").disabled = P.redo.length === 0;
  $("resign").disabled = Boolean(over) || !atEnd() || !personToMove();
  window.__cz = {
    history: P.line.map(h => h.turn), cursor: P.cursor, position: v.position, outcome: over,
    thinking: P.thinking, stalled: P.stalled, flip: P.flip, seats: P.board.seats, editing: null,
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

// A turn played at the cursor: a turn the tree has there already, or a new one (the start
// of a variation when the position has a continuation).
function place(entry) {
  const at = P.line[P.cursor];
  let child = at.children.find(c => c.view.position === entry.view.position);
  if (!child) {
    child = node(entry.view, entry.turn, at);
    at.children.push(child);
    P.redo = [];
  }
  showLine(child);
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

// The cursor to a node of the tree, showing the line through it.
async function goToNode(n) {
  showLine(n);
  message("");
  await moved();
}

// ↑/↓: the line shown from the cursor on follows the previous or next variation there.
async function otherVariation(step) {
  const at = P.line[P.cursor], kids = at.children;
  if (kids.length < 2) return;
  const now = Math.max(0, kids.indexOf(P.line[P.cursor + 1]));
  at.next = kids[(now + step + kids.length) % kids.length];
  showLine(at);
  render();
}

// The variation the cursor is in becomes its parent's main continuation (one level up).
async function promoteVariation() {
  const v = variationAt();
  if (!v) return;
  const kids = v.parent.children;
  kids.splice(kids.indexOf(v), 1);
  kids.unshift(v);
  render();
}

// The variation the cursor is in is deleted, turns, variations and comments; the cursor
// goes to where it began.
async function deleteVariation() {
  const v = variationAt();
  if (!v) return;
  const from = v.parent;
  from.children.splice(from.children.indexOf(v), 1);
  if (from.next === v) from.next = null;
  P.redo = [];
  await goToNode(from);
}

// Take back: to the last earlier position where a person moves; redo puts it back.
async function undo() {
  if (P.line.length < 2) return;
  dropMove(); P.thinking = false; P.stalled = null;
  const taken = [];
  do taken.unshift(P.line.pop());
  while (P.line.length > 1 && P.seats[P.line[P.line.length - 1].view.seat_index] !== "person");
  for (const h of taken) delete h.resigned;
  const from = taken[0].parent;
  from.children.splice(from.children.indexOf(taken[0]), 1);
  if (from.next === taken[0]) from.next = null;
  P.redo.push(taken);
  showLine(from);
  message("");
  await moved();
}

async function redo() {
  const group = P.redo.pop();
  if (!group) return;
  const from = group[0].parent;
  if (!from.children.includes(group[0])) from.children.push(group[0]);
  showLine(group[group.length - 1]);
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

// Back to the main line, where the variation the cursor is in left it.
async function backToGame() {
  let v = variationAt(), from = null;
  for (; v; v = variationAt()) {
    from = v.parent;
    from.next = from.children[0];
    showLine(from);
  }
  if (from) await moved();
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

// The main line's last node.
function mainEnd() {
  let n = P.line[0];
  while (n.children.length > 0) n = n.children[0];
  return n;
}

function exportText() {
  const last = mainEnd();
  $("game-text").value = exportGame({
    game: P.game, seats: P.board.seats.map((name, i) => [cap(name), seatLabel(i)]),
    result: last.resigned || last.view.outcome || "unfinished",
    date: new Date().toISOString().slice(0, 10), start: P.line[0].view.position,
    items: treeItems(P.board, P.line[0], n => n.parent.view.seat_index),
  });
  message("The game is in the text box below, in the project's notation, with its variations and comments.");
}

// A recorded game (imported, or opened from Watch; `parsed` its tree) on this board, every
// seat a person, the cursor at turn `at` of the main line. The whole tree is replayed first:
// a game that does not replay is refused and the game on the board stays as it was.
async function loadGame(game, start, parsed, at, result) {
  const root = await replayTree(game, start, parsed);
  let end = root;
  while (end.children.length > 0) end = end.children[0];
  if (result && /resigned/.test(result) && !end.view.outcome) end.resigned = result;
  keepTree(game);
  P.seats = ["person", "person", "person"];
  setGame(game, root);
  P.cursor = Math.max(0, Math.min(at, P.line.length - 1));
}

// An imported game: its game and start, every seat a person, its tree replayed turn by turn.
async function importText() {
  const g = parseGame($("game-text").value);
  if (!info.games.includes(g.game)) throw new Error(`Import: unknown game '${g.game}' (known: ${info.games.join(", ")})`);
  try { await loadGame(g.game, g.start, g.tree, g.turns.length, g.tags.result); }
  catch (err) { throw new Error(`Import: ${err.message.replace(/\.$/, "")}. The game on the board is unchanged.`); }
  let count = -1;
  for (const stack = [P.line[0]]; stack.length > 0; count++) stack.push(...stack.pop().children);
  message(`Imported ${g.turns.length} turns` + (count > g.turns.length ? ` and ${count - g.turns.length} more in variations.` : "."));
  await moved();
}

// Watch's "open in analysis": a recorded game on this board, every seat a person.
export async function openGame(game, start, gameTurns, at, result) {
  await loadGame(game, start, chain(gameTurns), at, result);
  if (!$("engine-on").checked) { $("engine-on").checked = true; engine.setOn(true); }
  await moved();
}

// A link that opens this page on the shown game: its game, start and the turns of the shown
// line up to the cursor (`#game=...&start=...&turns=a,b,c`).
function link() {
  const params = new URLSearchParams({ game: P.game, start: P.line[0].view.position });
  const turns = P.line.slice(1, P.cursor + 1).map(n => n.turn);
  if (turns.length > 0) params.set("turns", turns.join(","));
  return `${location.origin}${location.pathname}#${params}`;
}

// The game a link names (see `link`), or null when the page's address names none.
function linked() {
  const params = new URLSearchParams(location.hash.slice(1));
  const game = params.get("game");
  if (!game) return null;
  if (!info.games.includes(game)) throw new Error(`The link names an unknown game '${game}' (known: ${info.games.join(", ")}).`);
  const turns = (params.get("turns") || "").split(",").filter(t => t.length > 0);
  return { game, start: params.get("start"), turns };
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
  if (ev.key === "ArrowUp" || ev.key === "ArrowDown") { ev.preventDefault(); guard(otherVariation)(ev.key === "ArrowDown" ? 1 : -1); return; }
  const to = { ArrowLeft: P.cursor - 1, ArrowRight: P.cursor + 1, Home: 0, End: P.line.length - 1 }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  guard(goTo)(to);
}

function flip() {
  P.flip = !P.flip;
  render();
}

// On a phone (700 px wide or less) the engine's figures go right under the board, not
// below every control; back beside it on a wider screen.
function placeEngine() {
  const narrow = matchMedia("(max-width: 700px)");
  const panel = $("engine-panel"), home = panel.parentNode, next = panel.nextSibling;
  const put = () => (narrow.matches ? $("phone-engine").appendChild(panel) : home.insertBefore(panel, next));
  narrow.addEventListener("change", put);
  put();
}

function wire() {
  $("game").onchange = guard(switchGame);
  $("promote-variation").onclick = guard(promoteVariation);
  $("delete-variation").onclick = guard(deleteVariation);
  $("comment").oninput = () => { const n = P.line[P.cursor]; if (n.parent) { n.comment = $("comment").value.trim(); drawTree(); } };
  $("copy-link").onclick = () => { $("link-text").value = link(); $("link-text").hidden = false; $("link-text").select(); navigator.clipboard?.writeText($("link-text").value).catch(() => {}); };
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
  placeEngine();
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
  graph = createGraph(api, { cursor: () => P.cursor, seats: () => P.board.seats, goTo: guard(goTo) });
  editor = createEditor({
    render: () => render(), game: () => P.game, position: () => cur().position,
    load: async position => { await newGame(position); message("The edited position is on the board."); },
  });
  wire();
  // A link's game (see `link`); one that is not known or does not replay is said in words
  // over a new game.
  let opened = null, problem = null;
  try { opened = linked(); } catch (err) { problem = err.message; }
  if (opened) {
    try { await loadGame(opened.game, opened.start, chain(opened.turns), opened.turns.length); }
    catch (err) { opened = null; problem = `The link's game does not replay: ${err.message}`; }
  }
  if (opened) await moved(); else await newGame();
  if (problem) message(problem, true);
  return { onShow: () => {}, openGame: guard(openGame, "watch-info") };
}
