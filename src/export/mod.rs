//! Export of a trained model for play, and the two ways to play it.
//!
//! * [`export_checkpoint`] (`checkers-zero export`): a training checkpoint becomes a
//!   directory holding `model.pt`, a TorchScript module traced from the net (loadable by
//!   Python's `torch.jit.load` and by libtorch), and `model.json`, the record of what the
//!   module reads and writes ([`ExportMeta`]).
//! * [`torchscript::ExportedModel`] reads such a directory back: its record, and its module
//!   as a backend ([`crate::net::torchscript::TorchScriptNet`]) that search evaluates
//!   positions on like any other, so an export is an agent for matches
//!   ([`torchscript::exported_agent`]) and for
//! * [`play`] (`checkers-zero play`): people against the model in a terminal, and
//! * [`engine`] (`checkers-zero engine`): a line protocol on stdin/stdout for other programs.
//!
//! Both pick whole turns with [`crate::search::think::TurnSearch`]: MCTS over the turn's
//! steps, steps with one legal choice applied without search. Beside them: [`average`]
//! (`checkers-zero average`, checkpoints' weights averaged) and [`shipped`] (the models
//! shipped with the project).

pub mod average;
pub mod engine;
pub mod play;
pub mod shipped;
pub mod torchscript;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tch::Device;

use crate::config::net::NetConfig;
use crate::config::search::SearchConfig;
use crate::config::RunConfig;
use crate::game::{GameKind, NotationError, RulesConfig};
use crate::layout::{resolve_model, ResolvedModel};
use crate::net::encode::Encode;
use crate::net::model::{Model, NetShape};
use crate::net::NetError;
use crate::util::write_atomic;
use crate::with_game;

/// Version of the export directory's layout (`model.json` fields, the module's signature).
pub const EXPORT_FORMAT_VERSION: u32 = 1;
use crate::layout::{META_FILE, TORCHSCRIPT_FILE};

