//! The net as a TorchScript module: tracing it, saving it, and reading an export back (its
//! record and its module, which [`crate::net::torchscript`] runs as a backend).
//!
//! The module's `forward` takes `[batch, planes, height, width]` float32 planes (any batch
//! size) and returns one tensor `[batch, num_actions + 3]`: the policy logits, then the
//! win/draw/loss logits (TorchScript methods exported from a trace return a single value).
//! It is exactly the trainer's net in inference mode (batch norm with running statistics).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tch::{CModule, Kind, Tensor};

use super::{ExportError, ExportMeta};
use crate::config::batching::Form;
use crate::config::search::SearchConfig;
use crate::net::args::NetSettings;
use crate::net::encode::Encode;
use crate::net::inference::InferenceNet;
use crate::net::model::{check_shape, Model};
use crate::net::net_eval::NetEvaluator;
use crate::net::torchscript::TorchScriptNet;
use crate::net::NetError;
use crate::search::agents::SearchAgent;
use crate::search::run::Budget;

/// Traces `model`'s inference form (fp32, batch norm folded, NCHW: the form every machine
/// runs well) into a TorchScript module with a `forward` method; the form's weights, built
/// without gradients, become the module's constants.
pub fn trace(model: &Model) -> Result<CModule, ExportError> {
    let net = InferenceNet::build(model, Kind::Float, Form::Folded)?;
    trace_form(&net)
}

/// Traces an inference form as [`trace`] does (on its device, in its precision).
pub fn trace_form(net: &InferenceNet) -> Result<CModule, ExportError> {
    let shape = net.shape();
    // Batch 2, so that nothing specialises on a batch of one; the traced graph takes any batch.
    let example = Tensor::zeros(
        [2, shape.planes, shape.height, shape.width],
        (Kind::Float, net.device()),
    );
    let _no_grad = tch::no_grad_guard();
    let mut failed = None;
    let mut forward = |inputs: &[Tensor]| match net.answers(&inputs[0]) {
        Ok(both) => vec![both],
        Err(e) => {
            failed = Some(e);
            vec![inputs[0].shallow_clone()]
        }
    };
    let module =
        CModule::create_by_tracing("CheckersZeroNet", "forward", &[example], &mut forward)?;
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(module),
    }
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

/// An exported model loaded back: its metadata and the TorchScript net (fp32, on the CPU).
#[derive(Debug)]
pub struct ExportedModel {
    dir: PathBuf,
    meta: ExportMeta,
    net: TorchScriptNet,
}

impl ExportedModel {
    /// Loads the export directory `dir` (`model.json` and the module it names).
    pub fn load(dir: &Path) -> Result<ExportedModel, ExportError> {
        let meta = ExportMeta::read(dir)?;
        let path = dir.join(&meta.torchscript);
        if !path.is_file() {
            return Err(ExportError::Meta {
                path: dir.join(crate::layout::META_FILE),
                reason: format!("its module {} is missing", path.display()),
            });
        }
        let [_, planes, height, width] = meta.input_shape;
        // A module libtorch cannot load is a libtorch error, as when it is traced or saved.
        let net = TorchScriptNet::load(&path, [planes, height, width], meta.action_space.size)
            .map_err(|e| match e {
                NetError::Torch(e) => ExportError::Torch(e),
                other => ExportError::Net(other),
            })?;
        Ok(ExportedModel {
            dir: dir.to_path_buf(),
            meta,
            net,
        })
    }

    /// Loads `dir` under `net`'s settings, which must be ones a TorchScript module runs
    /// under ([`TorchScriptNet::check_settings`]).
    pub fn load_with(dir: &Path, net: NetSettings) -> Result<ExportedModel, ExportError> {
        TorchScriptNet::check_settings(net)?;
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

    /// The net, as a backend.
    pub fn net(&self) -> &TorchScriptNet {
        &self.net
    }

    /// An evaluator for search over the net (clones share the module).
    pub fn evaluator(&self) -> NetEvaluator {
        NetEvaluator::new(self.net.clone())
    }

    /// The name of an agent searching this model with `visits` visits a step.
    pub fn agent_label(&self, visits: u32) -> String {
        format!("model:{}:visits={visits}", self.dir().display())
    }

    /// Policy logits `[N, num_actions]` and W/D/L logits `[N, 3]` for planes
    /// `[N, planes, height, width]`.
    pub fn forward(&self, input: &Tensor) -> Result<(Tensor, Tensor), NetError> {
        self.net.forward_tensors(input)
    }
}

/// An exported model as a match agent searching as `search` says (usually the export's
/// settings with any overrides); `seed` seeds the Gumbel noise. Steps with one legal
/// choice are played without search.
pub fn exported_agent<S: Encode>(
    model: Arc<ExportedModel>,
    search: SearchConfig,
    seed: u64,
) -> Result<SearchAgent<NetEvaluator>, ExportError> {
    model.check_game::<S>()?;
    let label = model.agent_label(search.visits);
    let budget = Budget::Count(search.visits);
    Ok(SearchAgent::new(
        label,
        model.evaluator(),
        search,
        budget,
        seed,
    ))
}
