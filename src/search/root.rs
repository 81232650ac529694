//! The root search: one trait over the two ways a search spends its budget at the root
//! (PUCT everywhere, or the Gumbel root's sequential halving), one function that turns a
//! [`SearchConfig`] into one, and one loop that runs many of them with their leaves
//! batched into one net call per round.
//!
//! A root search is a schedule: [`RootSearch::next`] says which root child the next
//! simulation goes through (or that the search is done), so trees of many games advance in
//! lockstep; [`RootSearch::finish`] reads the result off the tree. Callers never reach into
//! the tree for a result.

use rand::RngCore;

use super::config::{SearchConfig, SearchKind};
use super::gumbel::GumbelRoot;
use super::mcts::{ChildStats, Evaluate, Leaf, Mcts};
use crate::game::{Action, GameState};
use crate::net::NetError;

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

/// A search's schedule at the root of one tree.
pub trait RootSearch<S: GameState>: Send {
    /// The root child the next simulation must go through (an index into
    /// [`Mcts::root_children`]; `Some(None)`: wherever PUCT leads), or `None` when the
    /// budget is spent.
    fn next(&mut self, tree: &mut Mcts<S>, rng: &mut dyn RngCore) -> Option<Option<usize>>;
    /// Records that one simulation scheduled by [`RootSearch::next`] has run.
    fn record(&mut self);
    /// The result, from the tree's root statistics (`None` for a terminal root).
    fn finish(&self, tree: &Mcts<S>) -> Option<SearchResult>;
}

/// PUCT from the root: simulations until the root has `target` visits, with Dirichlet noise
/// mixed into the root priors first when asked, and KataGo's forced playouts when set.
#[derive(Clone, Debug)]
pub struct PuctRoot {
    target: u32,
    noise: bool,
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
            forced: None,
        }
    }

    /// The same search with forced playouts and policy-target pruning (`None`: without).
    pub fn with_forced_playouts(mut self, forced: Option<ForcedPlayouts>) -> PuctRoot {
        self.forced = forced;
        self
    }
}

/// The forced playouts of a PUCT search under `config`: self-play's full searches (`noise`)
/// with `forced_playouts` set; none otherwise.
fn forced_playouts(config: &SearchConfig, noise: bool) -> Option<ForcedPlayouts> {
    (noise && config.forced_playouts > 0.0).then_some(ForcedPlayouts {
        k: config.forced_playouts,
        c_puct: config.c_puct,
    })
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

/// The most visited child (ties to the better value).
fn most_visited(children: &[ChildStats]) -> Option<usize> {
    (0..children.len()).max_by(|&a, &b| {
        let (a, b) = (&children[a], &children[b]);
        a.visits.cmp(&b.visits).then(a.q.total_cmp(&b.q))
    })
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

    fn record(&mut self) {}

    fn finish(&self, tree: &Mcts<S>) -> Option<SearchResult> {
        let children = tree.root_children();
        let best = &children[most_visited(&children)?];
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

/// The root search `config` asks for, to run `simulations` more simulations on `tree`;
/// `noise`: self-play's full search (PUCT root noise, and forced playouts when set).
pub fn start_search<S: GameState>(
    config: &SearchConfig,
    tree: &Mcts<S>,
    simulations: u32,
    noise: bool,
) -> Box<dyn RootSearch<S>> {
    match config.kind {
        SearchKind::Gumbel => Box::new(GumbelRoot::new(config.gumbel(), simulations)),
        SearchKind::Puct => Box::new(
            PuctRoot::new(tree.root_visits() + simulations.max(1), noise)
                .with_forced_playouts(forced_playouts(config, noise)),
        ),
    }
}

/// Runs the searches `roots[i]` on `trees[i]` together, one leaf per unfinished tree per
/// round and one net call per round, and returns their results. A net error stops them all.
pub fn run_searches<S: GameState, E: Evaluate<S> + ?Sized>(
    trees: &mut [&mut Mcts<S>],
    roots: &mut [Box<dyn RootSearch<S>>],
    evaluator: &mut E,
    rng: &mut dyn RngCore,
) -> Result<Vec<Option<SearchResult>>, NetError> {
    assert_eq!(trees.len(), roots.len(), "one root search per tree");
    loop {
        let mut leaves: Vec<(usize, Leaf<S>)> = Vec::new();
        for (i, tree) in trees.iter_mut().enumerate() {
            if let Some(via) = roots[i].next(tree, rng) {
                leaves.push((i, tree.select_leaf_via(via)));
            }
        }
        if leaves.is_empty() {
            break;
        }
        let states: Vec<&S> = leaves
            .iter()
            .filter(|(_, l)| !l.terminal)
            .map(|(_, l)| &l.state)
            .collect();
        let mut evals = evaluator.evaluate(&states)?.into_iter();
        for (i, leaf) in leaves {
            let eval = if leaf.terminal { None } else { evals.next() };
            trees[i].expand_and_backup(leaf, eval.as_ref());
            roots[i].record();
        }
    }
    Ok(roots
        .iter()
        .zip(trees.iter())
        .map(|(root, tree)| root.finish(tree))
        .collect())
}

/// One search of `tree` as `config` says, `simulations` more simulations (the root search
/// every agent runs). `None` when the root is terminal.
pub fn search<S: GameState, E: Evaluate<S> + ?Sized>(
    tree: &mut Mcts<S>,
    config: &SearchConfig,
    simulations: u32,
    rng: &mut dyn RngCore,
    evaluator: &mut E,
) -> Result<Option<SearchResult>, NetError> {
    let mut roots = vec![start_search(config, tree, simulations, false)];
    let mut results = run_searches(&mut [tree], &mut roots, evaluator, rng)?;
    Ok(results.pop().flatten())
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;
    use crate::game::rematch::Rematch;
    use crate::game::{GameKind, RulesConfig};
    use crate::search::mcts::LeafEval;

    /// An evaluator whose net has failed.
    struct Broken;

    impl<S: GameState> Evaluate<S> for Broken {
        fn evaluate(&mut self, _: &[&S]) -> Result<Vec<LeafEval>, NetError> {
            Err(NetError::Shape("broken net".into()))
        }
    }

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

    #[test]
    fn a_failing_net_stops_every_kind_of_search_with_its_error() {
        let state = Rematch::start(GameKind::Rematch, RulesConfig::default());
        for kind in [SearchKind::Puct, SearchKind::Gumbel] {
            let config = SearchConfig {
                kind,
                ..SearchConfig::default()
            };
            let mut tree = Mcts::new(state, config.mcts(false));
            let mut rng = StdRng::seed_from_u64(1);
            let error = search(&mut tree, &config, 16, &mut rng, &mut Broken).unwrap_err();
            assert!(
                matches!(error, NetError::Shape(ref m) if m == "broken net"),
                "{error}"
            );
        }
    }
}
