// Draws a board as SVG from the server's description: cells with centres, pieces (stacks
// as layered rings with a height badge), and overlays: clickable cells, the selected piece,
// targets, the selected piece's paths, the last move, a heat map and the engine's arrows.
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

// The cells a turn's path names, in order ("a3xc3xe3*b1" -> a3, c3, e3, b1).
export function pathCells(turn) {
  return turn ? turn.split(/[-x*]/).filter(c => c.length > 0) : [];
}

const PIECE_R = 0.3;
const COLOURS = { R: "red", W: "white", O: "orange", r: "red", w: "white", b: "black" };

function drawCells(svg, board, at, opts) {
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
    if (opts.onClick) g.addEventListener("click", () => opts.onClick(cell.name));
  }
}

// A piece: a stack is drawn as rings, bottom piece outermost, the top piece the centre
// disk, with its height on a badge; a HexDame king carries a crown ring and "K".
function drawPiece(svg, piece, c) {
  const g = el("g", { class: "piece-group", "data-piece": piece.cell }, svg);
  const h = piece.text.length;
  for (let i = 0; i < h; i++) {
    const colour = COLOURS[piece.text[i]] || piece.colour;
    const r = PIECE_R * (1 - 0.6 * i / h);
    el("circle", { cx: c.x, cy: c.y, r, class: `piece ${i === h - 1 ? piece.colour : colour}` }, g);
  }
  if (piece.king) {
    el("circle", { cx: c.x, cy: c.y, r: PIECE_R * 0.7, class: "crown" }, g);
    const t = el("text", { x: c.x, y: c.y + 0.07, class: "piece-text" + (piece.colour === "black" ? " on-dark" : "") }, g);
    t.textContent = "K";
  }
  if (h > 1) {
    const bx = c.x + PIECE_R * 0.8, by = c.y - PIECE_R * 0.8;
    el("circle", { cx: bx, cy: by, r: 0.12, class: "badge" }, g);
    const t = el("text", { x: bx, y: by + 0.045, class: "badge-text" }, g);
    t.textContent = String(h);
    const title = el("title", {}, g);
    title.textContent = `${piece.cell}: stack of ${h}, bottom to top ${piece.text}`;
  }
}

