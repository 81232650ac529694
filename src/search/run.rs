//! The one search loop. Every caller runs its searches here: self-play (many games, see
//! [`crate::selfplay::worker`]), the agents, an export's turn search (`play`, `engine`,
//! Python), and serve's analysis. A round takes one leaf from every unfinished search and
//! sends them to the net as one batch ([`lockstep`]); [`start_search`] turns the settings
//! into a root search, [`search_step`] spends a [`Budget`] (visits or time) on one tree.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use rand::RngCore;

use super::gumbel::GumbelRoot;
use super::puct::PuctRoot;
use super::root::{RootSearch, SearchResult};
use super::tree::{Leaf, Mcts};
use crate::config::search::{SearchConfig, SearchKind};
use crate::game::GameState;
use crate::net::net_eval::Pending;
use crate::net::net_eval::{Evaluate, LeafEval};
use crate::net::NetError;

/// The budget of a searching agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// A fixed number of simulations (or playouts, or plies of depth for alpha-beta).
    Count(u32),
    /// A time limit per step.
    Time(Duration),
}

/// Simulations added at a time under a time budget (and at least this many per searched
/// step, even once the time is used up).
pub const TIME_CHUNK: u32 = 8;

/// Searches that advance together in [`lockstep`].
pub trait Lockstep<S: GameState> {
    /// The leaves of the next round, each with the index of its search (one per unfinished
    /// search); `None` ends the loop.
    fn leaves(&mut self) -> Option<Vec<(usize, Leaf<S>)>>;
    /// Hands search `i` its leaf back with the net's evaluation (`None`: a terminal leaf).
    fn backup(&mut self, i: usize, leaf: Leaf<S>, eval: Option<&LeafEval>);
    /// Which of [`pipeline`]'s evaluators takes search `i`'s leaves (0: the first).
    fn net(&self, _i: usize) -> usize {
        0
    }
}

/// The search loop: every round, the leaves of all `searches` go to `evaluator` in one net
/// call and back to their trees, until [`Lockstep::leaves`] ends it. A net error stops it.
pub fn lockstep<S: GameState, E: Evaluate<S> + ?Sized>(
    searches: &mut impl Lockstep<S>,
    evaluator: &mut E,
) -> Result<(), NetError> {
    pipeline(std::slice::from_mut(searches), &mut [evaluator])
}

/// [`lockstep`] with several nets and several groups of searches: every round, each
/// evaluator gets the leaves of the searches [`Lockstep::net`] gives it, as one net call
/// (the first evaluator every round, the others when they have leaves), and a round of each
/// group is in flight at once: while one group's leaves are being evaluated
/// ([`Evaluate::submit`]), the next group's are chosen and sent. Groups take their turns in
/// order; with one group and one net this is the plain lockstep.
pub fn pipeline<S: GameState, E: Evaluate<S> + ?Sized, L: Lockstep<S>>(
    groups: &mut [L],
    evaluators: &mut [&mut E],
) -> Result<(), NetError> {
    let mut in_flight = VecDeque::with_capacity(groups.len());
    for (g, group) in groups.iter_mut().enumerate() {
        if let Some(leaves) = group.leaves() {
            in_flight.push_back(send_round(&*group, g, leaves, evaluators)?);
        }
    }
    while let Some(round) = in_flight.pop_front() {
        let g = round.group;
        finish_round(&mut groups[g], round)?;
        if let Some(leaves) = groups[g].leaves() {
            in_flight.push_back(send_round(&groups[g], g, leaves, evaluators)?);
        }
    }
    Ok(())
}

/// One group's round in flight: its leaves, the net each went to, and the answers to come.
struct Round<S> {
    group: usize,
    leaves: Vec<(usize, Leaf<S>)>,
    nets: Vec<usize>,
    answers: Vec<Pending>,
}

