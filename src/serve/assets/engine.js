// The engine beside the board: a polled analysis of the position at the cursor. One
// evaluation everywhere: the bar, the lines, the table and the graph show the search's value
// (its best turn's win/draw/loss, from the values backed up through the tree, or a proven
// result), for the side chosen under "eval for"; the net's raw guess is shown only where it
// says so. Arrows for the best turns with their visit shares (PUCT's: a preference), the
// policy as a heat map (optional), the engine lines, numbered, each with its searched
// win/draw/loss, share and visits and its proven value (click a turn to play up to it), and a
// table of the turns searched. Visits and lines outside the server's limits are refused in
// words, never changed quietly.
import { $, guard, every, fmt } from "./util.js";
import { lineNumbers } from "./gametext.js";

const pct = x => `${Math.round(100 * x)}%`;
const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";
// Polls of a running analysis: 300 ms apart while the page is in view, 2 s while its tab is
// hidden (the server stops an analysis nobody polled for 5 s).
const POLL_MS = 300, HIDDEN_POLL_MS = 2000;

// An analysis's win/draw/loss for the side to move: the solver's proof, else the search's
// (its best turn's), else from the search value.
export function wdlOf(s) {
  return s.proven_wdl || s.wdl || [(1 + s.value) / 2, 0, (1 - s.value) / 2];
}

// A win/draw/loss as words people read.
export const wdlWords = ([w, d, l]) => `W ${pct(w)} D ${pct(d)} L ${pct(l)}`;

