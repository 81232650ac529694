//! Self-play as a service: batcher threads and a rayon pool of workers, started
//! together, fed new weights while they run, and stopped keeping every finished game.
//!
//! With several batcher instances (each owning a copy of the model), worker `w` sends its
//! leaves to instance `w % instances`. Which layout is fastest depends on the machine:
//! `checkers-zero bench` measures it, and `auto` ([`crate::net::threads`]) picks one.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::Instant;

use super::record::GameRecord;
use super::worker::{run_worker, SearchCounts, SharedCounters, WorkerSettings};
use crate::config::selfplay::NewWeights;
use crate::net::batcher::{Batcher, BatcherConfig};
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::net::net_eval::NetEvaluator;
use crate::net::NetError;

/// Running self-play: workers playing games through batched inference.
pub struct SelfPlayPool {
    batchers: Vec<Batcher>,
    /// The earlier checkpoint's net, when some games seat it (`selfplay.opponent_share`).
    opponent: Option<Batcher>,
    counters: Arc<SharedCounters>,
    games: Receiver<GameRecord>,
    /// A worker's exit, with its error if the net failed.
    exits: Receiver<Option<NetError>>,
    workers: usize,
    exited: usize,
    /// The first error a worker stopped with.
    failure: Option<NetError>,
    /// When the batchers started (their lifetime is the denominator of "busy").
    started: Instant,
    _threads: rayon::ThreadPool,
}

