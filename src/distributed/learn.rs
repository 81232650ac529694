//! The `learn` role: one per run. Takes in the game shards self-play publishes, each exactly
//! once, trains on them as the replay ratio allows, and publishes a checkpoint (with the
//! shards it took in since the previous one) every `steps_per_iteration` steps.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{
    checkpoint_key, fetch_checkpoint, parse_shard_key, prune_cache, publish_checkpoint,
    read_pointer, write_pointer, DistError, StopFlag, StoredMetrics, WorkDir, CHECKPOINT_FILES,
    CONFIG_KEY, LATEST_KEY, PROMOTED_KEY,
};
use crate::net::encode::Encode;
use crate::selfplay::record::{parse_records, GameRecord};
use crate::store::RunStore;
use crate::train::config::RunConfig;
use crate::train::learner::Learner;
use crate::train::trainer::StepStats;
use crate::with_game;

/// Shards fetched per batch of concurrent gets.
const SHARDS_PER_FETCH: usize = 256;

/// The learner's metrics object.
pub const LEARNER_METRICS_KEY: &str = "learner/metrics.jsonl";

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
    let mut config = run_config(&store, options.config.as_deref(), &options.net)?;
    config.override_net(&options.net);
    with_game!(config.kind(), S => LearnerRole::<S>::start(options, store, config)?.run())
}

/// The stored config, or (new run) the given one with `net` over it, stored. A given config
/// must match the stored one.
fn run_config(
    store: &RunStore,
    given: Option<&Path>,
    net: &crate::net::args::NetArgs,
) -> Result<RunConfig, DistError> {
    let stored = store.get_text(CONFIG_KEY)?;
    let given = given.map(RunConfig::load).transpose()?;
    match (stored, given) {
        (Some(text), given) => {
            let config = RunConfig::parse(&text, &format!("{}/{CONFIG_KEY}", store.location()))?;
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
            store.put(CONFIG_KEY, config.to_toml().into_bytes())?;
            Ok(config)
        }
        (None, None) => Err(DistError::Run(format!(
            "{} holds no run: pass --config to start one",
            store.location()
        ))),
    }
}

/// The chain link of a published checkpoint: which shards it took in after `previous`.
#[derive(Clone, Debug)]
struct Link {
    step: u64,
    previous: Option<u64>,
    shards: Vec<String>,
}

/// Intake since the iteration's start, for the metrics.
#[derive(Clone, Copy, Debug, Default)]
struct IntakeTally {
    shards: u64,
    games: u64,
    samples: u64,
    rejected: u64,
}

struct LearnerRole<S: Encode> {
    options: LearnOptions,
    store: RunStore,
    work: WorkDir,
    learner: Learner<S>,
    metrics: StoredMetrics,
    /// The newest published checkpoint's link.
    published: Option<Link>,
    /// Shards taken in since then.
    pending: Vec<String>,
    total: IntakeTally,
    start_step: u64,
    started: Instant,
    elapsed_base: f64,
}

