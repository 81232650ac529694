// A game as text in the project's notation, with a header (as PGN does for chess):
//
//   [Game "rematch"]
//   [Red "a person"]
//   [Team "the model (checkpoint step 20)"]
//   [Result "Red wins: Team has no pieces left"]
//   [Date "2026-11-26"]
//   [Start "white a1:R ..."]
//
//   1. e4-d4 {a comment} b2-c2 (1... b2-c3 2. d2-c2) 2. c4xe4 b1-b2 ...
//
// Turns are numbered by round (one turn of each side: see `rounds` below); a round's later
// turn that opens a variation, or follows one or a comment, is numbered `N...`. Start is the
// position the game began from. Variations follow the turn they replace, in parentheses,
// nested to any depth; comments follow their turn in braces. Import reads the Game and Start
// tags, the turns (any path of a legal turn), the variations and the comments. A comment's
// braces and backslashes are escaped with a backslash (`{a \{b\} c}`), so every comment
// comes back as written (its white space as single spaces). No DOM here but
// `fillMoveList`'s table, so node's test runner imports it (tests/js/).

const tag = (name, value) => `[${name} "${String(value).replace(/["\\]/g, "\\$&")}"]`;

// A move tree: nodes {turn, comment, children}, the root's turn null; the first child of a
// node is the line's main continuation, the others its variations. `moverOf(node)` is the
// seat that made the node's turn.

// The tree in reading order: {kind: "turn", node, number, text}, {kind: "comment", node,
// text}, {kind: "open"} and {kind: "close"} around a variation.
export function treeItems(board, root, moverOf) {
  const items = [];
  const turn = (node, movers, force) => {
    const { round, first } = numbering(board, movers);
    items.push({ kind: "turn", node, text: node.turn, number: first ? `${round}.` : force ? `${round}...` : "" });
    if (node.comment) items.push({ kind: "comment", node, text: node.comment });
  };
  // The line from `parent` on, along first children, each turn's variations after it.
  const walk = (parent, movers, force) => {
    for (let node = parent; node.children.length > 0; node = node.children[0]) {
      const [main, ...others] = node.children;
      const here = [...movers, moverOf(main)];
      turn(main, here, force);
      for (const other of others) {
        items.push({ kind: "open" });
        turn(other, here, true);
        walk(other, here, false);
        items.push({ kind: "close" });
      }
      force = others.length > 0 || Boolean(main.comment);
      movers = here;
    }
  };
  walk(root, [], true);
  return items;
}

// The round of the last turn of a line whose turns `movers` made, and whether it opens it.
function numbering(board, movers) {
  const { rows } = rounds(board, movers);
  const row = rows[rows.length - 1];
  return { round: rows.length, first: row.find(i => i !== null) === movers.length - 1 };
}

// An engine line's turns numbered as the game text numbers them: `movers` the seats that
// made the turns before the line, `seats` the seat of each of its turns. Each turn's number
// ("12." a round's first turn, "12..." the line's first turn later in its round, else "").
export function lineNumbers(board, movers, seats, turns) {
  let line = movers.slice();
  return turns.map((turn, k) => {
    line = [...line, seats[k] ?? 0];
    const { round, first } = numbering(board, line);
    return first ? `${round}.` : k === 0 ? `${round}...` : "";
  });
}

// The tree's items (`treeItems`) as one line of text: turns, variations in parentheses,
// comments in braces (escaped: see the top).
export function movetext(items) {
  const words = items.map(item => {
    if (item.kind === "turn") return item.number ? `${item.number} ${item.text}` : item.text;
    if (item.kind === "comment") return `{${escapeComment(item.text)}}`;
    return item.kind === "open" ? "(" : ")";
  });
  return words.join(" ").replace(/\( /g, "(").replace(/ \)/g, ")");
}

const escapeComment = text => text.replace(/\s+/g, " ").trim().replace(/[\\{}]/g, "\\$&");

// The game text: the header, then the tree's items (`treeItems`) wrapped at 78 characters.
export function exportGame({ game, seats, result, date, start, items }) {
  const lines = [tag("Game", game)];
  for (const [seat, who] of seats) lines.push(tag(seat, who));
  lines.push(tag("Result", result), tag("Date", date), tag("Start", start), "");
  let row = "";
  for (const w of movetext(items).split(" ")) {
    if (row.length + w.length > 78) { lines.push(row.trimEnd()); row = ""; }
    row += w + " ";
  }
  if (row.trim()) lines.push(row.trimEnd());
  return lines.join("\n") + "\n";
}

// The game text read back: its game, start, tags, main line (`turns`) and move tree
// (`tree`: nodes {turn, comment, children}). Errors name what is wrong, in words.
export function parseGame(text) {
  const tags = {};
  const body = [];
  for (const line of text.split(/\r?\n/)) {
    const m = line.match(/^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$/);
    if (m) tags[m[1].toLowerCase()] = m[2].replace(/\\(.)/g, "$1");
    else body.push(line);
  }
  if (!tags.game) throw new Error('Import: the text has no [Game "..."] tag');
  const tree = parseMoves(body.join(" "));
  const turns = [];
  for (let n = tree; n.children.length > 0; n = n.children[0]) turns.push(n.children[0].turn);
  return { game: tags.game, start: tags.start || null, turns, tree, tags };
}