impl SelfPlayPool {
    /// Starts `workers` workers for game `S` with `model` behind `instances` batchers;
    /// game numbers start at `next_game`, records carry `model_step`. With `opponent` (an
    /// earlier checkpoint's model and step) and `selfplay.opponent_share` > 0, that share of
    /// the games seats it on one side, behind an batcher of its own.
    #[allow(clippy::too_many_arguments)]
    pub fn start<S: Encode>(
        settings: WorkerSettings,
        workers: usize,
        model: Model,
        batcher: BatcherConfig,
        instances: usize,
        next_game: u64,
        model_step: u64,
        opponent: Option<(Model, u64)>,
    ) -> Result<SelfPlayPool, NetError> {
        let opponent = opponent.filter(|_| settings.selfplay.opponent_share > 0.0);
        let opponent_step = opponent.as_ref().map_or(0, |o| o.1);
        let opponent = opponent.map(|(old, _)| Batcher::spawn(old, batcher.clone()));
        let mut batchers = Vec::new();
        for _ in 1..instances.max(1) {
            batchers.push(Batcher::spawn(model.try_clone()?, batcher.clone()));
        }
        batchers.push(Batcher::spawn(model, batcher));
        let counters = Arc::new(SharedCounters::default());
        counters.next_game.store(next_game, Ordering::Relaxed);
        counters.model_step.store(model_step, Ordering::Relaxed);
        counters
            .opponent_step
            .store(opponent_step, Ordering::Relaxed);
        let (game_sender, games) = mpsc::channel();
        let (exit_sender, exits) = mpsc::channel::<Option<NetError>>();
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("selfplay-{i}"))
            .build()
            .map_err(|e| NetError::Thread(format!("cannot start self-play threads: {e}")))?;
        for w in 0..workers {
            let handle = batchers[w % batchers.len()].handle();
            let old = opponent.as_ref().map(Batcher::handle);
            let (settings, counters) = (settings.clone(), Arc::clone(&counters));
            let (sender, exit) = (game_sender.clone(), exit_sender.clone());
            threads.spawn(move || {
                let net = NetEvaluator::new(handle);
                let old = old.map(NetEvaluator::new);
                let result = run_worker::<S, _>(settings, net, old, counters, sender);
                let _ = exit.send(result.err());
            });
        }
        Ok(SelfPlayPool {
            started: Instant::now(),
            batchers,
            opponent,
            counters,
            games,
            exits,
            workers,
            exited: 0,
            failure: None,
            _threads: threads,
        })
    }

    /// The games finished since the last call; an error once a worker has stopped because
    /// the net failed.
    pub fn finished_games(&mut self) -> Result<Vec<GameRecord>, NetError> {
        self.note_exits();
        match self.failure.take() {
            Some(error) => Err(error),
            None => Ok(self.games.try_iter().collect()),
        }
    }

    fn note_exits(&mut self) {
        for error in self.exits.try_iter() {
            self.exited += 1;
            if self.failure.is_none() {
                self.failure = error;
            }
        }
    }

    /// True while at least one worker is running.
    pub fn alive(&mut self) -> bool {
        self.note_exits();
        self.exited < self.workers
    }

    /// Hands new weights (of training step `step`) to self-play.
    pub fn replace_model(&self, model: Model, step: u64) -> Result<(), NetError> {
        for batcher in &self.batchers[1..] {
            batcher.replace_model(model.try_clone()?)?;
        }
        self.batchers[0].replace_model(model)?;
        self.counters.model_step.store(step, Ordering::Relaxed);
        Ok(())
    }

    /// Hands the earlier checkpoint's seat new weights (of step `step`), when it has one.
    pub fn replace_opponent(&self, model: Model, step: u64) -> Result<(), NetError> {
        if let Some(opponent) = &self.opponent {
            opponent.replace_model(model)?;
            self.counters.opponent_step.store(step, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Lets the games in flight finish and starts no new ones; the workers then exit
    /// ([`SelfPlayPool::alive`] turns false) and [`SelfPlayPool::stop`] returns the rest.
    pub fn drain(&self) {
        self.counters.drain.store(true, Ordering::Relaxed);
    }

    /// The number of the next game to start.
    pub fn next_game(&self) -> u64 {
        self.counters.next_game.load(Ordering::Relaxed)
    }

    /// The training step of the weights new games use.
    pub fn model_step(&self) -> u64 {
        self.counters.model_step.load(Ordering::Relaxed)
    }

    /// Steps (searched or forced) played so far.
    pub fn steps_played(&self) -> u64 {
        self.counters.steps_played.load(Ordering::Relaxed)
    }

    /// Full searches (training samples) made so far.
    pub fn samples_made(&self) -> u64 {
        self.counters.full_searches.load(Ordering::Relaxed)
    }

    /// What the searches asked of the net so far.
    pub fn search_counts(&self) -> SearchCounts {
        SearchCounts::read(&self.counters)
    }

    /// The batchers' counters, summed over instances.
    pub fn batcher_totals(&self) -> BatcherTotals {
        let lifetime = self.started.elapsed().as_nanos() as u64;
        let mut totals = BatcherTotals {
            instance_nanos: lifetime * self.batchers.len() as u64,
            ..BatcherTotals::default()
        };
        for batcher in &self.batchers {
            let stats = batcher.stats();
            totals.positions += stats.positions.load(Ordering::Relaxed);
            totals.batches += stats.batches.load(Ordering::Relaxed);
            totals.busy_nanos += stats.busy_nanos.load(Ordering::Relaxed);
        }
        totals
    }

    /// Stops the workers (dropping unfinished games) and returns the games that finished
    /// since the last [`SelfPlayPool::finished_games`].
    pub fn stop(mut self) -> Vec<GameRecord> {
        self.counters.stop.store(true, Ordering::Relaxed);
        while self.exited < self.workers && self.exits.recv().is_ok() {
            self.exited += 1;
        }
        let games = self.games.try_iter().collect();
        for batcher in self.batchers.drain(..).chain(self.opponent.take()) {
            batcher.shutdown();
        }
        games
    }
}

/// The batchers' work so far, summed over instances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatcherTotals {
    /// Nanoseconds the batchers have existed, summed over instances (a draining pool's
    /// batchers run beside the current pool's, so this is more than instances x wall).
    pub instance_nanos: u64,
    /// Positions evaluated.
    pub positions: u64,
    /// Forward passes.
    pub batches: u64,
    /// Nanoseconds the nets were busy (summed over instances: up to `instance_nanos`).
    pub busy_nanos: u64,
}

impl BatcherTotals {
    /// Adds `other`'s work (positions, batches, busy time, lifetime) to this.
    pub fn add(&mut self, other: &BatcherTotals) {
        self.instance_nanos += other.instance_nanos;
        self.positions += other.positions;
        self.batches += other.batches;
        self.busy_nanos += other.busy_nanos;
    }
}

/// Keeps a copy of `model` (of step `step`) among the newest `opponent_lag + 1` when some
/// games seat an earlier checkpoint; nothing otherwise.
fn remember(
    history: &mut VecDeque<(Model, u64)>,
    settings: &WorkerSettings,
    model: &Model,
    step: u64,
) -> Result<(), NetError> {
    let sp = &settings.selfplay;
    if sp.opponent_share <= 0.0 {
        return Ok(());
    }
    history.push_back((model.try_clone()?, step));
    while history.len() > sp.opponent_lag + 1 {
        history.pop_front();
    }
    Ok(())
}

/// A copy of the oldest checkpoint kept (the earlier checkpoint's seat), if any.
fn oldest(history: &VecDeque<(Model, u64)>) -> Result<Option<(Model, u64)>, NetError> {
    history
        .front()
        .map(|(model, step)| Ok((model.try_clone()?, *step)))
        .transpose()
}

/// The signature of [`SelfPlayPool::start`] for one game type.
type StartPool = fn(
    WorkerSettings,
    usize,
    Model,
    BatcherConfig,
    usize,
    u64,
    u64,
    Option<(Model, u64)>,
) -> Result<SelfPlayPool, NetError>;

/// Self-play that takes new weights between games: new games start with the new weights
/// (in a new pool) while the games in flight finish with the weights they began with (the
/// old pool drains, then stops), so every game is played by one checkpoint throughout.
/// With `selfplay.new_weights = "at_once"` it hands them to the running pool instead.
pub struct RollingPool {
    start: StartPool,
    settings: WorkerSettings,
    workers: usize,
    batcher: BatcherConfig,
    instances: usize,
    current: SelfPlayPool,
    draining: Vec<SelfPlayPool>,
    /// Counters of the pools that have stopped: steps, samples, batcher work.
    retired: (u64, u64, BatcherTotals),
    /// Search counts of the pools that have stopped.
    retired_searches: SearchCounts,
    /// A switch waiting for the draining pool to finish.
    pending: Option<(Model, u64)>,
    /// With `selfplay.opponent_share`: the newest `opponent_lag + 1` checkpoints handed to
    /// self-play, oldest first; the oldest plays the earlier checkpoint's seat.
    history: VecDeque<(Model, u64)>,
}

impl RollingPool {
    /// Starts self-play for game `S`, as [`SelfPlayPool::start`].
    pub fn start<S: Encode>(
        settings: WorkerSettings,
        workers: usize,
        model: Model,
        batcher: BatcherConfig,
        instances: usize,
        next_game: u64,
        model_step: u64,
    ) -> Result<RollingPool, NetError> {
        let start: StartPool = SelfPlayPool::start::<S>;
        let mut history = VecDeque::new();
        remember(&mut history, &settings, &model, model_step)?;
        let current = start(
            settings.clone(),
            workers,
            model,
            batcher.clone(),
            instances,
            next_game,
            model_step,
            oldest(&history)?,
        )?;
        Ok(RollingPool {
            start,
            settings,
            workers,
            batcher,
            instances,
            current,
            draining: Vec::new(),
            retired: (0, 0, BatcherTotals::default()),
            retired_searches: SearchCounts::default(),
            pending: None,
            history,
        })
    }

    /// New games use `model` (of training step `step`) from now on, or, while an older
    /// pool is still draining, from the moment it has drained (a newer `switch` meanwhile
    /// replaces this one): at most two pools share the cores.
    pub fn switch(&mut self, model: Model, step: u64) -> Result<(), NetError> {
        if self.settings.selfplay.new_weights == NewWeights::AtOnce {
            remember(&mut self.history, &self.settings, &model, step)?;
            if let Some((old, old_step)) = oldest(&self.history)? {
                self.current.replace_opponent(old, old_step)?;
            }
            return self.current.replace_model(model, step);
        }
        if !self.draining.is_empty() {
            self.pending = Some((model, step));
            return Ok(());
        }
        self.current.drain();
        // Past every number the draining pool may still hand out (a worker that had not
        // yet seen the drain fills its games once more).
        let in_flight = (self.workers * self.settings.selfplay.games_in_flight) as u64;
        let next_game = self.current.next_game() + in_flight;
        remember(&mut self.history, &self.settings, &model, step)?;
        let fresh = (self.start)(
            self.settings.clone(),
            self.workers,
            model,
            self.batcher.clone(),
            self.instances,
            next_game,
            step,
            oldest(&self.history)?,
        )?;
        self.draining
            .push(std::mem::replace(&mut self.current, fresh));
        Ok(())
    }

    /// The games finished since the last call, from every pool; stops drained pools and
    /// then makes a deferred switch.
    pub fn finished_games(&mut self) -> Result<Vec<GameRecord>, NetError> {
        let mut games = self.current.finished_games()?;
        let mut i = 0;
        while i < self.draining.len() {
            if self.draining[i].alive() {
                games.extend(self.draining[i].finished_games()?);
                i += 1;
            } else {
                let pool = self.draining.swap_remove(i);
                self.retired.0 += pool.steps_played();
                self.retired.1 += pool.samples_made();
                self.retired.2.add(&pool.batcher_totals());
                self.retired_searches.add(&pool.search_counts());
                games.extend(pool.stop());
            }
        }
        if self.draining.is_empty() {
            if let Some((model, step)) = self.pending.take() {
                self.switch(model, step)?;
            }
        }
        Ok(games)
    }

    /// The step of the weights new games use (a deferred switch not yet made).
    pub fn model_step(&self) -> u64 {
        self.current.model_step()
    }

    /// Lets every game in flight finish and starts no new ones (a deferred switch is
    /// dropped); [`RollingPool::playing`] turns false once they have.
    pub fn drain(&mut self) {
        self.pending = None;
        self.current.drain();
    }

    /// True while any pool still has games in flight (or has not been drained).
    pub fn playing(&mut self) -> bool {
        self.current.alive() || !self.draining.is_empty()
    }

    /// The number of the next game to start (past every game started so far).
    pub fn next_game(&self) -> u64 {
        self.current.next_game()
    }

    /// Pools draining (playing out games of older weights).
    pub fn draining(&self) -> usize {
        self.draining.len()
    }

    /// True while the current pool's workers run.
    pub fn alive(&mut self) -> bool {
        self.current.alive()
    }

    /// Steps played by every pool so far.
    pub fn steps_played(&self) -> u64 {
        self.retired.0 + self.pools().map(SelfPlayPool::steps_played).sum::<u64>()
    }

    /// Training samples made by every pool so far.
    pub fn samples_made(&self) -> u64 {
        self.retired.1 + self.pools().map(SelfPlayPool::samples_made).sum::<u64>()
    }

    /// Batcher work of every pool so far.
    pub fn batcher_totals(&self) -> BatcherTotals {
        let mut totals = self.retired.2;
        for pool in self.pools() {
            totals.add(&pool.batcher_totals());
        }
        totals
    }

    /// What the searches of every pool asked of the net so far.
    pub fn search_counts(&self) -> SearchCounts {
        let mut counts = self.retired_searches;
        for pool in self.pools() {
            counts.add(&pool.search_counts());
        }
        counts
    }

    fn pools(&self) -> impl Iterator<Item = &SelfPlayPool> {
        std::iter::once(&self.current).chain(&self.draining)
    }

    /// Stops every pool (dropping unfinished games); returns the games finished since the
    /// last [`RollingPool::finished_games`].
    pub fn stop(self) -> Vec<GameRecord> {
        let mut games = self.current.stop();
        for pool in self.draining {
            games.extend(pool.stop());
        }
        games
    }
}
