//! The one interface to whatever runs the net ([`Backend`]): the libtorch model behind the
//! batcher ([`super::batcher`]) and a TorchScript export ([`super::torchscript`]). A backend
//! only turns encoded positions into raw logits; what every backend needs around that lives
//! here once: the encoding and the legal-step mapping of a position ([`Request::for_state`]),
//! the input checks and layout, and the masked softmax over the legal steps
//! ([`masked_softmax`], [`read_answers`]).

use std::borrow::Borrow;
use std::fmt;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;

use super::encode::Encode;
use super::NetError;
use crate::game::Action;

/// What a backend is, for people: what runs the net, where, in which precision and how
/// many positions at most go through it at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendInfo {
    /// What runs the net (`libtorch`, `TorchScript`).
    pub runtime: &'static str,
    /// Where (`cpu`, `cuda:0`).
    pub device: String,
    /// In which precision (`fp32`, `bf16`, `bf16 (fp32 below 32)`, ...).
    pub precision: String,
    /// The most positions per forward pass (`None`: any number, in one pass).
    pub max_batch: Option<usize>,
}

impl fmt::Display for BackendInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} on {}, {}, ",
            self.runtime, self.device, self.precision
        )?;
        match self.max_batch {
            Some(n) => write!(f, "batches of up to {n}"),
            None => f.write_str("any batch"),
        }
    }
}

/// Sizes a backend's inputs and outputs have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoShape {
    /// Input values per position (`planes * height * width`).
    pub per_position: usize,
    /// Policy logits per position.
    pub num_actions: usize,
}

/// The net's raw outputs for a run of positions: policy logits (`num_actions` per position)
/// and W/D/L logits (3 per position).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawOutput {
    /// Policy logits, position after position.
    pub policy: Vec<f32>,
    /// Win, draw, loss logits, position after position.
    pub value: Vec<f32>,
}

/// A forward pass's answer to one caller: outputs (possibly shared with other callers of
/// the same batch) and where the caller's positions start in them. Callers turn logits
/// into probabilities themselves ([`read_answers`]), so the batcher's thread does nothing
/// but batch and run the net.
#[derive(Clone, Debug)]
pub struct Logits {
    /// The outputs.
    pub raw: Arc<RawOutput>,
    /// The caller's first position in them.
    pub first: usize,
}

/// Something that runs the net: encoded positions in, raw logits out.
pub trait Backend: Send + Sync {
    /// The logits of `positions` positions laid out one after another in `input` (already
    /// checked against [`Backend::shape`]).
    fn forward(&self, input: Vec<f32>, positions: usize) -> Result<Logits, NetError>;
    /// Input and output sizes.
    fn shape(&self) -> IoShape;
    /// What the backend is.
    fn info(&self) -> BackendInfo;
    /// Another handle on the same net, for another producer (the batcher counts producers).
    fn boxed_clone(&self) -> Box<dyn Backend>;
    /// Sends the positions on their way and returns a receipt whose [`InFlight::wait`]
    /// gives [`Backend::forward`]'s answer, so that the caller can work meanwhile (the
    /// batcher). A backend that cannot overlap runs the forward pass here (the default).
    fn submit(&self, input: Vec<f32>, positions: usize) -> Result<InFlight, NetError> {
        Ok(InFlight::ready(self.forward(input, positions)))
    }
}

/// Logits on their way back from a backend: [`Backend::submit`]'s receipt.
#[derive(Debug)]
pub struct InFlight(Receiver<Result<Logits, NetError>>);

impl InFlight {
    /// A receipt whose answer is already here.
    pub fn ready(answer: Result<Logits, NetError>) -> InFlight {
        let (sender, receiver) = mpsc::sync_channel(1);
        // The receiver is alive: the send cannot fail.
        let _ = sender.send(answer);
        InFlight(receiver)
    }

    /// A receipt answered on `receiver`.
    pub fn on(receiver: Receiver<Result<Logits, NetError>>) -> InFlight {
        InFlight(receiver)
    }

    /// Waits for the logits (an error if the backend has gone).
    pub fn wait(self) -> Result<Logits, NetError> {
        self.0.recv().map_err(|_| NetError::BatcherGone)?
    }
}

/// One position to evaluate: its encoded planes and the legal steps to keep in the policy.
#[derive(Clone, Debug)]
pub struct Request {
    /// `planes * height * width` values, as the model's shape says.
    pub input: Vec<f32>,
    /// The legal steps' policy indices; the policy is a softmax over these logits only.
    pub legal: Vec<Action>,
}

