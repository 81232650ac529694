//! The net as a TorchScript module: tracing it, saving it, loading it back, and evaluating
//! positions with it for search.
//!
//! The module's `forward` takes `[batch, planes, height, width]` float32 planes (any batch
//! size) and returns one tensor `[batch, num_actions + 3]`: the policy logits, then the
//! win/draw/loss logits (TorchScript methods exported from a trace return a single value).
//! It is exactly the trainer's net in inference mode (batch norm with running statistics).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tch::{CModule, Device, Kind, Tensor};

use super::{ExportError, ExportMeta};
use crate::game::{Action, StepList};
use crate::net::args::NetSettings;
use crate::net::batcher::masked_softmax;
use crate::net::device::DeviceChoice;
use crate::net::encode::Encode;
use crate::net::model::{check_shape, Model};
use crate::net::net_eval::{leaf_evals, NetAnswer};
use crate::net::precision::Precision;
use crate::net::NetError;
use crate::search::agents::{Budget, SearchAgent};
use crate::search::config::SearchConfig;
use crate::search::tree::{Evaluate, LeafEval};

/// Traces `model` (fp32, inference mode) into a TorchScript module with a `forward`
/// method. The model's variables are frozen first (traced weights become constants, which
/// must not require gradients).
pub fn trace(model: &mut Model) -> Result<CModule, ExportError> {
    if model.kind() != Kind::Float {
        model.set_kind(Kind::Float);
    }
    model.var_store_mut().freeze();
    let shape = &model.meta().shape;
    // Batch 2, so that nothing specialises on a batch of one; the traced graph takes any batch.
    let example = Tensor::zeros(
        [2, shape.planes, shape.height, shape.width],
        (Kind::Float, Device::Cpu),
    );
    let model: &Model = model;
    let _no_grad = tch::no_grad_guard();
    let mut forward = |inputs: &[Tensor]| {
        let (policy, value) = model.forward_t(&inputs[0], false);
        vec![Tensor::cat(&[policy, value], 1)]
    };
    Ok(CModule::create_by_tracing(
        "CheckersZeroNet",
        "forward",
        &[example],
        &mut forward,
    )?)
}

/// Saves a module to `path` atomically (a temporary file in the same folder, renamed).
pub fn save_module(module: &CModule, path: &Path) -> Result<(), ExportError> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(name);
    if let Err(e) = module.save(&tmp) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e.into());
    }
    std::fs::rename(&tmp, path).map_err(ExportError::io(path))
}

/// An exported model loaded back: its metadata and the TorchScript module (fp32, on the
/// CPU).
#[derive(Debug)]
pub struct ExportedModel {
    dir: PathBuf,
    meta: ExportMeta,
    module: CModule,
}

impl ExportedModel {
    /// Loads the export directory `dir` (`model.json` and the module it names).
    pub fn load(dir: &Path) -> Result<ExportedModel, ExportError> {
        let meta = ExportMeta::read(dir)?;
        let module = load_module(dir, &meta)?;
        Ok(ExportedModel {
            dir: dir.to_path_buf(),
            meta,
            module,
        })
    }

    /// Loads `dir` under `net`'s settings. An exported module runs fp32 on the CPU: tracing
    /// made its weights fp32 constants (libtorch's `to` does not convert them) and fixed the
    /// board mask's device. So `auto` means that, and `bf16` or a CUDA device are errors
    /// that say so.
    pub fn load_with(dir: &Path, net: NetSettings) -> Result<ExportedModel, ExportError> {
        if let DeviceChoice::Cuda(n) = net.device {
            return Err(NetError::Device(format!(
                "exported models run on the CPU (the traced module fixes its device), not on cuda:{n}"
            ))
            .into());
        }
        if net.precision == Precision::Bf16 {
            return Err(NetError::Device(
                "exported models run in fp32 (tracing made their weights fp32 constants): use --precision fp32 or auto"
                    .into(),
            )
            .into());
        }
        ExportedModel::load(dir)
    }

    /// Checks that this model reads `S`'s encoding of its game (the game it names, the
    /// encoding version and the input/output shape).
    pub fn check_game<S: Encode>(&self) -> Result<(), ExportError> {
        let kind = self.meta.kind()?;
        check_shape(&S::net_shape(kind), &self.meta.shape)?;
        Ok(())
    }

    /// The export directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The metadata.
    pub fn meta(&self) -> &ExportMeta {
        &self.meta
    }

