//! The learner role: one per run. Takes in the game shards self-play publishes, each exactly
//! once, trains on them as the replay ratio allows, and publishes a checkpoint (with the
//! shards it took in since the previous one) every `steps_per_iteration` steps.
//!
//! In parts: [`intake`] (listing, fetching and parsing shards), `rebuild` (the replay
//! window rebuilt on resume), [`step`] (a training step and its iteration), [`publish`]
//! (checkpoints and their intake links, and the one to resume from), [`retention`] (what
//! is kept of older checkpoints), [`limits`] (when it stops), [`metrics`] (the metrics log),
//! [`progress`] (the progress line), `ready` (a learner readied before it holds the lease)
//! and [`mod@drive`], the one loop: the `learn` command drives [`LearnerRole`] alone
//! ([`learn`]), and `train` drives it beside self-play and the evaluation role in one
//! process ([`super::local`]). Both start, resume and stop through the same
//! code.

pub mod drive;
mod game_retention;
pub mod intake;
pub mod limits;
pub mod metrics;
pub mod progress;
pub mod publish;
mod ready;
mod rebuild;
pub mod retention;
pub mod step;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use drive::{drive, Alone, Beside};
use game_retention::GameRetention;
pub use intake::IntakeTally;
pub use limits::{Clock, StepLimits};
pub use metrics::SelfPlayRates;
pub use progress::{Printer, Progress, Snapshot};
pub use publish::{intake_chain, kept_intake_chain};
pub use ready::Readied;
pub use step::{Iteration, Tick};

use super::backoff::{retry, PATIENCE};
use super::keeper::{lease_settings, LeaseKeeper};
use super::lease::SingletonRole;
use super::{unix_millis, write_pointer, RoleError, StopFlag, StoredMetrics, WorkDir};
use crate::config::lease::LeaseConfig;
use crate::config::ConfigError;
use crate::config::RunConfig;
use crate::eval::periodic::check_anchors;
use crate::layout::{
    checkpoint_key, checkpoint_name, CONFIG, LATEST, LEARNER_METRICS, PINNED_FILE, PROMOTED,
};
use crate::net::encode::Encode;
use crate::store::RunStore;
use crate::train::learner::Learner;
use crate::train::retention::doubling_reached;
use crate::util::process_cpu_seconds;
use crate::with_game;
use intake::Intake;
use publish::Publisher;

/// Iterations between progress lines in a log, unless told.
pub const LOG_EVERY: u64 = 10;

/// What `learn` was asked to do.
#[derive(Clone, Debug)]
pub struct LearnOptions {
    /// The run location.
    pub store: String,
    /// The config to start the run with (optional when the run exists; must then match).
    pub config: Option<PathBuf>,
    /// Stop at this training step (default: `train.iterations` × `steps_per_iteration`).
    pub max_steps: Option<u64>,
    /// Stop after this many minutes (default: `train.max_minutes`; 0: no limit).
    pub max_minutes: Option<f64>,
    /// Stop once no new shard has come for this many seconds and the window allows no step.
    pub idle_exit: Option<f64>,
    /// While another learner's lease runs, wait (up to twice the lease time) for it to
    /// expire instead of exiting.
    pub wait_for_lease: bool,
    /// Local scratch directory (default: a temporary one, removed at exit).
    pub work_dir: Option<PathBuf>,
    /// Seconds between listings of the store's shards.
    pub poll_seconds: f64,
    /// Rewrite the progress line in place (a terminal); else print it every `log_every`
    /// iterations.
    pub progress: bool,
    /// Iterations between progress lines in a log.
    pub log_every: u64,
    /// `--device` (the trainer's) and `--precision`; a new run stores them in its config,
    /// which self-play and the evaluation role read.
    pub net: crate::net::args::NetArgs,
}

/// What a `learn` invocation did.
#[derive(Clone, Debug, Default)]
pub struct LearnSummary {
    /// The step it started from.
    pub start_step: u64,
    /// The step of its last checkpoint.
    pub final_step: u64,
    /// Shards taken in by this invocation (not counting those re-read on resume).
    pub shards: u64,
    /// Games in them.
    pub games: u64,
    /// Training samples in them.
    pub samples: u64,
    /// Wall time (seconds).
    pub seconds: f64,
    /// Samples in the replay window at the end.
    pub window: usize,
}

