// Draws a board as SVG from the server's description: cells with centres, pieces, and
// overlays (clickable cells, the selected piece, targets, whole-turn paths, a heat map).
const NS = "http://www.w3.org/2000/svg";

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function hexPoints(x, y) {
  const r = 1 / Math.sqrt(3);
  const pts = [];
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 180 * (60 * k - 90);
    pts.push(`${(x + r * Math.cos(a)).toFixed(3)},${(y + r * Math.sin(a)).toFixed(3)}`);
  }
  return pts.join(" ");
}

// opts: pieces, flip, clickable, targets, selected, paths, heat ({cell: p}), lastmove, onClick
export function drawBoard(svg, board, opts = {}) {
  svg.replaceChildren();
  const s = opts.flip ? -1 : 1;
  const at = new Map(board.cells.map(c => [c.name, { x: s * c.x, y: s * c.y }]));
  const xs = [...at.values()].map(p => p.x), ys = [...at.values()].map(p => p.y);
  const m = 0.75;
  const minX = Math.min(...xs) - m, minY = Math.min(...ys) - m;
  svg.setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + m} ${Math.max(...ys) - minY + m}`);
  const clickable = new Set(opts.clickable || []), targets = new Set(opts.targets || []);
  const last = new Set(opts.lastmove || []);
  for (const cell of board.cells) {
    const { x, y } = at.get(cell.name);
    const classes = ["cell"];
    if (clickable.has(cell.name)) classes.push("clickable");
    if (targets.has(cell.name)) classes.push("target");
    if (opts.selected === cell.name) classes.push("selected");
    if (last.has(cell.name)) classes.push("lastmove");
    const g = el("g", { class: classes.join(" "), "data-cell": cell.name, id: `${svg.id}-${cell.name}` }, svg);
    if (board.shape === "hex") {
      el("polygon", { points: hexPoints(x, y) }, g);
    } else {
      if ((Math.round(cell.x) + Math.round(cell.y)) % 2 === 1) g.classList.add("dark");
      el("rect", { x: x - 0.5, y: y - 0.5, width: 1, height: 1 }, g);
    }
    const name = el("text", { x: x - 0.3, y: y + 0.38, class: "name" }, g);
    name.textContent = cell.name;
    if (opts.onClick) g.addEventListener("click", () => opts.onClick(cell.name));
  }
  for (const [cell, p] of Object.entries(opts.heat || {})) {
    const c = at.get(cell);
    if (c) el("circle", { cx: c.x, cy: c.y, r: 0.45, class: "heat", "fill-opacity": Math.min(0.85, 0.1 + p * 1.5) }, svg);
  }
  for (const piece of opts.pieces || []) {
    const c = at.get(piece.cell);
    if (!c) continue;
    const g = el("g", { class: "piece-group", "data-piece": piece.cell }, svg);
    const h = piece.text.length;
    for (let i = 0; i < h; i++) {
      const colour = { R: "red", W: "white", O: "orange" }[piece.text[i]] || piece.colour;
      el("circle", { cx: c.x, cy: c.y - 0.06 * i, r: 0.34, class: `piece ${i === h - 1 ? piece.colour : colour}` }, g);
    }
    if (h > 1 || piece.king) {
      const t = el("text", { x: c.x, y: c.y - 0.06 * (h - 1) + 0.08, class: "piece-text" + (piece.colour === "black" ? " on-dark" : "") }, g);
      t.textContent = piece.king ? "K" : piece.text;
    }
  }
  for (const path of opts.paths || []) {
    const pts = path.map(n => at.get(n)).filter(Boolean).map(p => `${p.x},${p.y}`);
    if (pts.length > 1) el("polyline", { points: pts.join(" "), class: "path" }, svg);
  }
}
