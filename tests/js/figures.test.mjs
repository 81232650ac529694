// Issue 61's figures that need no browser: the graph's grades (lichess's thresholds, a
// proven value lost), the counts per seat in words, an engine line's move numbers, and a
// chart axis in one notation.
import test from "node:test";
import assert from "node:assert/strict";
import { mistakes, gradeCounts, GRADES } from "../../src/serve/assets/graph.js";
import { lineNumbers } from "../../src/serve/assets/gametext.js";
import { axisValues } from "../../src/serve/assets/charts.js";
import { BOARD } from "./helpers.mjs";

const movers = n => Array.from({ length: n }, (_, i) => ({ side: i % 2, seat: i % 2 }));

test("turns are graded by the searched value before and after them, as lichess does", () => {
  assert.deepEqual(GRADES.map(([cut]) => cut), [0.3, 0.2, 0.1]);
  // The first side's expected score: 0.5, then side 0 plays to 0.44 (value -0.12: an
  // inaccuracy), side 1 to 0.56 (it lost 0.24 of value: a mistake), side 0 to 0.40 (a
  // blunder, 0.32), side 1 to 0.42 (no loss).
  const evals = [0.5, 0.44, 0.56, 0.4, 0.42].map(score => ({ score, exact: false }));
  const found = mistakes(evals, movers(5));
  assert.deepEqual(found.map(m => [m.turn, m.seat, m.grade]), [[1, 0, "inaccuracy"], [2, 1, "mistake"], [3, 0, "blunder"]]);
  assert.ok(Math.abs(found[0].lost - 0.12) < 1e-9);
  // A small drop is no grade; a proven value lost is a blunder, however small.
  const proven = [{ score: 1, exact: true }, { score: 0.98, exact: true }];
  assert.deepEqual(mistakes(proven, movers(2)).map(m => m.grade), ["blunder"]);
  assert.deepEqual(mistakes([{ score: 0.5 }, { score: 0.47 }], movers(2)), []);
  // Unknown positions are skipped.
  assert.deepEqual(mistakes([{ score: 0.5 }, null, { score: 0 }], movers(3)), []);
  assert.deepEqual(gradeCounts(found, ["white", "black"]), [
    "White: 1 inaccuracy, 0 mistakes, 1 blunder", "Black: 0 inaccuracies, 1 mistake, 0 blunders"]);
});

test("an engine line's turns are numbered by round, its first turn always", () => {
  // Two turns played (a round), the line from White's turn: 2. w 2... no; from Black's: 2... b 3. w.
  assert.deepEqual(lineNumbers(BOARD, [0, 1], [0, 1, 0], ["a", "b", "c"]), ["2.", "", "3."]);
  assert.deepEqual(lineNumbers(BOARD, [0, 1, 0], [1, 0, 1], ["a", "b", "c"]), ["2...", "3.", ""]);
  assert.deepEqual(lineNumbers(BOARD, [], [0, 1], ["a", "b"]), ["1.", ""]);
});

test("a chart's axis reads in one notation", () => {
  assert.deepEqual(axisValues([0.00075, 0.001, 0.00125]), ["7.5e-4", "1.0e-3", "1.3e-3"]);
  assert.deepEqual(axisValues([0.5, 1, 1.5]), ["0.5", "1", "1.5"]);
});
