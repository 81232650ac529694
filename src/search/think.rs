//! Choosing a whole turn with MCTS: the search runs over steps, a turn is the steps one seat
//! makes in a row. Steps with a single legal choice are applied without search; the tree is
//! kept from one step of the turn to the next (tree reuse).

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::rollout::terminal_values;
use super::root::most_visited;
use super::run::{search_step, Budget};
use super::tree::Mcts;
use crate::config::search::SearchConfig;
use crate::game::turns::push_step_text;
use crate::game::{Action, GameState, StepList};
use crate::net::net_eval::Evaluate;
use crate::net::NetError;

/// A turn chosen by [`TurnSearch::think`].
#[derive(Clone, Debug, PartialEq)]
pub struct Thought<S> {
    /// The turn in the move notation.
    pub path: String,
    /// Its steps.
    pub steps: Vec<Action>,
    /// The position after it.
    pub state: S,
    /// The search's value of the turn for the side that makes it, in [-1, 1] (+1 win).
    pub value: f32,
    /// The principal variation in whole turns, starting with this turn.
    pub pv: Vec<String>,
    /// Root visits of the first searched step (0 when every step was forced).
    pub visits: u32,
}

/// MCTS over steps that answers with whole turns.
#[derive(Clone, Debug)]
pub struct TurnSearch<E> {
    evaluator: E,
    config: SearchConfig,
    rng: StdRng,
}

impl<E> TurnSearch<E> {
    /// A search with `evaluator` as `config` says (never Dirichlet noise; Gumbel noise only
    /// when `config.gumbel_scale` > 0, which [`SearchConfig::for_play`] turns off); `seed`
    /// seeds that noise.
    pub fn new(evaluator: E, config: SearchConfig, seed: u64) -> TurnSearch<E> {
        TurnSearch {
            evaluator,
            config,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Chooses the turn to play in `state` (a position at a turn boundary, game not over).
    /// Every searched step is one [`search_step`]: with [`Budget::Count`] it runs that many
    /// simulations (PUCT: until its root has that many visits, visits kept from the
    /// previous step counting); with [`Budget::Time`] PUCT runs, the first searched step
    /// using the whole time and later steps of the same turn adding
    /// [`super::run::TIME_CHUNK`] simulations to the subtree the first search
    /// built. Returns `None` when the game is over, an error when the net fails.
    pub fn think<S: GameState>(
        &mut self,
        state: &S,
        budget: Budget,
    ) -> Result<Option<Thought<S>>, NetError>
    where
        E: Evaluate<S>,
    {
        self.think_within(state, budget, None)
    }

    /// [`TurnSearch::think`], the whole turn ending by `bound` from now whatever the budget
    /// (a search stopped by it plays the best turn found so far; at least one simulation
    /// per searched step).
    pub fn think_within<S: GameState>(
        &mut self,
        state: &S,
        budget: Budget,
        bound: Option<Duration>,
    ) -> Result<Option<Thought<S>>, NetError>
    where
        E: Evaluate<S>,
    {
        if state.outcome().is_some() {
            return Ok(None);
        }
        let mover = state.side_to_move();
        let now = Instant::now();
        let deadline = match budget {
            Budget::Time(limit) => Some(now + bound.map_or(limit, |b| b.min(limit))),
            Budget::Count(_) => bound.map(|b| now + b),
        };
        let mut tree: Option<Mcts<S>> = None;
        let mut current = state.clone();
        let mut path = String::new();
        let mut steps = Vec::new();
        let mut value = None;
        let mut visits = 0;
        let mut legal = StepList::new();
        loop {
            current.legal_steps(&mut legal);
            let action = if legal.len() == 1 {
                if let Some(tree) = tree.as_mut() {
                    tree.advance(legal[0]);
                }
                legal[0]
            } else {
                let tree =
                    tree.get_or_insert_with(|| Mcts::new(current.clone(), self.config.mcts(false)));
                let result = search_step(
                    tree,
                    &self.config,
                    budget,
                    deadline,
                    &mut self.rng,
                    &mut self.evaluator,
                )?
                .expect("a searched root is not terminal");
                if visits == 0 {
                    visits = tree.root_visits();
                }
                let children = tree.root_children();
                let played = children.iter().find(|c| c.action == result.action);
                value = played.map(|c| c.q);
                tree.advance(result.action);
                result.action
            };
            push_step_text(&current, action, steps.is_empty(), &mut path);
            current.apply_step(action);
            steps.push(action);
            if !current.turn_in_progress() || current.outcome().is_some() {
                break;
            }
        }
        let value = match value {
            Some(v) => v,
            None => self.static_value(&current, mover)?,
        };
        let mut pv = vec![path.clone()];
        if let Some(tree) = &tree {
            pv.extend(principal_variation(tree));
        }
        Ok(Some(Thought {
            path,
            steps,
            state: current,
            value,
            pv,
            visits,
        }))
    }

    /// The value for `mover` of a position reached without search: exact when the game is
    /// over, else the evaluator's value for its side to move.
    fn static_value<S: GameState>(
        &mut self,
        state: &S,
        mover: crate::game::Side,
    ) -> Result<f32, NetError>
    where
        E: Evaluate<S>,
    {
        if let Some(values) = terminal_values(state) {
            return Ok(values[mover.0 as usize]);
        }
        let v = self
            .evaluator
            .evaluate(&[state])?
            .pop()
            .map_or(0.0, |e| e.value);
        Ok(if state.side_to_move() == mover { v } else { -v })
    }
}

/// The most visited line below the root of `tree`, in whole turns (an unfinished last turn
/// is left out). The root must be at a turn boundary.
pub fn principal_variation<S: GameState>(tree: &Mcts<S>) -> Vec<String> {
    let mut tree = tree.clone();
    let mut state = tree.root_state().clone();
    let mut turns = Vec::new();
    let mut path = String::new();
    loop {
        let children = tree.root_children();
        let Some(best) = most_visited(&children)
            .map(|i| &children[i])
            .filter(|c| c.visits > 0)
        else {
            break;
        };
        let action = best.action;
        push_step_text(&state, action, path.is_empty(), &mut path);
        state.apply_step(action);
        tree.advance(action);
        if !state.turn_in_progress() || state.outcome().is_some() {
            turns.push(std::mem::take(&mut path));
            if state.outcome().is_some() {
                break;
            }
        }
    }
    turns
}
