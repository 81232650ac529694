// A game as text in the project's notation, with a header (as PGN does for chess):
//
//   [Game "rematch"]
//   [Red "a person"]
//   [Team "the model (checkpoint step 20)"]
//   [Result "Red wins: Team has no pieces left"]
//   [Date "2026-11-26"]
//   [Start "white a1:R ..."]
//
//   1. e4-d4 b2-c2 2. c4xe4 b1-b2 ...
//
// Turns are numbered by round (one turn of each side: see `rounds` below); Start is the
// position the game began from. Import reads the Game and Start tags and the turns (any path
// of a legal turn).

const tag = (name, value) => `[${name} "${String(value).replace(/["\\]/g, "\\$&")}"]`;

// rounds: the turns by round (`roundTexts`), numbered as the move list numbers them.
export function exportGame({ game, seats, result, date, start, rounds }) {
  const lines = [tag("Game", game)];
  for (const [seat, who] of seats) lines.push(tag(seat, who));
  lines.push(tag("Result", result), tag("Date", date), tag("Start", start), "");
  const moves = [];
  rounds.forEach((turns, k) => turns.forEach((t, j) => moves.push(j === 0 ? `${k + 1}. ${t}` : t)));
  let row = "";
  for (const m of moves) {
    if (row.length + m.length > 78) { lines.push(row.trimEnd()); row = ""; }
    row += m + " ";
  }
  if (row) lines.push(row.trimEnd());
  return lines.join("\n") + "\n";
}

export function parseGame(text) {
  const tags = {};
  const body = [];
  for (const line of text.split(/\r?\n/)) {
    const m = line.match(/^\s*\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$/);
    if (m) tags[m[1].toLowerCase()] = m[2].replace(/\\(.)/g, "$1");
    else body.push(line);
  }
  if (!tags.game) throw new Error('Import: the text has no [Game "..."] tag');
  const turns = body.join(" ").split(/\s+/).map(t => t.replace(/^\d+\.+/, "")).filter(t => t.length > 0);
  return { game: tags.game, start: tags.start || null, turns, tags };
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
