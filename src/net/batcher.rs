//! The batcher: it serves evaluation requests from any number of searches, running them
//! through the net together. (The config's `[batching]` section sets it.)
//!
//! Producers send a *job* (one or many positions) and wait on their own reply channel (at
//! once, or later: [`Backend::submit`]). The batcher's gathering thread waits for a free
//! stream and the first job, then gathers more until `max_batch` positions are queued, every
//! live producer handle has a job queued, or `max_wait` has passed, and hands them as one
//! batch to that stream. Each of the `streams` stream threads owns a copy of the weights and
//! runs its batches one after another, so up to `streams` forward passes are in flight at
//! once (one: the plain loop, gather then run). Nobody holds a lock while waiting, so no
//! interleaving of producers can deadlock.
//!
//! What it does to keep the net busy (`docs/benchmarks.md`, inference benchmark):
//! - dispatching as soon as every live handle has a job queued (a self-play worker sends one
//!   job per round and then waits, so nothing more can come): no idle `max_wait` per round
//!   when the workers together fill less than `max_batch`, nor at the end of a run;
//! - running small batches in fp32 when the net is bf16 (`fp32_below`), where the precision
//!   probe ([`super::precision`]) measured fp32 faster at small batches;
//! - answers shared by all jobs of a batch (one `Arc`) instead of a copy per job.
//!
//! Copies of the input (one per job into the batch, one into the tensor) are left as they
//! are: about 2.6 MB at ReMATCH batch 512 against a forward pass of about 90 ms (not
//! measured separately).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tch::Kind;

use super::backend::{
    self, Answer, Backend, BackendInfo, InFlight, IoShape, Logits, RawOutput, Request,
};
use super::forward::{forward_raw, GpuStaging, Staging};
use super::in_place::InPlaceCheck;
use super::inference::InferenceNet;
use super::model::Model;
use super::precision::probe_batches;
use super::threads::ThreadPlan;
use super::NetError;
use crate::config::batching::{BatchingConfig, Form};

/// How the batcher gathers jobs and runs the net.
#[derive(Clone, Debug, PartialEq)]
pub struct BatcherConfig {
    /// Most positions per forward pass.
    pub max_batch: usize,
    /// Longest wait for a batch to fill once the first request has arrived (cut short once
    /// every live handle has a job queued).
    pub max_wait: Duration,
    /// libtorch intra-op threads (0 leaves libtorch's default).
    pub torch_threads: i32,
    /// Run the net in bfloat16 (inputs and weights), reading results back as f32.
    pub bf16: bool,
    /// With `bf16`, batches of fewer positions than this run on an fp32 copy of the weights
    /// (where the precision probe found fp32 faster; 0 or 1: always bf16).
    pub fp32_below: usize,
    /// Where the net runs: models given on another device are copied there.
    pub device: tch::Device,
    /// The inference form of the fp32 weights ([`Form`]; the probe's choice under `auto`).
    pub fp32_form: Form,
    /// The inference form of the bf16 weights.
    pub bf16_form: Form,
    /// Check the precision in place (`precision = "auto"`): alternate fp32 and bf16 on the
    /// first batches of each batch band and keep the faster ([`super::in_place`]).
    pub check_in_place: bool,
    /// The probe's bf16 speed over fp32 at each probe batch (empty: not probed); bands it
    /// settled by a wide margin are not checked.
    pub probe_speedups: Vec<f64>,
    /// The latency backend, for measuring the pipeline without a net: each forward pass
    /// (of up to `max_batch` positions) sleeps this long and answers all-zero logits, a
    /// uniform policy over the legal steps and a value of 0, as a net that costs nothing
    /// but its latency would (`None`: the net runs).
    pub latency: Option<Duration>,
    /// Forward passes in flight at once, each on a stream thread of its own with its own
    /// copy of the weights: while one batch is in the net (or on its way back), the next is
    /// gathered and launched (1: one at a time).
    pub streams: usize,
    /// How batches reach a GPU ([`Staging`]; ignored on the CPU).
    pub gpu: GpuStaging,
}

