// Play and analyse on one board, as lichess does: turns entered by clicks, the model at any
// seat, the last move highlighted, the move list by round and clickable, the move tree drawn
// (tree.js holds it: variations, promotion, undo/redo, resignation; each game's tree is kept
// while another game is shown), keyboard navigation and flip, resign, the strength in plain
// words, the engine (eval bar, arrows, policy map, its lines), games exported and imported as
// text with their variations and comments (gametext.js), and links (link.js).
import { $, guard, fmt } from "./util.js";
import { drawBoard, pathCells } from "./board.js";
import { createEngine } from "./engine.js";
import { createGraph } from "./graph.js";
import { createEditor } from "./editor.js";
import { exportGame, parseGame, fillMoveList, treeItems } from "./gametext.js";
import { chain, replay } from "./tree.js";
import { linkHash, parseLink } from "./link.js";

let api, info, engine, graph, editor;
// The page's state beside the tree, every field declared here.
const P = {
  game: "rematch",  // the game shown
  board: null,      // its board, as the server describes it (cells, seats, sides)
  tree: null,       // the shown game's move tree (a MoveTree: tree.js)
  entry: null,      // the turn being entered by clicks (the server's /api/entry answer)
  flip: false,      // the board turned round
  seats: [],        // who plays each seat: "person" or "model"
  thinking: false,  // the model is choosing a turn
  stalled: null,    // why the model cannot move, in words, until something changes
  token: 0,         // bumped whenever an answer under way should be dropped
  trees: {},        // each other game's {tree, seats}, kept while another game is shown
  moving: null,     // the AbortController of the model's move under way
  commented: null,  // the node whose comment the comment box shows
  shown: null,      // the position the position box was last filled with
};
// Drops the model's move under way: its request is aborted, so the server stops its search.
function dropMove() {
  P.token++;
  if (P.moving) { P.moving.abort(); P.moving = null; }
}
const cur = () => P.tree.here.view;
const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";
const outcome = () => P.tree.outcome();

function message(text, refused = false) {
  $("message").textContent = text || "";
  $("message").className = refused ? "refused" : "";
}

// What Import and Export (`where`: Load) say, next to their buttons.
function textMessage(text, where = "text-message") {
  $(where).textContent = text;
  $(where).className = "";
}

// A button's handler whose failure is said right under the button (`where`), scrolled into
// view.
const saidBelow = (fn, where) => async () => {
  textMessage("", where);
  try { await fn(); }
  catch (err) {
    textMessage(err.message, where);
    $(where).className = "refused";
    $(where).scrollIntoView({ block: "nearest" });
  }
};

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
// touched): their views. Fails naming the first turn that is not legal.
async function replayTurns(game, position, turns) {
  const out = [];
  for (const [i, turn] of turns.entries()) {
    let r;
    try { r = await api("/api/play", { game, position, turn }); }
    catch (err) { throw new Error(`turn ${i + 1} (${turn}): ${err.message}`); }
    out.push(r);
    position = r.position;
  }
  return out;
}

// A move tree (`parsed`: nodes {turn, comment, children}, as the game text reads) replayed
// from `start` (the start position when null) on the server only: {tree, refused} (tree.js's
// `replay`; `lenient`: a line stops at its first refused turn instead of failing).
async function openTree(game, start, parsed, lenient = false) {
  const view = await api("/api/new", start ? { game, position: start } : { game });
  return replay(view, parsed, (position, turn) => api("/api/play", { game, position, turn }), lenient);
}

// Shows `tree` as the game on the board; what was on the board before (a model's move under
// way included) is dropped.
function setGame(game, tree) {
  editor.close();
  $("game").value = game;
  Object.assign(P, { game, tree, board: tree.root.view.board, stalled: null, thinking: false });
  dropMove();
  seatControls();
  engine.sidesChanged(P.board.sides);
  message("");
}

async function newGame(position, game = $("game").value) {
  setGame(game, (await openTree(game, position, chain([]))).tree);
  await moved();
}

