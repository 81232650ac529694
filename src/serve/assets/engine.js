// The engine beside the board: a polled analysis of the position at the cursor, drawn as
// an evaluation bar (win/draw/loss from the side to move or a fixed side; a proven value
// when the solver has one), arrows for the best turns with their visit shares, the policy
// as a heat map (optional), several engine lines, each with its win/draw/loss, visits and
// proven value (click a turn to play up to it), and a table of the turns searched. Visits
// and lines outside the server's limits are refused in words, never changed quietly.
import { $, guard, every, fmt } from "./util.js";

const pct = x => `${Math.round(100 * x)}%`;
// Polls of a running analysis: 300 ms apart while the page is in view, 2 s while its tab is
// hidden (the server stops an analysis nobody polled for 5 s).
const POLL_MS = 300, HIDDEN_POLL_MS = 2000;

// An analysis's win/draw/loss for the side to move: the solver's proof, else the net's,
// else from the search value (no model).
export function wdlOf(s) {
  return s.proven_wdl || s.wdl || [(1 + s.value) / 2, 0, (1 - s.value) / 2];
}

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

  // The win/draw/loss the bar shows, for the chosen side (the net's, else from the value).
  function bar() {
    const s = E.snap;
    if (!s || s.visits === 0 && !s.wdl) return null;
    let [w, d, l] = wdlOf(s);
    const pov = $("eval-side").value;
    const toMove = page.side();
    if (pov !== "mover" && Number(pov) !== toMove) [w, l] = [l, w];
    const who = pov === "mover" ? "the side to move" : page.sides()[Number(pov)];
    return { w, d, l, who };
  }

  function drawBar() {
    const b = bar();
    $("evalbar").hidden = !E.on;
    if (!b) { $("evalbar-win").style.height = "50%"; $("evalbar-draw").style.height = "0%"; $("evalbar-text").textContent = ""; return; }
    $("evalbar-win").style.height = pct(b.w);
    $("evalbar-draw").style.height = pct(b.d);
    $("evalbar-text").textContent = pct(b.w);
    $("evalbar").title = `for ${b.who}: win ${pct(b.w)}, draw ${pct(b.d)}, loss ${pct(b.l)}`;
  }

  // A line's figures for the side that plays its first turn.
  function lineFigures(line) {
    const figures = [line.wdl ? `W ${pct(line.wdl[0])} D ${pct(line.wdl[1])} L ${pct(line.wdl[2])}` : `Q ${line.q >= 0 ? "+" : ""}${line.q.toFixed(2)}`,
      `${fmt(line.visits)} visits`];
    if (line.proven) figures.push(`proven: ${line.proven}`);
    return figures.join(" · ");
  }

  function drawLine(s) {
    const pv = $("pv");
    pv.replaceChildren();
    for (const line of s.lines || []) {
      const row = document.createElement("div");
      row.className = "engine-line";
      const figures = document.createElement("span");
      figures.className = "line-figures"; figures.textContent = lineFigures(line);
      row.appendChild(figures);
      line.turns.forEach((turn, i) => {
        const b = document.createElement("button");
        b.className = "pv-turn"; b.textContent = turn;
        b.title = "play this line up to this turn (a variation)";
        b.onclick = () => page.playLine(line.turns.slice(0, i + 1));
        row.appendChild(b);
      });
      pv.appendChild(row);
    }
    const body = $("analysis-turns").tBodies[0];
    body.replaceChildren();
    for (const t of s.turns.slice(0, 10)) {
      const row = body.insertRow();
      for (const v of [t.turn, pct(t.visits / Math.max(1, s.visits)), t.visits, t.prior.toFixed(3), t.q.toFixed(3)]) row.insertCell().textContent = v;
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
    const b = bar();
    $("analysis-progress").textContent = `${s.visits.toLocaleString("en-US")} visits, ${(s.elapsed_ms / 1000).toFixed(1)} s` + (s.done ? " (done)" : "") + (s.error ? `; the search failed: ${s.error}` : "");
    $("wdl").textContent = (b ? `For ${b.who}: win ${pct(b.w)}, draw ${pct(b.d)}, loss ${pct(b.l)}` + (s.wdl ? " (the net)" : " (random playouts: no model)") : "") +
      (s.proven ? `; proven for the side to move: ${s.proven}` : "") + (s.proven_wdl ? " (the bar shows the proof)" : "");
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