impl<S: Encode> LearnerRole<S> {
    /// Resumes from the newest checkpoint (re-reading the shards it took in), or starts a
    /// fresh net and publishes it as step 0 so that self-play can begin.
    fn start(
        options: &LearnOptions,
        store: RunStore,
        config: RunConfig,
    ) -> Result<Self, DistError> {
        let work = WorkDir::new(options.work_dir.as_deref(), "learn")?;
        let cache = work.path().join("checkpoints");
        let latest = read_pointer(&store, LATEST_KEY)?;
        let (learner, published) = match latest {
            Some(step) => {
                let dir = fetch_checkpoint(&store, step, &CHECKPOINT_FILES, &cache)?;
                let learner = Learner::<S>::new(config, Some(&dir))?;
                (learner, Some(read_link(&store, step)?))
            }
            None => (Learner::<S>::new(config, None)?, None),
        };
        let metrics = StoredMetrics::open(
            &store,
            LEARNER_METRICS_KEY,
            work.path(),
            Some(learner.state.step),
        )?;
        let mut role = LearnerRole {
            options: options.clone(),
            start_step: learner.state.step,
            elapsed_base: learner.state.elapsed_s,
            store,
            work,
            learner,
            metrics,
            published,
            pending: Vec::new(),
            total: IntakeTally::default(),
            started: Instant::now(),
        };
        match latest {
            Some(_) => role.reread_consumed()?,
            None => {
                role.checkpoint()?;
                if role.learner.config.evaluation.gating {
                    write_pointer(&role.store, PROMOTED_KEY, 0)?;
                }
            }
        }
        Ok(role)
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
                .flat_map(|(session, n)| (0..*n).map(|seq| super::shard_key(session, seq)))
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

    /// Adds a shard's games to the window; returns (games, samples), or `None` (with a
    /// warning) for a shard that cannot be used.
    fn ingest_shard(&mut self, key: &str, text: &str) -> Option<(u64, u64)> {
        let games = match parse_records(text, Path::new(key)) {
            Ok(games) => games,
            Err(e) => {
                eprintln!("warning: skipping shard {key}: {e}");
                return None;
            }
        };
        Some(self.ingest_games(key, &games))
    }

    /// Adds parsed games of shard `key` to the window; returns (games, samples).
    fn ingest_games(&mut self, key: &str, games: &[GameRecord]) -> (u64, u64) {
        let mut samples = 0;
        for game in games {
            match self.learner.ingest(game) {
                Ok(n) => samples += n as u64,
                Err(e) => {
                    eprintln!("warning: skipping a game of shard {key}: {e}");
                }
            }
        }
        (games.len() as u64, samples)
    }

    /// Takes in every new shard, in order within each session. Returns the tally and the
    /// time the listing took.
    fn take_in(&mut self) -> Result<(IntakeTally, Duration), DistError> {
        let mut available: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
        let started = Instant::now();
        let keys = self.store.list("games")?;
        let listing = started.elapsed();
        for key in keys {
            if let Some((session, seq)) = parse_shard_key(&key) {
                available
                    .entry(session.to_string())
                    .or_default()
                    .insert(seq);
            }
        }
        // The new shards: each session's next ones, in order, up to the first gap.
        let mut new: Vec<(String, u64)> = Vec::new();
        for (session, seqs) in available {
            let mut next = self
                .learner
                .state
                .consumed
                .get(&session)
                .copied()
                .unwrap_or(0);
            while seqs.contains(&next) {
                new.push((session.clone(), next));
                next += 1;
            }
        }
        let mut tally = IntakeTally::default();
        let mut stopped = BTreeSet::new();
        for chunk in new.chunks(SHARDS_PER_FETCH) {
            let keys: Vec<String> = chunk.iter().map(|(s, n)| super::shard_key(s, *n)).collect();
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
                match self.ingest_shard(key, &String::from_utf8_lossy(&bytes)) {
                    Some((games, samples)) => {
                        tally.games += games;
                        tally.samples += samples;
                    }
                    None => tally.rejected += 1,
                }
                tally.shards += 1;
                self.learner.state.consumed.insert(session.clone(), seq + 1);
                self.pending.push(key.clone());
            }
        }
        self.total.shards += tally.shards;
        self.total.games += tally.games;
        self.total.samples += tally.samples;
        self.total.rejected += tally.rejected;
        Ok((tally, listing))
    }

    /// Writes and publishes a checkpoint of the current step with the shards taken in since
    /// the previous one, then the metrics.
    fn checkpoint(&mut self) -> Result<(), DistError> {
        let step = self.learner.state.step;
        self.learner.state.elapsed_s = self.elapsed_base + self.started.elapsed().as_secs_f64();
        self.learner.state.samples_seen = self.learner.samples_total;
        self.learner.state.games_seen = self.learner.games_total;
        let cache = self.work.path().join("checkpoints");
        let dir = self.learner.save_checkpoint(&cache)?;
        let pending = std::mem::take(&mut self.pending);
        let link = match self.published.take() {
            None => Link {
                step,
                previous: None,
                shards: pending,
            },
            // Again at the same step (more intake, no training): extend its link.
            Some(mut same) if same.step == step => {
                same.shards.extend(pending);
                same
            }
            Some(before) => Link {
                step,
                previous: Some(before.step),
                shards: pending,
            },
        };
        let intake = json!({
            "step": step, "previous": link.previous, "shards": link.shards,
            "published_unix_ms": super::unix_millis() as u64,
        });
        publish_checkpoint(&self.store, &dir, step, &intake)?;
        self.published = Some(link);
        prune_cache(&cache, &[step]);
        self.metrics.publish(&self.store)
    }