impl Default for BatcherConfig {
    /// `[batching]`'s defaults for the batch and its wait, fp32 throughout: the precision
    /// that is right everywhere. Which precision is faster depends on the machine; commands
    /// settle it with [`super::args::prepare`].
    fn default() -> Self {
        let batching = BatchingConfig::default();
        BatcherConfig {
            max_batch: batching.max_batch,
            max_wait: Duration::from_secs_f64(batching.max_wait_ms / 1000.0),
            torch_threads: 0,
            bf16: false,
            fp32_below: 0,
            device: tch::Device::Cpu,
            fp32_form: Form::default(),
            bf16_form: Form::default(),
            check_in_place: false,
            probe_speedups: Vec::new(),
            latency: None,
            streams: 1,
            gpu: GpuStaging::default(),
        }
    }
}

impl BatcherConfig {
    /// The settings of each self-play batcher instance under `[batching]` and `layout`,
    /// before its precision is settled ([`crate::net::args::prepare`]).
    pub fn of(batching: &BatchingConfig, layout: &ThreadPlan) -> BatcherConfig {
        BatcherConfig {
            max_batch: batching.max_batch,
            max_wait: Duration::from_secs_f64(batching.max_wait_ms / 1000.0),
            torch_threads: layout.torch_threads as i32,
            streams: batching.streams,
            gpu: GpuStaging::of(batching),
            ..BatcherConfig::default()
        }
    }
}

/// Counters of the batcher's work, readable while it runs.
#[derive(Debug, Default)]
pub struct BatcherStats {
    /// Forward passes run.
    pub batches: AtomicU64,
    /// Positions evaluated.
    pub positions: AtomicU64,
    /// Nanoseconds spent in forward passes (the net busy).
    pub busy_nanos: AtomicU64,
}

/// A producer's positions, already laid out as one input block, and where to answer.
struct Job {
    input: Vec<f32>,
    positions: usize,
    reply: SyncSender<Result<Logits, NetError>>,
}

/// What producers and the owner send to the gathering thread.
enum Message {
    /// Positions to evaluate.
    Evaluate(Job),
    /// New weights: served from the next batch on.
    Replace(Box<Model>),
}

/// A cloneable, thread-safe handle for sending work to the batcher.
///
/// Every clone counts as a live producer until it is dropped: once each live producer has a
/// job queued, the batcher runs the batch without waiting out `max_wait`. A handle shared
/// between threads by reference counts once, which only makes some batches smaller.
pub struct BatcherHandle {
    jobs: Sender<Message>,
    shape: IoShape,
    /// What the batcher runs, for [`Backend::info`].
    info: Arc<BackendInfo>,
    producers: Arc<AtomicUsize>,
    /// Whether this handle is one of the `producers` (the batcher's own handle is not).
    counted: bool,
}

impl Clone for BatcherHandle {
    fn clone(&self) -> Self {
        self.producers.fetch_add(1, Ordering::AcqRel);
        BatcherHandle {
            jobs: self.jobs.clone(),
            shape: self.shape,
            info: Arc::clone(&self.info),
            producers: Arc::clone(&self.producers),
            counted: true,
        }
    }
}