// The move tree of a game text's body (or of a link's `tree`: see `movetext`).
export function parseMoves(body) {
  const root = { turn: null, comment: "", children: [] };
  // `at`: the node the next turn follows; `last`: the node before the last turn read (where
  // a variation of that turn starts).
  let at = root, last = null;
  const open = [];
  for (const token of body.match(/\{(?:[^\\}]|\\.)*\}|\(|\)|[^\s(){}]+|[{}]/g) || []) {
    if (token === "(") {
      if (!last) throw new Error("Import: a variation, '(', before any turn it could replace");
      open.push({ at, last });
      at = last;
    } else if (token === ")") {
      if (open.length === 0) throw new Error("Import: a ')' closes no variation");
      ({ at, last } = open.pop());
    } else if (token.startsWith("{")) {
      if (!token.endsWith("}")) throw new Error("Import: a comment, '{', is not closed with '}'");
      const words = token.slice(1, -1).trim().replace(/\\([\\{}])/g, "$1");
      at.comment = at.comment ? `${at.comment} ${words}` : words;
    } else if (token === "}") {
      throw new Error("Import: a '}' closes no comment");
    } else if (!/^\d+\.+$/.test(token)) {
      const node = { turn: token.replace(/^\d+\.+/, ""), comment: "", children: [] };
      at.children.push(node);
      last = at;
      at = node;
    }
  }
  if (open.length > 0) throw new Error(`Import: ${open.length} variation(s) not closed with ')'`);
  return root;
}

// The move list by round, for the page's lists and the game text: a row (a round) holds one
// turn of each side (the sides alternate in every game), and each seat has its own column.
// So in rematch3, whose turns go White, Red, Orange, Red, the rows read "White · Red" and
// "· Orange Red" under the columns White, Orange, Red: Red's turns never sit in a Team
// player's column.

// The side of each seat: the board's `seat_sides` when the server sends them, else by name
// (a seat named after a side plays it; the other seats share the side no seat is named after).
function seatSides(board) {
  if (Array.isArray(board.seat_sides)) return board.seat_sides;
  const spare = board.sides.findIndex(s => !board.seats.includes(s));
  return board.seats.map((name, i) => {
    const side = board.sides.indexOf(name);
    return side >= 0 ? side : spare >= 0 ? spare : i % board.sides.length;
  });
}

// The columns (seat indices) of a line whose first turn `first` (a seat) makes: its side's
// seats first, from `first` on, then the other side's seats, each in seat order.
function columns(board, first) {
  const sides = seatSides(board), lead = sides[first] ?? 0;
  const seats = board.seats.map((_, i) => i);
  const own = seats.filter(i => sides[i] === lead);
  const from = Math.max(0, own.indexOf(first));
  return [...own.slice(from), ...own.slice(0, from), ...seats.filter(i => sides[i] !== lead)];
}

// movers: the seat that made each turn. Returns {columns: seat indices, rows: for each
// round, one entry per column: the index of the turn (into movers) or null}. A turn whose
// column is not to the right of the last one filled starts the next round.
export function rounds(board, movers) {
  if (movers.length === 0) return { columns: [], rows: [] };
  const cols = columns(board, movers[0]);
  const rows = [];
  let row = null, last = -1;
  movers.forEach((seat, i) => {
    let c = cols.indexOf(seat);
    if (c < 0) c = (last + 1) % cols.length;
    if (!row || c <= last) { row = cols.map(() => null); rows.push(row); }
    row[c] = i;
    last = c;
  });
  return { columns: cols, rows };
}

// Who made each turn of a replay (frames: the start, then the position after each turn):
// the frame's `seat_index` when the server sends it, else the seat the position names first.
// In two-seat ReMATCH a position names the Team's colour, not its seat: there the two seats
// alternate from a position whose seat is known.
export function replayMovers(board, frames) {
  const seat = frames.map(f => f.seat_index ?? board.seats.indexOf(f.position.split(" ")[0]));
  const known = seat.findIndex(s => s >= 0);
  return frames.slice(0, -1).map((f, k) => {
    if (seat[k] >= 0 || known < 0 || board.seats.length !== 2) return Math.max(0, seat[k]);
    return (k - known) % 2 === 0 ? seat[known] : 1 - seat[known];
  });
}

// Fills a move list's table body: the round's number, then one cell per column (a turn,
// `data-index` its index into the line from 1, `data-seat` its seat; or empty). `onTurn(i)`
// is called on a click on turn i; `current` is the turn highlighted.
export function fillMoveList(body, board, turns, movers, current, onTurn) {
  body.replaceChildren();
  const { columns: cols, rows } = rounds(board, movers);
  rows.forEach((row, k) => {
    const tr = body.insertRow();
    tr.insertCell().textContent = `${k + 1}.`;
    row.forEach((i, c) => {
      const td = tr.insertCell();
      if (i === null) { td.className = "empty"; return; }
      const seat = board.seats[cols[c]] || "";
      td.textContent = turns[i];
      td.className = "mv" + (i + 1 === current ? " current" : "");
      td.dataset.index = i + 1;
      td.dataset.seat = seat;
      td.title = `${seat ? seat[0].toUpperCase() + seat.slice(1) : "turn"}: ${turns[i]}`;
      td.onclick = () => onTurn(i + 1);
    });
  });
}

// The turns by round, as text for the game text (empty columns left out).
export function roundTexts(board, turns, movers) {
  return rounds(board, movers).rows.map(row => row.filter(i => i !== null).map(i => turns[i]));
}
