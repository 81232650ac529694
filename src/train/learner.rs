//! The learner's core, shared by `train` (one machine) and `learn` (the distributed role):
//! the model, its optimizer and counters, and the replay window, fed training samples and
//! stepped whenever the replay ratio allows. It knows nothing of games beyond their
//! encoding: the samples come from [`crate::selfplay::samples`].

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::checkpoint::{load_checkpoint, write_checkpoint};
use super::error::TrainError;
use super::optimizer::AdamW;
use super::precision;
use super::trainer::{train_step, Compute, LossWeights, StepStats};
use super::window::{Batch, ReplayWindow, Sample, Symmetries};
use crate::config::RunConfig;
use crate::layout::state::TrainState;
use crate::net::args::announce_line;
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::net::precision::ProbeCache;
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
    pub budget_spent: Option<f64>,
    /// Samples trained beyond what the replay ratio allowed when the counters were
    /// restored: a fork or resume with a lower ratio counts its ratio from there on.
    ratio_credit: f64,
    symmetries: Symmetries,
    num_actions: usize,
    /// How the net computes while training (fp32 or mixed bf16, and the layout).
    compute: Compute,
    /// The next step's batch, drawn while the step before it trained: (step, batch).
    prefetched: Option<(u64, Batch)>,
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
        let precision = precision::settle(&model, &config.train, &ProbeCache::user())?;
        let compute = precision::compute(&precision, config.train.layout);
        announce_line(&precision::describe(&precision, compute));
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
            budget_spent: None,
            ratio_credit: 0.0,
            symmetries,
            num_actions,
            compute,
            prefetched: None,
            _game: PhantomData,
        })
    }

    /// Adds a finished game's samples to the window and counts them; `new_game` counts the
    /// game too (false for a reanalysis, which repeats a game already counted).
    pub fn ingest(&mut self, samples: Vec<Sample>, new_game: bool) {
        self.samples_total += samples.len() as u64;
        self.games_total += u64::from(new_game);
        self.window
            .set_capacity(self.config.window_size(self.samples_total));
        self.window.extend(samples);
    }

    /// Refills the window after a resume with the samples of a game taken in before it,
    /// without counting them again (the restored totals count them).
    pub fn refill(&mut self, samples: Vec<Sample>) {
        self.window.extend(samples);
    }

    /// Sets the intake totals after a resume that re-read only part of the games (the
    /// window is sized by all of them). Training already past what this config's replay
    /// ratio allows (a fork with a lower ratio) is credited, so the ratio applies to the
    /// samples taken in from here on instead of stalling until intake catches up.
    pub fn restore_totals(&mut self, samples: u64, games: u64) {
        self.samples_total = samples;
        self.games_total = games;
        self.window.set_capacity(self.config.window_size(samples));
        let allowed = self.config.train.replay_ratio * samples as f64;
        self.ratio_credit = (self.state.samples_trained as f64 - allowed).max(0.0);
    }

    /// True when the window is big enough and the replay ratio allows another step.
    pub fn ready(&self) -> bool {
        let t = &self.config.train;
        let allowed = t.replay_ratio * self.samples_total as f64 + self.ratio_credit;
        self.window.len() >= t.min_window
            && (self.state.samples_trained + t.batch_size as u64) as f64 <= allowed
    }

    /// How the net computes while training (precision and layout).
    pub fn compute(&self) -> Compute {
        self.compute
    }

    /// The batch of training step `step` ([`draw`]).
    fn draw(&self, step: u64) -> Batch {
        draw(&self.window, &self.symmetries, self.shape(), step)
    }

    /// What a batch is drawn with: the seed, batch size and action count.
    fn shape(&self) -> (u64, usize, usize) {
        (
            self.state.seed,
            self.config.train.batch_size,
            self.num_actions,
        )
    }

    /// One training step on its batch; the next step's batch is drawn meanwhile on another
    /// thread (from the window as it is now: samples taken in before the next step join
    /// the batch after it).
    pub fn step(&mut self) -> StepStats {
        let step = self.state.step;
        let batch = match self.prefetched.take() {
            Some((at, batch)) if at == step => batch,
            _ => self.draw(step),
        };
        let t = &self.config.train;
        self.optimizer.learning_rate = t.learning_rate_at(step, self.budget_spent);
        let shape = self.shape();
        let (model, optimizer, compute) = (&self.model, &mut self.optimizer, self.compute);
        let (window, symmetries) = (&self.window, &self.symmetries);
        let (stats, next) = std::thread::scope(|scope| {
            let next = scope.spawn(move || draw(window, symmetries, shape, step + 1));
            let stats = train_step(model, optimizer, &batch, LossWeights::of(t), compute);
            (stats, next.join().ok())
        });
        self.prefetched = next.map(|b| (step + 1, b));
        let t = &self.config.train;
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
}

/// The batch of training step `step` from `window`, seeded by the run's seed and the step;
/// `shape` is (seed, batch size, action count).
fn draw(
    window: &ReplayWindow,
    symmetries: &Symmetries,
    shape: (u64, usize, usize),
    step: u64,
) -> Batch {
    let (seed, size, actions) = shape;
    let mut rng = StdRng::seed_from_u64(game_seed(seed ^ 0x7472_6169_6e00_0000, step));
    window.batch(size, actions, symmetries, &mut rng)
}
