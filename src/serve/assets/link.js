// Links that open the page on a game, with no DOM in it (tests/js/ import it under node):
// `#game=rematch&start=...&turns=e4-d4,b2-c2&tree=...`: the game, its start position, the
// turns of the shown line up to the cursor (`turns`), and, when the tree holds more than
// that line (variations, turns after the cursor, comments), the whole tree as the game
// text's turns (`tree`: see gametext.js's `movetext`).
import { movetext, parseMoves, treeItems } from "./gametext.js";
import { chain } from "./tree.js";

// The fragment (without '#') of a link to `tree` (a MoveTree) of `game` on `board`.
export function linkHash(game, board, tree) {
  const params = new URLSearchParams({ game, start: tree.root.view.position });
  const turns = tree.line.slice(1, tree.cursor + 1).map(n => n.turn);
  if (turns.length > 0) params.set("turns", turns.join(","));
  if (!tree.plain()) params.set("tree", movetext(treeItems(board, tree.root, n => n.parent.view.seat_index)));
  return params.toString();
}

// The game a link's fragment names: {game, start, turns (to the cursor), parsed (the tree
// as gametext.js's parser reads it)}, or null when the fragment names no game. Throws, in
// words, for a game not in `games` or a tree that does not read.
export function parseLink(hash, games) {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const game = params.get("game");
  if (!game) return null;
  if (!games.includes(game)) throw new Error(`The link names an unknown game '${game}' (known: ${games.join(", ")}).`);
  const turns = (params.get("turns") || "").split(",").filter(t => t.length > 0);
  let parsed = chain(turns);
  if (params.has("tree")) {
    try { parsed = parseMoves(params.get("tree")); }
    catch (err) { throw new Error(`The link's tree does not read: ${err.message.replace(/^Import: /, "")}.`); }
  }
  return { game, start: params.get("start"), turns, parsed };
}
