//! Agents: anything that picks the next step. Matches and play use them through one
//! interface; every agent works for every game, 3-player ReMATCH seats included.

use std::collections::HashMap;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::rollout::playout_mean;
use super::run::search_step;
use super::run::Budget;
use super::tree::Mcts;
use crate::config::decided::DecidedCheck;
use crate::config::search::{SearchConfig, SearchKind};
use crate::game::{Action, GameState, Side, StepList};
use crate::net::batcher::BatcherHandle;
use crate::net::encode::Encode;
use crate::net::net_eval::NetEvaluator;
use crate::net::net_eval::{Evaluate, LeafEval, UniformEvaluator};
use crate::net::NetError;

/// Picks steps. `choose` is called only on non-terminal positions.
pub trait Agent<S: GameState>: Send {
    /// A short description, e.g. `uct:1000`.
    fn name(&self) -> String;
    /// The step to play in `state`; an error when the agent's net failed.
    fn choose(&mut self, state: &S) -> Result<Action, NetError>;
}

/// The legal steps of `state`, or the only one when there is no choice.
fn legal_steps<S: GameState>(state: &S) -> StepList {
    let mut steps = StepList::new();
    state.legal_steps(&mut steps);
    assert!(
        !steps.is_empty(),
        "agents are asked only in positions with a legal step"
    );
    steps
}

/// Uniformly random legal steps.
pub struct RandomAgent {
    rng: StdRng,
}

impl RandomAgent {
    /// A random agent with its own seed.
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent {
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl<S: GameState> Agent<S> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, state: &S) -> Result<Action, NetError> {
        Ok(*legal_steps(state)
            .choose(&mut self.rng)
            .expect("a legal step"))
    }
}

/// Evaluates a leaf by one uniformly random playout to the end of the game.
pub struct RolloutEvaluator {
    rng: StdRng,
}

