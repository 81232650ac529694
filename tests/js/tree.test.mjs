// The move tree (src/serve/assets/tree.js) without a browser: `node --test tests/js/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chain, replay } from "../../src/serve/assets/tree.js";
import { movetext, treeItems } from "../../src/serve/assets/gametext.js";
import { BOARD, fresh, play, playAll, shown, view } from "./helpers.mjs";

const text = tree => movetext(treeItems(BOARD, tree.root, n => n.parent.view.seat_index));
const people = () => true;
const GAME = ["a4-b5", "i6-i5", "d2-e3", "i7-i6", "e3-f3", "f9-e9"];

// Issue 61's HexDame game: the main line, then from two turns back `a3-a4 f9-e9`.
function withVariation() {
  const tree = fresh();
  playAll(tree, GAME);
  tree.goTo(4);
  playAll(tree, ["a3-a4", "f9-e9"]);
  return tree;
}

test("a turn from an earlier position starts a variation after the main continuation", () => {
  const tree = withVariation();
  assert.match(text(tree), /3\. e3-f3 \(3\. a3-a4 f9-e9\) 3\.\.\. f9-e9$/);
  assert.equal(shown(tree), "a4-b5 i6-i5 d2-e3 i7-i6 a3-a4 f9-e9");
  assert.equal(tree.variationAt().turn, "a3-a4");
  assert.equal(tree.count(), 8);
});

test("Undo twice, Redo twice at the main line's end leaves the tree as it was", () => {
  const tree = withVariation();
  const before = text(tree);
  assert.ok(tree.backToMain());
  tree.goTo(tree.line.length - 1);
  assert.equal(tree.undo(people), "turns");
  assert.equal(tree.undo(people), "turns");
  // The variation is not shown in the main line's place: the line ends at the cursor.
  assert.equal(shown(tree), "a4-b5 i6-i5 d2-e3 i7-i6");
  assert.ok(tree.atEnd());
  assert.equal(tree.variationAt(), null);
  assert.ok(tree.redo());
  assert.ok(tree.redo());
  assert.equal(text(tree), before);
  assert.equal(shown(tree), GAME.join(" "));
  assert.ok(tree.atEnd());
  assert.equal(tree.canRedo(), false);
});

test("Undo and Redo in a variation keep the main line first", () => {
  const tree = withVariation();
  const before = text(tree);
  assert.equal(tree.undo(people), "turns");
  assert.equal(tree.undo(people), "turns");
  assert.equal(shown(tree), "a4-b5 i6-i5 d2-e3 i7-i6");
  assert.match(text(tree), /3\. e3-f3 f9-e9$/);
  tree.redo();
  tree.redo();
  assert.equal(text(tree), before);
  assert.equal(tree.variationAt().turn, "a3-a4");
});

test("Undo away from the line's end is a step back and takes nothing back", () => {
  const tree = fresh();
  playAll(tree, GAME);
  tree.goTo(2);
  assert.equal(tree.undo(people), "back");
  assert.equal(tree.cursor, 1);
  assert.equal(shown(tree), GAME.join(" "));
  assert.equal(tree.count(), 6);
  assert.equal(tree.canRedo(), false);
});

test("Undo with a model seat goes back to where a person moves", () => {
  const tree = fresh();
  playAll(tree, GAME.slice(0, 4));
  const person = n => n.view.seat_index === 0;
  assert.equal(tree.undo(person), "turns");
  assert.equal(shown(tree), "a4-b5 i6-i5");
  assert.ok(tree.redo());
  assert.equal(shown(tree), GAME.slice(0, 4).join(" "));
});

test("a resignation is undone and redone as its own step", () => {
  const tree = fresh();
  playAll(tree, GAME.slice(0, 4));
  const person = n => n.view.seat_index === 0;
  assert.ok(tree.resign("Black wins: White resigned"));
  assert.equal(tree.outcome(), "Black wins: White resigned");
  assert.equal(tree.undo(person), "resignation");
  assert.equal(tree.outcome(), null);
  assert.equal(shown(tree), GAME.slice(0, 4).join(" "));
  assert.ok(tree.redo());
  assert.equal(tree.outcome(), "Black wins: White resigned");
  // Undo twice: the resignation, then the turns; Redo twice puts back both.
  tree.undo(person);
  tree.undo(person);
  assert.equal(shown(tree), "a4-b5 i6-i5");
  tree.redo();
  assert.equal(tree.outcome(), null);
  tree.redo();
  assert.equal(shown(tree), GAME.slice(0, 4).join(" "));
  assert.equal(tree.outcome(), "Black wins: White resigned");
});

test("a resignation ends only its own line", () => {
  const tree = fresh();
  playAll(tree, GAME.slice(0, 2));
  tree.resign("Black wins: White resigned");
  assert.equal(tree.resign("again"), false);
  tree.goTo(1);
  assert.equal(tree.outcome(), null);
  playAll(tree, ["i7-i6"]);
  assert.equal(tree.outcome(), null);
  assert.ok(tree.backToMain());
  tree.goTo(2);
  assert.equal(tree.outcome(), "Black wins: White resigned");
});

test("a new turn or a deleted variation empties Redo", () => {
  const tree = fresh();
  playAll(tree, GAME.slice(0, 3));
  tree.undo(people);
  playAll(tree, ["d2-d3"]);
  assert.equal(tree.canRedo(), false);
  const variation = withVariation();
  variation.undo(people);
  assert.ok(variation.canRedo());
  variation.goTo(5);
  assert.ok(variation.deleteVariation());
  assert.equal(variation.canRedo(), false);
});

test("nothing to undo at the start", () => {
  const tree = fresh();
  assert.equal(tree.canUndo(), false);
  assert.equal(tree.undo(people), null);
  assert.equal(tree.redo(), false);
});

test("promote, delete, another variation and back to the main line", () => {
  const tree = withVariation();
  assert.ok(tree.promote());
  assert.equal(tree.variationAt(), null);
  assert.match(text(tree), /3\. a3-a4 \(3\. e3-f3 f9-e9\) 3\.\.\. f9-e9$/);
  tree.goTo(4);
  assert.ok(tree.otherVariation(1));
  assert.equal(shown(tree), GAME.join(" "));
  assert.equal(tree.cursor, 4);
  tree.goTo(5);
  assert.ok(tree.deleteVariation());
  assert.equal(tree.cursor, 4);
  assert.equal(tree.count(), 6);
  assert.equal(tree.otherVariation(1), false);
});

test("follow, plain and the main line's end", () => {
  const tree = withVariation();
  assert.equal(tree.follow(["a4-b5", "i6-i5", "nothing"]).turn, "i6-i5");
  assert.equal(tree.mainEnd().view.position, `start ${GAME.join(" ")}`);
  assert.equal(tree.plain(), false);
  const line = fresh();
  playAll(line, GAME.slice(0, 2));
  assert.ok(line.plain());
  line.here.comment = "a note";
  assert.equal(line.plain(), false);
});

test("replay: strict names the refused turn, lenient keeps the legal part", async () => {
  const parsed = chain(["a4-b5", "i6-i5", "illegal", "i7-i6"]);
  await assert.rejects(replay(view("start"), parsed, play), /turn 3 \(illegal\): 'illegal' is not/);
  const { tree, refused } = await replay(view("start"), parsed, play, true);
  assert.equal(tree.count(), 2);
  assert.equal(shown(tree), "a4-b5 i6-i5");
  assert.match(refused, /^turn 3 \(illegal\)/);
  const whole = await replay(view("start"), chain(GAME), play, true);
  assert.equal(whole.refused, null);
  assert.equal(shown(whole.tree), GAME.join(" "));
});
