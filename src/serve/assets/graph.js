// The graph of the game: the first side's expected score (win + draw / 2) after each turn
// of the shown line, from a short search of each position, run in the background from the
// first turn to the last and kept by position. A turn that loses a proven value, or more
// than the chosen share of its side's win probability, is a mistake: marked on the graph
// and counted per seat. A click on the graph goes to that turn.
import { $, guard } from "./util.js";
import { wdlOf } from "./engine.js";

// Visits of each position's search: enough for the net's value to settle a little.
const GRAPH_VISITS = 48;
const WIDTH = 600, HEIGHT = 120;

// The mistakes of a line. evals[i]: {score, proven} of the position after turn i (i = 0 the
// start), both for side 0 (proven: the proven score, or null); movers[i]: {side, seat} of
// the turn from position i; share: the win probability a turn may lose. Returns, per turn
// index i >= 1 that is a mistake, {turn: i, seat, lost, proven}.
export function mistakes(evals, movers, share) {
  const out = [];
  for (let i = 1; i < evals.length; i++) {
    const [before, after, mover] = [evals[i - 1], evals[i], movers[i - 1]];
    if (!before || !after || !mover) continue;
    const own = v => (mover.side === 0 ? v : 1 - v);
    const lost = own(before.score) - own(after.score);
    const proven = before.proven !== null && after.proven !== null && own(after.proven) < own(before.proven);
    if (proven || lost > share) out.push({ turn: i, seat: mover.seat, lost, proven });
  }
  return out;
}

export function createGraph(api, page) {
  const G = { on: false, cache: new Map(), token: 0, evals: [], line: [], game: null };

  // The evaluation of one position of `game` (its view), for side 0.
  async function evaluate(game, view) {
    const key = `${game} ${view.position}`;
    if (G.cache.has(key)) return G.cache.get(key);
    let e;
    if (view.outcome) {
      const score = view.winner === null || view.winner === undefined ? 0.5 : view.winner === 0 ? 1 : 0;
      e = { score, proven: score };
    } else {
      const s = await api("/api/analyse", { game, position: view.position, visits: GRAPH_VISITS, lines: 1 });
      const [w, d] = wdlOf(s);
      const mover = w + d / 2, score = view.side === 0 ? mover : 1 - mover;
      e = { score, proven: s.proven_wdl ? score : null };
    }
    G.cache.set(key, e);
    return e;
  }

  // The chosen share, or null (with the reason shown) when it is not a number from 1 to 100.
  function share() {
    const n = Number($("mistake-share").value);
    return Number.isFinite(n) && n >= 1 && n <= 100 ? n / 100 : null;
  }

  function draw() {
    const svg = $("game-graph"), n = G.line.length;
    $("graph-box").hidden = !G.on;
    svg.replaceChildren();
    if (!G.on || n === 0) return;
    const x = i => (n < 2 ? WIDTH / 2 : (i / (n - 1)) * WIDTH), y = v => HEIGHT * (1 - v);
    const ns = "http://www.w3.org/2000/svg", add = (tag, attrs) => {
      const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      svg.appendChild(e);
      return e;
    };
    add("line", { x1: 0, x2: WIDTH, y1: y(0.5), y2: y(0.5), class: "graph-even" });
    const known = G.evals.map((e, i) => (e ? `${x(i)},${y(e.score)}` : null)).filter(Boolean);
    add("polyline", { points: known.join(" "), class: "graph-line" });
    add("line", { x1: x(page.cursor()), x2: x(page.cursor()), y1: 0, y2: HEIGHT, class: "graph-cursor" });
    const cut = share();
    const movers = G.line.map(v => ({ side: v.side, seat: v.seat_index }));
    const found = cut === null ? [] : mistakes(G.evals, movers, cut);
    for (const m of found) {
      add("circle", { cx: x(m.turn), cy: y(G.evals[m.turn].score), r: 4, class: "graph-mistake", "data-turn": m.turn })
        .appendChild(document.createElementNS(ns, "title")).textContent =
        `turn ${m.turn}: ${m.proven ? "a proven value lost" : `${Math.round(100 * m.lost)}% of the win probability lost`}`;
    }
    const seats = page.seats();
    const counts = seats.map((name, i) => `${name[0].toUpperCase()}${name.slice(1)} ${found.filter(m => m.seat === i).length}`);
    const done = G.evals.filter(Boolean).length;
    $("graph-status").textContent = cut === null ? "Mistakes: the share must be a number from 1 to 100." :
      `Mistakes (a proven value lost, or more than ${Math.round(cut * 100)}% of the win probability): ${counts.join(" · ")}` +
      (done < n ? ` — evaluating turn ${done} of ${n - 1}…` : " (done)");
  }

  // Evaluates the shown line's positions in order, from the first turn to the last, drawing
  // as it goes; a newer line stops it.
  async function follow(game, line) {
    const token = ++G.token;
    G.game = game; G.line = line; G.evals = line.map(v => G.cache.get(`${game} ${v.position}`) || null);
    draw();
    if (!G.on) return;
    for (let i = 0; i < line.length; i++) {
      if (G.evals[i]) continue;
      let e;
      try { e = await evaluate(game, line[i]); }
      catch (err) { if (token === G.token) $("graph-status").textContent = `The graph stopped: ${err.message}`; return; }
      if (token !== G.token) return;
      G.evals[i] = e;
      draw();
    }
  }

  $("graph-on").onchange = () => { G.on = $("graph-on").checked; guard(follow)(G.game, G.line); };
  $("mistake-share").onchange = draw;
  $("game-graph").onclick = ev => {
    const box = $("game-graph").getBoundingClientRect(), n = G.line.length;
    if (n < 2 || box.width === 0) return;
    page.goTo(Math.round(((ev.clientX - box.left) / box.width) * (n - 1)));
  };
  return { follow: (game, line) => guard(follow)(game, line), draw };
}