export function createEngine(api, info, page) {
  const E = { on: false, id: null, position: null, snap: null, timer: null, game: null, error: null };

  // The visits in the box, or why they cannot be used (in words, with the range allowed).
  function visits() {
    const box = $("engine-visits"), text = box.value.trim(), n = Number(text);
    const range = `a whole number from 1 to ${fmt(info.limits.max_visits)}`;
    if (box.validity && box.validity.badInput) return { error: `Engine: the visits must be ${range}, not text.` };
    if (text === "") return { error: `Engine: give the visits to search, ${range}.` };
    if (Number.isInteger(n) && n >= 1 && n <= info.limits.max_visits) return { visits: n };
    return { error: `Engine: the visits must be ${range}; ${Number.isFinite(n) ? fmt(n) : text} is not.` };
  }

  // The engine lines asked for, or why they cannot be.
  function lineCount() {
    const text = $("engine-lines").value.trim(), n = Number(text), max = info.limits.max_lines;
    if (text !== "" && Number.isInteger(n) && n >= 1 && n <= max) return { lines: n };
    return { error: `Engine: the lines must be a whole number from 1 to ${max}; ${text === "" ? "none" : text} is not.` };
  }

  async function stop() {
    if (E.timer) { E.timer.stop(); E.timer = null; }
    if (E.id !== null) {
      const id = E.id; E.id = null;
      await api(`/api/analysis/${id}`, undefined, "DELETE").catch(() => {});
    }
  }

  // The chosen side: whether figures for the side to move are turned round for it, and its
  // name in words.
  function pov() {
    const chosen = $("eval-side").value, toMove = page.side(), sides = page.sides();
    const flip = chosen !== "mover" && Number(chosen) !== toMove;
    const side = chosen === "mover" ? toMove : Number(chosen);
    return { flip, who: `${cap(sides[side] || "")}${chosen === "mover" ? " (to move)" : ""}` };
  }
  // A win/draw/loss for the side to move, for the chosen side.
  const forPov = (wdl, p) => (p.flip ? [wdl[2], wdl[1], wdl[0]] : wdl);

  // The win/draw/loss the bar shows, for the chosen side: the proof, else the search's.
  function bar() {
    const s = E.snap;
    if (!s || s.visits === 0 && !s.proven_wdl) return null;
    const p = pov();
    const [w, d, l] = forPov(wdlOf(s), p);
    return { w, d, l, who: p.who, proven: Boolean(s.proven_wdl) };
  }

  function drawBar() {
    const b = bar();
    $("evalbar").hidden = !E.on;
    if (!b) { $("evalbar-win").style.height = "50%"; $("evalbar-draw").style.height = "0%"; $("evalbar-text").textContent = ""; return; }
    $("evalbar-win").style.height = pct(b.w);
    $("evalbar-draw").style.height = pct(b.d);
    $("evalbar-text").textContent = pct(b.w);
    $("evalbar").dataset.win = pct(b.w);
    $("evalbar").title = `${b.proven ? "proven" : "the search"}, for ${b.who}: win ${pct(b.w)}, draw ${pct(b.d)}, loss ${pct(b.l)}`;
  }

  // A line's figures (the first turn's, searched), for the chosen side.
  function lineFigures(line, s, p) {
    const figures = [wdlWords(forPov(line.wdl, p)), `${pct(line.visits / Math.max(1, s.visits))} of the visits`,
      `${fmt(line.visits)} visits`];
    if (line.proven) figures.push(`proven for the side to move: ${line.proven}`);
    return figures.join(" · ");
  }

  function drawLine(s) {
    const pv = $("pv"), p = pov(), board = page.board(), movers = page.movers();
    pv.replaceChildren();
    for (const line of s.lines || []) {
      const row = document.createElement("div");
      row.className = "engine-line";
      const figures = document.createElement("span");
      figures.className = "line-figures"; figures.textContent = lineFigures(line, s, p);
      if (line.net_wdl) figures.title = `the net's raw guess after the first turn, no search: ${wdlWords(forPov(line.net_wdl, p))}`;
      row.appendChild(figures);
      const numbers = lineNumbers(board, movers, line.seats || [], line.turns);
      line.turns.forEach((turn, i) => {
        if (numbers[i]) {
          const n = document.createElement("span");
          n.className = "pv-number"; n.textContent = numbers[i];
          row.appendChild(n);
        }
        const b = document.createElement("button");
        b.className = "pv-turn"; b.textContent = turn;
        b.title = "play this line up to this turn (a variation)";
        b.onclick = () => page.playLine(line.turns.slice(0, i + 1));
        row.appendChild(b);
      });
      pv.appendChild(row);
    }
    $("analysis-q").textContent = `Q for ${p.who}`;
    const body = $("analysis-turns").tBodies[0];
    body.replaceChildren();
    for (const t of s.turns.slice(0, 10)) {
      const row = body.insertRow();
      const q = p.flip ? -t.q : t.q;
      for (const v of [t.turn, pct(t.visits / Math.max(1, s.visits)), t.visits, t.prior.toFixed(3), q.toFixed(3)]) row.insertCell().textContent = v;
    }
  }

  function drawPanel() {
    drawBar();
    const s = E.snap;
    $("engine-panel").hidden = !E.on;
    $("engine-message").textContent = E.on && E.error || "";
    $("engine-message").hidden = !(E.on && E.error);
    if (!E.on || !s) {
      $("wdl").textContent = ""; $("pv").replaceChildren(); $("analysis-turns").tBodies[0].replaceChildren();
      $("analysis-progress").textContent = !E.on || E.error ? "" : E.position ? "analysing…" : "the game is over: nothing to analyse";
      return;
    }
    const b = bar(), p = pov();
    const ended = s.stopped ? ` (ended early: ${s.stopped})` : s.done ? " (done)" : "";
    $("analysis-progress").textContent = `${fmt(s.visits)} of ${fmt(s.asked || s.visits)} visits, ${(s.elapsed_ms / 1000).toFixed(1)} s` + ended + (s.error ? `; the search failed: ${s.error}` : "");
    const searched = s.wdl ? `the search's best turn: ${wdlWords(forPov(s.wdl, p))}` : "";
    $("wdl").textContent = (b ? `For ${b.who}, ${b.proven ? `proven: ${wdlWords([b.w, b.d, b.l])}; ${searched}` : searched}` : "") +
      (s.proven ? `; proven for the side to move: ${s.proven}` : "") +
      (s.net_wdl ? `. The net's raw guess, no search: ${wdlWords(forPov(s.net_wdl, p))}` : s.visits > 0 && !s.net_wdl ? " (random playouts: no model)" : "");
    drawLine(s);
  }

  // A failure of the analysis, shown in the engine's panel until the next analysis starts.
  function failed(message) {
    E.error = `Engine: ${message}`;
    drawPanel();
    page.render();
  }

  async function poll() {
    if (E.id === null) return;
    const id = E.id;
    let snap;
    try { snap = await api(`/api/analysis/${id}`); }
    catch (err) { if (id === E.id) { await stop(); failed(err.message); } return; }
    if (id !== E.id) return;
    E.snap = snap;
    if (snap.done) { E.timer.stop(); E.timer = null; E.id = null; }
    drawPanel();
    page.render();
  }

  // Analyses `position` (nothing when the game is over or the engine is off).
  async function follow(game, position, over) {
    if (E.on && !over && position === E.position && game === E.game) return;
    await stop();
    E.snap = null; E.position = position; E.game = game; E.error = null;
    if (!E.on || over) { E.position = null; drawPanel(); return; }
    const v = visits(), n = lineCount();
    if (v.error || n.error) { E.error = v.error || n.error; drawPanel(); page.render(); return; }
    let id;
    try { ({ id } = await api("/api/analysis", { game, position, visits: v.visits, lines: n.lines })); }
    catch (err) { if (E.position === position && E.game === game) failed(err.message); return; }
    if (E.position !== position || E.game !== game) {
      api(`/api/analysis/${id}`, undefined, "DELETE").catch(() => {});
      return;
    }
    E.id = id;
    E.timer = every(POLL_MS, HIDDEN_POLL_MS, guard(poll));
    drawPanel();
  }

  // A change of the engine's settings analyses the position again (or says what is wrong).
  const restart = () => { E.on = $("engine-on").checked; E.position = null; page.changed(); };
  $("engine-on").onchange = restart;
  $("engine-visits").onchange = restart;
  $("engine-lines").onchange = restart;
  $("engine-lines").max = info.limits.max_lines;
  $("engine-visits").max = info.limits.max_visits;
  $("engine-visits").step = 1;
  $("engine-heat").onchange = () => page.render();
  $("eval-side").onchange = () => { drawPanel(); page.render(); };
  return {
    setOn(on) { E.on = on; E.position = null; },
    follow: (game, position, over) => guard(follow)(game, position, over),
    // The best turns as arrows (only for the position analysed).
    arrows(position) {
      const s = E.snap;
      if (!E.on || !s || position !== E.position || s.visits === 0) return [];
      return s.turns.slice(0, 3).map(t => ({ turn: t.turn, share: t.visits / s.visits })).filter(a => a.share > 0);
    },
    // The policy on the board ({cell: prior}: the root's step priors summed by landing
    // cell), when the box "policy map" is ticked.
    heat(position) {
      const s = E.snap;
      if (!E.on || !$("engine-heat").checked || !s || position !== E.position || !s.heat) return {};
      return Object.fromEntries(s.heat);
    },
    sidesChanged(sides) {
      const sel = $("eval-side");
      sel.replaceChildren(new Option("the side to move", "mover"));
      sides.forEach((name, i) => sel.add(new Option(name[0].toUpperCase() + name.slice(1), String(i))));
    },
  };
}