// Keeps the shown game's tree and seats, for when `game` replaces it.
function keepTree(game) {
  if (P.tree && game !== P.game) P.trees[P.game] = { tree: P.tree, seats: P.seats.slice() };
}

// Another game chosen: the shown game's tree is kept, and the new game's tree comes back
// if it was shown before (a new game otherwise).
async function switchGame() {
  const game = $("game").value, kept = game === P.game ? null : P.trees[game];
  keepTree(game);
  if (!kept) { P.seats = []; await newGame(); return; }
  P.seats = kept.seats;
  setGame(game, kept.tree);
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
  graph.follow(P.game, P.tree.line.map(n => n.view));
  await maybeModel();
}

// By round: one turn of each side a row, each seat in its own column (gametext.js).
function moveList() {
  const t = P.tree;
  fillMoveList($("moves").tBodies[0], P.board, t.lineTurns(), t.lineMovers(), t.cursor, guard(goTo));
  const box = $("moves-box");
  const current = box.querySelector(".current");
  if (current) box.scrollTop = current.offsetTop - box.clientHeight / 2;
  drawTree();
}

// The whole tree as text (turns, variations in parentheses, comments), each turn a link.
function drawTree() {
  const box = $("tree");
  box.replaceChildren();
  const here = P.tree.here;
  let depth = 0;
  for (const item of treeItems(P.board, P.tree.root, n => n.parent.view.seat_index)) {
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
  const variation = P.tree.variationAt();
  $("promote-variation").disabled = !variation;
  $("delete-variation").disabled = !variation;
  if (P.commented !== here) { P.commented = here; $("comment").value = here.comment || ""; }
  $("comment").disabled = !here.parent;
}

// What the status line says: the result, or who moves (and that a drop is due, or that the
// model is thinking).
function statusText(v, over) {
  if (over) return `Game over. ${over}`;
  const e = P.entry;
  if (P.thinking) return `${v.mover} — the model is thinking…`;
  if (!e || e.selected || e.targets.length === 0) return v.mover;
  // No piece selected but cells offered: the turn goes on with drops (Eximo).
  const left = e.paths.length > 0 ? Math.min(...e.paths.map(p => p.length)) : 1;
  return `${v.mover} — ${left === 1 ? "a drop is" : `${left} drops are`} due: click a marked cell to drop a man there.`;
}

function render() {
  if (editor.active()) {
    drawBoard($("board"), P.board, { pieces: editor.pieces(), flip: P.flip, onClick: guard(cell => editor.click(cell)) });
    $("status").textContent = "Editing the position: choose a piece, then click cells.";
    window.__cz = { ...window.__cz, editing: editor.notation() };
    return;
  }
  const t = P.tree, v = cur(), e = P.entry;
  drawBoard($("board"), P.board, {
    pieces: e ? e.pieces : v.pieces, flip: P.flip, onClick: guard(onCell),
    clickable: e ? e.clickable : [], targets: e ? e.targets : [], selected: e ? e.selected : null,
    paths: e ? e.paths : [], lastmove: pathCells(t.here.turn), arrows: engine.arrows(v.position),
    heat: engine.heat(v.position),
  });
  const over = outcome();
  $("status").textContent = statusText(v, over);
  moveList();
  graph.draw();
  $("variation").hidden = !t.variationAt();
  // Only when the position changes: a position being typed or pasted is kept.
  if (P.shown !== v.position) { P.shown = v.position; $("position-text").value = v.position; }
  $("undo").disabled = !t.canUndo(); $("redo").disabled = !t.canRedo();
  $("resign").disabled = Boolean(over) || !t.atEnd() || !personToMove();
  window.__cz = {
    history: t.line.map(h => h.turn), cursor: t.cursor, position: v.position, outcome: over,
    thinking: P.thinking, stalled: P.stalled, flip: P.flip, seats: P.board.seats, editing: null,
  };
}

async function onCell(cell) {
  if (P.thinking) { message("Wait: the model is thinking.", true); return; }
  if (outcome()) { message("The game is over.", true); return; }
  if (!personToMove()) { message(`The model plays ${cap(cur().seat)}: choose "a person" for that seat to move here.`, true); return; }
  if (!P.entry) return;
  // The selected piece clicked again: the turn begun is cancelled.
  if (P.entry.selected === cell) { await cancelEntry(); return; }
  const e = await api("/api/entry", {
    game: P.game, position: cur().position, steps: P.entry.steps, selected: P.entry.selected, click: cell,
  });
  if (e.refused) { message(e.refused, true); return; }
  message("");
  if (e.turn) { await addTurn(e.after, e.turn); return; }
  P.entry = e;
  render();
}

// A turn half entered (a piece selected, or steps made) is cancelled: the position at the
// cursor as it was, every piece offered again.
async function cancelEntry() {
  const e = P.entry;
  if (!e || (!e.selected && e.steps.length === 0) || P.thinking) return;
  const position = cur().position;
  const fresh = await api("/api/entry", { game: P.game, position });
  if (P.entry !== e) return;
  P.entry = fresh;
  message(e.steps.length > 0 ? "The turn begun is cancelled." : "");
  render();
}

async function addTurn(view, turn) {
  P.tree.place(view, turn);
  await moved();
}

async function maybeModel() {
  const v = cur();
  if (!P.tree.atEnd() || outcome() || P.seats[v.seat_index] !== "model" || P.thinking || P.stalled) return;
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
  if (token === P.token && P.tree.atEnd() && cur().position === v.position) await addTurn(r, r.turn);
  else render();
}

async function goTo(i) {
  if (!P.tree.goTo(i)) return;
  message("");
  await moved();
}

// The cursor to a node of the tree, showing the line through it.
async function goToNode(n) {
  P.tree.show(n);
  message("");
  await moved();
}

// ↑/↓: the line shown from the cursor on follows the previous or next variation there.
function otherVariation(step) {
  if (P.tree.otherVariation(step)) render();
}

function promoteVariation() {
  if (P.tree.promote()) render();
}

async function deleteVariation() {
  if (P.tree.deleteVariation()) { message(""); await moved(); }
}

// A change of the tree by Undo or Redo, when `can` allows one: a model's move under way is
// dropped first.
async function retake(can, change) {
  if (!can) return;
  dropMove(); P.thinking = false; P.stalled = null;
  change();
  message("");
  await moved();
}

// Undo and Redo: tree.js says what each does (never a reorder of the tree).
const undo = () => retake(P.tree.canUndo(), () => P.tree.undo(n => P.seats[n.view.seat_index] === "person"));
const redo = () => retake(P.tree.canRedo(), () => P.tree.redo());

function resign() {
  const v = cur(), sides = P.board.sides;
  if (!personToMove() || !P.tree.resign(`${cap(sides[1 - v.side])} wins: ${cap(sides[v.side])} resigned`)) return;
  P.entry = null;
  message("");
  render();
  engine.follow(P.game, v.position, true);
}

// Back to the main line, where the variation the cursor is in left it.
async function backToGame() {
  if (P.tree.backToMain()) await moved();
}

// The engine's line up to a turn, played from the cursor (a variation where it leaves the
// line); nothing changes if the position moved on meanwhile.
async function playLine(line) {
  const token = P.token, from = P.tree.here, game = P.game;
  const views = await replayTurns(game, cur().position, line);
  if (token !== P.token || from !== P.tree.here || game !== P.game) return;
  for (const view of views) P.tree.place(view, view.turn);
  await moved();
}

function seatLabel(i) {
  if (P.seats[i] !== "model") return "a person";
  return `the model (${info.models[P.game] || "random playouts"})`;
}

function exportText() {
  const t = P.tree, last = t.mainEnd();
  $("game-text").value = exportGame({
    game: P.game, seats: P.board.seats.map((name, i) => [cap(name), seatLabel(i)]),
    result: last.resigned || last.view.outcome || "unfinished",
    date: new Date().toISOString().slice(0, 10), start: t.root.view.position,
    items: treeItems(P.board, t.root, n => n.parent.view.seat_index),
  });
  message("The game is in the text box below, in the project's notation, with its variations and comments.");
}

// A recorded game (imported, opened from Watch or by a link) on this board, every seat a
// person, the cursor at `at(tree)` (a node). `result` in words: a resignation is put at the
// main line's end.
function showGame(game, tree, at, result) {
  const end = tree.mainEnd();
  if (result && /resigned/.test(result) && !end.view.outcome) end.resigned = result;
  keepTree(game);
  P.seats = ["person", "person", "person"];
  setGame(game, tree);
  tree.show(at(tree));
}

// The node `i` turns down the main line (its end when shorter).
const mainTurn = i => tree => {
  let n = tree.root;
  for (; i > 0 && n.children.length > 0; i--) n = n.children[0];
  return n;
};

// An imported game: its game and start, every seat a person, its tree replayed turn by turn
// first: a game that does not replay is refused and the game on the board stays as it was.
async function importText() {
  const g = parseGame($("game-text").value);
  if (!info.games.includes(g.game)) throw new Error(`Import: unknown game '${g.game}' (known: ${info.games.join(", ")})`);
  let tree;
  try { ({ tree } = await openTree(g.game, g.start, g.tree)); }
  catch (err) { throw new Error(`Import: ${err.message.replace(/\.$/, "")}. The game on the board is unchanged.`); }
  showGame(g.game, tree, mainTurn(g.turns.length), g.tags.result);
  const count = tree.count(), n = g.turns.length;
  textMessage(`Imported ${n} turns` + (count > n ? ` and ${count - n} more in variations.` : "."));
  await moved();
}

// Watch's "open in analysis": a recorded game on this board, every seat a person.
export async function openGame(game, start, gameTurns, at, result) {
  const { tree } = await openTree(game, start, chain(gameTurns));
  showGame(game, tree, mainTurn(at), result);
  if (!$("engine-on").checked) { $("engine-on").checked = true; engine.setOn(true); }
  await moved();
}

// The game the page's link names (link.js), when it names one: its tree up to the last
// legal turn of each line, the cursor where the link's turns lead. What goes wrong is said
// in words; a link that opens nothing leaves the board as it was, or shows a new game of
// its game (any game on `start`).
async function openLink(start = false) {
  let opened, tree, refused;
  try { opened = parseLink(location.hash, info.games); }
  catch (err) { if (start) await newGame(); message(err.message, true); return; }
  if (!opened) { if (start) await newGame(); return; }
  try { ({ tree, refused } = await openTree(opened.game, opened.start, opened.parsed, true)); }
  catch (err) {
    if (start) await newGame(undefined, opened.game);
    message(`The link's start position is refused: ${err.message}`, true);
    return;
  }
  showGame(opened.game, tree, t => t.follow(opened.turns));
  await moved();
  if (refused) message(`The link's game is shown up to its last legal turn: ${refused}`, true);
}

// Keys that type: navigation keys are theirs while one of these has the focus.
const TYPING = new Set(["text", "number", "search", "email", "url", "password", "tel",
  "date", "time", "datetime-local", "month", "week", "range"]);
function typing(el) {
  if (!el || !el.tagName) return false;
  if (el.isContentEditable || el.tagName === "TEXTAREA") return true;
  return el.tagName === "INPUT" && TYPING.has((el.type || "text").toLowerCase());
}

// ←/→, Home/End, ↑/↓ (another variation), F (flip) and Escape (cancels a turn begun),
// whatever has the focus but a text field: a checkbox, a button or a menu just used
// included (a menu then keeps its choice).
function onKey(ev) {
  if ($("view-play").classList.contains("hidden")) return;
  if (ev.ctrlKey || ev.altKey || ev.metaKey || typing(ev.target)) return;
  if (ev.key === "f" || ev.key === "F") { ev.preventDefault(); flip(); return; }
  if (ev.key === "Escape") { guard(cancelEntry)(); return; }
  if (ev.key === "ArrowUp" || ev.key === "ArrowDown") { ev.preventDefault(); otherVariation(ev.key === "ArrowDown" ? 1 : -1); return; }
  const t = P.tree;
  const to = { ArrowLeft: t.cursor - 1, ArrowRight: t.cursor + 1, Home: 0, End: t.line.length - 1 }[ev.key];
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

// Copy link: the link to the shown game at the cursor, shown and copied.
function copyLink() {
  const box = $("link-text");
  box.value = `${location.origin}${location.pathname}#${linkHash(P.game, P.board, P.tree)}`;
  box.hidden = false;
  box.select();
  navigator.clipboard?.writeText(box.value).catch(() => {});
}

function onComment() {
  const n = P.tree.here;
  if (n.parent) { n.comment = $("comment").value.trim(); drawTree(); }
}

function wire() {
  $("game").onchange = guard(switchGame);
  $("promote-variation").onclick = promoteVariation;
  $("delete-variation").onclick = guard(deleteVariation);
  $("comment").oninput = onComment;
  $("copy-link").onclick = copyLink;
  $("new-game").onclick = guard(() => newGame());
  $("undo").onclick = guard(undo);
  $("redo").onclick = guard(redo);
  $("resign").onclick = resign;
  $("back-to-game").onclick = guard(backToGame);
  const t = () => P.tree;
  for (const [id, to] of [["nav-first", () => 0], ["nav-prev", () => t().cursor - 1], ["nav-next", () => t().cursor + 1], ["nav-last", () => t().line.length - 1]]) {
    $(id).onclick = guard(() => goTo(to()));
  }
  $("flip").onclick = flip;
  $("copy-position").onclick = () => { $("position-text").select(); navigator.clipboard?.writeText($("position-text").value).catch(() => {}); };
  // Import and Load say what went wrong next to their buttons (on a phone the board's
  // message is far above them).
  $("load-position").onclick = saidBelow(async () => {
    await newGame($("position-text").value.trim());
    textMessage("Position loaded.", "position-message");
  }, "position-message");
  $("export-game").onclick = () => { textMessage(""); exportText(); };
  $("import-game").onclick = saidBelow(importText, "text-message");
  for (const id of ["strength", "strength-unit"]) $(id).onchange = guard(() => { P.stalled = null; message(""); return maybeModel(); });
  document.addEventListener("keydown", onKey);
  // A link pasted into the open tab changes only the address's fragment.
  window.addEventListener("hashchange", guard(() => openLink()));
  placeEngine();
}

export async function initPlay(apiFn, infoIn) {
  api = apiFn; info = infoIn;
  for (const g of info.games) $("game").add(new Option(g, g));
  $("strength").value = info.limits.default_visits;
  $("strength-hint").textContent = `at most ${fmt(info.limits.max_visits)} visits or ${fmt(info.limits.max_seconds)} seconds a move`;
  engine = createEngine(api, info, {
    render: () => render(), playLine: guard(playLine),
    side: () => cur().side, sides: () => P.board.sides, board: () => P.board,
    movers: () => P.tree.lineMovers().slice(0, P.tree.cursor),
    changed: () => { render(); engine.follow(P.game, cur().position, Boolean(outcome())); },
  });
  graph = createGraph(api, { cursor: () => P.tree.cursor, seats: () => P.board.seats, sides: () => P.board.sides, goTo: guard(goTo) });
  editor = createEditor({
    render: () => render(), game: () => P.game, position: () => cur().position,
    load: async position => { await newGame(position); message("The edited position is on the board."); },
  });
  wire();
  await openLink(true);
  return { onShow: () => {}, openGame: guard(openGame, "watch-info") };
}
