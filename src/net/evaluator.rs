//! The batched evaluator: one thread owns the model and serves evaluation requests from any
//! number of searches, running them through the net together.
//!
//! Producers send a *job* (one or many positions) and block on their own reply channel;
//! the evaluator thread waits for the first job, then gathers more until `max_batch`
//! positions are queued or `max_wait` has passed, and runs them as one batch. Nobody holds
//! a lock while waiting, so no interleaving of producers can deadlock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tch::{Kind, Tensor};

use super::model::Model;
use super::NetError;
use crate::game::Action;

/// How the evaluator batches and runs the net.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluatorConfig {
    /// Most positions per forward pass.
    pub max_batch: usize,
    /// Longest wait for a batch to fill once the first request has arrived.
    pub max_wait: Duration,
    /// libtorch intra-op threads (0 leaves libtorch's default).
    pub torch_threads: i32,
    /// Run the net in bfloat16 (inputs and weights), reading results back as f32.
    pub bf16: bool,
}

impl Default for EvaluatorConfig {
    fn default() -> Self {
        EvaluatorConfig {
            max_batch: 128,
            max_wait: Duration::from_millis(2),
            torch_threads: 0,
            // bf16 measured 2-3x faster than fp32 from batch 8 up on this CPU (README).
            bf16: true,
        }
    }
}

/// One position to evaluate: its encoded planes and the legal steps to keep in the policy.
#[derive(Clone, Debug)]
pub struct Request {
    /// `planes * height * width` values, as the model's shape says.
    pub input: Vec<f32>,
    /// The legal steps; the policy is a softmax over these logits only.
    pub legal: Vec<Action>,
}

/// The net's answer for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Probabilities aligned with the request's `legal` steps (sum 1; empty if no steps).
    pub policy: Vec<f32>,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
}

/// Counters of the evaluator's work, readable while it runs.
#[derive(Debug, Default)]
pub struct EvaluatorStats {
    /// Forward passes run.
    pub batches: AtomicU64,
    /// Positions evaluated.
    pub positions: AtomicU64,
    /// Nanoseconds spent in forward passes (the net busy).
    pub busy_nanos: AtomicU64,
}

struct Job {
    requests: Vec<Request>,
    reply: SyncSender<Result<Vec<Evaluation>, NetError>>,
}

/// A cloneable, thread-safe handle for sending work to the evaluator.
#[derive(Clone)]
pub struct EvaluatorHandle {
    jobs: Sender<Job>,
}

impl EvaluatorHandle {
    /// Evaluates `requests` (blocking until the batch they join has run).
    pub fn evaluate(&self, requests: Vec<Request>) -> Result<Vec<Evaluation>, NetError> {
        if requests.is_empty() {
            return Ok(Vec::new());
        }
        let (reply, answer) = mpsc::sync_channel(1);
        self.jobs
            .send(Job { requests, reply })
            .map_err(|_| NetError::EvaluatorGone)?;
        answer.recv().map_err(|_| NetError::EvaluatorGone)?
    }
}

/// The evaluator: owns the model on its own thread. Dropping it (and every handle) stops it.
pub struct Evaluator {
    handle: EvaluatorHandle,
    stats: Arc<EvaluatorStats>,
    thread: Option<JoinHandle<()>>,
}

impl Evaluator {
    /// Starts the evaluator thread with `model`.
    pub fn spawn(mut model: Model, config: EvaluatorConfig) -> Evaluator {
        let (jobs, queue) = mpsc::channel();
        let stats = Arc::new(EvaluatorStats::default());
        let thread_stats = Arc::clone(&stats);
        let thread = std::thread::Builder::new()
            .name("evaluator".into())
            .spawn(move || {
                if config.torch_threads > 0 {
                    tch::set_num_threads(config.torch_threads);
                }
                if config.bf16 {
                    model.set_kind(Kind::BFloat16);
                }
                serve(&model, &config, &queue, &thread_stats);
            })
            .expect("spawning the evaluator thread");
        Evaluator {
            handle: EvaluatorHandle { jobs },
            stats,
            thread: Some(thread),
        }
    }

    /// A handle to give to a producer thread.
    pub fn handle(&self) -> EvaluatorHandle {
        self.handle.clone()
    }

    /// Evaluates `requests` from this thread.
    pub fn evaluate(&self, requests: Vec<Request>) -> Result<Vec<Evaluation>, NetError> {
        self.handle.evaluate(requests)
    }

