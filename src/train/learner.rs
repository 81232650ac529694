//! The learner's core, shared by `train` (one machine) and `learn` (the distributed role):
//! the model, its optimizer and counters, and the replay window, fed finished games and
//! stepped whenever the replay ratio allows.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::SeedableRng;
use serde_json::{json, Value};

use super::checkpoint::{load_checkpoint, write_checkpoint};
use super::config::RunConfig;
use super::error::TrainError;
use super::optimizer::AdamW;
use super::trainer::{train_step, StepStats};
use super::window::{samples_of_game, ReplayWindow, Sample, Symmetries};
use crate::layout::record::TrainState;
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::selfplay::diversity::{DiversityReport, GameDiversity, GameSummary};
use crate::selfplay::record::GameRecord;
use crate::util::game_seed;

/// Model, optimizer, counters and replay window of a run of game `S`.
pub struct Learner<S: Encode> {
    /// The run's config.
    pub config: RunConfig,
    /// The net being trained.
    pub model: Model,
    /// Its optimizer.
    pub optimizer: AdamW,
    /// The counters saved with checkpoints.
    pub state: TrainState,
    /// Recent training samples.
    pub window: ReplayWindow,
    /// Samples taken in (this invocation and, after a resume, the games re-read).
    pub samples_total: u64,
    /// Games taken in, counted like `samples_total`.
    pub games_total: u64,
    /// How far the run is through its budget (0..=1), when it has one: the learning
    /// rate's decay reads it.
    pub progress: Option<f64>,
    /// The newest games' openings and results (the `diversity` metrics).
    pub diversity: GameDiversity,
    symmetries: Symmetries,
    num_actions: usize,
    _game: PhantomData<S>,
}

impl<S: Encode> Learner<S> {
    /// The learner of a checkpoint (resume), or a fresh net seeded by the config.
    pub fn new(config: RunConfig, checkpoint: Option<&Path>) -> Result<Self, TrainError> {
        let shape = S::net_shape(config.kind());
        let t = &config.train;
        if t.torch_threads > 0 {
            tch::set_num_threads(t.torch_threads);
        }
        let device = t.device.resolve()?;
        let (mut model, optimizer, state) = match checkpoint {
            Some(dir) => load_checkpoint(dir, &shape, (t.learning_rate, t.weight_decay), device)?,
            None => {
                tch::manual_seed(config.seed as i64);
                let model = Model::new(shape, config.net_config(), device)?;
                let optimizer = AdamW::new(model.var_store(), t.learning_rate, t.weight_decay);
                let state = TrainState {
                    seed: config.seed,
                    ..TrainState::default()
                };
                (model, optimizer, state)
            }
        };
        // Saved with every checkpoint: play defaults to the rules self-play used.
        model.set_rules(config.rules());
        let num_actions = model.meta().shape.num_actions as usize;
        let symmetries = Symmetries::of::<S>(config.train.colour_symmetry);
        Ok(Learner {
            window: ReplayWindow::new(config.window_size(0))
                .with_q_mix(config.train.value_q_mix as f32)
                .with_surprise_weight(config.train.policy_surprise_weight as f32),
            config,
            model,
            optimizer,
            state,
            samples_total: 0,
            games_total: 0,
            progress: None,
            diversity: GameDiversity::default(),
            symmetries,
            num_actions,
            _game: PhantomData,
        })
    }

    /// Adds a finished game's samples to the window; returns how many it gave.
    pub fn ingest(&mut self, record: &GameRecord) -> Result<usize, TrainError> {
        let samples = self.take_game(record)?;
        let count = samples.len();
        self.samples_total += count as u64;
        // A reanalysis repeats a game already counted.
        self.games_total += u64::from(!record.reanalysed);
        self.window
            .set_capacity(self.config.window_size(self.samples_total));
        self.window.extend(samples);
        Ok(count)
    }

    /// Adds the samples of a game taken in before a resume to the window, without counting
    /// it again (the restored totals count it); returns how many it gave.
    pub fn replay(&mut self, record: &GameRecord) -> Result<usize, TrainError> {
        let samples = self.take_game(record)?;
        let count = samples.len();
        self.window.extend(samples);
        Ok(count)
    }

    /// A game's samples; a played game (not a reanalysis) also joins the diversity figures.
    fn take_game(&mut self, record: &GameRecord) -> Result<Vec<Sample>, TrainError> {
        let samples = samples_of_game::<S>(record)?;
        if !record.reanalysed {
            self.diversity.add(GameSummary::of::<S>(record)?);
        }
        Ok(samples)
    }

    /// The diversity figures of the newest games and of the window (`None` before the
    /// first game).
    pub fn diversity_report(&self) -> Option<DiversityReport> {
        self.diversity.report(self.window.repeated_share())
    }

    /// Sets the intake totals after a resume that re-read only part of the games (the
    /// window is sized by all of them).
    pub fn restore_totals(&mut self, samples: u64, games: u64) {
        self.samples_total = samples;
        self.games_total = games;
        self.window.set_capacity(self.config.window_size(samples));
    }

    /// True when the window is big enough and the replay ratio allows another step.
    pub fn ready(&self) -> bool {
        let t = &self.config.train;
        let allowed = t.replay_ratio * self.samples_total as f64;
        self.window.len() >= t.min_window
            && (self.state.samples_trained + t.batch_size as u64) as f64 <= allowed
    }

    /// One training step on a batch drawn from the window (seeded by the run and the step).
    pub fn step(&mut self) -> StepStats {
        let t = &self.config.train;
        let mut rng = StdRng::seed_from_u64(game_seed(
            self.state.seed ^ 0x7472_6169_6e00_0000,
            self.state.step,
        ));
        let batch = self
            .window
            .batch(t.batch_size, self.num_actions, &self.symmetries, &mut rng);
        self.optimizer.learning_rate = t.learning_rate_at(self.state.step, self.progress);
        let stats = train_step(&self.model, &mut self.optimizer, &batch, t.loss_weights());
        self.state.step += 1;
        self.state.samples_trained += t.batch_size as u64;
        stats
    }

    /// Writes a checkpoint of the current step under `checkpoints`; returns its directory.
    pub fn save_checkpoint(&self, checkpoints: &Path) -> Result<PathBuf, TrainError> {
        Ok(write_checkpoint(
            checkpoints,
            &self.model,
            &self.optimizer,
            &self.state,
        )?)
    }

    /// The `train` metrics line of an iteration (losses averaged over its steps).
    pub fn train_metrics(&self, losses: &StepStats, samples_per_s: f64) -> Value {
        let step = self.state.step;
        json!({
            "type": "train", "step": step,
            "iteration": step / self.config.train.steps_per_iteration,
            "elapsed_s": self.state.elapsed_s, "cpu_s": self.state.cpu_s,
            "policy_loss": losses.policy_loss, "value_loss": losses.value_loss,
            "moves_left_loss": losses.moves_left_loss,
            "total_loss": losses.total_loss, "policy_entropy": losses.policy_entropy,
            "learning_rate": self.optimizer.learning_rate,
            "samples_per_s": samples_per_s, "window": self.window.len(),
            "samples_trained": self.state.samples_trained,
        })
    }
}