impl Request {
    /// The request for `state`: its planes and the policy indices of its legal steps
    /// (`steps` receives the legal steps, in `legal_steps` order). The one encoding and
    /// legal-step mapping every backend uses.
    pub fn for_state<S: Encode>(state: &S, steps: &mut Vec<Action>) -> Request {
        let mut input = vec![0.0; S::PLANES * S::HEIGHT * S::WIDTH];
        state.encode(&mut input);
        state.legal_steps(steps);
        let legal = steps
            .iter()
            .map(|&a| state.policy_index(a) as Action)
            .collect();
        Request { input, legal }
    }
}

/// The net's answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// Probabilities aligned with the request's `legal` steps (sum 1; empty if no steps).
    pub policy: Vec<f32>,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
}

/// Evaluates `requests` on `backend`: checked, laid out, run, masked and normalised.
pub fn evaluate(
    backend: &dyn Backend,
    requests: &[impl Borrow<Request>],
) -> Result<Vec<Answer>, NetError> {
    if requests.is_empty() {
        return Ok(Vec::new());
    }
    let logits = submit(backend, requests)?.wait()?;
    Ok(read_answers(&logits, requests, backend.shape().num_actions))
}

/// Checks and lays out `requests` (at least one) and sends them to `backend`; the
/// receipt's logits go to [`read_answers`] with the same requests.
pub fn submit(
    backend: &dyn Backend,
    requests: &[impl Borrow<Request>],
) -> Result<InFlight, NetError> {
    let input = lay_out(backend.shape(), requests)?;
    backend.submit(input, requests.len())
}

/// The requests' inputs one after another, each checked against `shape`.
fn lay_out(shape: IoShape, requests: &[impl Borrow<Request>]) -> Result<Vec<f32>, NetError> {
    let mut input = Vec::with_capacity(shape.per_position * requests.len());
    for request in requests {
        check_request(request.borrow(), shape)?;
        input.extend_from_slice(&request.borrow().input);
    }
    Ok(input)
}

/// Checks a request against the model's input size and action space.
fn check_request(request: &Request, shape: IoShape) -> Result<(), NetError> {
    let IoShape {
        per_position,
        num_actions,
    } = shape;
    if request.input.len() != per_position {
        return Err(NetError::Shape(format!(
            "request has {} input values, the model takes {per_position}",
            request.input.len()
        )));
    }
    if let Some(&bad) = request.legal.iter().find(|&&a| a as usize >= num_actions) {
        return Err(NetError::Shape(format!(
            "action {bad} is outside the action space of {num_actions}"
        )));
    }
    Ok(())
}

/// Masked policies and W/D/L of `requests`, whose outputs start at `logits.first`.
pub fn read_answers(
    logits: &Logits,
    requests: &[impl Borrow<Request>],
    num_actions: usize,
) -> Vec<Answer> {
    let raw = &logits.raw;
    requests
        .iter()
        .enumerate()
        .map(|(i, request)| {
            let at = logits.first + i;
            Answer {
                policy: masked_softmax(
                    &raw.policy[at * num_actions..(at + 1) * num_actions],
                    &request.borrow().legal,
                ),
                wdl: softmax3(&raw.value[3 * at..3 * at + 3]),
            }
        })
        .collect()
}

/// Softmax of three W/D/L logits.
fn softmax3(logits: &[f32]) -> [f32; 3] {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e = [0, 1, 2].map(|i| (logits[i] - max).exp());
    let total = e[0] + e[1] + e[2];
    e.map(|v| v / total)
}

/// Softmax of `logits` restricted to `legal` (in that order).
pub fn masked_softmax(logits: &[f32], legal: &[Action]) -> Vec<f32> {
    let max = legal
        .iter()
        .map(|&a| logits[a as usize])
        .fold(f32::NEG_INFINITY, f32::max);
    let mut probs: Vec<f32> = legal
        .iter()
        .map(|&a| (logits[a as usize] - max).exp())
        .collect();
    let sum: f32 = probs.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        probs.iter_mut().for_each(|p| *p /= sum);
    } else if !probs.is_empty() {
        let uniform = 1.0 / probs.len() as f32;
        probs.iter_mut().for_each(|p| *p = uniform);
    }
    probs
}
