//! `average`: the mean of several checkpoints' weights (stochastic weight averaging over a
//! run's last checkpoints), its batch-norm statistics re-estimated on the run's newest
//! games, written as a model that plays and rates like a checkpoint. The tensor work is
//! [`crate::train::average`]; this module finds the checkpoints and the positions.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use tch::Device;

use crate::game::GameKind;
use crate::layout::{resolve_model, run_dir_of_weights, GAMES, WEIGHTS_FILE};
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::selfplay::record::{is_record_file, read_records};
use crate::selfplay::samples::samples_of_game;
use crate::train::average::{average_into, reestimate_norms};
use crate::with_game;

/// Arguments of `checkers-zero average`.
#[derive(Args, Debug, Clone)]
pub struct AverageArgs {
    /// Checkpoints to average (checkpoint directories or weights files), of one net shape.
    #[arg(required = true, num_args = 2..)]
    pub checkpoints: Vec<PathBuf>,
    /// Directory to write `model.safetensors` and `model.json` into.
    #[arg(long)]
    pub out: PathBuf,
    /// Game records whose positions re-estimate the batch-norm statistics: a directory
    /// searched for `*.jsonl` (the newest files first). Default: the first checkpoint's
    /// run's `games`.
    #[arg(long)]
    pub games: Option<PathBuf>,
    /// Positions fed through the averaged net in training mode (batches of 256).
    #[arg(long, default_value_t = 16_384)]
    pub positions: usize,
}

impl AverageArgs {
    /// Averages, re-estimates and writes; returns a line saying what was written.
    pub fn run(&self) -> Result<String> {
        let mut models = Vec::new();
        let mut first_weights = None;
        for path in &self.checkpoints {
            let weights = resolve_model(path).map_err(anyhow::Error::msg)?.weights;
            let meta = Model::read_meta(&weights)?;
            let kind: GameKind = meta.shape.game.parse()?;
            let shape = with_game!(kind, S => S::net_shape(kind));
            models.push((Model::load(&weights, &shape, Device::Cpu)?, meta));
            first_weights.get_or_insert(weights);
        }
        let (first, meta) = &models[0];
        if let Some((_, other)) = models.iter().find(|(_, m)| m.shape != meta.shape) {
            bail!(
                "the checkpoints differ in shape: {} against {}",
                meta.shape.game,
                other.shape.game
            );
        }
        let kind: GameKind = meta.shape.game.parse()?;
        let mean = first.try_clone()?;
        average_into(&mean, models.iter().map(|(m, _)| m))?;
        let games = match &self.games {
            Some(dir) => dir.clone(),
            None => run_games_dir(&self.checkpoints[0], first_weights.as_deref())?,
        };
        let planes = with_game!(kind, S => newest_positions::<S>(&games, self.positions)?);
        let fed = reestimate_norms(&mean, &planes)
            .with_context(|| format!("the positions of {}", games.display()))?;
        std::fs::create_dir_all(&self.out)
            .with_context(|| format!("creating {}", self.out.display()))?;
        let out = self.out.join(WEIGHTS_FILE);
        mean.save(&out)?;
        Ok(format!(
            "averaged {} checkpoints; batch norm re-estimated on {fed} positions from {}; wrote {}",
            models.len(),
            games.display(),
            out.display()
        ))
    }
}

/// `RUN/games` of the run whose checkpoint `checkpoint` (weights `weights`) lies in
/// (`RUN/checkpoints/step-N[/...]`).
fn run_games_dir(checkpoint: &Path, weights: Option<&Path>) -> Result<PathBuf> {
    let run = weights.and_then(run_dir_of_weights).with_context(|| {
        format!(
            "{} is not in a run's checkpoints: name the games with --games",
            checkpoint.display()
        )
    })?;
    Ok(run.join(GAMES))
}

/// The encoded planes of up to `positions` searched positions of the newest records under
/// `games`, newest file first.
fn newest_positions<S: Encode>(games: &Path, positions: usize) -> Result<Vec<f32>> {
    let mut files = Vec::new();
    collect_records(games, &mut files)?;
    files.sort_by_key(|(modified, path)| (std::cmp::Reverse(*modified), path.clone()));
    let mut planes: Vec<f32> = Vec::new();
    let per = S::PLANES * S::HEIGHT * S::WIDTH;
    'files: for (_, file) in files {
        for record in read_records(&file)? {
            for sample in samples_of_game::<S>(&record)? {
                planes.extend_from_slice(&sample.planes);
                if planes.len() / per >= positions {
                    break 'files;
                }
            }
        }
    }
    Ok(planes)
}

/// Every `*.jsonl` under `dir`, with its modification time.
fn collect_records(dir: &Path, out: &mut Vec<(std::time::SystemTime, PathBuf)>) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            collect_records(&path, out)?;
        } else if is_record_file(&path) {
            out.push((std::fs::metadata(&path)?.modified()?, path));
        }
    }
    Ok(())
}