/// Sends `leaves` of group `g` to their nets (the first net always, as one call each).
fn send_round<S: GameState, E: Evaluate<S> + ?Sized>(
    group: &impl Lockstep<S>,
    g: usize,
    leaves: Vec<(usize, Leaf<S>)>,
    evaluators: &mut [&mut E],
) -> Result<Round<S>, NetError> {
    let last = evaluators.len().saturating_sub(1);
    let nets: Vec<usize> = leaves
        .iter()
        .map(|(i, _)| group.net(*i).min(last))
        .collect();
    let mut answers = Vec::with_capacity(evaluators.len());
    for (n, evaluator) in evaluators.iter_mut().enumerate() {
        let mut states: Vec<&S> = Vec::new();
        for ((_, leaf), &k) in leaves.iter().zip(&nets) {
            if k == n && !leaf.terminal {
                states.push(&leaf.state);
            }
        }
        answers.push(if n == 0 || !states.is_empty() {
            evaluator.submit(&states)?
        } else {
            Pending::Ready(Vec::new())
        });
    }
    Ok(Round {
        group: g,
        leaves,
        nets,
        answers,
    })
}

/// Waits for a round's answers and hands each leaf back to its search.
fn finish_round<S: GameState>(
    group: &mut impl Lockstep<S>,
    round: Round<S>,
) -> Result<(), NetError> {
    let mut evals = Vec::with_capacity(round.answers.len());
    for pending in round.answers {
        evals.push(pending.wait()?.into_iter());
    }
    for ((i, leaf), n) in round.leaves.into_iter().zip(round.nets) {
        let eval = if leaf.terminal { None } else { evals[n].next() };
        group.backup(i, leaf, eval.as_ref());
    }
    Ok(())
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
                .with_forced_playouts(config.forced_playouts(noise)),
        ),
    }
}

/// Root searches on their trees, sharing one random source: [`run_searches`]'s lockstep.
struct Roots<'a, 'b, S: GameState> {
    trees: &'a mut [&'b mut Mcts<S>],
    roots: &'a mut [Box<dyn RootSearch<S>>],
    rng: &'a mut dyn RngCore,
}

impl<S: GameState> Lockstep<S> for Roots<'_, '_, S> {
    fn leaves(&mut self) -> Option<Vec<(usize, Leaf<S>)>> {
        let mut leaves = Vec::new();
        for (i, tree) in self.trees.iter_mut().enumerate() {
            if let Some(via) = self.roots[i].next(tree, self.rng) {
                leaves.push((i, tree.select_leaf_via(via)));
            }
        }
        (!leaves.is_empty()).then_some(leaves)
    }

    fn backup(&mut self, i: usize, leaf: Leaf<S>, eval: Option<&LeafEval>) {
        self.trees[i].expand_and_backup(leaf, eval);
        self.roots[i].count_simulation();
    }
}

/// Runs the searches `roots[i]` on `trees[i]` together in [`lockstep`] and returns their
/// results (`None` for a terminal root). A net error stops them all.
pub fn run_searches<S: GameState, E: Evaluate<S> + ?Sized>(
    trees: &mut [&mut Mcts<S>],
    roots: &mut [Box<dyn RootSearch<S>>],
    evaluator: &mut E,
    rng: &mut dyn RngCore,
) -> Result<Vec<Option<SearchResult>>, NetError> {
    assert_eq!(trees.len(), roots.len(), "one root search per tree");
    lockstep(&mut Roots { trees, roots, rng }, evaluator)?;
    Ok(roots
        .iter()
        .zip(trees.iter())
        .map(|(root, tree)| root.finish(tree))
        .collect())
}

/// One search of `tree` as `config` says, `simulations` more simulations. `None` when the
/// root is terminal.
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

