// The move tree as data, with no DOM in it (so node's test runner imports it: tests/js/):
// its nodes, the shown line and its cursor, variations, the main line, promotion, undo/redo
// and resignation. play.js draws it and feeds it the turns people and the model play.
//
// A node is {view, turn, parent, children, next, comment, resigned}: `view` the server's
// answer for its position (the tree reads only `position`, `outcome` and `seat_index`),
// `turn` the turn that led there (null at the root), `children` its continuations, the first
// one the main continuation and the others its variations, `next` the child the shown line
// follows, `comment` words on its turn, `resigned` the result in words when the side to move
// there resigned (a resignation belongs to the node it was made at, so a variation played
// from an earlier position is not over).
//
// Undo and Redo never reorder the tree:
// - Undo with the cursor at the end of the shown line takes back the line's last turns, to
//   the last earlier position where a person moves (`personMoves`); the first turn taken back
//   is cut from its parent with everything after it, and the shown line then ends where the
//   cursor is (a variation there is not shown in its place, and stays a variation).
// - Undo anywhere else is a step back to that same position: nothing is taken back.
// - Undo at the end of a resigned line takes back the resignation alone, as its own step.
// - Redo puts back exactly what the last Undo took back: the same node, with its turns,
//   variations and comments, at its original place among its parent's children (or the
//   resignation), and shows the line to where it ended. A new turn, a resignation or a
//   deleted variation empties Redo.

// A node of the tree (see above).
export function node(view, turn, parent) {
  return { view, turn, parent, children: [], next: null, comment: "", resigned: null };
}

// The tree's state, declared here once (as chessground declares its State): the root, the
// shown line (`line`: from the root through the cursor's node, then along `next`, else the
// first child), the cursor's index in it, and the steps Redo can put back (last on top:
// {node, index, last} for turns cut at `index` of their parent's children, `last` the line's
// end then; {node, resigned} for a resignation).
export class MoveTree {
  constructor(root) {
    this.root = root;
    this.line = [root];
    this.cursor = 0;
    this.redoSteps = [];
    this.show(root);
  }

  // The node at the cursor.
  get here() { return this.line[this.cursor]; }

  atEnd() { return this.cursor === this.line.length - 1; }

  // Shows the line through `at` (from the root, then on along `next`), the cursor on `at`.
  // With `extend` false the shown line ends at `at`.
  show(at, extend = true) {
    const path = [];
    for (let n = at; n; n = n.parent) path.unshift(n);
    for (const n of path.slice(1)) n.parent.next = n;
    this.cursor = path.length - 1;
    for (let n = at; extend && n.children.length > 0;) {
      n = n.next && n.children.includes(n.next) ? n.next : n.children[0];
      path.push(n);
    }
    this.line = path;
  }

  // The cursor to turn `i` of the shown line (kept inside it): whether it moved.
  goTo(i) {
    const to = Math.max(0, Math.min(this.line.length - 1, i));
    if (to === this.cursor) return false;
    this.cursor = to;
    return true;
  }

  // A turn played at the cursor (`view` the position after it): the node the tree has for
  // it there already, or a new one (a variation when the position has a continuation).
  place(view, turn) {
    const at = this.here;
    let child = at.children.find(c => c.view.position === view.position);
    if (!child) {
      child = node(view, turn, at);
      at.children.push(child);
      this.redoSteps = [];
    }
    this.show(child);
    return child;
  }

  // The resignation in words when the cursor is at the end of a resigned line, else null.
  resignation() { return (this.atEnd() && this.here.resigned) || null; }

  // Why the game is over at the cursor (a resignation or the rules' result), else null.
  outcome() { return this.resignation() || this.here.view.outcome || null; }

  // The side to move at the end of the line resigns (`result` in words): whether it could.
  resign(result) {
    if (!this.atEnd() || this.outcome()) return false;
    this.here.resigned = result;
    this.redoSteps = [];
    return true;
  }

  // Undo (see the top of this file): "resignation", "turns" (taken back), "back" (a step
  // back only) or null (nothing to do). `personMoves(node)`: a person moves there.
  undo(personMoves) {
    if (this.resignation()) {
      this.redoSteps.push({ node: this.here, resigned: this.here.resigned });
      this.here.resigned = null;
      return "resignation";
    }
    if (this.cursor === 0) return null;
    let to = this.cursor - 1;
    while (to > 0 && !personMoves(this.line[to])) to--;
    if (!this.atEnd()) {
      this.cursor = to;
      return "back";
    }
    const first = this.line[to + 1], parent = first.parent;
    const index = parent.children.indexOf(first);
    parent.children.splice(index, 1);
    if (parent.next === first) parent.next = null;
    this.redoSteps.push({ node: first, index, last: this.here });
    this.show(parent, false);
    return "turns";
  }

