// The board editor: pieces and stacks placed by clicks on the Play board (the chosen piece
// is put on the clicked cell; in ReMATCH it goes on top of the cell's stack), the seat to
// move and, in ReMATCH with Red to move, the Team colour due. "Use this position" has the
// rules check it on the server (`/api/new`) before it is played from; a refusal is said in
// words and the editor stays open with the position as it was.
import { $ } from "./util.js";

// Per game: what a click can put on a cell, whether pieces stack, and the seats.
const REMATCH = {
  items: [["R", "Red"], ["W", "White"], ["O", "Orange"]], stacks: true, seats: ["white", "orange", "red"],
};
const GAMES = {
  rematch: REMATCH,
  rematch3: REMATCH,
  hexdame: { items: [["w", "white man"], ["r", "red man"], ["W", "white king"], ["R", "red king"]], stacks: false, seats: ["white", "red"] },
  eximo: { items: [["b", "black man"], ["w", "white man"]], stacks: false, seats: ["black", "white"] },
};
const COLOUR = { R: "red", r: "red", W: "white", w: "white", O: "orange", b: "black" };
const cellOrder = c => [c.charCodeAt(0), Number(c.slice(1))];

export function createEditor(page) {
  const E = { on: false, game: null, cells: new Map(), item: null, start: null };
  const spec = () => GAMES[E.game];

  // The edited position in the notation (docs/notation.md).
  function notation() {
    const cells = [...E.cells.entries()].filter(([, v]) => v).sort(([a], [b]) => {
      const [x, y] = [cellOrder(a), cellOrder(b)];
      return x[0] - y[0] || x[1] - y[1];
    });
    const tokens = [$("edit-seat").value, ...cells.map(([c, v]) => `${c}:${v}`)];
    if (spec().stacks && $("edit-seat").value === "red") tokens.push(`team=${$("edit-team").value}`);
    return tokens.join(" ");
  }

  // Reads a position's notation into the editor.
  function read(position) {
    const [seat, ...rest] = position.trim().split(/\s+/);
    E.cells = new Map();
    $("edit-seat").value = seat;
    $("edit-team").value = "white";
    for (const token of rest) {
      const [k, v] = token.split(/[:=]/);
      if (token.includes(":")) E.cells.set(k, v);
      else if (k === "team") $("edit-team").value = v;
    }
    teamBox();
  }

  function teamBox() { $("edit-team-box").hidden = !(spec().stacks && $("edit-seat").value === "red"); }

  function palette() {
    const box = $("edit-palette");
    box.replaceChildren();
    const items = [...spec().items.map(([k, name]) => [k, spec().stacks ? `+ ${name}` : name, spec().stacks ? `put a ${name} piece on top of the clicked cell's stack` : `put a ${name} on the clicked cell`]),
      ...(spec().stacks ? [["-", "− top piece", "take the top piece off the clicked cell's stack"]] : []),
      ["", "empty", "empty the clicked cell"]];
    for (const [key, label, title] of items) {
      const b = document.createElement("button");
      b.textContent = label; b.title = title; b.dataset.item = key;
      b.className = "edit-item" + (key === E.item ? " chosen" : "");
      b.onclick = () => { E.item = key; palette(); };
      box.appendChild(b);
    }
  }

  // A click on a cell while editing: the chosen piece put there (or the top taken off, or
  // the cell emptied).
  function click(cell) {
    const now = E.cells.get(cell) || "";
    let next;
    if (E.item === "") next = "";
    else if (E.item === "-") next = now.slice(0, -1);
    else if (spec().stacks) next = now + E.item;
    else next = now === E.item ? "" : E.item;
    if (next) E.cells.set(cell, next); else E.cells.delete(cell);
    $("edit-message").textContent = "";
    page.render();
  }

  function open(game, position) {
    E.on = true; E.game = game; E.start = position;
    E.item = spec().items[0][0];
    $("edit-seat").replaceChildren(...spec().seats.map(s => new Option(s, s)));
    read(position);
    palette();
    $("editor").hidden = false;
    $("edit-toggle").textContent = "Close the editor";
    $("edit-message").textContent = "";
    page.render();
  }

  function close() {
    E.on = false;
    $("editor").hidden = true;
    $("edit-toggle").textContent = "Edit position";
    page.render();
  }

  async function use() {
    const position = notation();
    try { await page.load(position); }
    catch (err) { $("edit-message").textContent = `The rules refuse this position: ${err.message}`; return; }
    close();
  }

  $("edit-toggle").onclick = () => (E.on ? close() : open(page.game(), page.position()));
  $("edit-seat").onchange = () => { teamBox(); page.render(); };
  $("edit-empty").onclick = () => { E.cells = new Map(); page.render(); };
  $("edit-reset").onclick = () => { read(E.start); page.render(); };
  $("edit-use").onclick = () => use();
  return {
    active: () => E.on,
    click,
    close: () => { if (E.on) close(); },
    notation,
    // The edited position's pieces, as the server describes pieces.
    pieces: () => [...E.cells.entries()].map(([cell, text]) => ({
      cell, text, colour: COLOUR[text[text.length - 1]] || "white",
      king: E.game === "hexdame" && text === text.toUpperCase(),
    })),
  };
}
