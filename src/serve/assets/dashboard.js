// The dashboard: a run's metrics charted against the training step, grouped by topic
// (losses, strength, throughput, self-play), Elo with its 95% interval as a band, and the
// checkpoints with their ratings. Records without a step (the precision choice) are told
// in words, not drawn as a lone dot.
import { $, guard, fillRuns, every, fmt } from "./util.js";
import { lineChart } from "./charts.js";

const cap = s => s ? s[0].toUpperCase() + s.slice(1) : "";
const SKIP = new Set(["type", "step", "iteration", "elapsed_s"]);

// [topic, [[chart title, [metric keys], unit of the y axis], ...]]
const TOPICS = [
  ["Losses", [["Losses", ["total_loss", "policy_loss", "value_loss", "moves_left_loss"], "nats"],
    ["Policy entropy", ["policy_entropy"], "nats"], ["Learning rate", ["learning_rate"], "step size"]]],
  ["Strength", []],
  ["Throughput", [["Training samples a second", ["samples_per_s"], "samples/s"],
    ["Self-play positions a second", ["positions_per_s"], "positions/s"],
    ["CPU time", ["cpu_s"], "CPU seconds"]]],
  ["Self-play", [["Results by side", ["wins_side0", "wins_side1", "draws"], "games"],
    ["Mean game length", ["mean_game_steps"], "steps"], ["Games an iteration", ["games"], "games"],
    ["Replay window", ["window"], "samples"]]],
  ["Self-play diversity", [
    ["Distinct openings per 1,000 games", ["diversity_openings_2", "diversity_openings_4", "diversity_openings_6", "diversity_openings_8"], "openings"],
    ["4-turn opening entropy (effective openings)", ["diversity_opening_entropy_4"], "openings"],
    ["Outcome entropy", ["diversity_outcome_entropy"], "bits"],
    ["Repeats", ["diversity_duplicate_games", "diversity_repeated_samples"], "share"],
    ["How games end", ["diversity_draws", "diversity_resigned", "diversity_false_resign"], "share"]]],
];
// Words for metric keys whose names are not words enough.
const WORDS = { cpu_s: "CPU seconds", games_total: "games so far", samples_trained: "samples trained",
  games_per_s: "games a second", net_mean_batch: "positions a forward pass" };

// The learner's `diversity` object (of its intake lines) as flat `diversity_*` keys.
function flatten(record) {
  const d = record.diversity;
  if (!d || typeof d !== "object") return record;
  const flat = { ...record };
  delete flat.diversity;
  for (const [k, v] of Object.entries(d)) if (k !== "games") flat[`diversity_${k}`] = v;
  return flat;
}

function label(key, sides) {
  if (WORDS[key]) return WORDS[key];
  const side = n => cap(sides[Number(n)] || `side ${n}`);
  const m = key.match(/^wins_side(\d)$/);
  if (m) return `wins of ${side(m[1])}`;
  const d = key.match(/^diversity_(openings_(\d)|.*)$/);
  if (d) return d[2] ? `${d[2]} turns` : d[1].replace(/_4$/, "").replace(/_/g, " ");
  const s = key.match(/^(.*)_side(\d)$/);
  if (s) return `${label(s[1], sides)}, ${side(s[2])}`;
  return key.replace(/_per_s$/, " a second").replace(/_s$/, " (seconds)").replace(/_/g, " ");
}

function chartBox(group, title) {
  const box = document.createElement("div");
  box.className = "chart"; box.dataset.title = title;
  group.appendChild(box);
  return box;
}

// Charts `keys` of the records that have a step and any of them (`unit`: the y axis's);
// with `skipZero`, keys that are never anything but zero are left out.
function keysChart(group, title, rows, keys, sides, unit, skipZero = false) {
  const have = keys.filter(k => rows.some(r => typeof r[k] === "number" && (!skipZero || r[k] !== 0)));
  const used = rows.filter(r => typeof r.step === "number" && have.some(k => typeof r[k] === "number"));
  if (have.length === 0 || used.length === 0) return false;
  const xs = [...new Set(used.map(r => r.step))].sort((a, b) => a - b);
  const series = have.map(k => ({
    name: label(k, sides),
    values: xs.map(x => { const r = used.find(r => r.step === x && typeof r[k] === "number"); return r ? r[k] : null; }),
  }));
  lineChart(chartBox(group, title), xs, series, { title, xLabel: "training step", yLabel: unit });
  return true;
}

