// The page: tabs (Play, Watch, Dashboard), the JSON API client, and errors shown in words.
import { $, api, guard } from "./util.js";
import { initPlay } from "./play.js";
import { initWatch, initDashboard } from "./views.js";

const views = {};
function show(name) {
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("active", b.dataset.view === name);
  for (const s of document.querySelectorAll(".view")) s.classList.toggle("hidden", s.id !== `view-${name}`);
  if (views[name]) guard(views[name])();
}

async function main() {
  const info = await api("/api/info");
  $("model-info").textContent = Object.keys(info.models).length ?
    "models: " + Object.entries(info.models).map(([g, m]) => `${g}: ${m}`).join(", ") :
    "no model: the computer searches with random playouts";
  for (const b of document.querySelectorAll("nav button")) b.onclick = () => show(b.dataset.view);
  const play = await initPlay(api, info);
  views.play = play.onShow;
  views.watch = initWatch(api, info, async (...game) => { show("play"); await play.openGame(...game); });
  views.dashboard = initDashboard(api, info);
  document.body.dataset.ready = "1";
}

main().catch(err => { $("status").textContent = `The page could not start: ${err.message}`; });