    /// Policy logits `[N, num_actions]` and W/D/L logits `[N, 3]` for planes
    /// `[N, planes, height, width]`.
    pub fn forward(&self, input: &Tensor) -> Result<(Tensor, Tensor), NetError> {
        let _no_grad = tch::no_grad_guard();
        let output = self.module.forward_ts(&[input])?;
        let actions = self.meta.action_space.size;
        let size = output.size();
        if size.len() != 2 || size[1] != actions + 3 {
            return Err(NetError::Shape(format!(
                "the module returned shape {size:?}, expected [batch, {}]",
                actions + 3
            )));
        }
        Ok((output.narrow(1, 0, actions), output.narrow(1, actions, 3)))
    }

    /// Priors over the legal steps (in `legal_steps` order) and W/D/L for each state, in
    /// one forward pass.
    pub fn evaluate_states<S: Encode>(&self, states: &[&S]) -> Result<Vec<NetAnswer>, NetError> {
        if states.is_empty() {
            return Ok(Vec::new());
        }
        let per_position = S::PLANES * S::HEIGHT * S::WIDTH;
        let mut input = vec![0.0f32; per_position * states.len()];
        for (state, chunk) in states.iter().zip(input.chunks_mut(per_position)) {
            state.encode(chunk);
        }
        let x = Tensor::from_slice(&input).reshape([
            states.len() as i64,
            S::PLANES as i64,
            S::HEIGHT as i64,
            S::WIDTH as i64,
        ]);
        let (policy, value) = self.forward(&x)?;
        let policy = Vec::<f32>::try_from(policy.to_kind(Kind::Float).flatten(0, -1))?;
        let value = Vec::<f32>::try_from(value.to_kind(Kind::Float).flatten(0, -1))?;
        let actions = policy.len() / states.len();
        Ok(states
            .iter()
            .enumerate()
            .map(|(i, state)| {
                let mut steps = StepList::new();
                state.legal_steps(&mut steps);
                let legal: Vec<Action> = steps
                    .iter()
                    .map(|&a| state.policy_index(a) as Action)
                    .collect();
                let priors = masked_softmax(&policy[i * actions..(i + 1) * actions], &legal);
                let wdl = masked_softmax(&value[3 * i..3 * i + 3], &[0, 1, 2]);
                NetAnswer {
                    steps,
                    priors,
                    wdl: [wdl[0], wdl[1], wdl[2]],
                }
            })
            .collect())
    }
}

/// Loads the module `meta` names from `dir`, in inference mode.
fn load_module(dir: &Path, meta: &ExportMeta) -> Result<CModule, ExportError> {
    let path = dir.join(&meta.torchscript);
    if !path.is_file() {
        return Err(ExportError::Meta {
            path: dir.join(super::META_FILE),
            reason: format!("its module {} is missing", path.display()),
        });
    }
    let mut module = CModule::load_on_device(&path, Device::Cpu)?;
    module.f_set_eval()?;
    Ok(module)
}

/// Evaluates leaves for MCTS with an exported model, in this thread (one forward pass per
/// call). Shareable: clones use the same module.
#[derive(Clone, Debug)]
pub struct TorchScriptEvaluator {
    model: Arc<ExportedModel>,
}

impl TorchScriptEvaluator {
    /// An evaluator using `model`.
    pub fn new(model: Arc<ExportedModel>) -> TorchScriptEvaluator {
        TorchScriptEvaluator { model }
    }

    /// The model.
    pub fn model(&self) -> &ExportedModel {
        &self.model
    }

    /// The value of `state` for the side to move in [-1, 1] and its W/D/L, without search.
    pub fn evaluate_one<S: Encode>(&self, state: &S) -> Result<(f32, [f32; 3]), NetError> {
        let answer = self
            .model
            .evaluate_states(&[state])?
            .pop()
            .expect("one answer per state");
        Ok((answer.wdl[0] - answer.wdl[2], answer.wdl))
    }
}

impl<S: Encode> Evaluate<S> for TorchScriptEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        Ok(leaf_evals(self.model.evaluate_states(states)?))
    }
}

/// An exported model as a match agent searching as `search` says (usually the export's
/// settings with any overrides); `seed` seeds the Gumbel noise. Steps with one legal
/// choice are played without search.
pub fn exported_agent<S: Encode>(
    model: Arc<ExportedModel>,
    search: SearchConfig,
    seed: u64,
) -> Result<SearchAgent<TorchScriptEvaluator>, ExportError> {
    model.check_game::<S>()?;
    let label = format!("model:{}:visits={}", model.dir().display(), search.visits);
    let budget = Budget::Count(search.visits);
    Ok(SearchAgent::new(
        label,
        TorchScriptEvaluator::new(model),
        search,
        budget,
        seed,
    ))
}