/// Runs the learner until its step target, time limit, idle limit or a stop signal.
pub fn learn(options: &LearnOptions) -> Result<LearnSummary, RoleError> {
    let store = RunStore::open(&options.store)?;
    let given = options.config.as_deref().map(RunConfig::load).transpose()?;
    // The lease comes first: a second learner writes nothing, not even a new run's config.
    let (settings, stored) = lease_settings(&options.store, given.as_ref())?;
    let patience = options.wait_for_lease.then(|| settings.duration() * 2);
    let stop = StopFlag::on_signals();
    if patience.is_some() && stored.is_some() {
        // A run that exists (its config, once stored, never changes): readied while another
        // learner's lease runs.
        let mut config = run_config(&store, stored, given, &options.net)?;
        options.net.apply_to(&mut config);
        let waiting = Waiting {
            settings: &settings,
            patience,
            stop: &stop,
        };
        return with_game!(config.kind(), S => standby::<S>(options, store, config, waiting));
    }
    let location = store.location().to_string();
    let Some(lease) = LeaseKeeper::acquire_waiting(
        &location,
        SingletonRole::Learner,
        &settings,
        patience,
        &stop,
    )?
    else {
        return Ok(LearnSummary::default());
    };
    // Read again under the lease: a run another learner began meanwhile has its config now.
    let mut config = run_config(&store, store.get_text(CONFIG)?, given, &options.net)?;
    options.net.apply_to(&mut config);
    with_game!(config.kind(), S => {
        let ready = Readied::<S>::prepare(&store, config, options.work_dir.as_deref(), poll(options))?;
        alone::<S>(options, store, ready, lease, &stop)
    })
}

/// How a learner waits for the lease.
struct Waiting<'a> {
    settings: &'a LeaseConfig,
    patience: Option<Duration>,
    stop: &'a StopFlag,
}

/// How often the learner lists new shards at most.
fn poll(options: &LearnOptions) -> Duration {
    Duration::from_secs_f64(options.poll_seconds.max(0.05))
}

/// A warm standby: waits for the lease while a thread of its own readies the learner (the
/// newest checkpoint loaded, its window rebuilt, then the shards published since taken in
/// as the learner would), so that a takeover costs the lease's expiry and one checkpoint
/// interval, not a start, and the lease is tried at its expiry whatever the readying is
/// doing. Readied again if the run moved on while it waited.
fn standby<S: Encode>(
    options: &LearnOptions,
    store: RunStore,
    config: RunConfig,
    waiting: Waiting,
) -> Result<LearnSummary, RoleError> {
    let work_dir = options.work_dir.as_deref();
    let waited = Instant::now();
    let done = StopFlag::new();
    let (lease, ready) = std::thread::scope(|scope| {
        let readying = scope
            .spawn(|| ready_while_waiting::<S>(&store, &config, work_dir, poll(options), &done));
        let lease = LeaseKeeper::acquire_waiting(
            store.location(),
            SingletonRole::Learner,
            waiting.settings,
            waiting.patience,
            waiting.stop,
        );
        done.raise();
        (lease, readying.join().ok().flatten())
    });
    let Some(lease) = lease? else {
        return Ok(LearnSummary::default());
    };
    eprintln!(
        "took the learner lease after {:.1} s",
        waited.elapsed().as_secs_f64()
    );
    let ready = match ready {
        Some(ready) => ready,
        None => Readied::prepare(&store, config, work_dir, poll(options))?,
    };
    alone::<S>(options, store, ready, lease, waiting.stop)
}

