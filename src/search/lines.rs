//! The root of an analysis that shows engine lines: PUCT with a floor of visits for each
//! line asked, counted in whole turns, so that every line shown has a searched value.
//!
//! A turn of several steps (a capture chain, drops) is a path of tree nodes below the root,
//! and turns that share a first step share its root child; so the floor is given to the
//! turns of highest prior as far as the tree is expanded (a turn whose later steps are not
//! expanded yet counts as one, until a visit expands it), and a floored visit follows the
//! whole turn's steps ([`RootSearch::next_steps`]). Paths that end in the same position
//! (captures in another order, drops) are one turn.

use rand::RngCore;

use super::puct::PuctRoot;
use super::root::{RootSearch, SearchResult};
use super::tree::Mcts;
use crate::game::GameState;

/// PUCT from the root (no noise) with a floor: each of the `lines` whole turns of highest
/// prior (the product of its steps' priors) gets at least max(1, visits / (8 · lines))
/// visits (at most an eighth of the budget in all), so that the lines asked for all have a
/// searched value, up to the legal turns. Beyond the floor the visits go where PUCT leads:
/// their shares are its preference.
pub struct LinesFloor {
    inner: PuctRoot,
    lines: usize,
    floor: u32,
    /// Set once the turns of highest prior all have their floor: they keep it, and each is
    /// a whole turn (a visited node is expanded), so the tree is not walked again.
    floored: bool,
}

impl LinesFloor {
    /// The root search of an analysis of `visits` root visits showing `lines` lines.
    pub fn new(visits: u32, lines: usize) -> LinesFloor {
        let lines = lines.max(1);
        LinesFloor {
            inner: PuctRoot::new(visits.max(1), false),
            lines,
            floor: (visits / (8 * lines as u32)).max(1),
            floored: false,
        }
    }
}

/// A whole turn in the tree: the steps that reach its node from the root (each an index
/// among its node's children), its prior, its visits, and the position it ends in (none
/// while its later steps are not expanded).
struct TurnNode {
    steps: Vec<usize>,
    prior: f32,
    visits: u32,
    end: Option<u64>,
}

/// The whole turns below the node that `steps` reach in `tree` (its position `state`), as
/// far as the tree is expanded: a step that ends the turn or the game, or whose node is not
/// expanded yet, ends one.
fn turn_nodes<S: GameState>(
    tree: &Mcts<S>,
    state: &S,
    steps: &mut Vec<usize>,
    prior: f32,
    out: &mut Vec<TurnNode>,
) {
    for (k, child) in tree.children_along(steps).into_iter().enumerate() {
        let mut next = state.clone();
        next.apply_step(child.action);
        steps.push(k);
        let prior = prior * child.prior;
        let goes_on = next.turn_in_progress() && next.outcome().is_none();
        let expanded = !tree.children_along(steps).is_empty();
        if goes_on && expanded {
            turn_nodes(tree, &next, steps, prior, out);
        } else {
            out.push(TurnNode {
                steps: steps.clone(),
                prior,
                visits: child.visits,
                end: (!goes_on).then(|| next.position_hash()),
            });
        }
        steps.pop();
    }
}

impl<S: GameState> RootSearch<S> for LinesFloor {
    fn next(&mut self, tree: &mut Mcts<S>, rng: &mut dyn RngCore) -> Option<Option<usize>> {
        Some(self.next_steps(tree, rng)?.first().copied())
    }

    fn next_steps(&mut self, tree: &mut Mcts<S>, rng: &mut dyn RngCore) -> Option<Vec<usize>> {
        let via = self.inner.next(tree, rng)?;
        if self.floored || !tree.root_expanded() {
            return Some(via.into_iter().collect());
        }
        let mut found = Vec::new();
        turn_nodes(tree, tree.root_state(), &mut Vec::new(), 1.0, &mut found);
        found.sort_by(|a, b| b.prior.total_cmp(&a.prior));
        // Paths that end in the same position are one turn, visited through any of them.
        let mut turns: Vec<TurnNode> = Vec::new();
        for turn in found {
            match turns
                .iter_mut()
                .find(|t| t.end.is_some() && t.end == turn.end)
            {
                Some(same) => same.visits = same.visits.max(turn.visits),
                None => turns.push(turn),
            }
        }
        let short = turns
            .into_iter()
            .take(self.lines)
            .find(|t| t.visits < self.floor);
        self.floored = short.is_none();
        Some(short.map_or_else(|| via.into_iter().collect(), |t| t.steps))
    }

    fn count_simulation(&mut self) {
        RootSearch::<S>::count_simulation(&mut self.inner);
    }

    fn finish(&self, tree: &Mcts<S>) -> Option<SearchResult> {
        self.inner.finish(tree)
    }
}
