// A stand-in for the server in the tree's tests: a position is the turns played from the
// start ("start a4-b5 i6-i5"), two seats alternate (seat 0 moves first), and a turn named
// "illegal" is refused as the server refuses one.
import { MoveTree, node } from "../../src/serve/assets/tree.js";

export const BOARD = { seats: ["white", "black"], sides: ["white", "black"] };

// The view of a position, as the server answers it (only what the tree reads).
export function view(position, turn = null) {
  const played = position.split(" ").length - 1;
  return { position, turn, seat_index: played % 2, outcome: null };
}

// The server's /api/play as `replay` calls it.
export async function play(position, turn) {
  if (turn === "illegal") throw new Error("'illegal' is not a legal turn here");
  return view(`${position} ${turn}`, turn);
}

// A new tree at the start position.
export const fresh = () => new MoveTree(node(view("start"), null, null));

// Plays `turns` at the cursor, one after the other.
export function playAll(tree, turns) {
  for (const turn of turns) tree.place(view(`${tree.here.view.position} ${turn}`, turn), turn);
}

// The turns of the shown line.
export const shown = tree => tree.lineTurns().join(" ");
