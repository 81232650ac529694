//! The learner role: one per run. Takes in the game shards self-play publishes, each exactly
//! once, trains on them as the replay ratio allows, and publishes a checkpoint (with the
//! shards it took in since the previous one) every `steps_per_iteration` steps.
//!
//! [`LearnerRole`] is the one training loop: the `learn` command drives it alone
//! ([`learn`]), and `train` drives it beside self-play and the evaluator in one process
//! (`super::train`). Both start, resume and stop through the same code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{
    fetch_checkpoint, prune_cache, publish_checkpoint, read_pointer, read_record, write_pointer,
    DistError, StopFlag, StoredMetrics, WorkDir,
};
use crate::game::Side;
use crate::layout::record::IntakeLink;
use crate::layout::{
    checkpoint_key, checkpoint_name, checkpoint_steps, parse_shard_key, shard_key, CHECKPOINTS,
    CHECKPOINT_FILES, CONFIG, GAMES, INTAKE_FILE, LATEST, LEARNER_METRICS, PROMOTED,
};
use crate::net::encode::Encode;
use crate::selfplay::record::{parse_records, GameRecord};
use crate::selfplay::worker::SearchCounts;
use crate::store::RunStore;
use crate::train::config::{RunConfig, TrainConfig};
use crate::train::learner::Learner;
use crate::train::trainer::StepStats;
use crate::with_game;

/// Shards fetched per batch of concurrent gets.
const SHARDS_PER_FETCH: usize = 256;

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
    /// Local scratch directory (default: a temporary one, removed at exit).
    pub work_dir: Option<PathBuf>,
    /// Seconds between listings of the store's shards.
    pub poll_seconds: f64,
    /// Draw a progress bar.
    pub progress: bool,
    /// `--device` (the trainer's) and `--precision`; a new run stores them in its config,
    /// which self-play and the evaluator read.
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
pub fn learn(options: &LearnOptions) -> Result<LearnSummary, DistError> {
    let store = RunStore::open(&options.store)?;
    let given = options.config.as_deref().map(RunConfig::load).transpose()?;
    let mut config = run_config(&store, given, &options.net)?;
    config.override_net(&options.net);
    with_game!(config.kind(), S => drive::<S>(options, store, config))
}