// The engine's arrows, each with its own head in its own colour (`arrow-i`, `arrow-head-i`).
function drawArrows(svg, board, at, arrows) {
  if (!arrows || arrows.length === 0) return;
  const defs = el("defs", {}, svg);
  arrows.forEach((a, i) => {
    const marker = el("marker", { id: `${svg.id}-head-${i}`, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 3, markerHeight: 3, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M 0 0 L 10 5 L 0 10 z", class: `arrow-head arrow-head-${i}` }, marker);
  });
  const landing = new Map();
  arrows.forEach((a, i) => {
    const cells = pathCells(a.turn).filter(n => at.has(n));
    if (cells.length < 2) return;
    const pts = cells.map(n => at.get(n));
    const width = 0.05 + 0.12 * a.share;
    el("polyline", {
      points: headClear(pts).map(p => `${p.x},${p.y}`).join(" "), class: `arrow arrow-${i}`, "stroke-width": width,
      "marker-end": `url(#${svg.id}-head-${i})`, "data-turn": a.turn,
    }, svg);
    const end = cells[cells.length - 1];
    if (!landing.has(end)) landing.set(end, []);
    landing.get(end).push({ a, i, q: pts[pts.length - 1], from: pts[pts.length - 2] });
  });
  for (const [cell, labels] of landing) drawShares(svg, board, cell, labels);
}

// The arrow's points with its last one drawn back towards the one before, so that its head
// ends short of the landing cell's centre, where the share's label is written.
function headClear(pts) {
  const [p, q] = [pts[pts.length - 2], pts[pts.length - 1]];
  const len = Math.hypot(q.x - p.x, q.y - p.y), back = Math.min(0.3, len / 3);
  if (len === 0) return pts;
  const end = { x: q.x - ((q.x - p.x) * back) / len, y: q.y - ((q.y - p.y) * back) / len };
  return [...pts.slice(0, -1), end];
}

// The shares in a landing cell, away from every cell's name (on the arrow's head on a hex
// board, whose names are at the top of a cell and whose lower neighbours' names are close
// below; at the top of a square cell, whose name is at its bottom left): turns that land on the same cell get their labels
// side by side, smaller, each in its arrow's colour, so that none covers another.
function drawShares(svg, board, cell, labels) {
  const n = labels.length, dy = board.shape === "hex" ? 0.08 : -0.2;
  const drawn = labels.map(({ a, i, q }) => {
    const label = el("text", {
      x: q.x, y: q.y + dy, class: `arrow-label arrow-label-${i}` + (n > 1 ? " shared" : ""),
      "data-turn": a.turn, "data-cell": cell,
    }, svg);
    label.textContent = `${Math.round(100 * a.share)}%`;
    return label;
  });
  if (n < 2) return;
  // Side by side, each as wide as it is drawn (a phone draws them larger), centred on the
  // cell, in the order their arrows come in from left to right (so that none crosses another).
  const widths = drawn.map(t => (t.getBBox ? t.getBBox().width : 0) || 0.4), space = 0.04;
  let x = labels[0].q.x - (widths.reduce((s, w) => s + w, 0) + space * (n - 1)) / 2;
  const order = drawn.map((_, k) => k).sort((j, k) => labels[j].from.x - labels[k].from.x);
  for (const k of order) { drawn[k].setAttribute("x", x + widths[k] / 2); x += widths[k] + space; }
}

// Cell names last, with a halo, so that they stay readable beside and under pieces.
function drawNames(svg, board, at) {
  for (const cell of board.cells) {
    const { x, y } = at.get(cell.name);
    const [dx, dy] = board.shape === "hex" ? [0, -0.4] : [-0.4, 0.44];
    const t = el("text", { x: x + dx, y: y + dy, class: "name" + (board.shape === "hex" ? " centred" : "") }, svg);
    t.textContent = cell.name;
  }
}

// Drag and drop beside clicks: a press on one cell and a release on another enter both
// cells, as two clicks would (the first one skipped when its cell is selected already).
function enableDrag(svg) {
  if (svg.dragging !== undefined) return;
  svg.dragging = null;
  const cellAt = ev => {
    const hit = document.elementFromPoint(ev.clientX, ev.clientY);
    const g = hit && hit.closest ? hit.closest("g.cell") : null;
    return g && svg.contains(g) ? g.dataset.cell : null;
  };
  svg.addEventListener("pointerdown", ev => { svg.dragging = cellAt(ev); });
  svg.addEventListener("pointerup", async ev => {
    const from = svg.dragging, to = cellAt(ev);
    svg.dragging = null;
    if (!from || !to || from === to || !svg.onCell) return;
    const selected = svg.querySelector("g.cell.selected");
    if (!selected || selected.dataset.cell !== from) await svg.onCell(from);
    await svg.onCell(to);
  });
}

// opts: pieces, flip, clickable, targets, selected, paths, heat ({cell: p}), lastmove
// (cells), arrows ([{turn, share}]), onClick (a cell clicked, or a drag's two cells)
export function drawBoard(svg, board, opts = {}) {
  svg.replaceChildren();
  svg.onCell = opts.onClick || null;
  if (opts.onClick) enableDrag(svg);
  const s = opts.flip ? -1 : 1;
  const at = new Map(board.cells.map(c => [c.name, { x: s * c.x, y: s * c.y }]));
  const xs = [...at.values()].map(p => p.x), ys = [...at.values()].map(p => p.y);
  const m = 0.75;
  const minX = Math.min(...xs) - m, minY = Math.min(...ys) - m;
  svg.setAttribute("viewBox", `${minX} ${minY} ${Math.max(...xs) - minX + m} ${Math.max(...ys) - minY + m}`);
  drawCells(svg, board, at, opts);
  for (const [cell, p] of Object.entries(opts.heat || {})) {
    const c = at.get(cell);
    if (c) el("circle", { cx: c.x, cy: c.y, r: 0.45, class: "heat", "data-cell": cell, "fill-opacity": Math.min(0.7, 0.08 + p * 1.2) }, svg);
  }
  for (const piece of opts.pieces || []) {
    const c = at.get(piece.cell);
    if (c) drawPiece(svg, piece, c);
  }
  for (const path of opts.selected ? opts.paths || [] : []) {
    const pts = [opts.selected, ...path].map(n => at.get(n)).filter(Boolean).map(p => `${p.x},${p.y}`);
    if (pts.length > 1) el("polyline", { points: pts.join(" "), class: "path" }, svg);
  }
  drawArrows(svg, board, at, opts.arrows);
  drawNames(svg, board, at);
}