/// Everything that can go wrong exporting, loading or playing an exported model.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The `--checkpoint` path is neither a checkpoint directory, a run directory nor a
    /// model file.
    #[error("{path}: not a checkpoint: {reason}")]
    NotACheckpoint {
        /// The path given.
        path: PathBuf,
        /// What is missing.
        reason: String,
    },
    /// `model.json` of an export is missing fields or malformed.
    #[error("{path}: not an exported model: {reason}")]
    Meta {
        /// The metadata file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Loading, checking or running the net failed.
    #[error(transparent)]
    Net(#[from] NetError),
    /// An error from libtorch (tracing, saving or running the module).
    #[error("libtorch: {0}")]
    Torch(#[from] tch::TchError),
    /// A position or a move given as text is wrong.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// Reading commands or writing answers failed (stdin/stdout of `play` and `engine`).
    #[error("terminal input/output: {0}")]
    Terminal(#[from] std::io::Error),
    /// A command-line choice that cannot be honoured (e.g. an unknown seat).
    #[error("{0}")]
    Usage(String),
}

impl ExportError {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ExportError + '_ {
        move |source| ExportError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The game's action space, described for programs that read the policy output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionSpace {
    /// Policy outputs (one logit per step action).
    pub size: i64,
    /// How an index decomposes into a step, in the side to move's frame.
    pub layout: String,
}

/// `model.json` of an export directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportMeta {
    /// [`EXPORT_FORMAT_VERSION`] at export time.
    pub format_version: u32,
    /// Game name (`rematch`, `rematch3`, `hexdame`, `eximo`).
    pub game: String,
    /// Version of the game's input encoding.
    pub encoding_version: u32,
    /// The module's input: `[batch, planes, height, width]`, float32, batch any size ≥ 1
    /// (written as -1).
    pub input_shape: [i64; 4],
    /// The module's single output `[batch, num_actions + 3]`, column ranges described.
    pub outputs: Vec<String>,
    /// The policy's action space.
    pub action_space: ActionSpace,
    /// The training step of the checkpoint (`None` when exported from a bare model file).
    pub training_step: Option<u64>,
    /// Search settings for play (those the model was trained with): what `play`, `engine`
    /// and `match` use unless told otherwise. Root noise is never used in play.
    pub search: SearchConfig,
    /// The full shape record of the net (board mask, hex kernels), as the trainer saved it.
    pub shape: NetShape,
    /// Tower and head sizes.
    pub net: NetConfig,
    /// The rules the model was trained under (its self-play's ply cap): `play` and `engine`
    /// use them unless `--ply-cap` says otherwise. `None` when the model did not record them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<RulesConfig>,
    /// The TorchScript file, relative to the export directory.
    pub torchscript: String,
}

impl ExportMeta {
    /// The game this export plays.
    pub fn kind(&self) -> Result<GameKind, NotationError> {
        self.game.parse()
    }

    /// Reads and checks `DIR/model.json`.
    pub fn read(dir: &Path) -> Result<ExportMeta, ExportError> {
        let path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&path).map_err(ExportError::io(&path))?;
        let meta: ExportMeta = serde_json::from_str(&text).map_err(|e| ExportError::Meta {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        if meta.format_version != EXPORT_FORMAT_VERSION {
            return Err(ExportError::Meta {
                path,
                reason: format!(
                    "format version {} (this program reads {EXPORT_FORMAT_VERSION})",
                    meta.format_version
                ),
            });
        }
        Ok(meta)
    }
}

/// What an export wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportSummary {
    /// The export directory.
    pub dir: PathBuf,
    /// Its metadata.
    pub meta: ExportMeta,
}

/// Exports the model of `checkpoint` to the directory `out` (created if needed):
/// `model.pt` (TorchScript, fp32, CPU) and `model.json`. `checkpoint` is a checkpoint
/// directory, a run directory (its latest checkpoint) or a `.safetensors` model file, as
/// [`resolve_model`] finds them; the training step comes from the checkpoint's `state.json`.
pub fn export_checkpoint(checkpoint: &Path, out: &Path) -> Result<ExportSummary, ExportError> {
    let source = resolve_model(checkpoint).map_err(|reason| ExportError::NotACheckpoint {
        path: checkpoint.to_path_buf(),
        reason,
    })?;
    let saved = Model::read_meta(&source.weights)?;
    let kind: GameKind = saved.shape.game.parse()?;
    with_game!(kind, S => export_typed::<S>(kind, &source, out))
}

fn export_typed<S: Encode>(
    kind: GameKind,
    source: &ResolvedModel,
    out: &Path,
) -> Result<ExportSummary, ExportError> {
    let shape = S::net_shape(kind);
    let model = Model::load(&source.weights, &shape, Device::Cpu)?;
    let module = torchscript::trace(&model)?;
    std::fs::create_dir_all(out).map_err(ExportError::io(out))?;
    torchscript::save_module(&module, &out.join(TORCHSCRIPT_FILE))?;
    // RUN/checkpoints/step-N/model.safetensors: the run's recorded [search]; the
    // defaults for a model outside a run.
    let search =
        RunConfig::search_of_checkpoint(&source.weights).map_err(|e| ExportError::Meta {
            path: source.weights.clone(),
            reason: e.to_string(),
        })?;
    let meta = ExportMeta {
        format_version: EXPORT_FORMAT_VERSION,
        game: kind.name().to_string(),
        encoding_version: shape.encoding_version,
        input_shape: [-1, shape.planes, shape.height, shape.width],
        outputs: vec![
            format!(
                "columns 0..{}: policy logits, one per action (unmasked; softmax over the legal ones)",
                shape.num_actions
            ),
            format!(
                "columns {}..{}: win, draw, loss logits for the side to move (softmax them)",
                shape.num_actions,
                shape.num_actions + 3
            ),
        ],
        action_space: ActionSpace {
            size: shape.num_actions,
            layout: kind.facts().action_layout.to_string(),
        },
        training_step: source.step,
        search,
        shape,
        net: model.meta().config.clone(),
        rules: model.meta().rules,
        torchscript: TORCHSCRIPT_FILE.to_string(),
    };
    let meta_path = out.join(META_FILE);
    let json = serde_json::to_string_pretty(&meta).expect("metadata serialises");
    write_atomic(&meta_path, json.as_bytes()).map_err(ExportError::io(&meta_path))?;
    Ok(ExportSummary {
        dir: out.to_path_buf(),
        meta,
    })
}

impl ExportSummary {
    /// One line for the command line: where, what game, which step.
    pub fn describe(&self) -> String {
        let meta = &self.meta;
        format!(
            "exported {} (training step {}, input {}x{}x{}, {} actions) to {}",
            meta.game,
            meta.training_step
                .map_or("unknown".to_string(), |s| s.to_string()),
            meta.input_shape[1],
            meta.input_shape[2],
            meta.input_shape[3],
            meta.action_space.size,
            self.dir.display()
        )
    }
}
