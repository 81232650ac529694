// The graph of the game: the expected score (win + draw / 2) of the side chosen under "eval
// for" (the first side while that says "the side to move") after each turn of the shown line,
// from the search's value of each position (its best turn's, as the engine's bar has it; a
// proven result where the solver has one). The line's positions not yet known are sent in
// one request (/api/graph), whose searches run together so that their leaves share the net's
// batches; values are kept by position. Turns are judged by the searched value before and
// after them, graded as lichess grades them (see `GRADES`), counted per seat and marked on
// the graph; axes with a scale, the side named, values on hover; a click goes to that turn.
import { $, guard } from "./util.js";

// Visits of each position's search.
export const GRAPH_VISITS = 48;
const HEIGHT = 150, LEFT = 40, RIGHT = 8, TOP = 8, BOTTOM = 22;

// lichess's grades: a turn that lowers its side's value (win − loss, from −1 to 1:
// lichess's "winning chances") by at least this much; that is, its expected score by 5, 10
// or 15 points of 100. A turn that loses a proven value is a blunder.
export const GRADES = [[0.3, "blunder"], [0.2, "mistake"], [0.1, "inaccuracy"]];

// The graded turns of a line. evals[i]: {score, exact} of the position after turn i (i = 0
// the start): score the first side's expected score, exact whether it is proven (or the
// game's result); movers[i]: {side, seat} of the turn from position i. Returns, per graded
// turn index i >= 1, {turn: i, seat, lost (in value, from −1 to 1), grade, proven}.
export function mistakes(evals, movers) {
  const out = [];
  for (let i = 1; i < evals.length; i++) {
    const [before, after, mover] = [evals[i - 1], evals[i], movers[i - 1]];
    if (!before || !after || !mover) continue;
    const own = v => (mover.side === 0 ? v : 1 - v);
    const lost = 2 * (own(before.score) - own(after.score));
    const proven = before.exact && after.exact && own(after.score) < own(before.score);
    const grade = proven ? "blunder" : (GRADES.find(([cut]) => lost >= cut - 1e-9) || [])[1];
    if (grade) out.push({ turn: i, seat: mover.seat, lost, grade, proven });
  }
  return out;
}

// Each seat's count of each grade, in words ("White: 1 inaccuracy, 0 mistakes, 2 blunders").
export function gradeCounts(found, seats) {
  const words = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
  const count = (i, g) => {
    const n = found.filter(m => m.seat === i && m.grade === g).length;
    return `${n} ${n === 1 ? g : words[g]}`;
  };
  return seats.map((name, i) => `${name[0].toUpperCase()}${name.slice(1)}: ` +
    ["inaccuracy", "mistake", "blunder"].map(g => count(i, g)).join(", "));
}