function eloChart(group, ratings) {
  const rated = ratings.filter(r => r.step !== null && r.elo !== null).sort((a, b) => a.step - b.step);
  if (rated.length === 0) return;
  const title = "Elo by step (95% interval)";
  lineChart(chartBox(group, title), rated.map(r => r.step), [
    { name: "Elo", values: rated.map(r => r.elo) },
    { name: "upper end", values: rated.map(r => r.elo_high) },
    { name: "lower end", values: rated.map(r => r.elo_low) },
  ], { title, band: [1, 2], xLabel: "training step", yLabel: "Elo" });
}

function facts(metrics, ratings) {
  const out = [];
  for (const p of metrics.filter(m => m.type === "precision")) out.push(`Precision: ${p.choice}${p.reason ? ` (${p.reason})` : ""}.`);
  for (const r of ratings.filter(r => r.step === null && r.elo !== null)) out.push(`Anchor ${r.player}: Elo ${fmt(r.elo, true)} over ${r.games} games.`);
  return out.join(" ");
}

function drawCharts(records, ratings, sides) {
  // The precision choice is told in words (`facts`), never charted (its step 0 drew a dot).
  const metrics = records.map(flatten).filter(m => m.type !== "precision");
  const told = records.filter(m => m.type === "precision");
  const charts = $("charts");
  charts.replaceChildren();
  const used = new Set();
  for (const [topic, list] of TOPICS) {
    const group = document.createElement("div");
    group.className = "chart-group"; group.dataset.topic = topic;
    const h = document.createElement("h3"); h.textContent = topic; group.appendChild(h);
    charts.appendChild(group);
    let drawn = 0;
    for (const [title, keys, unit] of list) { keys.forEach(k => used.add(k)); drawn += keysChart(group, title, metrics, keys, sides, unit); }
    if (topic === "Strength") {
      eloChart(group, ratings); drawn += group.querySelectorAll(".chart").length;
      const ev = metrics.filter(m => m.type === "evaluation");
      for (const k of new Set(ev.flatMap(r => Object.keys(r)))) if (!SKIP.has(k)) { used.add(k); drawn += keysChart(group, `Evaluation: ${label(k, sides)}`, ev, [k], sides, label(k, sides)); }
    }
    if (!drawn) group.remove();
  }
  // The rest, folded away: each metric that is ever non-zero, under its name in words.
  const rest = document.createElement("details");
  rest.className = "chart-group"; rest.dataset.topic = "Other";
  charts.appendChild(rest);
  let others = 0;
  for (const k of new Set(metrics.flatMap(r => Object.keys(r)))) {
    if (!SKIP.has(k) && !used.has(k)) others += keysChart(rest, cap(label(k, sides)), metrics, [k], sides, label(k, sides), true);
  }
  if (others) { const h = document.createElement("summary"); h.textContent = `Other metrics (${others})`; rest.prepend(h); } else rest.remove();
  const p = document.createElement("p"); p.id = "dash-facts"; p.textContent = facts(told, ratings);
  charts.appendChild(p);
}

export function initDashboard(api, info) {
  let timer = null, shown = "";
  async function refresh() {
    const run = encodeURIComponent($("dash-run").value);
    const { metrics, ratings, game } = await api(`/api/metrics?run=${run}`);
    const { checkpoints } = await api(`/api/checkpoints?run=${run}`);
    const sides = game ? (await api("/api/new", { game })).board.sides : [];
    const key = JSON.stringify([metrics.length, ratings, checkpoints.length, run]);
    if (key !== shown) { shown = key; drawCharts(metrics, ratings, sides); }
    const body = $("checkpoints").tBodies[0];
    body.replaceChildren();
    for (const c of checkpoints) {
      const row = body.insertRow();
      const r = c.rating || {};
      for (const v of [c.name, c.step.toLocaleString("en-US"), r.games ?? "", r.elo != null ? r.elo.toFixed(0) : "not rated yet",
        r.elo_low != null ? `${r.elo_low.toFixed(0)} to ${r.elo_high.toFixed(0)}` : ""]) row.insertCell().textContent = v;
    }
    $("dash-updated").textContent = `${metrics.length} metrics records, ${checkpoints.length} checkpoints; updated at ${new Date().toLocaleTimeString()}`;
  }
  $("dash-run").onchange = guard(() => { shown = ""; return refresh(); }, "dash-updated");
  return async () => {
    if (!info.run_dir) { $("dash-updated").textContent = "Start the server with --run-dir to see a run."; return; }
    await fillRuns(api, $("dash-run"));
    await refresh();
    // Every 5 s while the page is in view, every 60 s while its tab is hidden.
    if (!timer) timer = every(5000, 60000, guard(async () => {
      if ($("view-dashboard").classList.contains("hidden")) { timer.stop(); timer = null; return; }
      await refresh();
    }, "dash-updated"));
  };
}