/// The `learn` command's loop around [`LearnerRole`].
fn drive<S: Encode>(
    options: &LearnOptions,
    store: RunStore,
    config: RunConfig,
) -> Result<LearnSummary, DistError> {
    let stop = StopFlag::on_signals();
    let limits = StepLimits::new(&config.train, options.max_steps, options.max_minutes);
    let poll = Duration::from_secs_f64(options.poll_seconds.max(0.05));
    let mut role = LearnerRole::<S>::start(store, config, options.work_dir.as_deref(), poll)?;
    let bar = super::progress_bar(options.progress, "learn", limits.target);
    let mut last_new = Instant::now();
    while !stop.raised() && !limits.reached(role.step()) {
        role.follow(&limits);
        let tick = role.tick()?;
        if tick.shards > 0 {
            last_new = Instant::now();
        }
        if let Some(iteration) = tick.iteration {
            let line = role.report(&iteration, None)?;
            bar.println(&line);
            if !options.progress {
                eprintln!("{line}");
            }
        }
        if !tick.trained {
            if options
                .idle_exit
                .is_some_and(|s| last_new.elapsed().as_secs_f64() >= s)
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        bar.set_position(role.step());
        bar.set_message(role.describe());
        bar.tick();
    }
    role.finish()?;
    bar.finish_and_clear();
    Ok(role.summary())
}

/// The stored config, or (new run) the given one with `net` over it, stored. A given config
/// must match the stored one.
pub fn run_config(
    store: &RunStore,
    given: Option<RunConfig>,
    net: &crate::net::args::NetArgs,
) -> Result<RunConfig, DistError> {
    let stored = store.get_text(CONFIG)?;
    match (stored, given) {
        (Some(text), given) => {
            let config = RunConfig::parse(&text, &format!("{}/{CONFIG}", store.location()))?;
            if given.is_some_and(|g| g != config) {
                return Err(DistError::Run(format!(
                    "--config differs from the config the run at {} started with (drop --config to resume it)",
                    store.location()
                )));
            }
            Ok(config)
        }
        (None, Some(mut config)) => {
            config.override_net(net);
            store.put(CONFIG, config.to_toml().into_bytes())?;
            Ok(config)
        }
        (None, None) => Err(DistError::Run(format!(
            "{} holds no run: pass --config to start one",
            store.location()
        ))),
    }
}

/// When the learner stops: a step target and a deadline, either optional.
#[derive(Clone, Copy, Debug)]
pub struct StepLimits {
    /// Stop at this step.
    pub target: Option<u64>,
    started: Instant,
    deadline: Option<Instant>,
}

impl StepLimits {
    /// `max_steps` (default: `train.iterations` × `steps_per_iteration`, none when 0) and
    /// `max_minutes` from now (default `train.max_minutes`; 0: none).
    pub fn new(train: &TrainConfig, max_steps: Option<u64>, max_minutes: Option<f64>) -> Self {
        let target = max_steps
            .or((train.iterations > 0).then(|| train.iterations * train.steps_per_iteration));
        let minutes = max_minutes.unwrap_or(train.max_minutes);
        let started = Instant::now();
        StepLimits {
            target,
            started,
            deadline: (minutes > 0.0).then(|| started + Duration::from_secs_f64(minutes * 60.0)),
        }
    }

    /// How far through its budget the run is at `step` (0..=1): the larger of the step
    /// target's share and the deadline's; `None` without a limit.
    pub fn progress(&self, step: u64) -> Option<f64> {
        let by_steps = self.target.map(|t| step as f64 / t.max(1) as f64);
        let by_time = self.deadline.map(|d| {
            let whole = d.duration_since(self.started).as_secs_f64().max(1e-9);
            self.started.elapsed().as_secs_f64() / whole
        });
        let progress = match (by_steps, by_time) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        progress.map(|p| p.clamp(0.0, 1.0))
    }

    /// True once `step` reaches the target or the deadline has passed.
    pub fn reached(&self, step: u64) -> bool {
        self.target.is_some_and(|t| step >= t) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// What was taken in: shards, games and samples, and how the games went.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntakeTally {
    /// Shards taken in.
    pub shards: u64,
    /// Shards that could not be read.
    pub rejected: u64,
    /// Games in them.
    pub games: u64,
    /// Training samples in them.
    pub samples: u64,
    /// Steps played in the games (searched or not).
    pub game_steps: u64,
    /// Wins of side 0 and side 1.
    pub wins: [u64; 2],
    /// Drawn games.
    pub draws: u64,
    /// Games ended by resignation.
    pub resigned: u64,
    /// Per side, games it resigned.
    pub resigned_by: [u64; 2],
    /// Games played through with resignation disabled.
    pub played_through: u64,
    /// Per side, played-through games in which it would have resigned...
    pub would_resign: [u64; 2],
    /// ...and of those, games it did not lose (a false resignation).
    pub false_resign: [u64; 2],
    /// Per side, the resign threshold of the last game taken in that had one.
    pub resign_threshold: [Option<f32>; 2],
}

impl IntakeTally {
    /// Counts a game that gave `samples` training samples.
    fn add_game(&mut self, record: &GameRecord, samples: u64) {
        self.games += 1;
        self.samples += samples;
        self.game_steps += record.steps.len() as u64;
        match record.winner {
            Some(w) => self.wins[(w as usize).min(1)] += 1,
            None => self.draws += 1,
        }
        self.resigned += record.resigned as u64;
        if let (true, Some(winner)) = (record.resigned, record.winner) {
            self.resigned_by[1 - (winner as usize).min(1)] += 1;
        }
        self.played_through += record.played_through as u64;
        for side in 0..2 {
            if record.played_through && record.would_resign[side].is_some() {
                self.would_resign[side] += 1;
                self.false_resign[side] += u64::from(record.score(Side(side as u8)) > 0.0);
            }
            if let Some(t) = record.resign_thresholds[side] {
                self.resign_threshold[side] = Some(t);
            }
        }
    }

    /// Adds `other`'s counts to this.
    fn merge(&mut self, other: &IntakeTally) {
        self.shards += other.shards;
        self.rejected += other.rejected;
        self.games += other.games;
        self.samples += other.samples;
        self.game_steps += other.game_steps;
        self.wins[0] += other.wins[0];
        self.wins[1] += other.wins[1];
        self.draws += other.draws;
        self.resigned += other.resigned;
        self.played_through += other.played_through;
        for side in 0..2 {
            self.resigned_by[side] += other.resigned_by[side];
            self.would_resign[side] += other.would_resign[side];
            self.false_resign[side] += other.false_resign[side];
            if other.resign_threshold[side].is_some() {
                self.resign_threshold[side] = other.resign_threshold[side];
            }
        }
    }
}

/// One iteration of training: its steps, losses and intake.
#[derive(Debug)]
pub struct Iteration {
    started: Instant,
    /// What was taken in during it.
    pub intake: IntakeTally,
    /// Training steps.
    pub steps: u64,
    train_time: Duration,
    losses: StepStats,
}

impl Iteration {
    fn new() -> Iteration {
        Iteration {
            started: Instant::now(),
            intake: IntakeTally::default(),
            steps: 0,
            train_time: Duration::ZERO,
            losses: StepStats::default(),
        }
    }

    /// Wall time since it began (seconds).
    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64().max(1e-9)
    }
}

/// What one turn of the learner's loop did.
#[derive(Debug, Default)]
pub struct Tick {
    /// Shards taken in.
    pub shards: u64,
    /// True if it trained a step.
    pub trained: bool,
    /// The loss of that step.
    pub loss: f64,
    /// The iteration that step completed (a checkpoint was published).
    pub iteration: Option<Iteration>,
}

/// Self-play's rates over an iteration, when self-play runs in the same process.
#[derive(Clone, Copy, Debug, Default)]
pub struct SelfPlayRates {
    /// Positions played per second (searched or not).
    pub positions_per_s: f64,
    /// Positions the nets evaluated per second.
    pub net_positions_per_s: f64,
    /// Positions per forward pass.
    pub net_mean_batch: f64,
    /// Share of the time the nets were busy (per instance).
    pub net_busy: f64,
    /// What the searches asked of the net over the same time.
    pub searches: SearchCounts,
}

/// The learner of a run: model, optimizer and window, fed from the store's shards.
pub struct LearnerRole<S: Encode> {
    store: RunStore,
    work: WorkDir,
    learner: Learner<S>,
    metrics: StoredMetrics,
    /// The newest published checkpoint's link.
    published: Option<IntakeLink>,
    /// Shards taken in since then.
    pending: Vec<String>,
    total: IntakeTally,
    iteration: Iteration,
    poll: Duration,
    last_list: Option<(Instant, Duration)>,
    start_step: u64,
    started: Instant,
    elapsed_base: f64,
}

impl<S: Encode> LearnerRole<S> {
    /// Resumes from the newest checkpoint that loads (re-reading the shards it took in), or
    /// starts a fresh net and publishes it as step 0 (so that self-play can begin, and a
    /// stop before the first step leaves a checkpoint). Lists new shards at most every
    /// `poll`; local files go to `work_dir` (default: a temporary directory).
    pub fn start(
        store: RunStore,
        config: RunConfig,
        work_dir: Option<&Path>,
        poll: Duration,
    ) -> Result<Self, DistError> {
        let work = WorkDir::new(work_dir, "learn")?;
        let cache = work.path().join(CHECKPOINTS);
        let newest = load_newest::<S>(&store, &config, &cache)?;
        let resumed = newest.is_some();
        let (learner, published) = match newest {
            Some((learner, link)) => (learner, Some(link)),
            None => (Learner::<S>::new(config, None)?, None),
        };
        let metrics = StoredMetrics::open(
            &store,
            LEARNER_METRICS,
            work.path(),
            Some(learner.state.step),
        )?;
        let mut role = LearnerRole {
            start_step: learner.state.step,
            elapsed_base: learner.state.elapsed_s,
            store,
            work,
            learner,
            metrics,
            published,
            pending: Vec::new(),
            total: IntakeTally::default(),
            iteration: Iteration::new(),
            poll,
            last_list: None,
            started: Instant::now(),
        };
        if resumed {
            role.reread_consumed()?;
        } else {
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
        self.learner.progress = limits.progress(self.step());
    }

    /// The run's config.
    pub fn config(&self) -> &RunConfig {
        &self.learner.config
    }

    /// Samples taken in by this invocation and (after a resume) before it.
    pub fn samples_total(&self) -> u64 {
        self.learner.samples_total
    }

    /// Samples in the replay window.
    pub fn window_len(&self) -> usize {
        self.learner.window.len()
    }

    /// One line on where the learner is, for a progress bar.
    pub fn describe(&self) -> String {
        format!(
            "step {} | {} shards, {} games taken in | window {}",
            self.learner.state.step,
            self.total.shards,
            self.total.games,
            self.learner.window.len()
        )
    }

    /// One turn of the loop: takes in new shards (if the last listing is `poll` old, and
    /// at most a tenth of the time: listing grows with the run), then trains a step if the
    /// replay ratio allows, publishing a checkpoint at the end of an iteration.
    pub fn tick(&mut self) -> Result<Tick, DistError> {
        let mut tick = Tick::default();
        let poll = self.poll;
        if self
            .last_list
            .is_none_or(|(at, took)| at.elapsed() >= poll.max(took * 10))
        {
            let (tally, listing) = self.take_in()?;
            tick.shards = tally.shards;
            self.last_list = Some((Instant::now(), listing));
        }
        if !self.learner.ready() {
            return Ok(tick);
        }
        let started = Instant::now();
        let stats = self.learner.step();
        self.iteration.train_time += started.elapsed();
        self.iteration.losses.add(&stats);
        self.iteration.steps += 1;
        tick.trained = true;
        tick.loss = stats.total_loss;
        let every = self.learner.config.train.steps_per_iteration;
        if self.learner.state.step.is_multiple_of(every) {
            self.checkpoint()?;
            tick.iteration = Some(std::mem::replace(&mut self.iteration, Iteration::new()));
        }
        Ok(tick)
    }

    /// Takes in what has come and publishes it with a final checkpoint (unless the newest
    /// checkpoint already holds everything).
    pub fn finish(&mut self) -> Result<(), DistError> {
        self.take_in()?;
        let published_step = self.published.as_ref().map(|l| l.step);
        if published_step != Some(self.learner.state.step) || !self.pending.is_empty() {
            self.checkpoint()?;
        }
        // The last iteration's report comes after its checkpoint: publish it too.
        self.metrics.publish(&self.store)
    }

    /// What this invocation did.
    pub fn summary(&self) -> LearnSummary {
        LearnSummary {
            start_step: self.start_step,
            final_step: self.learner.state.step,
            shards: self.total.shards,
            games: self.total.games,
            samples: self.total.samples,
            seconds: self.started.elapsed().as_secs_f64(),
            window: self.learner.window.len(),
        }
    }

    /// Rebuilds the replay window from the shards the checkpoint had taken in: only the
    /// newest ones that fill it (walking the checkpoints' intake links back), so a restart
    /// costs the window's size, not the run's length.
    fn reread_consumed(&mut self) -> Result<(), DistError> {
        let state = self.learner.state.clone();
        let chain = if state.samples_seen > 0 {
            intake_chain(&self.store, state.step).ok()
        } else {
            None
        };
        let Some(chain) = chain else {
            // Without the chain or the counts: every shard, session by session.
            let keys: Vec<String> = state
                .consumed
                .iter()
                .flat_map(|(session, n)| (0..*n).map(|seq| shard_key(session, seq)))
                .collect();
            return self.reingest(&keys);
        };
        // Sized for the whole run from the start, so that re-reading evicts nothing early.
        self.learner
            .restore_totals(state.samples_seen, state.games_seen);
        let capacity = self.learner.config.window_size(state.samples_seen) as u64;
        let mut newest = Vec::new();
        let mut samples = 0u64;
        'back: for chunk in chain.rchunks(SHARDS_PER_FETCH).map(<[String]>::to_vec) {
            for (key, bytes) in chunk.iter().zip(self.store.get_many(&chunk)?).rev() {
                let Some(bytes) = bytes else { continue };
                let games = parse_records(&String::from_utf8_lossy(&bytes), Path::new(key))
                    .unwrap_or_default();
                samples += games.iter().map(searched_steps).sum::<u64>();
                newest.push((key.clone(), games));
                if samples >= capacity {
                    break 'back;
                }
            }
        }
        for (key, games) in newest.iter().rev() {
            self.ingest_games(key, games);
        }
        self.learner
            .restore_totals(state.samples_seen, state.games_seen);
        Ok(())
    }

    /// Adds the shards `keys` to the window, in order.
    fn reingest(&mut self, keys: &[String]) -> Result<(), DistError> {
        for chunk in keys.chunks(SHARDS_PER_FETCH) {
            for (key, bytes) in chunk.iter().zip(self.store.get_many(chunk)?) {
                match bytes {
                    Some(bytes) => {
                        self.ingest_shard(key, &String::from_utf8_lossy(&bytes));
                    }
                    None => eprintln!("warning: {key} was taken in before but is gone"),
                }
            }
        }
        Ok(())
    }

    /// Adds a shard's games to the window and counts them, or (with a warning) counts a
    /// shard that cannot be used as rejected.
    fn ingest_shard(&mut self, key: &str, text: &str) -> IntakeTally {
        let mut tally = match parse_records(text, Path::new(key)) {
            Ok(games) => self.ingest_games(key, &games),
            Err(e) => {
                eprintln!("warning: skipping shard {key}: {e}");
                IntakeTally {
                    rejected: 1,
                    ..IntakeTally::default()
                }
            }
        };
        tally.shards = 1;
        tally
    }

    /// Adds parsed games of shard `key` to the window; returns their counts.
    fn ingest_games(&mut self, key: &str, games: &[GameRecord]) -> IntakeTally {
        let mut tally = IntakeTally::default();
        for game in games {
            match self.learner.ingest(game) {
                Ok(n) => tally.add_game(game, n as u64),
                Err(e) => {
                    eprintln!("warning: skipping a game of shard {key}: {e}");
                }
            }
        }
        tally
    }

    /// The shards not taken in yet: each session's next ones, in order, up to the first
    /// gap. Also returns the time the listing took.
    fn new_shards(&self) -> Result<(Vec<(String, u64)>, Duration), DistError> {
        let mut available: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
        let started = Instant::now();
        let keys = self.store.list(GAMES)?;
        let listing = started.elapsed();
        for key in keys {
            if let Some((session, seq)) = parse_shard_key(&key) {
                available
                    .entry(session.to_string())
                    .or_default()
                    .insert(seq);
            }
        }
        let mut new = Vec::new();
        for (session, seqs) in available {
            let consumed = &self.learner.state.consumed;
            let mut next = consumed.get(&session).copied().unwrap_or(0);
            while seqs.contains(&next) {
                new.push((session.clone(), next));
                next += 1;
            }
        }
        Ok((new, listing))
    }

    /// Takes in every new shard, in order within each session. Returns the tally and the
    /// time the listing took.
    fn take_in(&mut self) -> Result<(IntakeTally, Duration), DistError> {
        let (new, listing) = self.new_shards()?;
        let mut tally = IntakeTally::default();
        let mut stopped = BTreeSet::new();
        for chunk in new.chunks(SHARDS_PER_FETCH) {
            let keys: Vec<String> = chunk.iter().map(|(s, n)| shard_key(s, *n)).collect();
            for ((session, seq), (key, bytes)) in chunk
                .iter()
                .zip(keys.iter().zip(self.store.get_many(&keys)?))
            {
                if stopped.contains(session) {
                    continue;
                }
                let Some(bytes) = bytes else {
                    // Listed but gone (deleted by hand): this session stops here for now.
                    stopped.insert(session.clone());
                    continue;
                };
                tally.merge(&self.ingest_shard(key, &String::from_utf8_lossy(&bytes)));
                self.learner.state.consumed.insert(session.clone(), seq + 1);
                self.pending.push(key.clone());
            }
        }
        self.total.merge(&tally);
        self.iteration.intake.merge(&tally);
        Ok((tally, listing))
    }

    /// Writes and publishes a checkpoint of the current step with the shards taken in since
    /// the previous one, then the metrics.
    fn checkpoint(&mut self) -> Result<(), DistError> {
        let step = self.learner.state.step;
        self.learner.state.elapsed_s = self.elapsed_base + self.started.elapsed().as_secs_f64();
        self.learner.state.samples_seen = self.learner.samples_total;
        self.learner.state.games_seen = self.learner.games_total;
        let cache = self.work.path().join(CHECKPOINTS);
        let dir = self.learner.save_checkpoint(&cache)?;
        let pending = std::mem::take(&mut self.pending);
        let mut link = match self.published.take() {
            None => IntakeLink {
                step,
                previous: None,
                shards: pending,
                published_unix_ms: 0,
            },
            // Again at the same step (more intake, no training): extend its link.
            Some(mut same) if same.step == step => {
                same.shards.extend(pending);
                same
            }
            Some(before) => IntakeLink {
                step,
                previous: Some(before.step),
                shards: pending,
                published_unix_ms: 0,
            },
        };
        link.published_unix_ms = super::unix_millis() as u64;
        publish_checkpoint(&self.store, &dir, &link)?;
        self.published = Some(link);
        prune_cache(&cache, &[step]);
        self.metrics.publish(&self.store)
    }

    /// Writes one more metrics line (self-play's precision choice, say), at the current step.
    pub fn record(&self, mut line: Value) -> Result<(), DistError> {
        line["step"] = json!(self.learner.state.step);
        self.metrics.append(&line)
    }

    /// Writes an iteration's metrics (training, intake and, when given, self-play's rates)
    /// and returns its summary line.
    pub fn report(
        &self,
        iteration: &Iteration,
        selfplay: Option<&SelfPlayRates>,
    ) -> Result<String, DistError> {
        let seconds = iteration.seconds();
        let batch = self.learner.config.train.batch_size as f64;
        let train_seconds = iteration.train_time.as_secs_f64().max(1e-9);
        let samples_per_s = iteration.steps as f64 * batch / train_seconds;
        let losses = iteration.losses.scaled(iteration.steps as f64);
        let state = &self.learner.state;
        let mut lines = vec![
            self.learner.train_metrics(&losses, samples_per_s),
            self.intake_metrics(&iteration.intake, seconds),
        ];
        if let Some(rates) = selfplay {
            lines.push(json!({
                "type": "selfplay", "step": state.step, "elapsed_s": state.elapsed_s,
                "positions_per_s": rates.positions_per_s,
                "net_positions_per_s": rates.net_positions_per_s,
                "net_mean_batch": rates.net_mean_batch, "net_busy": rates.net_busy,
                "net_calls_per_searched_step": rates.searches.net_calls_per_searched_step(),
                "forced_leaf_share": rates.searches.forced_leaf_share(),
            }));
        }
        for line in &lines {
            self.metrics.append(line)?;
        }
        let t = &iteration.intake;
        let selfplay = selfplay.map_or(String::new(), |r| {
            format!(
                "self-play {:.0} pos/s, net {:.0} pos/s batch {:.0} busy {:.0}% | ",
                r.positions_per_s,
                r.net_positions_per_s,
                r.net_mean_batch,
                100.0 * r.net_busy
            )
        });
        Ok(format!(
            "iter {:>4} step {:>6} | loss {:.3} (policy {:.3} value {:.3}) entropy {:.2} | \
             games {} (side0 {} side1 {} draw {}, resigned {}) mean {:.0} steps, {} shards, {} samples | \
             {selfplay}train {samples_per_s:.0} samples/s | window {} | {:.0}s",
            state.step / self.learner.config.train.steps_per_iteration,
            state.step,
            losses.total_loss,
            losses.policy_loss,
            losses.value_loss,
            losses.policy_entropy,
            t.games,
            t.wins[0],
            t.wins[1],
            t.draws,
            t.resigned,
            t.game_steps as f64 / t.games.max(1) as f64,
            t.shards,
            t.samples,
            self.learner.window.len(),
            state.elapsed_s,
        ))
    }

    /// The `intake` metrics line of an iteration: what came in and how the games went.
    fn intake_metrics(&self, t: &IntakeTally, seconds: f64) -> Value {
        let state = &self.learner.state;
        let rate = |wrong: u64, would: u64| (would > 0).then(|| wrong as f64 / would as f64);
        let false_resign_rate = rate(
            t.false_resign.iter().sum(),
            t.would_resign.iter().sum::<u64>(),
        );
        json!({
            "type": "intake", "step": state.step, "elapsed_s": state.elapsed_s,
            "shards": t.shards, "games": t.games, "samples": t.samples,
            "shards_per_s": t.shards as f64 / seconds, "games_per_s": t.games as f64 / seconds,
            "samples_per_s": t.samples as f64 / seconds,
            "games_total": self.learner.games_total, "samples_total": self.learner.samples_total,
            "mean_game_steps": t.game_steps as f64 / t.games.max(1) as f64,
            "wins_side0": t.wins[0], "wins_side1": t.wins[1], "draws": t.draws,
            "resigned": t.resigned, "played_through": t.played_through,
            "false_resign_rate": false_resign_rate,
            "resigned_side0": t.resigned_by[0], "resigned_side1": t.resigned_by[1],
            "would_resign_side0": t.would_resign[0], "would_resign_side1": t.would_resign[1],
            "false_resign_rate_side0": rate(t.false_resign[0], t.would_resign[0]),
            "false_resign_rate_side1": rate(t.false_resign[1], t.would_resign[1]),
            "resign_threshold_side0": t.resign_threshold[0],
            "resign_threshold_side1": t.resign_threshold[1],
            "sessions": state.consumed.len(), "rejected_shards": self.total.rejected,
        })
    }
}

/// The newest published checkpoint that loads, with its link, trying them from the one
/// `latest` names downwards; each one skipped is named on stderr with the reason, and
/// `latest` is moved back to the one used. `None` for a run without checkpoints; an error
/// when none loads.
fn load_newest<S: Encode>(
    store: &RunStore,
    config: &RunConfig,
    cache: &Path,
) -> Result<Option<(Learner<S>, IntakeLink)>, DistError> {
    let candidates = resume_candidates(store)?;
    let mut first_error = None;
    for (tried, &step) in candidates.iter().enumerate() {
        let loaded = fetch_checkpoint(store, step, &CHECKPOINT_FILES, cache)
            .and_then(|dir| Ok(Learner::<S>::new(config.clone(), Some(&dir))?))
            .and_then(|learner| Ok((learner, read_link(store, step)?)));
        match loaded {
            Ok(found) => {
                if tried > 0 {
                    eprintln!("resuming from {} instead", checkpoint_name(step));
                    write_pointer(store, LATEST, step)?;
                }
                return Ok(Some(found));
            }
            Err(error) => {
                eprintln!(
                    "warning: skipping checkpoint {} of {}: {error}",
                    checkpoint_name(step),
                    store.location()
                );
                first_error.get_or_insert(error);
            }
        }
    }
    match first_error {
        None => Ok(None),
        Some(error) => Err(DistError::Run(format!(
            "no checkpoint of {} loads (the newest: {error})",
            store.location()
        ))),
    }
}

/// The steps of the published checkpoints a learner may resume from, newest first: the
/// one `latest` names and those below it (a checkpoint above it was not published whole;
/// with an unreadable `latest`, every one there).
fn resume_candidates(store: &RunStore) -> Result<Vec<u64>, DistError> {
    let pointer = read_pointer(store, LATEST);
    let latest = pointer.as_ref().ok().copied().flatten();
    let mut steps: Vec<u64> = checkpoint_steps(&store.list(CHECKPOINTS)?)
        .into_iter()
        .filter(|step| latest.is_none_or(|l| *step <= l))
        .chain(latest)
        .collect();
    steps.sort_unstable_by(|a, b| b.cmp(a));
    steps.dedup();
    match pointer {
        // A bad pointer with checkpoints beside it: they are tried; with none, the run
        // cannot be told from a new one, so it stops.
        Err(error) if steps.is_empty() => Err(error),
        Err(error) => {
            eprintln!("warning: {error}; trying the checkpoints there");
            Ok(steps)
        }
        Ok(_) => Ok(steps),
    }
}

/// The training samples a game gives: its fully searched steps.
fn searched_steps(game: &GameRecord) -> u64 {
    game.steps.iter().filter(|s| !s.target.is_empty()).count() as u64
}

/// The link of the published checkpoint at `step`.
fn read_link(store: &RunStore, step: u64) -> Result<IntakeLink, DistError> {
    let key = checkpoint_key(step, INTAKE_FILE);
    read_record(store, &key)?
        .ok_or_else(|| DistError::Run(format!("{}/{key}: missing", store.location())))
}

/// Every shard the checkpoint chain ending at `step` took in, in order, following each
/// checkpoint's `previous` link (used to audit exactly-once intake).
pub fn intake_chain(store: &RunStore, step: u64) -> Result<Vec<String>, DistError> {
    let mut links = Vec::new();
    let mut at = Some(step);
    while let Some(step) = at {
        let link = read_link(store, step)?;
        if link.previous.is_some_and(|p| p >= step) {
            return Err(DistError::Run(format!(
                "checkpoint {step} links back to {:?}",
                link.previous
            )));
        }
        at = link.previous;
        links.push(link);
    }
    Ok(links.into_iter().rev().flat_map(|l| l.shards).collect())
}
