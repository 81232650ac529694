//! The bridge from search to the net: encodes positions, sends them to a backend (the
//! batcher, a TorchScript export: [`super::backend`]), and turns its answers into
//! priors over legal steps and a value. The [`Evaluate`] trait is what the search asks of
//! any evaluator.

use super::backend::{self, Backend, BackendInfo, InFlight, Request};
use super::encode::Encode;
use super::NetError;
use crate::game::{GameState, StepList};

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

/// Evaluates leaves on any [`Backend`]. Every call sends all its positions as one job, so a
/// worker with many games fills the batcher's batches by itself. A clone is another
/// producer of the same backend.
pub struct NetEvaluator {
    backend: Box<dyn Backend>,
}

impl Clone for NetEvaluator {
    fn clone(&self) -> Self {
        NetEvaluator {
            backend: self.backend.boxed_clone(),
        }
    }
}

impl NetEvaluator {
    /// An evaluator sending its work to `backend` (a batcher's handle, a TorchScript net).
    pub fn new(backend: impl Backend + 'static) -> NetEvaluator {
        NetEvaluator {
            backend: Box::new(backend),
        }
    }

    /// An evaluator over a boxed backend.
    pub fn boxed(backend: Box<dyn Backend>) -> NetEvaluator {
        NetEvaluator { backend }
    }

    /// What the backend is.
    pub fn info(&self) -> BackendInfo {
        self.backend.info()
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
        let answers = backend::evaluate(self.backend.as_ref(), &requests)?;
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

    /// The value of `state` for the side to move in [-1, 1] and its W/D/L, without search.
    pub fn evaluate_one<S: Encode>(&self, state: &S) -> Result<(f32, [f32; 3]), NetError> {
        let wdl = self
            .evaluate_states(&[state])?
            .pop()
            .ok_or_else(|| NetError::Shape("the net gave no answer".into()))?
            .wdl;
        Ok((wdl[0] - wdl[2], wdl))
    }
}

impl<S: Encode> Evaluate<S> for NetEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        self.submit(states)?.wait()
    }

    /// Encodes the positions and sends them as one job; the encoding back into priors and
    /// values happens in [`Pending::wait`], on the caller's thread.
    fn submit(&mut self, states: &[&S]) -> Result<Pending, NetError> {
        if states.is_empty() {
            return Ok(Pending::Ready(Vec::new()));
        }
        let mut steps = StepList::new();
        let requests: Vec<Request> = states
            .iter()
            .map(|state| Request::for_state(*state, &mut steps))
            .collect();
        let logits = backend::submit(self.backend.as_ref(), &requests)?;
        Ok(Pending::Sent {
            requests,
            num_actions: self.backend.shape().num_actions,
            logits,
        })
    }
}

/// Evaluations on their way: what [`Evaluate::submit`] returns, redeemed by
/// [`Pending::wait`].
#[derive(Debug)]
pub enum Pending {
    /// Already answered.
    Ready(Vec<LeafEval>),
    /// Sent to a backend: the requests (their legal steps mask the policy) and the logits
    /// to come.
    Sent {
        /// The positions' requests, in order.
        requests: Vec<Request>,
        /// The backend's policy size.
        num_actions: usize,
        /// The logits' receipt.
        logits: InFlight,
    },
}

impl Pending {
    /// The evaluations, in the order of the states submitted (waiting for them if needed).
    pub fn wait(self) -> Result<Vec<LeafEval>, NetError> {
        match self {
            Pending::Ready(evals) => Ok(evals),
            Pending::Sent {
                requests,
                num_actions,
                logits,
            } => {
                let logits = logits.wait()?;
                Ok(backend::read_answers(&logits, &requests, num_actions)
                    .into_iter()
                    .map(|answer| LeafEval {
                        priors: answer.policy,
                        value: answer.wdl[0] - answer.wdl[2],
                        draw: answer.wdl[1],
                    })
                    .collect())
            }
        }
    }
}

/// An evaluation of one position: priors over its legal steps (in `legal_steps` order) and
/// the value for the side to move in [-1, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct LeafEval {
    /// Prior probabilities aligned with the position's legal steps.
    pub priors: Vec<f32>,
    /// Expected result for the side to move: +1 win, 0 draw, −1 loss.
    pub value: f32,
    /// The probability of a draw (the net's; 0 from an evaluator without one). The tree
    /// backs it up beside the value, so that a search reports a win/draw/loss.
    pub draw: f32,
}

/// Something that evaluates positions in batches (the net through the batcher,
/// or a stand-in such as [`UniformEvaluator`]).
pub trait Evaluate<S: GameState> {
    /// One evaluation per state, in order. States are never terminal. An error (the net
    /// failed, or its batcher is gone) stops the search that asked.
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError>;

    /// Starts evaluating `states`: [`Pending::wait`] gives what [`Evaluate::evaluate`]
    /// would, and the caller may work meanwhile (several batches in flight). An evaluator
    /// that cannot overlap its work with the caller's answers here (the default).
    fn submit(&mut self, states: &[&S]) -> Result<Pending, NetError> {
        Ok(Pending::Ready(self.evaluate(states)?))
    }
}

/// Uniform priors and a value of 0: search driven by terminal positions alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<S: GameState> Evaluate<S> for UniformEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        let mut steps = StepList::new();
        Ok(states
            .iter()
            .map(|s| {
                s.legal_steps(&mut steps);
                let n = steps.len().max(1);
                LeafEval {
                    priors: vec![1.0 / n as f32; steps.len()],
                    value: 0.0,
                    draw: 0.0,
                }
            })
            .collect())
    }
}
