//! Choosing a whole turn with MCTS: the search runs over steps, a turn is the steps one seat
//! makes in a row. Steps with a single legal choice are applied without search; the tree is
//! kept from one step of the turn to the next (tree reuse).

use std::time::Instant;

use crate::game::turns::push_step_text;
use crate::game::{Action, GameState, StepList};
use crate::search::agents::Budget;
use crate::search::mcts::{
    run_simulations, terminal_values, ChildStats, Evaluate, Mcts, MctsConfig,
};

/// Simulations added at a time under a time budget (and at least this many per searched
/// step, even once the time is used up).
const TIME_CHUNK: u32 = 8;

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
    config: MctsConfig,
}

/// The child a finished search plays: the most visited, ties to the better value.
fn best_child(children: &[ChildStats]) -> Option<&ChildStats> {
    children
        .iter()
        .max_by(|a, b| a.visits.cmp(&b.visits).then(a.q.total_cmp(&b.q)))
}

impl<E> TurnSearch<E> {
    /// A search with `evaluator` and the MCTS settings `config` (root noise is the caller's
    /// choice; play and engine switch it off).
    pub fn new(evaluator: E, config: MctsConfig) -> TurnSearch<E> {
        TurnSearch { evaluator, config }
    }

    /// The evaluator (e.g. to read an error it recorded).
    pub fn evaluator_mut(&mut self) -> &mut E {
        &mut self.evaluator
    }

    /// Chooses the turn to play in `state` (a position at a turn boundary, game not over).
    /// With [`Budget::Count`] every searched step runs until its root has that many visits
    /// (visits kept from the previous step count); with [`Budget::Time`] the first searched
    /// step uses the whole time and later steps of the same turn add [`TIME_CHUNK`]
    /// simulations to the subtree the first search built. Returns `None` when the game is
    /// over.
    pub fn think<S: GameState>(&mut self, state: &S, budget: Budget) -> Option<Thought<S>>
    where
        E: Evaluate<S>,
    {
        if state.outcome().is_some() {
            return None;
        }
        let mover = state.side_to_move();
        let deadline = match budget {
            Budget::Time(limit) => Some(Instant::now() + limit),
            Budget::Count(_) => None,
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
                    tree.get_or_insert_with(|| Mcts::new(current.clone(), self.config.clone()));
                self.search(tree, budget, deadline);
                if visits == 0 {
                    visits = tree.root_visits();
                }
                let children = tree.root_children();
                let best = best_child(&children).expect("a searched root has children");
                value = Some(best.q);
                let action = best.action;
                tree.advance(action);
                action
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
            None => self.static_value(&current, mover),
        };
        let mut pv = vec![path.clone()];
        if let Some(tree) = &tree {
            pv.extend(principal_variation(tree));
        }
        Some(Thought {
            path,
            steps,
            state: current,
            value,
            pv,
            visits,
        })
    }

    fn search<S: GameState>(
        &mut self,
        tree: &mut Mcts<S>,
        budget: Budget,
        deadline: Option<Instant>,
    ) where
        E: Evaluate<S>,
    {
        match (budget, deadline) {
            (Budget::Count(n), _) => run_simulations(&mut [tree], &mut self.evaluator, n.max(1)),
            (Budget::Time(_), Some(deadline)) => {
                let start = tree.root_visits();
                loop {
                    let target = tree.root_visits() + TIME_CHUNK;
                    run_simulations(&mut [&mut *tree], &mut self.evaluator, target);
                    let added = tree.root_visits() - start;
                    if Instant::now() >= deadline && added >= TIME_CHUNK {
                        break;
                    }
                }
            }
            (Budget::Time(limit), None) => {
                // Not reached (think sets the deadline), but well defined: a fresh deadline.
                self.search(tree, budget, Some(Instant::now() + limit));
            }
        }
    }

    /// The value for `mover` of a position reached without search: exact when the game is
    /// over, else the evaluator's value for its side to move.
    fn static_value<S: GameState>(&mut self, state: &S, mover: crate::game::Side) -> f32
    where
        E: Evaluate<S>,
    {
        if let Some(values) = terminal_values(state) {
            return values[mover.0 as usize];
        }
        let v = self
            .evaluator
            .evaluate(&[state])
            .pop()
            .map(|e| e.value)
            .unwrap_or(0.0);
        if state.side_to_move() == mover {
            v
        } else {
            -v
        }
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
        let Some(best) = best_child(&children).filter(|c| c.visits > 0) else {
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
