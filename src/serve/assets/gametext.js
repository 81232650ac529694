// A game as text in the project's notation, with a header (as PGN does for chess):
//
//   [Game "rematch"]
//   [Red "a person"]
//   [Team "the model (checkpoint step 20)"]
//   [Result "Red wins: Team has no pieces left"]
//   [Date "2026-11-26"]
//   [Start "white a1:R ..."]
//
//   1. d2-d3 a2-b3 2. ...
//
// Turns are numbered by round (one turn per seat); Start is the position the game began
// from. Import reads the Game and Start tags and the turns (any path of a legal turn).

const tag = (name, value) => `[${name} "${String(value).replace(/["\\]/g, "\\$&")}"]`;

export function exportGame({ game, seats, result, date, start, turns }) {
  const lines = [tag("Game", game)];
  for (const [seat, who] of seats) lines.push(tag(seat, who));
  lines.push(tag("Result", result), tag("Date", date), tag("Start", start), "");
  const n = seats.length, moves = [];
  turns.forEach((t, i) => moves.push(i % n === 0 ? `${i / n + 1}. ${t}` : t));
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
