//! The bridge from search to the net: encodes positions, sends them to the batched
//! evaluator, and turns its answers into priors over legal steps and a value.

use super::agents::Agent;
use super::mcts::{Evaluate, LeafEval};
use crate::game::{Action, GameState, StepList};
use crate::net::encode::Encode;
use crate::net::evaluator::{EvaluatorHandle, Request};
use crate::net::NetError;

/// The net's answer for one position.
#[derive(Clone, Debug)]
pub struct NetAnswer {
    /// The legal steps, in `legal_steps` order.
    pub steps: StepList,
    /// Their prior probabilities.
    pub priors: Vec<f32>,
    /// Win, draw, loss for the side to move.
    pub wdl: [f32; 3],
}

/// Evaluates leaves through the batched evaluator. Every call sends all its positions as
/// one job, so a worker with many games fills the net's batches by itself.
#[derive(Clone)]
pub struct NetEvaluator {
    handle: EvaluatorHandle,
    /// The last error from the evaluator, if any (search falls back to uniform priors).
    pub last_error: Option<String>,
}

impl NetEvaluator {
    /// An evaluator sending its work through `handle`.
    pub fn new(handle: EvaluatorHandle) -> NetEvaluator {
        NetEvaluator {
            handle,
            last_error: None,
        }
    }

    /// Priors (in `legal_steps` order) and W/D/L for each state.
    pub fn evaluate_states<S: Encode>(&self, states: &[&S]) -> Result<Vec<NetAnswer>, NetError> {
        let mut legal_sets = Vec::with_capacity(states.len());
        let mut requests = Vec::with_capacity(states.len());
        for state in states {
            let mut steps = StepList::new();
            requests.push(Request::for_state(*state, &mut steps));
            legal_sets.push(steps);
        }
        let answers = self.handle.evaluate(requests)?;
        Ok(legal_sets
            .into_iter()
            .zip(answers)
            .map(|(steps, answer)| NetAnswer {
                steps,
                priors: answer.policy,
                wdl: answer.wdl,
            })
            .collect())
    }
}

impl<S: Encode> Evaluate<S> for NetEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Vec<LeafEval> {
        let answers = self.evaluate_states(states);
        leaf_evals(answers, &mut self.last_error, states)
    }
}

/// Search's view of a net's answers: priors and the value W − L for the side to move. On an
/// error the search stays alive (uniform priors, neutral value) and the error is kept in
/// `last_error` for the caller to report.
pub fn leaf_evals<S: GameState, E: std::fmt::Display>(
    answers: Result<Vec<NetAnswer>, E>,
    last_error: &mut Option<String>,
    states: &[&S],
) -> Vec<LeafEval> {
    match answers {
        Ok(answers) => answers
            .into_iter()
            .map(|answer| LeafEval {
                priors: answer.priors,
                value: answer.wdl[0] - answer.wdl[2],
            })
            .collect(),
        Err(error) => {
            *last_error = Some(error.to_string());
            super::mcts::UniformEvaluator.evaluate(states)
        }
    }
}

/// Plays the net's most probable legal step, without search.
pub struct PolicyAgent {
    evaluator: NetEvaluator,
}

impl PolicyAgent {
    /// A policy-only agent using the evaluator behind `handle`.
    pub fn new(handle: EvaluatorHandle) -> PolicyAgent {
        PolicyAgent {
            evaluator: NetEvaluator::new(handle),
        }
    }
}

impl<S: Encode> Agent<S> for PolicyAgent {
    fn name(&self) -> String {
        "policy".into()
    }

    fn choose(&mut self, state: &S) -> Action {
        let mut evals = Evaluate::<S>::evaluate(&mut self.evaluator, &[state]);
        let priors = evals.pop().map(|e| e.priors).unwrap_or_default();
        let mut steps = StepList::new();
        state.legal_steps(&mut steps);
        let best = (0..steps.len())
            .max_by(|&a, &b| priors[a].total_cmp(&priors[b]))
            .expect("a legal step");
        steps[best]
    }
}