impl Drop for BatcherHandle {
    fn drop(&mut self) {
        if self.counted {
            self.producers.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl BatcherHandle {
    /// Evaluates `requests` (blocking until the batch they join has run). Inputs are checked
    /// and laid out, and answers masked and normalised, in the calling thread.
    pub fn evaluate(&self, requests: Vec<Request>) -> Result<Vec<Answer>, NetError> {
        backend::evaluate(self, &requests)
    }
}

impl Backend for BatcherHandle {
    /// Sends the positions as one job and waits for the batch it joins.
    fn forward(&self, input: Vec<f32>, positions: usize) -> Result<Logits, NetError> {
        self.submit(input, positions)?.wait()
    }

    /// Sends the positions as one job; the receipt is answered once its batch has run.
    fn submit(&self, input: Vec<f32>, positions: usize) -> Result<InFlight, NetError> {
        let (reply, answer) = mpsc::sync_channel(1);
        let job = Job {
            input,
            positions,
            reply,
        };
        self.jobs
            .send(Message::Evaluate(job))
            .map_err(|_| NetError::BatcherGone)?;
        Ok(InFlight::on(answer))
    }

    fn shape(&self) -> IoShape {
        self.shape
    }

    fn info(&self) -> BackendInfo {
        (*self.info).clone()
    }

    fn boxed_clone(&self) -> Box<dyn Backend> {
        Box::new(self.clone())
    }
}

/// The batcher as a backend: its own handle does the work, and every clone is a new
/// producer's handle.
impl Backend for Batcher {
    fn forward(&self, input: Vec<f32>, positions: usize) -> Result<Logits, NetError> {
        self.handle.forward(input, positions)
    }

    fn submit(&self, input: Vec<f32>, positions: usize) -> Result<InFlight, NetError> {
        self.handle.submit(input, positions)
    }

    fn shape(&self) -> IoShape {
        self.handle.shape
    }

    fn info(&self) -> BackendInfo {
        self.handle.info()
    }

    fn boxed_clone(&self) -> Box<dyn Backend> {
        Box::new(self.handle())
    }
}

/// What a batcher under `config` runs: libtorch, its device, precision and largest batch.
fn batcher_info(config: &BatcherConfig) -> BackendInfo {
    let precision = match (config.check_in_place, config.bf16, config.fp32_below) {
        (true, _, _) => "auto (fp32 or bf16 by batch, checked in place)".to_string(),
        (false, false, _) => "fp32".to_string(),
        (false, true, below) if below > 1 => format!("bf16 (fp32 below {below})"),
        (false, true, _) => "bf16".to_string(),
    };
    let device = match config.device {
        tch::Device::Cuda(n) => format!("cuda:{n}"),
        _ => "cpu".to_string(),
    };
    BackendInfo {
        runtime: if config.latency.is_some() {
            "latency"
        } else {
            "libtorch"
        },
        device,
        precision,
        max_batch: Some(config.max_batch.max(1)),
    }
}

/// The batcher: owns the model on its own thread. Dropping it (and every handle) stops it.
pub struct Batcher {
    handle: BatcherHandle,
    stats: Arc<BatcherStats>,
    thread: Option<JoinHandle<()>>,
}

impl Batcher {
    /// Starts the batcher thread with `model`.
    pub fn spawn(model: Model, config: BatcherConfig) -> Batcher {
        let (jobs, queue) = mpsc::channel();
        let shape = &model.meta().shape;
        let shape = IoShape {
            per_position: (shape.planes * shape.height * shape.width) as usize,
            num_actions: shape.num_actions as usize,
        };
        let info = Arc::new(batcher_info(&config));
        let producers = Arc::new(AtomicUsize::new(0));
        let thread_producers = Arc::clone(&producers);
        let stats = Arc::new(BatcherStats::default());
        let thread_stats = Arc::clone(&stats);
        let thread = std::thread::Builder::new()
            .name("batcher".into())
            .spawn(move || serve(model, &config, &queue, &thread_producers, &thread_stats))
            .expect("spawning the batcher thread");
        Batcher {
            handle: BatcherHandle {
                jobs,
                shape,
                info,
                producers,
                counted: false,
            },
            stats,
            thread: Some(thread),
        }
    }

    /// A handle to give to a producer thread.
    pub fn handle(&self) -> BatcherHandle {
        self.handle.clone()
    }

    /// Evaluates `requests` from this thread.
    pub fn evaluate(&self, requests: Vec<Request>) -> Result<Vec<Answer>, NetError> {
        self.handle.evaluate(requests)
    }

    /// Replaces the model (e.g. with newer weights of the same shape): requests already
    /// queued may still be served by the old one, every later batch by the new one.
    pub fn replace_model(&self, model: Model) -> Result<(), NetError> {
        self.handle
            .jobs
            .send(Message::Replace(Box::new(model)))
            .map_err(|_| NetError::BatcherGone)
    }

    /// The batcher's counters.
    pub fn stats(&self) -> &BatcherStats {
        &self.stats
    }

    /// Stops the thread once every outstanding handle is dropped, and waits for it.
    pub fn shutdown(mut self) {
        let (dummy, _) = mpsc::channel();
        self.handle.jobs = dummy;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Batcher {
    fn drop(&mut self) {
        // Detach rather than block: handles held elsewhere may keep the thread alive.
        self.thread.take();
    }
}

/// The weights as the batcher runs them, and which precision serves a batch: the
/// configured split (bf16 from `fp32_below` positions on), or the in-place check's.
struct Nets {
    fp32: Option<InferenceNet>,
    bf16: Option<InferenceNet>,
    fp32_below: usize,
    check: Option<InPlaceCheck>,
}

impl Nets {
    fn new(mut model: Box<Model>, config: &BatcherConfig) -> Nets {
        if model.var_store().device() != config.device {
            match model.copy_to(config.device) {
                Ok(moved) => *model = moved,
                Err(e) => eprintln!("warning: the net stays on its device: {e}"),
            }
        }
        let check = config.check_in_place.then(|| {
            let from = config.bf16.then_some(config.fp32_below.max(1));
            InPlaceCheck::new(
                &probe_batches(config.max_batch),
                from,
                &config.probe_speedups,
            )
        });
        let both = check.is_some() || (config.bf16 && config.fp32_below > 1);
        let form = |kind: Kind| {
            let form = match kind {
                Kind::BFloat16 => config.bf16_form,
                _ => config.fp32_form,
            };
            InferenceNet::build(&model, kind, form)
                .map_err(|e| eprintln!("warning: the batcher has no {kind:?} net: {e}"))
                .ok()
        };
        let (fp32, bf16) = match (config.bf16, both) {
            (false, false) => (form(Kind::Float), None),
            (true, false) => (None, form(Kind::BFloat16)),
            (_, true) => (form(Kind::Float), form(Kind::BFloat16)),
        };
        Nets {
            fp32,
            bf16,
            fp32_below: if config.bf16 {
                config.fp32_below
            } else {
                usize::MAX
            },
            check,
        }
    }

    /// Whether a batch of `positions` runs in bf16.
    fn bf16_for(&self, positions: usize) -> bool {
        match &self.check {
            Some(check) => check.bf16_for(positions),
            None => positions >= self.fp32_below,
        }
    }

    /// The net to run a batch of `positions` on.
    fn for_batch(&self, positions: usize) -> &InferenceNet {
        let (first, second) = if self.bf16_for(positions) {
            (&self.bf16, &self.fp32)
        } else {
            (&self.fp32, &self.bf16)
        };
        first
            .as_ref()
            .or(second.as_ref())
            .expect("the batcher holds a model")
    }

    /// Takes a batch's time into the in-place check, reporting a band it decides.
    fn add_timing(&mut self, positions: usize, seconds: f64) {
        let bf16 = self.bf16_for(positions);
        let Some(check) = &mut self.check else { return };
        if check.add_timing(positions, bf16, seconds).is_some() {
            // One line per process: each batcher instance (one per core, one per agent of a
            // match) checks on its own.
            static REPORTED: std::sync::atomic::AtomicBool =
                std::sync::atomic::AtomicBool::new(false);
            if check.done() && !REPORTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                eprintln!("{}", check.summary());
            }
            self.prune();
        }
    }

    /// Once the check has decided every band, drops the copy no band uses.
    fn prune(&mut self) {
        let Some(check) = self.check.as_ref().filter(|c| c.done()) else {
            return;
        };
        if !check.uses(true) {
            self.bf16 = None;
        }
        if !check.uses(false) {
            self.fp32 = None;
        }
    }

    /// The nets for new weights, keeping what the in-place check has learned.
    fn renew(self, model: Box<Model>, config: &BatcherConfig) -> Nets {
        let mut nets = Nets::new(model, config);
        if self.check.is_some() {
            nets.check = self.check;
            nets.prune();
        }
        nets
    }
}

/// A gathered batch on its way to a stream: its jobs and their inputs, laid out.
struct Work {
    pending: Vec<Job>,
    input: Vec<f32>,
    queued: usize,
}

/// What the gathering thread sends a stream.
enum StreamMessage {
    /// A batch to run and answer.
    Run(Work),
    /// New weights, for every batch after those already sent.
    Replace(Box<Model>),
}

/// The gathering thread's loop: wait for a free stream, take a job, gather a batch, hand it
/// to that stream; send new weights to every stream between batches. Ends (after its
/// streams) once every handle is gone.
fn serve(
    model: Model,
    config: &BatcherConfig,
    queue: &Receiver<Message>,
    producers: &AtomicUsize,
    stats: &Arc<BatcherStats>,
) {
    let (free_sender, free) = mpsc::channel::<usize>();
    let mut streams = Vec::new();
    let mut threads = Vec::new();
    for (id, model) in copies(model, config.streams.max(1)).into_iter().enumerate() {
        let (sender, work) = mpsc::channel::<StreamMessage>();
        let (config, free, stats) = (config.clone(), free_sender.clone(), Arc::clone(stats));
        let thread = std::thread::Builder::new()
            .name(format!("batcher-stream-{id}"))
            .spawn(move || run_stream(id, model, &config, &work, &free, &stats))
            .expect("spawning a batcher stream");
        streams.push(sender);
        threads.push(thread);
    }
    drop(free_sender);
    let mut pending: Vec<Job> = Vec::new();
    while let Ok(stream) = free.recv() {
        let Some(first) = first_job(queue, &streams) else {
            break;
        };
        pending.push(first);
        let (queued, replacement) = gather(&mut pending, config, queue, producers);
        let mut input = Vec::with_capacity(pending.iter().map(|j| j.input.len()).sum());
        for job in &pending {
            input.extend_from_slice(&job.input);
        }
        let work = Work {
            pending: std::mem::take(&mut pending),
            input,
            queued,
        };
        if streams[stream].send(StreamMessage::Run(work)).is_err() {
            break;
        }
        if let Some(new_model) = replacement {
            send_weights(&streams, *new_model);
        }
    }
    drop(streams);
    for thread in threads {
        let _ = thread.join();
    }
}

/// The next job; weights that come first go to every stream. `None` once every handle
/// is gone.
fn first_job(queue: &Receiver<Message>, streams: &[Sender<StreamMessage>]) -> Option<Job> {
    loop {
        match queue.recv().ok()? {
            Message::Evaluate(job) => return Some(job),
            Message::Replace(new_model) => send_weights(streams, *new_model),
        }
    }
}

/// `count` copies of `model` (the model itself among them); fewer, with a warning, when
/// libtorch cannot copy it.
fn copies(model: Model, count: usize) -> Vec<Model> {
    let mut models = Vec::with_capacity(count);
    for _ in 1..count {
        match model.try_clone() {
            Ok(copy) => models.push(copy),
            Err(e) => {
                eprintln!("warning: the batcher runs fewer streams: {e}");
                break;
            }
        }
    }
    models.push(model);
    models
}

/// Sends new weights to every stream (a copy each).
fn send_weights(streams: &[Sender<StreamMessage>], model: Model) {
    for (stream, model) in streams.iter().zip(copies(model, streams.len())) {
        let _ = stream.send(StreamMessage::Replace(Box::new(model)));
    }
}

/// A stream thread: runs the batches it is sent, one after another, on its own copy of the
/// weights, and says when it is free again.
fn run_stream(
    id: usize,
    model: Model,
    config: &BatcherConfig,
    work: &Receiver<StreamMessage>,
    free: &Sender<usize>,
    stats: &BatcherStats,
) {
    if config.torch_threads > 0 {
        tch::set_num_threads(config.torch_threads);
    }
    let _no_grad = tch::no_grad_guard();
    let mut nets = Nets::new(Box::new(model), config);
    let mut staging = Staging::new(config.gpu, config.device);
    if free.send(id).is_err() {
        return;
    }
    while let Ok(message) = work.recv() {
        match message {
            StreamMessage::Replace(new_model) => {
                nets = nets.renew(new_model, config);
                staging.forget_graphs();
            }
            StreamMessage::Run(batch) => {
                run_batch(&mut nets, config, &mut staging, batch, stats);
                if free.send(id).is_err() {
                    break;
                }
            }
        }
    }
}

/// Runs one gathered batch through the net (or the latency backend) and answers its jobs.
fn run_batch(
    nets: &mut Nets,
    config: &BatcherConfig,
    staging: &mut Staging,
    mut work: Work,
    stats: &BatcherStats,
) {
    let max_batch = config.max_batch.max(1);
    let queued = work.queued;
    let started = Instant::now();
    let result = match config.latency {
        Some(latency) => Ok(latency_output(nets, latency, queued, max_batch)),
        None => forward_raw(
            |n| nets.for_batch(n),
            &work.input,
            queued,
            max_batch,
            staging,
        ),
    };
    let busy = started.elapsed();
    if queued <= max_batch {
        nets.add_timing(queued, busy.as_secs_f64());
    }
    stats
        .busy_nanos
        .fetch_add(busy.as_nanos() as u64, Ordering::Relaxed);
    stats.positions.fetch_add(queued as u64, Ordering::Relaxed);
    stats
        .batches
        .fetch_add(queued.div_ceil(max_batch) as u64, Ordering::Relaxed);
    answer(&mut work.pending, result);
}

/// Adds jobs to `pending` (which holds the first) until the batch is full, nobody else can
/// send (every live handle has a job queued) or the wait is over. Returns the positions
/// queued and new weights that arrived meanwhile (served from the next batch on).
fn gather(
    pending: &mut Vec<Job>,
    config: &BatcherConfig,
    queue: &Receiver<Message>,
    producers: &AtomicUsize,
) -> (usize, Option<Box<Model>>) {
    let max_batch = config.max_batch.max(1);
    let mut queued: usize = pending.iter().map(|job| job.positions).sum();
    let deadline = Instant::now() + config.max_wait;
    while queued < max_batch && pending.len() < producers.load(Ordering::Acquire) {
        let now = Instant::now();
        let message = match queue.try_recv() {
            Ok(message) => message,
            Err(_) if now >= deadline => break,
            Err(_) => match queue.recv_timeout(deadline - now) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => break,
            },
        };
        match message {
            Message::Evaluate(job) => {
                queued += job.positions;
                pending.push(job);
            }
            // Serve what is queued with the old weights first.
            Message::Replace(new_model) => return (queued, Some(new_model)),
        }
    }
    // Jobs already queued join without a wait: a producer with several batches in flight
    // (`selfplay.groups`) may have more than one queued, and one forward pass serves them.
    while queued < max_batch {
        match queue.try_recv() {
            Ok(Message::Evaluate(job)) => {
                queued += job.positions;
                pending.push(job);
            }
            Ok(Message::Replace(new_model)) => return (queued, Some(new_model)),
            Err(_) => break,
        }
    }
    (queued, None)
}

/// Sends every pending job its answer (the batch's shared outputs) or the batch's error.
fn answer(pending: &mut Vec<Job>, result: Result<RawOutput, NetError>) {
    match result {
        Ok(raw) => {
            let raw = Arc::new(raw);
            let mut first = 0;
            for job in pending.drain(..) {
                let reply = Logits {
                    raw: Arc::clone(&raw),
                    first,
                };
                first += job.positions;
                let _ = job.reply.send(Ok(reply));
            }
        }
        Err(error) => {
            for job in pending.drain(..) {
                let _ = job.reply.send(Err(error.duplicate()));
            }
        }
    }
}

/// The latency backend's answer to `positions` positions: a sleep of `latency` per forward
/// pass of up to `max_batch` positions, then all-zero policy and W/D/L logits.
fn latency_output(nets: &Nets, latency: Duration, positions: usize, max_batch: usize) -> RawOutput {
    let num_actions = nets.for_batch(1).shape().num_actions as usize;
    std::thread::sleep(latency * positions.div_ceil(max_batch.max(1)) as u32);
    RawOutput {
        policy: vec![0.0; positions * num_actions],
        value: vec![0.0; positions * 3],
    }
}