/// One searched step of `tree` under `budget` (every agent's search). [`Budget::Count`]:
/// PUCT runs until the root has that many visits (visits kept from an earlier step count),
/// a Gumbel root runs that many simulations, ending early at `deadline` if one is given
/// (after one simulation at least). [`Budget::Time`]: PUCT (sequential halving
/// needs its budget in advance) in chunks of [`TIME_CHUNK`] simulations until `deadline`
/// (the budget's time from now when `None`), at least one chunk. `None` when the root is
/// terminal.
pub fn search_step<S: GameState, E: Evaluate<S> + ?Sized>(
    tree: &mut Mcts<S>,
    config: &SearchConfig,
    budget: Budget,
    deadline: Option<Instant>,
    rng: &mut dyn RngCore,
    evaluator: &mut E,
) -> Result<Option<SearchResult>, NetError> {
    let limit = match budget {
        Budget::Count(n) => {
            let simulations = match config.kind {
                SearchKind::Puct => n.saturating_sub(tree.root_visits()).max(1),
                SearchKind::Gumbel => n.max(1),
            };
            let Some(deadline) = deadline else {
                return search(tree, config, simulations, rng, evaluator);
            };
            let inner = start_search(config, tree, simulations, false);
            let root: Box<dyn RootSearch<S>> = Box::new(Until {
                inner,
                deadline,
                ran: false,
            });
            let found = run_searches(&mut [tree], &mut [root], evaluator, rng)?;
            return Ok(found.into_iter().next().flatten());
        }
        Budget::Time(limit) => limit,
    };
    let deadline = deadline.unwrap_or_else(|| Instant::now() + limit);
    let puct = SearchConfig {
        kind: SearchKind::Puct,
        ..config.clone()
    };
    let start = tree.root_visits();
    loop {
        let result = search(tree, &puct, TIME_CHUNK, rng, evaluator)?;
        let spent = Instant::now() >= deadline && tree.root_visits() - start >= TIME_CHUNK;
        if result.is_none() || spent {
            return Ok(result);
        }
    }
}

/// A root search that also ends at `deadline` (after at least one simulation): a count
/// budget bounded in time.
struct Until<S> {
    inner: Box<dyn RootSearch<S>>,
    deadline: Instant,
    ran: bool,
}

impl<S: GameState> RootSearch<S> for Until<S> {
    fn next(&mut self, tree: &mut Mcts<S>, rng: &mut dyn RngCore) -> Option<Option<usize>> {
        if self.ran && Instant::now() >= self.deadline {
            return None;
        }
        self.inner.next(tree, rng)
    }

    fn count_simulation(&mut self) {
        self.ran = true;
        self.inner.count_simulation();
    }

    fn finish(&self, tree: &Mcts<S>) -> Option<SearchResult> {
        self.inner.finish(tree)
    }
}

/// One search on `tree` that stops to look every `chunk` root visits: `between` sees the
/// tree and says whether to go on. Ends when `root`'s budget is spent or `between` says
/// stop (serve's analysis, which publishes what the tree holds while it grows).
pub fn search_in_chunks<S: GameState, E: Evaluate<S> + ?Sized>(
    tree: &mut Mcts<S>,
    root: Box<dyn RootSearch<S>>,
    chunk: u32,
    rng: &mut dyn RngCore,
    evaluator: &mut E,
    between: impl FnMut(&Mcts<S>) -> bool,
) -> Result<(), NetError> {
    let next_look = tree.root_visits() + chunk.max(1);
    let mut chunks = Chunks {
        tree,
        root,
        chunk: chunk.max(1),
        next_look,
        rng,
        between,
    };
    lockstep(&mut chunks, evaluator)
}

/// One tree searched in chunks: [`search_in_chunks`]'s lockstep.
struct Chunks<'a, S: GameState, F> {
    tree: &'a mut Mcts<S>,
    root: Box<dyn RootSearch<S>>,
    chunk: u32,
    next_look: u32,
    rng: &'a mut dyn RngCore,
    between: F,
}

