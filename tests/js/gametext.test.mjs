// The game text's parser and exporter (src/serve/assets/gametext.js) and links
// (src/serve/assets/link.js) without a browser: `node --test tests/js/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { exportGame, movetext, parseGame, parseMoves, rounds, treeItems } from "../../src/serve/assets/gametext.js";
import { linkHash, parseLink } from "../../src/serve/assets/link.js";
import { replay } from "../../src/serve/assets/tree.js";
import { BOARD, fresh, play, playAll, view } from "./helpers.mjs";

// A parsed tree's items, the seats alternating from seat 0.
const itemsOf = parsed => {
  const depth = n => { let d = 0; for (; n.parent; n = n.parent) d++; return d; };
  const link = (n, parent) => { n.parent = parent; n.children.forEach(c => link(c, n)); return n; };
  return treeItems(BOARD, link(parsed, null), n => (depth(n) - 1) % 2);
};

const text = body => exportGame({
  game: "hexdame", seats: [["White", "a person"], ["Black", "a person"]], result: "unfinished",
  date: "2026-11-29", start: "white a1:M", items: itemsOf(parseMoves(body)),
});

test("turns, nested variations and comments come back as they went out", () => {
  const body = "1. a4-b5 {the usual} 1... i6-i5 (1... i7-i6 2. d2-e3 (2. d2-d3) 2... h7-h6) 2. d2-e3 i7-i6";
  const out = text(body);
  assert.equal(movetext(itemsOf(parseGame(out).tree)), body);
  const g = parseGame(out);
  assert.equal(g.game, "hexdame");
  assert.equal(g.start, "white a1:M");
  assert.deepEqual(g.turns, ["a4-b5", "i6-i5", "d2-e3", "i7-i6"]);
  assert.equal(g.tree.children[0].comment, "the usual");
});

test("braces and backslashes inside a comment survive export and import", () => {
  const tree = fresh();
  playAll(tree, ["a4-b5", "i6-i5"]);
  const said = "see {this} and \\ that }{";
  tree.here.comment = said;
  const items = treeItems(BOARD, tree.root, n => n.parent.view.seat_index);
  const out = exportGame({ game: "hexdame", seats: [], result: "unfinished", date: "d", start: "s", items });
  assert.match(out, /\{see \\\{this\\\} and \\\\ that \\\}\\\{\}/);
  const back = parseGame(out).tree.children[0].children[0];
  assert.equal(back.comment, said);
  assert.equal(back.turn, "i6-i5");
});

test("a comment's white space comes back as single spaces, over wrapped lines", () => {
  const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join("   ");
  const back = parseGame(text(`1. a4-b5 {${long}} i6-i5`)).tree.children[0].comment;
  assert.equal(back, long.replace(/ +/g, " "));
});

test("a round's later turn is numbered N... after a variation or a comment", () => {
  assert.equal(movetext(itemsOf(parseMoves("a4-b5 i6-i5 (i7-i6) d2-e3 {!} i7-i6"))),
    "1. a4-b5 i6-i5 (1... i7-i6) 2. d2-e3 {!} 2... i7-i6");
});

test("text that does not read is refused in words", () => {
  assert.throws(() => parseGame("1. a4-b5"), /no \[Game "\.\.\."\] tag/);
  for (const [body, why] of [
    ["(a4-b5)", /before any turn/], ["a4-b5 )", /closes no variation/],
    ["a4-b5 (i6-i5", /1 variation\(s\) not closed/], ["a4-b5 {open", /not closed with '}'/],
    ["a4-b5 }", /closes no comment/], ["a4-b5 {a \\} b", /not closed with '}'/],
  ]) assert.throws(() => parseMoves(body), why, body);
});

test("tags are read with their escapes", () => {
  const g = parseGame('[Game "eximo"]\n[Result "White wins: \\"Black\\" resigned"]\n\n1. a4-b5');
  assert.equal(g.tags.result, 'White wins: "Black" resigned');
  assert.equal(g.start, null);
});

test("rematch3's rounds: a column per seat, one turn of each side a row", () => {
  const board = { seats: ["white", "orange", "red"], sides: ["team", "red"], seat_sides: [0, 0, 1] };
  assert.deepEqual(rounds(board, [0, 2, 1, 2]), { columns: [0, 1, 2], rows: [[0, null, 1], [null, 2, 3]] });
});

test("a link carries the variations and comments, and the cursor's line", async () => {
  const tree = fresh();
  playAll(tree, ["a4-b5", "i6-i5", "d2-e3"]);
  tree.goTo(1);
  playAll(tree, ["i7-i6"]);
  tree.here.comment = "a {sharp} try";
  const hash = linkHash("hexdame", BOARD, tree);
  const opened = parseLink(`#${hash}`, ["rematch", "hexdame"]);
  assert.equal(opened.game, "hexdame");
  assert.equal(opened.start, "start");
  assert.deepEqual(opened.turns, ["a4-b5", "i7-i6"]);
  const { tree: back } = await replay(view("start"), opened.parsed, play);
  const at = back.follow(opened.turns);
  back.show(at);
  assert.equal(back.count(), 4);
  assert.equal(at.comment, "a {sharp} try");
  assert.ok(back.variationAt());
});

test("a plain line's link has its turns only; a link's errors are in words", () => {
  const tree = fresh();
  playAll(tree, ["a4-b5", "i6-i5"]);
  const hash = linkHash("hexdame", BOARD, tree);
  assert.equal(hash, "game=hexdame&start=start&turns=a4-b5%2Ci6-i5");
  assert.equal(parseLink("", ["hexdame"]), null);
  assert.throws(() => parseLink("#game=chess", ["hexdame"]), /unknown game 'chess' \(known: hexdame\)/);
  assert.throws(() => parseLink("#game=hexdame&tree=a4-b5+)", ["hexdame"]), /The link's tree does not read: a '\)' closes no variation/);
});
