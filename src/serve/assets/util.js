// Shared by the page's modules: the JSON API client and errors shown in words.
export const $ = id => document.getElementById(id);

// Requests in flight (tests wait for 0 before they look at the page) and requests sent.
let pending = 0, sent = 0;
if (typeof window !== "undefined") {
  window.__czPending = () => pending;
  window.__czSent = () => sent;
}

const COMPACT = new Intl.NumberFormat("en-US", { notation: "compact", maximumSignificantDigits: 4 });

// A number in words people read, the page's one formatter: digit groups ("100,000") for
// counts and limits; `short` (charts, ratings) compact from 10,000 (15K, 1.5M), small ones
// to four significant digits, tiny ones in scientific notation. A missing number reads "–".
export function fmt(v, short = false) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return "–";
  const n = Number(v), a = Math.abs(n);
  if (!short) return n.toLocaleString("en-US");
  if (a >= 1e4) return COMPACT.format(n);
  if (a !== 0 && a < 1e-3) return n.toExponential(1);
  return Number(n.toPrecision(4)).toLocaleString("en-US");
}

// `signal` (an AbortController's) aborts the request: the server then stops its work.
export async function api(path, body, method, signal) {
  const init = body === undefined ? { method: method || "GET", signal } :
    { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
      signal };
  pending++; sent++;
  try {
    const r = await fetch(path, init);
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.error || `the server answered ${r.status}`);
    return data;
  } finally {
    pending--;
  }
}

// Runs an event handler (or a timer's job), showing a failure in `where` instead of the console.
export function guard(fn, where = "message") {
  return async (...args) => {
    try { await fn(...args); }
    catch (err) { const m = $(where); if (m) { m.textContent = err.message; m.className = "refused"; } }
  };
}

// Runs `job` every `ms` while the page is in view and every `hiddenMs` while its tab is
// hidden (document.visibilityState), never two at once; a tab coming back into view runs it
// at once. `stop()` ends it.
export function every(ms, hiddenMs, job) {
  let timer = null, stopped = false;
  const next = () => {
    if (!stopped) timer = setTimeout(run, document.visibilityState === "hidden" ? hiddenMs : ms);
  };
  const run = async () => { timer = null; try { await job(); } finally { next(); } };
  const wake = () => {
    if (document.visibilityState === "visible" && timer !== null) { clearTimeout(timer); run(); }
  };
  document.addEventListener("visibilitychange", wake);
  next();
  return {
    stop() { stopped = true; clearTimeout(timer); timer = null; document.removeEventListener("visibilitychange", wake); },
  };
}

// Fills a select with the served runs ("this run" for the served directory itself).
export async function fillRuns(api, select) {
  const { runs } = await api("/api/runs");
  const keep = select.value;
  select.replaceChildren();
  for (const r of runs) select.add(new Option(r || "this run", r));
  if (runs.includes(keep)) select.value = keep;
}