  // Puts back what the last Undo took back (see above): whether there was anything.
  redo() {
    const step = this.redoSteps.pop();
    if (!step) return false;
    if (step.resigned) {
      step.node.resigned = step.resigned;
      this.show(step.node);
      return true;
    }
    const kids = step.node.parent.children;
    kids.splice(Math.min(step.index, kids.length), 0, step.node);
    this.show(step.last);
    return true;
  }

  canUndo() { return this.cursor > 0 || Boolean(this.resignation()); }

  canRedo() { return this.redoSteps.length > 0; }

  // The node where the shown line leaves the main line nearest the cursor (the variation
  // the cursor is in), or null on the main line.
  variationAt() {
    for (let n = this.here; n.parent; n = n.parent) if (n.parent.children[0] !== n) return n;
    return null;
  }

  // The variation the cursor is in becomes its parent's main continuation (one level up):
  // whether there was one.
  promote() {
    const v = this.variationAt();
    if (!v) return false;
    const kids = v.parent.children;
    kids.splice(kids.indexOf(v), 1);
    kids.unshift(v);
    return true;
  }

  // The variation the cursor is in is deleted with its turns, variations and comments; the
  // cursor goes to where it began. Whether there was one.
  deleteVariation() {
    const v = this.variationAt();
    if (!v) return false;
    const from = v.parent;
    from.children.splice(from.children.indexOf(v), 1);
    if (from.next === v) from.next = null;
    this.redoSteps = [];
    this.show(from);
    return true;
  }

  // The shown line from the cursor on follows the variation `step` away there (±1, round):
  // whether there was another.
  otherVariation(step) {
    const at = this.here, kids = at.children;
    if (kids.length < 2) return false;
    const now = Math.max(0, kids.indexOf(this.line[this.cursor + 1]));
    at.next = kids[(now + step + kids.length) % kids.length];
    this.show(at);
    return true;
  }

  // Back to the main line where the variation the cursor is in left it: whether it was in one.
  backToMain() {
    let from = null;
    for (let v = this.variationAt(); v; v = this.variationAt()) {
      from = v.parent;
      from.next = from.children[0];
      this.show(from);
    }
    return from !== null;
  }

  // The main line's last node.
  mainEnd() {
    let n = this.root;
    while (n.children.length > 0) n = n.children[0];
    return n;
  }

  // The turns of the shown line, and the seat that made each.
  lineTurns() { return this.line.slice(1).map(n => n.turn); }

  lineMovers() { return this.line.slice(0, -1).map(n => n.view.seat_index); }

  // How many turns the tree holds, variations included.
  count() {
    let count = -1;
    for (const stack = [this.root]; stack.length > 0; count++) stack.push(...stack.pop().children);
    return count;
  }

  // The node `turns` lead to from the root, as far as the tree has them.
  follow(turns) {
    let at = this.root;
    for (const turn of turns) {
      const child = at.children.find(c => c.turn === turn);
      if (!child) break;
      at = child;
    }
    return at;
  }

  // Whether the tree is just the shown line up to the cursor, with no comment: a link then
  // needs only its turns.
  plain() {
    return this.count() === this.cursor && this.line.every(n => !n.comment);
  }
}

// A plain line of turns as a parsed tree (nodes {turn, comment, children}, as gametext.js
// reads them).
export function chain(turns) {
  const root = { turn: null, comment: "", children: [] };
  let at = root;
  for (const turn of turns) {
    const n = { turn, comment: "", children: [] };
    at.children.push(n);
    at = n;
  }
  return root;
}

// A parsed tree (nodes {turn, comment, children}) replayed from the position `view` shows:
// `play(position, turn)` answers the view after a turn, or throws why it is not legal.
// Returns {tree, refused}. Strict (the default), it fails at the first turn refused, naming
// it by its depth ("turn 3 (b2-c3): ..."); `lenient`, each line stops at its first refused
// turn and `refused` says the first one in words (null when none was).
export async function replay(view, parsed, play, lenient = false) {
  const root = node(view, null, null);
  root.comment = parsed.comment || "";
  let refused = null;
  const grow = async (to, from, depth) => {
    for (const child of from.children) {
      let after;
      try { after = await play(to.view.position, child.turn); }
      catch (err) {
        const why = `turn ${depth} (${child.turn}): ${err.message}`;
        if (!lenient) throw new Error(why);
        refused = refused || why;
        continue;
      }
      const n = node(after, after.turn ?? child.turn, to);
      n.comment = child.comment || "";
      to.children.push(n);
      await grow(n, child, depth + 1);
    }
  };
  await grow(root, parsed, 1);
  return { tree: new MoveTree(root), refused };
}