export function createGraph(api, page) {
  const G = { on: false, cache: new Map(), token: 0, evals: [], line: [], game: null, error: null };
  const key = (game, position) => `${game} ${position}`;

  // A position's value as the server sends it, kept as the first side's expected score.
  function keep(game, view, v) {
    const mover = v.wdl[0] + v.wdl[1] / 2;
    const e = { score: v.side === 0 ? mover : 1 - mover, exact: v.exact, best: v.best, proven: v.proven };
    G.cache.set(key(game, view.position), e);
    return e;
  }

  // The side the graph is for: the one chosen under "eval for", else the first.
  function side() {
    const chosen = $("eval-side").value;
    return chosen === "mover" ? 0 : Number(chosen);
  }

  function draw() {
    const svg = $("game-graph"), n = G.line.length;
    $("graph-box").hidden = !G.on;
    svg.replaceChildren();
    if (!G.on || n === 0) return;
    const width = Math.max(200, Math.round(svg.clientWidth || 600)), phone = width < 500;
    svg.setAttribute("viewBox", `0 0 ${width} ${HEIGHT}`);
    const plotW = width - LEFT - RIGHT, plotH = HEIGHT - TOP - BOTTOM, s = side();
    const x = i => LEFT + (n < 2 ? plotW / 2 : (i / (n - 1)) * plotW);
    const y = v => TOP + plotH * (1 - v);
    const own = score => (s === 0 ? score : 1 - score);
    const ns = "http://www.w3.org/2000/svg", add = (tag, attrs, text) => {
      const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text !== undefined) e.textContent = text;
      svg.appendChild(e);
      return e;
    };
    const name = page.sides()[s] || "";
    const who = `${name[0].toUpperCase()}${name.slice(1)}`;
    // Axes: the expected score from 0% to 100% (50% dashed), turns below.
    for (const v of [0, 0.25, 0.5, 0.75, 1]) {
      add("line", { x1: LEFT, x2: LEFT + plotW, y1: y(v), y2: y(v), class: v === 0.5 ? "graph-even" : "graph-grid" });
      add("text", { x: LEFT - 4, y: y(v) + 4, class: "graph-axis graph-y" }, `${100 * v}%`);
    }
    const every = Math.max(1, Math.ceil((n - 1) / (phone ? 5 : 10)));
    for (let i = 0; i < n; i += every) add("text", { x: x(i), y: HEIGHT - 6, class: "graph-axis graph-x" }, String(i));
    add("text", { x: LEFT + 4, y: TOP + 12, class: "graph-side" }, `${who}'s expected score`);
    const known = G.evals.map((e, i) => (e ? `${x(i)},${y(own(e.score))}` : null)).filter(Boolean);
    add("polyline", { points: known.join(" "), class: "graph-line" });
    add("line", { x1: x(page.cursor()), x2: x(page.cursor()), y1: TOP, y2: TOP + plotH, class: "graph-cursor" });
    const movers = G.line.map(v => ({ side: v.side, seat: v.seat_index }));
    const found = mistakes(G.evals, movers), graded = new Map(found.map(m => [m.turn, m]));
    // A point per known position, its value on hover; graded turns marked larger.
    G.evals.forEach((e, i) => {
      if (!e) return;
      const m = graded.get(i), r = (phone ? 5.5 : 4) * (m ? 1.4 : 1);
      const words = `turn ${i}: ${who} ${Math.round(100 * own(e.score))}%` + (e.exact ? " (proven)" : "") +
        (m ? `; ${m.grade}: ${m.proven ? "a proven value lost" : `its side's value fell by ${m.lost.toFixed(2)}`}` : "") +
        (e.best ? `; best here ${e.best}` : "");
      add("circle", { cx: x(i), cy: y(own(e.score)), r, class: m ? `graph-mistake grade-${m.grade}` : "graph-point", "data-turn": i, "data-value": own(e.score).toFixed(3) })
        .appendChild(document.createElementNS(ns, "title")).textContent = words;
    });
    const done = G.evals.filter(Boolean).length;
    $("graph-status").textContent = G.error ? `The graph stopped: ${G.error}` :
      `${gradeCounts(found, page.seats()).join(" · ")} (a turn lowering its side's value by 0.1 is an inaccuracy, 0.2 a mistake, 0.3 a blunder)` +
      (done < n ? ` — searching ${n - done} positions…` : " (done)");
    $("graph-status").dataset.done = String(done === n);
  }

  // The shown line's positions not known yet, searched together in one request; a newer
  // line drops the answer (its positions are kept for later all the same).
  async function follow(game, line) {
    const token = ++G.token;
    G.game = game; G.line = line; G.error = null;
    G.evals = line.map(v => G.cache.get(key(game, v.position)) || null);
    draw();
    if (!G.on) return;
    const wanted = line.filter(v => !G.cache.has(key(game, v.position)));
    if (wanted.length === 0) return;
    let answer;
    try { answer = await api("/api/graph", { game, positions: wanted.map(v => v.position), visits: GRAPH_VISITS }); }
    catch (err) { if (token === G.token) { G.error = err.message; draw(); } return; }
    answer.positions.forEach((v, i) => keep(game, wanted[i], v));
    if (token !== G.token) return;
    G.evals = line.map(v => G.cache.get(key(game, v.position)) || null);
    draw();
  }

  $("graph-on").onchange = () => { G.on = $("graph-on").checked; guard(follow)(G.game, G.line); };
  $("game-graph").onclick = ev => {
    const box = $("game-graph").getBoundingClientRect(), n = G.line.length;
    if (n < 2 || box.width === 0) return;
    const at = (ev.clientX - box.left - LEFT) / (box.width - LEFT - RIGHT);
    page.goTo(Math.max(0, Math.min(n - 1, Math.round(at * (n - 1)))));
  };
  return { follow: (game, line) => guard(follow)(game, line), draw };
}