    /// The evaluator's counters.
    pub fn stats(&self) -> &EvaluatorStats {
        &self.stats
    }

    /// Stops the thread once every outstanding handle is dropped, and waits for it.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let (dummy, _) = mpsc::channel();
        self.handle = EvaluatorHandle { jobs: dummy };
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Evaluator {
    fn drop(&mut self) {
        // Detach rather than block: handles held elsewhere may keep the thread alive.
        self.thread.take();
    }
}

fn serve(model: &Model, config: &EvaluatorConfig, queue: &Receiver<Job>, stats: &EvaluatorStats) {
    let _no_grad = tch::no_grad_guard();
    let max_batch = config.max_batch.max(1);
    let mut pending: Vec<Job> = Vec::new();
    while let Ok(first) = queue.recv() {
        let mut queued = first.requests.len();
        pending.push(first);
        let deadline = Instant::now() + config.max_wait;
        while queued < max_batch {
            let now = Instant::now();
            let job = match queue.try_recv() {
                Ok(job) => job,
                Err(_) if now >= deadline => break,
                Err(_) => match queue.recv_timeout(deadline - now) {
                    Ok(job) => job,
                    Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => break,
                },
            };
            queued += job.requests.len();
            pending.push(job);
        }
        let started = Instant::now();
        let result = run_jobs(model, &pending, max_batch);
        stats
            .busy_nanos
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        stats.positions.fetch_add(queued as u64, Ordering::Relaxed);
        match result {
            Ok(mut answers) => {
                stats
                    .batches
                    .fetch_add(queued.div_ceil(max_batch) as u64, Ordering::Relaxed);
                for job in pending.drain(..).rev() {
                    let mine = answers.split_off(answers.len() - job.requests.len());
                    let _ = job.reply.send(Ok(mine));
                }
            }
            Err(error) => {
                let message = error.to_string();
                for job in pending.drain(..) {
                    let _ = job.reply.send(Err(NetError::Shape(message.clone())));
                }
            }
        }
    }
}

/// Runs every request of `jobs` through the net in chunks of at most `max_batch`.
fn run_jobs(model: &Model, jobs: &[Job], max_batch: usize) -> Result<Vec<Evaluation>, NetError> {
    let requests: Vec<&Request> = jobs.iter().flat_map(|j| j.requests.iter()).collect();
    let mut answers = Vec::with_capacity(requests.len());
    for chunk in requests.chunks(max_batch) {
        answers.extend(evaluate_batch(model, chunk)?);
    }
    Ok(answers)
}

/// One forward pass over `requests`; masked softmax over each request's legal steps.
pub fn evaluate_batch(model: &Model, requests: &[&Request]) -> Result<Vec<Evaluation>, NetError> {
    let shape = &model.meta().shape;
    let per_position = (shape.planes * shape.height * shape.width) as usize;
    let mut input = Vec::with_capacity(per_position * requests.len());
    for request in requests {
        if request.input.len() != per_position {
            return Err(NetError::Shape(format!(
                "request has {} input values, the model takes {per_position}",
                request.input.len()
            )));
        }
        if let Some(&bad) = request
            .legal
            .iter()
            .find(|&&a| a as i64 >= shape.num_actions)
        {
            return Err(NetError::Shape(format!(
                "action {bad} is outside the action space of {}",
                shape.num_actions
            )));
        }
        input.extend_from_slice(&request.input);
    }
    let batch = requests.len() as i64;
    let x = Tensor::from_slice(&input)
        .reshape([batch, shape.planes, shape.height, shape.width])
        .to_device(model.var_store().device())
        .to_kind(model.kind());
    let (policy, value) = model.forward_t(&x, false);
    let policy: Vec<f32> = Vec::try_from(policy.to_kind(Kind::Float).flatten(0, -1))?;
    let wdl: Vec<f32> = Vec::try_from(
        value
            .to_kind(Kind::Float)
            .softmax(-1, Kind::Float)
            .flatten(0, -1),
    )?;
    let actions = shape.num_actions as usize;
    Ok(requests
        .iter()
        .enumerate()
        .map(|(i, request)| {
            let logits = &policy[i * actions..(i + 1) * actions];
            Evaluation {
                policy: masked_softmax(logits, &request.legal),
                wdl: [wdl[3 * i], wdl[3 * i + 1], wdl[3 * i + 2]],
            }
        })
        .collect())
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
