//! The PUCT root: simulations until the root has its target visits, wherever PUCT leads
//! (Dirichlet noise mixed into the root priors first when asked), with KataGo's forced
//! playouts and policy-target pruning in self-play's full searches. Visit shares are the
//! policy target, [`most_visited`] the pick.

use rand::RngCore;

use super::root::{most_visited, RootSearch, SearchResult};
use super::tree::{ChildStats, Mcts};
use crate::game::GameState;

/// PUCT from the root: simulations until the root has `target` visits, with Dirichlet noise
/// mixed into the root priors first when asked, and KataGo's forced playouts when set.
#[derive(Clone, Debug)]
pub struct PuctRoot {
    target: u32,
    noise: bool,
    /// The root's priors were tempered (once per search, `root_policy_temperature`).
    tempered: bool,
    forced: Option<ForcedPlayouts>,
}

/// KataGo's forced playouts (self-play's full PUCT searches): every root child `c` gets at
/// least `sqrt(k · P(c) · N)` of the root's `N` visits, so a step the noise lifts is looked
/// at; the policy target is then pruned of the visits so forced ([`pruned_visits`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ForcedPlayouts {
    /// `k` of the forced count.
    pub k: f32,
    /// The PUCT constant the pruning compares with.
    pub c_puct: f32,
}

impl ForcedPlayouts {
    /// Visits forced on a child of prior `prior` when the root's children have `total`.
    fn count(self, prior: f32, total: u32) -> f32 {
        (self.k * prior * total as f32).sqrt()
    }
}

impl PuctRoot {
    /// Runs until the root has `target` visits; `noise` adds root noise once.
    pub fn new(target: u32, noise: bool) -> PuctRoot {
        PuctRoot {
            target,
            noise,
            tempered: false,
            forced: None,
        }
    }

    /// The same search with forced playouts and policy-target pruning (`None`: without).
    pub fn with_forced_playouts(mut self, forced: Option<ForcedPlayouts>) -> PuctRoot {
        self.forced = forced;
        self
    }
}

/// The root child (an index) that is furthest below its forced visits, if any is below.
fn forced_child(children: &[ChildStats], forced: ForcedPlayouts) -> Option<usize> {
    let total: u32 = children.iter().map(|c| c.visits).sum();
    children
        .iter()
        .map(|c| forced.count(c.prior, total) - c.visits as f32)
        .enumerate()
        .filter(|&(_, deficit)| deficit > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// KataGo's policy-target pruning: the root children's visits less those that forced
/// playouts gave them. The most visited child keeps its visits; every other child loses up
/// to its forced count, but only while its PUCT score (at the root's total visits) stays
/// below the most visited child's, and a child reduced to a single visit drops to zero.
pub fn pruned_visits(children: &[ChildStats], forced: ForcedPlayouts) -> Vec<f32> {
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let sqrt_total = (total as f32).sqrt();
    let puct = |c: &ChildStats, n: f32| c.q + forced.c_puct * c.prior * sqrt_total / (1.0 + n);
    let Some(best) = most_visited(children) else {
        return Vec::new();
    };
    let bar = puct(&children[best], children[best].visits as f32);
    let pruned = |c: &ChildStats| {
        let visits = c.visits as f32;
        let mut n = (visits - forced.count(c.prior, total)).ceil().max(0.0);
        while n < visits && puct(c, n) >= bar {
            n += 1.0;
        }
        if n < visits && n <= 1.0 {
            0.0
        } else {
            n
        }
    };
    children
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i == best {
                c.visits as f32
            } else {
                pruned(c)
            }
        })
        .collect()
}

impl<S: GameState> RootSearch<S> for PuctRoot {
    fn next(&mut self, tree: &mut Mcts<S>, mut rng: &mut dyn RngCore) -> Option<Option<usize>> {
        if !self.tempered && tree.root_expanded() {
            tree.temper_root_priors();
            self.tempered = true;
        }
        if self.noise && tree.root_expanded() {
            tree.add_root_noise(&mut rng);
            self.noise = false;
        }
        if tree.root_visits() >= self.target {
            return None;
        }
        Some(
            self.forced
                .and_then(|forced| forced_child(&tree.root_children(), forced)),
        )
    }

    fn count_simulation(&mut self) {}

    fn finish(&self, tree: &Mcts<S>) -> Option<SearchResult> {
        let children = tree.root_children();
        let best = &children[tree
            .proven_win_child()
            .or_else(|| most_visited(&children))?];
        let visits: Vec<f32> = match self.forced {
            Some(forced) => pruned_visits(&children, forced),
            None => children.iter().map(|c| c.visits as f32).collect(),
        };
        let total = visits.iter().sum::<f32>().max(1.0);
        Some(SearchResult {
            action: best.action,
            policy: children
                .iter()
                .zip(&visits)
                .map(|(c, &n)| (c.action, n / total))
                .collect(),
            value: tree.root_value(),
            visits: tree.root_visits(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Action;

    fn child(action: Action, prior: f32, visits: u32, q: f32) -> ChildStats {
        ChildStats {
            action,
            prior,
            visits,
            q,
        }
    }

    #[test]
    fn pruning_takes_forced_visits_back_only_while_a_child_stays_behind_the_best() {
        let forced = ForcedPlayouts {
            k: 2.0,
            c_puct: 1.5,
        };
        // 100 visits: a bad child of prior 0.08 has its 4 forced visits (sqrt(2 * 0.08 * 100))
        // and no more; a good child the search chose on its own; the best child.
        let children = [
            child(1, 0.6, 70, 0.1),
            child(2, 0.08, 4, -0.8),
            child(3, 0.3, 24, 0.0),
            child(4, 0.02, 2, -0.5),
        ];
        let pruned = pruned_visits(&children, forced);
        assert_eq!(pruned[0], 70.0, "the best child keeps its visits");
        assert_eq!(pruned[1], 0.0, "only forced visits: pruned");
        assert_eq!(pruned[3], 0.0, "reduced to one visit: pruned");
        // The good child: its PUCT score would pass the best child's if it lost its forced
        // visits, so it keeps most of them.
        let bar = 0.1 + 1.5 * 0.6 * 10.0 / 71.0;
        let n = pruned[2];
        assert!(
            n < 24.0 && n >= 24.0 - (2.0f32 * 0.3 * 100.0).sqrt().ceil(),
            "{n}"
        );
        assert!(
            1.5 * 0.3 * 10.0 / n >= bar,
            "one visit fewer would pass the bar"
        );
        assert!(1.5 * 0.3 * 10.0 / (1.0 + n) < bar, "{n}");
        // Forcing picks the child furthest below its forced count.
        let fresh = [
            child(1, 0.5, 10, 0.0),
            child(2, 0.5, 1, 0.0),
            child(3, 0.0, 0, 0.0),
        ];
        assert_eq!(forced_child(&fresh, forced), Some(1));
        assert_eq!(forced_child(&children, forced), None);
    }
}
