//! Self-play as a service: evaluator threads and a rayon pool of workers, started
//! together, fed new weights while they run, and stopped keeping every finished game.
//!
//! With several evaluator instances (each owning a copy of the model), worker `w` sends its
//! leaves to instance `w % instances`. On this 2-core CPU two single-threaded instances beat
//! one instance with two libtorch threads: inside self-play the second OpenMP thread of a
//! shared forward pass gained nothing (README, self-play benchmark).

use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;

use super::record::GameRecord;
use super::worker::{run_worker, SharedCounters, WorkerSettings};
use crate::net::encode::Encode;
use crate::net::evaluator::{Evaluator, EvaluatorConfig};
use crate::net::model::Model;
use crate::net::NetError;

/// Running self-play: workers playing games through one batched evaluator.
pub struct SelfPlayPool {
    evaluators: Vec<Evaluator>,
    counters: Arc<SharedCounters>,
    games: Receiver<GameRecord>,
    exits: Receiver<()>,
    workers: usize,
    exited: usize,
    _threads: rayon::ThreadPool,
}

impl SelfPlayPool {
    /// Starts `workers` workers for game `S` with `model` behind `instances` evaluators;
    /// game numbers start at `next_game`, records carry `model_step`.
    pub fn start<S: Encode>(
        settings: WorkerSettings,
        workers: usize,
        model: Model,
        evaluator: EvaluatorConfig,
        instances: usize,
        next_game: u64,
        model_step: u64,
    ) -> Result<SelfPlayPool, NetError> {
        let mut evaluators = Vec::new();
        for _ in 1..instances.max(1) {
            evaluators.push(Evaluator::spawn(model.try_clone()?, evaluator.clone()));
        }
        evaluators.push(Evaluator::spawn(model, evaluator));
        let counters = Arc::new(SharedCounters::default());
        counters.next_game.store(next_game, Ordering::Relaxed);
        counters.model_step.store(model_step, Ordering::Relaxed);
        let (game_sender, games) = mpsc::channel();
        let (exit_sender, exits) = mpsc::channel::<()>();
        let threads = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .thread_name(|i| format!("selfplay-{i}"))
            .build()
            .map_err(|e| NetError::Shape(format!("cannot start self-play threads: {e}")))?;
        for w in 0..workers {
            let handle = evaluators[w % evaluators.len()].handle();
            let (settings, counters) = (settings.clone(), Arc::clone(&counters));
            let (sender, exit) = (game_sender.clone(), exit_sender.clone());
            threads.spawn(move || {
                run_worker::<S>(settings, handle, counters, sender);
                let _ = exit.send(());
            });
        }
        Ok(SelfPlayPool {
            evaluators,
            counters,
            games,
            exits,
            workers,
            exited: 0,
            _threads: threads,
        })
    }

    /// The games finished since the last call.
    pub fn finished_games(&self) -> Vec<GameRecord> {
        self.games.try_iter().collect()
    }

    /// True while at least one worker is running.
    pub fn alive(&mut self) -> bool {
        self.exited += self.exits.try_iter().count();
        self.exited < self.workers
    }

    /// Hands new weights (of training step `step`) to self-play.
    pub fn replace_model(&self, model: Model, step: u64) -> Result<(), NetError> {
        for evaluator in &self.evaluators[1..] {
            evaluator.replace_model(model.try_clone()?)?;
        }
        self.evaluators[0].replace_model(model)?;
        self.counters.model_step.store(step, Ordering::Relaxed);
        Ok(())
    }

    /// The number of the next game to start.
    pub fn next_game(&self) -> u64 {
        self.counters.next_game.load(Ordering::Relaxed)
    }

    /// Steps (searched or forced) played so far.
    pub fn steps_played(&self) -> u64 {
        self.counters.steps_played.load(Ordering::Relaxed)
    }

    /// Full searches (training samples) made so far.
    pub fn samples_made(&self) -> u64 {
        self.counters.full_searches.load(Ordering::Relaxed)
    }

    /// The evaluators' counters, summed over instances.
    pub fn evaluator_totals(&self) -> EvaluatorTotals {
        let mut totals = EvaluatorTotals {
            instances: self.evaluators.len(),
            ..EvaluatorTotals::default()
        };
        for evaluator in &self.evaluators {
            let stats = evaluator.stats();
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
        let games = self.finished_games();
        for evaluator in self.evaluators.drain(..) {
            evaluator.shutdown();
        }
        games
    }
}

/// The evaluators' work so far, summed over instances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvaluatorTotals {
    /// Evaluator instances.
    pub instances: usize,
    /// Positions evaluated.
    pub positions: u64,
    /// Forward passes.
    pub batches: u64,
    /// Nanoseconds the nets were busy (summed: up to `instances` times the wall time).
    pub busy_nanos: u64,
}