impl RolloutEvaluator {
    /// A rollout evaluator with its own seed.
    pub fn new(seed: u64) -> RolloutEvaluator {
        RolloutEvaluator {
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl<S: GameState> Evaluate<S> for RolloutEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        let mut evals = UniformEvaluator.evaluate(states)?;
        for (eval, state) in evals.iter_mut().zip(states) {
            eval.value = playout_mean(*state, 1, &mut self.rng);
        }
        Ok(evals)
    }
}

/// Tree search with an evaluator, as a [`SearchConfig`] says (PUCT or a Gumbel root; never
/// Dirichlet noise, and Gumbel noise only when `gumbel_scale` > 0: agents get their settings
/// through [`SearchConfig::for_play`], which turns it off). With [`RolloutEvaluator`] it is UCT with random playouts; with the net it is
/// the AlphaZero agent. A time budget always searches PUCT (sequential halving needs its
/// budget in advance).
pub struct SearchAgent<E> {
    label: String,
    evaluator: E,
    config: SearchConfig,
    budget: Budget,
    rng: StdRng,
}

impl<E> SearchAgent<E> {
    /// An agent named `label` searching with `evaluator` under `budget`; `seed` seeds the
    /// Gumbel root's noise.
    pub fn new(
        label: impl Into<String>,
        evaluator: E,
        config: SearchConfig,
        budget: Budget,
        seed: u64,
    ) -> Self {
        SearchAgent {
            label: label.into(),
            evaluator,
            config,
            budget,
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

/// The search settings of UCT with `playouts` random playouts per step.
pub fn uct_config(playouts: u32) -> SearchConfig {
    SearchConfig {
        kind: SearchKind::Puct,
        visits: playouts,
        c_puct: 2.0,
        fpu_reduction: 0.0,
        ..SearchConfig::default()
    }
}

/// UCT with random playouts: `playouts` simulations per step.
pub fn rollout_uct(playouts: u32, seed: u64) -> SearchAgent<RolloutEvaluator> {
    SearchAgent::new(
        format!("uct:{playouts}"),
        RolloutEvaluator::new(seed),
        uct_config(playouts),
        Budget::Count(playouts),
        seed,
    )
}

impl<S: GameState, E: Evaluate<S> + Send> Agent<S> for SearchAgent<E> {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn choose(&mut self, state: &S) -> Result<Action, NetError> {
        let steps = legal_steps(state);
        if steps.len() == 1 {
            return Ok(steps[0]);
        }
        let deadline = match self.budget {
            Budget::Time(limit) => Some(Instant::now() + limit),
            Budget::Count(_) => None,
        };
        let mut tree = Mcts::new(state.clone(), self.config.mcts(false));
        let result = search_step(
            &mut tree,
            &self.config,
            self.budget,
            deadline,
            &mut self.rng,
            &mut self.evaluator,
        )?;
        Ok(result.expect("a non-terminal root").action)
    }
}

/// Alpha-beta over whole turns (depth counts turns, steps of one turn are searched
/// through), with a material evaluation and a transposition table; fixed depth or
/// iterative deepening under a time limit.
pub struct AlphaBetaAgent {
    budget: Budget,
    rng: StdRng,
}

impl AlphaBetaAgent {
    /// An alpha-beta agent; ties between equal steps are broken at random with `seed`.
    pub fn new(budget: Budget, seed: u64) -> AlphaBetaAgent {
        AlphaBetaAgent {
            budget,
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

const WIN: f64 = 1.0e6;

/// Depth counts whole turns: a step that leaves the turn unfinished costs nothing.
fn depth_after<S: GameState>(next: &S, depth: u32) -> u32 {
    if next.turn_in_progress() {
        depth
    } else {
        depth - 1
    }
}

/// What a table entry's value is: exact, or a bound from a cut-off.
#[derive(Clone, Copy)]
enum Bound {
    Exact,
    AtLeast,
    AtMost,
}

/// One alpha-beta search with values from `me`'s view: the side to move maximises when it
/// is `me`, minimises otherwise (several steps in a row may belong to one side). Its
/// transposition table holds values by position hash and depth left (an entry serves only
/// the same depth, so the values are those of the search without it, history-dependent
/// draws aside); it lives as long as the search.
struct AlphaBeta {
    me: Side,
    deadline: Option<Instant>,
    table: HashMap<(u64, u32), (f64, Bound)>,
}

impl AlphaBeta {
    fn new(me: Side, deadline: Option<Instant>) -> AlphaBeta {
        AlphaBeta {
            me,
            deadline,
            table: HashMap::new(),
        }
    }

    /// The value of `state` `depth` whole turns deep within (alpha, beta): exact inside the
    /// window, a bound on the side of the window it fails to outside (fail-soft).
    fn value<S: GameState>(&mut self, state: &S, depth: u32, mut alpha: f64, mut beta: f64) -> f64 {
        if let Some(outcome) = state.outcome() {
            return match outcome.winner {
                None => 0.0,
                Some(w) if w == self.me => WIN + depth as f64,
                Some(_) => -WIN - depth as f64,
            };
        }
        if depth == 0 || self.deadline.is_some_and(|d| Instant::now() >= d) {
            return state.material(self.me) as f64;
        }
        let key = (state.position_hash(), depth);
        match self.table.get(&key) {
            Some(&(v, Bound::Exact)) => return v,
            Some(&(v, Bound::AtLeast)) if v >= beta => return v,
            Some(&(v, Bound::AtMost)) if v <= alpha => return v,
            _ => {}
        }
        let window = (alpha, beta);
        let mut steps = StepList::new();
        state.legal_steps(&mut steps);
        let maximise = state.side_to_move() == self.me;
        let mut best = if maximise {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        for &step in &steps {
            let mut next = state.clone();
            next.apply_step(step);
            let v = self.value(&next, depth_after(&next, depth), alpha, beta);
            if maximise {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= window.0 {
            Bound::AtMost
        } else if best >= window.1 {
            Bound::AtLeast
        } else {
            Bound::Exact
        };
        self.table.insert(key, (best, bound));
        best
    }

    /// The values of `children` (positions with their depth left), searched in order with
    /// alpha just below the best so far: every child with the best value gets its exact
    /// value (so equal ones are told apart), the others an upper bound. `None` once the
    /// deadline has passed.
    fn children<S: GameState>(
        &mut self,
        children: impl IntoIterator<Item = (S, u32)>,
    ) -> Option<Vec<f64>> {
        let mut best = f64::NEG_INFINITY;
        let mut values = Vec::new();
        for (child, depth) in children {
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return None;
            }
            let v = self.value(&child, depth, best - 1e-6, f64::INFINITY);
            best = best.max(v);
            values.push(v);
        }
        Some(values)
    }
}

/// The value of `state` for `side` by alpha-beta on material, `depth` whole turns deep:
/// the material balance at the horizon (`GameState::material`), or ±1,000,000 (plus the
/// depth left) for a forced win or loss. What `alphabeta:D` plays by; the opening suites
/// use it to drop positions that are already decided.
pub fn material_value<S: GameState>(state: &S, side: Side, depth: u32) -> f64 {
    AlphaBeta::new(side, None).value(state, depth, f64::NEG_INFINITY, f64::INFINITY)
}

/// Whether positions are already decided by a [`DecidedCheck`]: their alpha-beta material
/// value for side 0 against the start position's at the same depth. What the opening
/// suites and self-play's balanced openings drop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Balance {
    check: DecidedCheck,
    /// The start position's value.
    baseline: f64,
}

impl Balance {
    /// The check `check` measured from the start position `start`.
    pub fn new<S: GameState>(start: &S, check: DecidedCheck) -> Balance {
        let baseline = match check {
            DecidedCheck::None => 0.0,
            DecidedCheck::AlphaBeta { depth, .. } => material_value(start, Side(0), depth),
        };
        Balance { check, baseline }
    }

    /// Whether the check calls `state` decided.
    pub fn decided<S: GameState>(&self, state: &S) -> bool {
        match self.check {
            DecidedCheck::None => false,
            DecidedCheck::AlphaBeta { depth, .. } => {
                self.beyond_margin(material_value(state, Side(0), depth))
            }
        }
    }

    /// Whether side 0's value `value` lies the margin or more from the start's.
    fn beyond_margin(&self, value: f64) -> bool {
        match self.check {
            DecidedCheck::None => false,
            DecidedCheck::AlphaBeta { margin, .. } => (value - self.baseline).abs() >= margin,
        }
    }
}

/// The alpha-beta values (as [`material_value`]) for `side`, whose turns lead to the
/// positions `after`, of each of those turns, `depth` (at least 1) whole turns deep with
/// the turn itself, all searched with one transposition table: every turn with the best
/// value gets its exact value, the others an upper bound.
pub fn turn_values<S: GameState>(side: Side, after: &[S], depth: u32) -> Vec<f64> {
    let children = after.iter().map(|s| (s.clone(), depth.max(1) - 1));
    AlphaBeta::new(side, None)
        .children(children)
        .expect("no deadline")
}

impl AlphaBetaAgent {
    fn search_depth<S: GameState>(
        &mut self,
        state: &S,
        steps: &[Action],
        depth: u32,
        deadline: Option<Instant>,
    ) -> Option<Action> {
        let children = steps.iter().map(|&step| {
            let mut next = state.clone();
            next.apply_step(step);
            let next_depth = depth_after(&next, depth);
            (next, next_depth)
        });
        let values = AlphaBeta::new(state.side_to_move(), deadline).children(children)?;
        let best_value = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let best: Vec<Action> = steps
            .iter()
            .zip(&values)
            .filter(|(_, &v)| v >= best_value)
            .map(|(&step, _)| step)
            .collect();
        best.choose(&mut self.rng).copied()
    }
}

impl<S: GameState> Agent<S> for AlphaBetaAgent {
    fn name(&self) -> String {
        match self.budget {
            Budget::Count(d) => format!("alphabeta:{d}"),
            Budget::Time(t) => format!("alphabeta:{}ms", t.as_millis()),
        }
    }

    fn choose(&mut self, state: &S) -> Result<Action, NetError> {
        let steps = legal_steps(state);
        if steps.len() == 1 {
            return Ok(steps[0]);
        }
        Ok(match self.budget {
            Budget::Count(depth) => self
                .search_depth(state, &steps, depth.max(1), None)
                .expect("no deadline"),
            Budget::Time(limit) => {
                let deadline = Instant::now() + limit;
                let mut chosen = steps[0];
                for depth in 1..=64 {
                    match self.search_depth(state, &steps, depth, Some(deadline)) {
                        Some(step) => chosen = step,
                        None => break,
                    }
                }
                chosen
            }
        })
    }
}

/// Plays the net's most probable legal step, without search.
pub struct PolicyAgent {
    evaluator: NetEvaluator,
}

impl PolicyAgent {
    /// A policy-only agent using the evaluator behind `handle`.
    pub fn new(handle: BatcherHandle) -> PolicyAgent {
        PolicyAgent {
            evaluator: NetEvaluator::new(handle),
        }
    }
}

impl<S: Encode> Agent<S> for PolicyAgent {
    fn name(&self) -> String {
        "policy".into()
    }

    fn choose(&mut self, state: &S) -> Result<Action, NetError> {
        let mut evals = Evaluate::<S>::evaluate(&mut self.evaluator, &[state])?;
        let priors = evals.pop().map(|e| e.priors).unwrap_or_default();
        let steps = legal_steps(state);
        let best = (0..steps.len())
            .max_by(|&a, &b| priors[a].total_cmp(&priors[b]))
            .expect("a legal step");
        Ok(steps[best])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decided_is_a_margin_from_the_start() {
        let check = DecidedCheck::AlphaBeta {
            depth: 2,
            margin: 2.0,
        };
        let balance = Balance {
            check,
            baseline: -4.0,
        };
        assert!(!balance.beyond_margin(-3.0));
        assert!(balance.beyond_margin(-2.0));
        assert!(balance.beyond_margin(-6.0));
        let none = Balance {
            check: DecidedCheck::None,
            baseline: 0.0,
        };
        assert!(!none.beyond_margin(1e6));
    }
}