/// The standby's readying, until `done`: the learner readied, then the shards published
/// since taken in whenever its intake is due. `None` (said) when it cannot be readied: the
/// learner then readies once it holds the lease.
fn ready_while_waiting<S: Encode>(
    store: &RunStore,
    config: &RunConfig,
    work_dir: Option<&Path>,
    poll: Duration,
    done: &StopFlag,
) -> Option<Readied<S>> {
    let said = |error: RoleError| {
        eprintln!("warning: readying the learner while waiting: {error}; it goes on once it holds the lease")
    };
    let mut ready = match Readied::<S>::prepare(store, config.clone(), work_dir, poll) {
        Ok(ready) => ready,
        Err(error) => {
            said(error);
            return None;
        }
    };
    eprintln!("readied step {} while waiting", ready.step());
    while !done.raised() {
        match ready.due() {
            true => {
                if let Err(error) = ready.take_in(store) {
                    said(error);
                    std::thread::sleep(Duration::from_secs(2));
                }
            }
            false => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    Some(ready)
}

/// The learner alone, driven by [`drive()`].
fn alone<S: Encode>(
    options: &LearnOptions,
    store: RunStore,
    ready: Readied<S>,
    lease: LeaseKeeper,
    stop: &StopFlag,
) -> Result<LearnSummary, RoleError> {
    let limits = StepLimits::new(
        &ready.config().train,
        options.max_steps,
        options.max_minutes,
    );
    let mut role = LearnerRole::<S>::begin(store, ready, lease)?;
    let mut progress = Progress::new(options.progress, options.log_every, limits, role.step());
    drive(
        &mut role,
        &limits,
        stop,
        &mut Alone,
        &mut progress,
        options.idle_exit,
    )?;
    role.finish()?;
    progress.finish(&role.snapshot(None));
    Ok(role.summary())
}

/// The stored config (`stored`: its text as read from `store`), or (new run) the given one
/// with `net` over it, stored. A given config must match the stored one, and the periodic
/// evaluation's anchors must be agents.
pub fn run_config(
    store: &RunStore,
    stored: Option<String>,
    given: Option<RunConfig>,
    net: &crate::net::args::NetArgs,
) -> Result<RunConfig, RoleError> {
    let name = format!("{}/{CONFIG}", store.location());
    let check = |config: &RunConfig| {
        check_anchors(&config.evaluation).map_err(|error| ConfigError::Invalid {
            path: name.clone(),
            error,
        })
    };
    match (stored, given) {
        (Some(text), given) => {
            let config = RunConfig::parse(&text, &name)?;
            if given.is_some_and(|g| g != config) {
                return Err(RoleError::Run(format!(
                    "--config differs from the config the run at {} started with (drop --config to resume it)",
                    store.location()
                )));
            }
            check(&config)?;
            Ok(config)
        }
        (None, Some(mut config)) => {
            // Checked before it is stored.
            check(&config)?;
            net.apply_to(&mut config);
            store.put(CONFIG, config.to_toml().into_bytes())?;
            Ok(config)
        }
        (None, None) => Err(RoleError::Run(format!(
            "{} holds no run: pass --config to start one",
            store.location()
        ))),
    }
}

/// The learner of a run: model, optimizer and window, fed from the store's shards.
pub struct LearnerRole<S: Encode> {
    store: RunStore,
    /// The learner's lease: the role writes the run only while it holds.
    lease: LeaseKeeper,
    /// The scratch directory (the metrics log, a remote store's checkpoints), kept while
    /// the role lives.
    _work: WorkDir,
    learner: Learner<S>,
    metrics: StoredMetrics,
    intake: Intake,
    publisher: Publisher,
    iteration: Iteration,
    last_loss: Option<f64>,
    start_step: u64,
    started: Instant,
    elapsed_base: f64,
    /// The run's CPU seconds before this invocation, and this process's when it started.
    cpu_base: f64,
    cpu_started: f64,
    /// The run's CPU seconds at the checkpoint before the newest (a doubling's first
    /// checkpoint is pinned).
    cpu_at_last_checkpoint: f64,
    /// Deletes the game files no kept checkpoint's window reads.
    game_retention: GameRetention,
}

impl<S: Encode> LearnerRole<S> {
    /// Resumes from the newest checkpoint that loads (re-reading the shards it took in), or
    /// starts a fresh net and publishes it as step 0 (so that self-play can begin, and a
    /// stop before the first step leaves a checkpoint). Lists new shards at most every
    /// `poll`; local files go to `work_dir` (default: a temporary directory). It writes the
    /// run only while it holds `lease`.
    pub fn start(
        store: RunStore,
        config: RunConfig,
        work_dir: Option<&Path>,
        poll: Duration,
        lease: LeaseKeeper,
    ) -> Result<Self, RoleError> {
        lease.check()?;
        let ready = Readied::prepare(&store, config, work_dir, poll)?;
        LearnerRole::begin(store, ready, lease)
    }

    /// [`LearnerRole::start`] from a learner readied before: readied again when the run
    /// has a newer checkpoint than the one it loaded.
    fn begin(store: RunStore, ready: Readied<S>, lease: LeaseKeeper) -> Result<Self, RoleError> {
        lease.check()?;
        let ready = ready.fresh(&store)?;
        let Readied {
            work,
            mut publisher,
            learner,
            resume,
            intake,
            tally,
            rebuilt,
        } = ready;
        let resumed = resume.is_some();
        if let Some(resume) = resume {
            if resume.fell_back() {
                let step = resume.link.step;
                eprintln!("resuming from {} instead", checkpoint_name(step));
                write_pointer(&store, LATEST, step)?;
            }
            publisher.adopt(&store, resume.link)?;
        }
        let resume_step = Some(learner.state.step);
        let metrics = StoredMetrics::open(&store, LEARNER_METRICS, work.path(), resume_step)?;
        let mut iteration = Iteration::new();
        iteration.intake.merge(&tally);
        let mut role = LearnerRole {
            start_step: learner.state.step,
            elapsed_base: learner.state.elapsed_s,
            cpu_base: learner.state.cpu_s,
            store,
            lease,
            _work: work,
            learner,
            metrics,
            intake,
            publisher,
            iteration,
            last_loss: None,
            started: Instant::now(),
            cpu_started: process_cpu_seconds().unwrap_or(0.0),
            cpu_at_last_checkpoint: 0.0,
            game_retention: GameRetention::default(),
        };
        role.cpu_at_last_checkpoint = role.cpu_base;
        if let Some(rebuilt) = rebuilt {
            eprintln!("{}", rebuilt.describe());
            role.log_line(rebuilt.metrics_line())?;
        }
        if !resumed {
            role.checkpoint()?;
            if role.learner.config.evaluation.gating {
                write_pointer(&role.store, PROMOTED, 0)?;
            }
        }
        Ok(role)
    }

    /// The learner: model, optimizer, counters and replay window.
    pub fn learner(&self) -> &Learner<S> {
        &self.learner
    }

    /// The current training step.
    pub fn step(&self) -> u64 {
        self.learner.state.step
    }

    /// Tells the learner how far the run is through `limits` (the learning rate's decay).
    pub fn follow(&mut self, limits: &StepLimits) {
        self.learner.budget_spent = limits.budget_spent(self.step());
    }

    /// The run's config.
    pub fn config(&self) -> &RunConfig {
        &self.learner.config
    }

    /// Where the learner is, for the progress line; `played` is self-play's positions and
    /// games when it runs beside (else what was taken in counts).
    pub fn snapshot(&self, played: Option<(u64, u64)>) -> Snapshot {
        let total = &self.intake.total;
        let (positions, games) = played.unwrap_or((total.samples, total.games));
        Snapshot {
            step: self.learner.state.step,
            steps_per_iteration: self.learner.config.train.steps_per_iteration,
            positions,
            games,
            loss: self.last_loss,
            window: self.learner.window.len(),
        }
    }

    /// One turn of the loop: takes in new shards (when the intake is due), then trains a
    /// step if the replay ratio allows, publishing a checkpoint at the end of an iteration.
    pub fn tick(&mut self) -> Result<Tick, RoleError> {
        let mut tick = Tick::default();
        if self.intake.due() {
            let (intake, store, learner) = (&mut self.intake, &self.store, &mut self.learner);
            let tally = retry("taking in shards", PATIENCE, || {
                intake.take_in(store, learner)
            })?;
            self.iteration.intake.merge(&tally);
            tick.shards = tally.shards;
        }
        let Some(loss) = step::step_if_allowed(&mut self.learner, &mut self.iteration) else {
            return Ok(tick);
        };
        (tick.trained, tick.loss, self.last_loss) = (true, loss, Some(loss));
        if step::ends_iteration(&self.learner) {
            self.checkpoint()?;
            tick.iteration = Some(std::mem::replace(&mut self.iteration, Iteration::new()));
        }
        Ok(tick)
    }

    /// Takes in what has come and publishes it with a final checkpoint (unless the newest
    /// checkpoint already holds everything).
    pub fn finish(&mut self) -> Result<(), RoleError> {
        let tally = self.intake.take_in(&self.store, &mut self.learner)?;
        self.iteration.intake.merge(&tally);
        let published_step = self.publisher.published.as_ref().map(|l| l.step);
        if published_step != Some(self.learner.state.step) || !self.intake.pending.is_empty() {
            self.checkpoint()?;
        }
        // The last iteration's report comes after its checkpoint: publish it too.
        self.lease.check()?;
        self.metrics.publish(&self.store)
    }

    /// What this invocation did.
    pub fn summary(&self) -> LearnSummary {
        let total = &self.intake.total;
        LearnSummary {
            start_step: self.start_step,
            final_step: self.learner.state.step,
            shards: total.shards,
            games: total.games,
            samples: total.samples,
            seconds: self.started.elapsed().as_secs_f64(),
            window: self.learner.window.len(),
        }
    }

    /// Pins the checkpoint just published when it is the run's first at or past a doubling
    /// of its CPU time (1, 2, 4, ... CPU-hours): the curve of a long run is rated there, so
    /// retention keeps its weights.
    fn pin_doubling(&mut self) -> Result<(), RoleError> {
        let (step, cpu_s) = (self.learner.state.step, self.learner.state.cpu_s);
        let before = std::mem::replace(&mut self.cpu_at_last_checkpoint, cpu_s);
        if let Some(hours) = doubling_reached(before, cpu_s) {
            let key = checkpoint_key(step, PINNED_FILE);
            retry("pinning a doubling's checkpoint", PATIENCE, || {
                Ok(self.store.put(&key, Vec::new())?)
            })?;
            eprintln!(
                "pinned {}: the run's first checkpoint at {hours} CPU-hours (retention keeps its weights)",
                checkpoint_name(step)
            );
        }
        Ok(())
    }

    /// Writes and publishes a checkpoint of the current step with the shards taken in since
    /// the previous one, thins the older checkpoints, then publishes the metrics.
    fn checkpoint(&mut self) -> Result<(), RoleError> {
        self.lease.check()?;
        let state = &mut self.learner.state;
        state.elapsed_s = self.elapsed_base + self.started.elapsed().as_secs_f64();
        state.cpu_s =
            self.cpu_base + process_cpu_seconds().map_or(0.0, |now| now - self.cpu_started);
        state.samples_seen = self.learner.samples_total;
        state.games_seen = self.learner.games_total;
        let pending = std::mem::take(&mut self.intake.pending);
        let first = self.publisher.published.as_ref().map(|l| l.step) == Some(self.start_step)
            && state.step != self.start_step;
        self.publisher
            .publish(&self.store, &self.learner, pending)?;
        if first {
            // How long a resume (a takeover) took to move the run on.
            eprintln!(
                "published step {}, this learner's first checkpoint, {:.1} s after it began (Unix time {:.3} s)",
                self.learner.state.step,
                self.started.elapsed().as_secs_f64(),
                unix_millis() as f64 / 1000.0
            );
        }
        self.pin_doubling()?;
        let (store, config) = (&self.store, &self.learner.config);
        retry("thinning old checkpoints", PATIENCE, || {
            retention::prune(store, config)
        })?;
        let (games, consumed) = (&mut self.game_retention, &self.learner.state.consumed);
        let deleted = retry("deleting game files no window reads", PATIENCE, || {
            games.prune(store, config, consumed)
        })?;
        self.metrics.append(&self.resources_line(deleted as u64))?;
        let metrics = &self.metrics;
        retry("publishing metrics", PATIENCE, || metrics.publish(store))
    }
}