    fn run(mut self) -> Result<LearnSummary, DistError> {
        let stop = StopFlag::on_signals();
        let t = self.learner.config.train.clone();
        let target = self
            .options
            .max_steps
            .or((t.iterations > 0).then(|| t.iterations * t.steps_per_iteration));
        let minutes = self.options.max_minutes.unwrap_or(t.max_minutes);
        let deadline =
            (minutes > 0.0).then(|| self.started + Duration::from_secs_f64(minutes * 60.0));
        let poll = Duration::from_secs_f64(self.options.poll_seconds.max(0.05));
        let bar = super::progress_bar(self.options.progress, "learn", target);
        bar.set_position(self.learner.state.step);
        let mut last_list: Option<(Instant, Duration)> = None;
        let mut last_new = Instant::now();
        let mut losses = StepStats::default();
        let mut iteration = IterationMarks::new(&self.total);
        while !stop.raised()
            && target.is_none_or(|s| self.learner.state.step < s)
            && deadline.is_none_or(|d| Instant::now() < d)
        {
            // Listing grows with the run (every shard ever written): look at most every
            // `poll`, and at most a tenth of the time.
            if last_list.is_none_or(|(at, took)| at.elapsed() >= poll.max(took * 10)) {
                let (tally, listing) = self.take_in()?;
                if tally.shards > 0 {
                    last_new = Instant::now();
                }
                last_list = Some((Instant::now(), listing));
            }
            if self.learner.ready() {
                let started = Instant::now();
                let stats = self.learner.step();
                iteration.train_time += started.elapsed();
                losses.add(&stats);
                iteration.steps += 1;
                if self
                    .learner
                    .state
                    .step
                    .is_multiple_of(t.steps_per_iteration)
                {
                    self.checkpoint()?;
                    let line = self.report(&iteration, &losses.scaled(iteration.steps as f64))?;
                    bar.println(&line);
                    if !self.options.progress {
                        eprintln!("{line}");
                    }
                    losses = StepStats::default();
                    iteration = IterationMarks::new(&self.total);
                }
            } else if self
                .options
                .idle_exit
                .is_some_and(|s| last_new.elapsed().as_secs_f64() >= s)
            {
                break;
            } else {
                std::thread::sleep(Duration::from_millis(20));
            }
            bar.set_position(self.learner.state.step);
            bar.set_message(format!(
                "step {} | {} shards, {} games taken in | window {}",
                self.learner.state.step,
                self.total.shards,
                self.total.games,
                self.learner.window.len()
            ));
            bar.tick();
        }
        // Take in what has come, and save it with the final checkpoint.
        self.take_in()?;
        let published_step = self.published.as_ref().map(|l| l.step);
        if published_step != Some(self.learner.state.step) || !self.pending.is_empty() {
            self.checkpoint()?;
        }
        bar.finish_and_clear();
        Ok(LearnSummary {
            start_step: self.start_step,
            final_step: self.learner.state.step,
            shards: self.total.shards,
            games: self.total.games,
            samples: self.total.samples,
            seconds: self.started.elapsed().as_secs_f64(),
            window: self.learner.window.len(),
        })
    }

    /// Writes the iteration's metrics (training and intake) and returns its summary line.
    fn report(&self, marks: &IterationMarks, losses: &StepStats) -> Result<String, DistError> {
        let seconds = marks.started.elapsed().as_secs_f64().max(1e-9);
        let batch = self.learner.config.train.batch_size as f64;
        let samples_per_s = marks.steps as f64 * batch / marks.train_time.as_secs_f64().max(1e-9);
        let shards = self.total.shards - marks.intake.shards;
        let games = self.total.games - marks.intake.games;
        let samples = self.total.samples - marks.intake.samples;
        let state = &self.learner.state;
        let intake: Value = json!({
            "type": "intake", "step": state.step, "elapsed_s": state.elapsed_s,
            "shards": shards, "games": games, "samples": samples,
            "shards_per_s": shards as f64 / seconds, "games_per_s": games as f64 / seconds,
            "samples_per_s": samples as f64 / seconds,
            "sessions": state.consumed.len(), "rejected_shards": self.total.rejected,
        });
        for line in [self.learner.train_metrics(losses, samples_per_s), intake] {
            self.metrics.append(&line)?;
        }
        Ok(format!(
            "step {:>6} | loss {:.3} (policy {:.3} value {:.3}) | took in {shards} shards, {games} games, \
             {samples} samples ({:.1} shards/s, {:.0} samples/s) | train {:.0} samples/s | window {} | {:.0}s",
            state.step,
            losses.total_loss,
            losses.policy_loss,
            losses.value_loss,
            shards as f64 / seconds,
            samples as f64 / seconds,
            samples_per_s,
            self.learner.window.len(),
            state.elapsed_s,
        ))
    }
}

/// Where an iteration started.
struct IterationMarks {
    started: Instant,
    intake: IntakeTally,
    steps: u64,
    train_time: Duration,
}

impl IterationMarks {
    fn new(total: &IntakeTally) -> IterationMarks {
        IterationMarks {
            started: Instant::now(),
            intake: *total,
            steps: 0,
            train_time: Duration::ZERO,
        }
    }
}

/// The training samples a game gives: its fully searched steps.
fn searched_steps(game: &GameRecord) -> u64 {
    game.steps.iter().filter(|s| !s.target.is_empty()).count() as u64
}

/// The link of the published checkpoint at `step`.
fn read_link(store: &RunStore, step: u64) -> Result<Link, DistError> {
    let key = checkpoint_key(step, "intake.json");
    let bad = |reason: &str| DistError::Run(format!("{}/{key}: {reason}", store.location()));
    let Some(text) = store.get_text(&key)? else {
        return Err(bad("missing"));
    };
    let value: Value = serde_json::from_str(&text).map_err(|e| bad(&e.to_string()))?;
    let shards = value["shards"]
        .as_array()
        .ok_or_else(|| bad("no shard list"))?
        .iter()
        .map(|s| {
            s.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad("a shard is not a string"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Link {
        step,
        previous: value["previous"].as_u64(),
        shards,
    })
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
