//! The root search: one trait over the ways a search spends its budget at the root
//! ([`super::puct::PuctRoot`], [`super::gumbel::GumbelRoot`]), what a finished search gives
//! ([`SearchResult`]), and the one rule that picks a move from visit counts
//! ([`most_visited`]).
//!
//! A root search is a schedule: [`RootSearch::next`] says which root child the next
//! simulation goes through (or that the search is done), so trees of many games advance in
//! lockstep ([`super::run`]); [`RootSearch::finish`] reads the result off the tree. Callers
//! never reach into the tree for a result.

use rand::RngCore;

use super::tree::{ChildStats, Mcts};
use crate::game::{Action, GameState};

/// What a finished search gives.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The search's own pick: PUCT's most visited step (ties to the better value), the
    /// Gumbel root's sequential-halving winner.
    pub action: Action,
    /// The policy target over every root step, summing to one: PUCT's visit shares, the
    /// Gumbel root's improved policy π′.
    pub policy: Vec<(Action, f32)>,
    /// The root's value for its side to move, in [-1, 1].
    pub value: f32,
    /// The root's visits (kept ones from tree reuse included).
    pub visits: u32,
}

/// How much a search's policy target departs from the net's prior at the root:
/// KL(target || prior) in nats, over the root's children (KataGo's policy surprise).
pub fn policy_surprise(target: &[(Action, f32)], children: &[ChildStats]) -> f32 {
    let mut kl = 0.0;
    for &(action, p) in target.iter().filter(|t| t.1 > 0.0) {
        let prior = children
            .iter()
            .find(|c| c.action == action)
            .map_or(0.0, |c| c.prior);
        kl += p * (p / prior.max(1e-6)).ln();
    }
    kl.max(0.0)
}

/// The move a search picks from visit counts: the most visited root child, ties to the
/// better value (an index into `children`; `None` when there are none). The one move-choice
/// rule: PUCT's pick, principal variations, and the Gumbel root's pick before its schedule
/// started.
pub fn most_visited(children: &[ChildStats]) -> Option<usize> {
    (0..children.len()).max_by(|&a, &b| {
        let (a, b) = (&children[a], &children[b]);
        a.visits.cmp(&b.visits).then(a.q.total_cmp(&b.q))
    })
}

/// A search's schedule at the root of one tree.
pub trait RootSearch<S: GameState>: Send {
    /// The root child the next simulation must go through (an index into
    /// [`Mcts::root_children`]; `Some(None)`: wherever PUCT leads), or `None` when the
    /// budget is spent.
    fn next(&mut self, tree: &mut Mcts<S>, rng: &mut dyn RngCore) -> Option<Option<usize>>;
    /// The steps the next simulation must follow from the root, each an index among its
    /// node's children ([`Mcts::select_leaf_along`]; PUCT beyond them), or `None` when the
    /// budget is spent: [`RootSearch::next`]'s root child unless a schedule looks deeper.
    fn next_steps(&mut self, tree: &mut Mcts<S>, rng: &mut dyn RngCore) -> Option<Vec<usize>> {
        Some(self.next(tree, rng)?.into_iter().collect())
    }
    /// Records that one simulation scheduled by [`RootSearch::next`] has run (counts it against the budget).
    fn count_simulation(&mut self);
    /// The result, from the tree's root statistics (`None` for a terminal root).
    fn finish(&self, tree: &Mcts<S>) -> Option<SearchResult>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_surprise_is_the_kl_divergence_of_the_target_from_the_prior() {
        let child = |action, prior| ChildStats {
            action,
            prior,
            visits: 0,
            q: 0.0,
        };
        let children = [child(1, 0.25), child(2, 0.75)];
        let same = policy_surprise(&[(1, 0.25), (2, 0.75)], &children);
        assert!(same.abs() < 1e-6, "{same}");
        let sure = policy_surprise(&[(1, 1.0), (2, 0.0)], &children);
        assert!((sure - 4f32.ln()).abs() < 1e-5, "{sure}");
        // A target on a step without prior mass is large and finite.
        let unseen = policy_surprise(&[(3, 1.0)], &children);
        assert!(unseen.is_finite() && unseen > 10.0, "{unseen}");
    }
}
