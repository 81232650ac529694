// The engine beside the board: a polled analysis of the position at the cursor, drawn as
// an evaluation bar (win/draw/loss from the side to move or a fixed side), arrows for the
// best turns with their visit shares, the engine's line (click a turn to play up to it)
// and a table of the turns searched.
import { $, guard } from "./util.js";

const pct = x => `${Math.round(100 * x)}%`;

export function createEngine(api, info, page) {
  const E = { on: false, id: null, position: null, snap: null, timer: null, game: null };

  async function stop() {
    clearInterval(E.timer); E.timer = null;
    if (E.id !== null) {
      const id = E.id; E.id = null;
      await api(`/api/analysis/${id}`, undefined, "DELETE").catch(() => {});
    }
  }

  // The win/draw/loss the bar shows, for the chosen side (the net's, else from the value).
  function bar() {
    const s = E.snap;
    if (!s || s.visits === 0 && !s.wdl) return null;
    let [w, d, l] = s.wdl || [(1 + s.value) / 2, 0, (1 - s.value) / 2];
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

  function drawLine(s) {
    const pv = $("pv");
    pv.replaceChildren();
    s.pv.forEach((turn, i) => {
      const b = document.createElement("button");
      b.className = "pv-turn"; b.textContent = turn;
      b.title = "play the engine's line up to this turn (a variation)";
      b.onclick = () => page.playLine(s.pv.slice(0, i + 1));
      pv.appendChild(b);
    });
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
    if (!E.on || !s) { $("wdl").textContent = ""; $("pv").replaceChildren(); $("analysis-turns").tBodies[0].replaceChildren(); $("analysis-progress").textContent = !E.on ? "" : E.position ? "analysing…" : "the game is over: nothing to analyse"; return; }
    const b = bar();
    $("analysis-progress").textContent = `${s.visits.toLocaleString("en-US")} visits, ${(s.elapsed_ms / 1000).toFixed(1)} s` + (s.done ? " (done)" : "") + (s.error ? `; the search failed: ${s.error}` : "");
    $("wdl").textContent = (b ? `For ${b.who}: win ${pct(b.w)}, draw ${pct(b.d)}, loss ${pct(b.l)}` + (s.wdl ? " (the net)" : " (random playouts: no model)") : "") +
      (s.proven ? `; proven for the side to move: ${s.proven}` : "");
    drawLine(s);
  }

  async function poll() {
    if (E.id === null) return;
    const id = E.id;
    const snap = await api(`/api/analysis/${id}`);
    if (id !== E.id) return;
    E.snap = snap;
    if (snap.done) { clearInterval(E.timer); E.timer = null; E.id = null; }
    drawPanel();
    page.render();
  }

  // Analyses `position` (nothing when the game is over or the engine is off).
  async function follow(game, position, over) {
    if (E.on && !over && position === E.position && game === E.game) return;
    await stop();
    E.snap = null; E.position = position; E.game = game;
    if (!E.on || over) { E.position = null; drawPanel(); return; }
    const visits = Math.min(info.limits.max_visits, Number($("engine-visits").value) || 2000);
    const { id } = await api("/api/analysis", { game, position, visits });
    if (E.position !== position) return;
    E.id = id;
    E.timer = setInterval(guard(poll), 300);
    drawPanel();
  }

  $("engine-on").onchange = () => { E.on = $("engine-on").checked; E.position = null; page.changed(); };
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
    sidesChanged(sides) {
      const sel = $("eval-side");
      sel.replaceChildren(new Option("the side to move", "mover"));
      sides.forEach((name, i) => sel.add(new Option(name[0].toUpperCase() + name.slice(1), String(i))));
    },
  };
}