impl<S: GameState, F: FnMut(&Mcts<S>) -> bool> Lockstep<S> for Chunks<'_, S, F> {
    fn leaves(&mut self) -> Option<Vec<(usize, Leaf<S>)>> {
        let steps = self.root.next_steps(self.tree, self.rng)?;
        if self.tree.root_visits() >= self.next_look {
            self.next_look = self.tree.root_visits() + self.chunk;
            if !(self.between)(self.tree) {
                return None;
            }
        }
        Some(vec![(0, self.tree.select_leaf_along(&steps))])
    }

    fn backup(&mut self, _: usize, leaf: Leaf<S>, eval: Option<&LeafEval>) {
        self.tree.expand_and_backup(leaf, eval);
        self.root.count_simulation();
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;
    use crate::game::rematch::Rematch;
    use crate::game::{GameKind, RulesConfig};

    /// An evaluator whose net has failed.
    struct Broken;

    impl<S: GameState> Evaluate<S> for Broken {
        fn evaluate(&mut self, _: &[&S]) -> Result<Vec<LeafEval>, NetError> {
            Err(NetError::Shape("broken net".into()))
        }
    }

    /// An evaluator that values every position at `value` and counts its calls.
    struct Constant {
        value: f32,
        calls: usize,
    }

    impl<S: GameState> Evaluate<S> for Constant {
        fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
            self.calls += 1;
            let mut evals = crate::net::net_eval::UniformEvaluator.evaluate(states)?;
            for eval in &mut evals {
                eval.value = self.value;
            }
            Ok(evals)
        }
    }

    /// Three searches of one round each, search `i` on net `i % 2`: what each got back.
    struct Routed {
        state: Rematch,
        rounds: usize,
        got: Vec<Option<f32>>,
    }

    impl Lockstep<Rematch> for Routed {
        fn leaves(&mut self) -> Option<Vec<(usize, Leaf<Rematch>)>> {
            if self.rounds == 0 {
                return None;
            }
            self.rounds -= 1;
            let tree = Mcts::new(self.state, SearchConfig::default().mcts(false));
            Some((0..3).map(|i| (i, tree.select_leaf())).collect())
        }

        fn backup(&mut self, i: usize, _: Leaf<Rematch>, eval: Option<&LeafEval>) {
            self.got[i] = eval.map(|e| e.value);
        }

        fn net(&self, i: usize) -> usize {
            i % 2
        }
    }

    #[test]
    fn each_search_gets_the_answer_of_its_own_net() {
        let mut searches = Routed {
            state: Rematch::start(GameKind::Rematch, RulesConfig::default()),
            rounds: 2,
            got: vec![None; 3],
        };
        let mut first = Constant {
            value: 0.5,
            calls: 0,
        };
        let mut second = Constant {
            value: -0.5,
            calls: 0,
        };
        pipeline(
            std::slice::from_mut(&mut searches),
            &mut [&mut first, &mut second],
        )
        .unwrap();
        assert_eq!(searches.got, vec![Some(0.5), Some(-0.5), Some(0.5)]);
        assert_eq!((first.calls, second.calls), (2, 2));
        // One net: every search asks it, once a round.
        let mut searches = Routed {
            got: vec![None; 3],
            rounds: 1,
            ..searches
        };
        lockstep(&mut searches, &mut first).unwrap();
        assert_eq!(searches.got, vec![Some(0.5); 3]);
        assert_eq!(first.calls, 3);
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

    #[test]
    fn tree_reuse_keeps_the_chosen_subtree() {
        use crate::net::net_eval::UniformEvaluator;
        type S = crate::game::eximo::Eximo;
        let search = |tree: &mut Mcts<S>, target: u32| {
            let mut roots: Vec<Box<dyn RootSearch<S>>> =
                vec![Box::new(PuctRoot::new(target, false))];
            let mut rng = StdRng::seed_from_u64(0);
            run_searches(&mut [tree], &mut roots, &mut UniformEvaluator, &mut rng).unwrap();
        };
        let state = S::start(GameKind::Eximo, RulesConfig::default());
        let mut tree = Mcts::new(state, SearchConfig::default().mcts(true));
        search(&mut tree, 2000);
        let best = tree
            .root_children()
            .into_iter()
            .max_by_key(|c| c.visits)
            .unwrap();
        let before = tree.node_count();
        tree.advance(best.action);
        assert_eq!(
            tree.root_visits(),
            best.visits,
            "the child's visits carry over"
        );
        assert!(
            tree.node_count() < before,
            "the rest of the tree is dropped"
        );
        let mut expected = state;
        expected.apply_step(best.action);
        assert_eq!(tree.root_state().position_hash(), expected.position_hash());
        // Searching on from the reused tree adds to the carried visits.
        let target = tree.root_visits() + 100;
        search(&mut tree, target);
        assert_eq!(tree.root_visits(), target);
        let child_visits: u32 = tree.root_children().iter().map(|c| c.visits).sum();
        assert_eq!(
            child_visits + 1,
            tree.root_visits(),
            "every simulation but the root's own went to a child"
        );
    }
}
