//! Players: the agents a match's specs name, with the models they need loaded (one batcher
//! per distinct weights file) and the search each net agent plays with.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tch::Device;

use super::settings::MatchSettings;
use crate::config::search::SearchConfig;
use crate::config::RunConfig;
use crate::eval::spec::{AgentSpec, SpecError};
use crate::eval::EvalError;
use crate::export::torchscript::ExportedModel;
use crate::game::GameKind;
use crate::layout::resolve_model;
use crate::net::args::{announce, prepare, NetSettings};
use crate::net::batcher::{Batcher, BatcherConfig, BatcherHandle};
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::net::net_eval::NetEvaluator;
use crate::net::NetError;
use crate::search::agents::PolicyAgent;
use crate::search::agents::{rollout_uct, Agent, AlphaBetaAgent, RandomAgent, SearchAgent};
use crate::search::run::Budget;

/// An agent ready to be built for a game: what it is and which batcher it uses.
pub(super) enum Player {
    Random,
    Uct(u32),
    AlphaBeta(Budget),
    /// A net searched with MCTS, whichever backend runs the net.
    Net {
        net: NetSource,
        search: SearchConfig,
    },
    Policy {
        batcher: usize,
    },
}

/// What runs a net agent's net.
pub(super) enum NetSource {
    /// The match's batcher with this index (a checkpoint's weights).
    Batcher(usize),
    /// An exported TorchScript model, its game checked when it was loaded.
    Exported(Arc<ExportedModel>),
}

impl NetSource {
    /// The agent's label and an evaluator over the net.
    fn evaluator(&self, visits: u32, handles: &[BatcherHandle]) -> (String, NetEvaluator) {
        match self {
            NetSource::Batcher(i) => ("net".into(), NetEvaluator::new(handles[*i].clone())),
            NetSource::Exported(model) => (model.agent_label(visits), model.evaluator()),
        }
    }
}

impl Player {
    pub(super) fn build<S: Encode>(
        &self,
        seed: u64,
        handles: &[BatcherHandle],
    ) -> Box<dyn Agent<S>> {
        match *self {
            Player::Random => Box::new(RandomAgent::new(seed)),
            Player::Uct(playouts) => Box::new(rollout_uct(playouts, seed)),
            Player::AlphaBeta(budget) => Box::new(AlphaBetaAgent::new(budget, seed)),
            Player::Net {
                ref net,
                ref search,
            } => {
                let (label, evaluator) = net.evaluator(search.visits, handles);
                let budget = Budget::Count(search.visits);
                Box::new(SearchAgent::new(
                    label,
                    evaluator,
                    search.clone(),
                    budget,
                    seed,
                ))
            }
            Player::Policy { batcher } => Box::new(PolicyAgent::new(handles[batcher].clone())),
        }
    }
}

impl Player {
    /// The search settings a net or exported agent plays with.
    pub(super) fn search(&self) -> Option<SearchConfig> {
        match self {
            Player::Net { search, .. } => Some(search.clone()),
            _ => None,
        }
    }
}

/// Loads the models the specs need, one batcher per distinct weights file, each using
/// `torch_threads` threads, in the settings' precision and device; net agents search with
/// their run's `[search]` (`search` for a model outside a run) and their overrides.
pub(super) fn load_players<S: Encode>(
    settings: &MatchSettings,
    specs: &[AgentSpec],
    search: &SearchConfig,
    torch_threads: i32,
) -> Result<(Vec<Player>, Vec<Batcher>), EvalError> {
    let mut batchers: Vec<Batcher> = Vec::new();
    let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
    let mut players = Vec::new();
    for spec in specs {
        let model = match spec.model_path() {
            None => None,
            Some(path) => {
                let resolved = resolve_model(path).map_err(|reason| EvalError::NoModel {
                    spec: spec.to_string(),
                    reason,
                })?;
                let key = resolved
                    .weights
                    .canonicalize()
                    .unwrap_or(resolved.weights.clone());
                let index = match by_path.get(&key) {
                    Some(&i) => i,
                    None => {
                        let weights = &resolved.weights;
                        batchers.push(load_batcher::<S>(settings, spec, weights, torch_threads)?);
                        by_path.insert(key, batchers.len() - 1);
                        batchers.len() - 1
                    }
                };
                Some((index, resolved.weights))
            }
        };
        let base = match (spec, &model) {
            (AgentSpec::Net { .. }, Some((_, weights))) => trained_search(spec, weights, search)?,
            _ => search.clone(),
        };
        let batcher = model.map(|(index, _)| index);
        players.push(player_for::<S>(settings, spec, batcher, &base)?);
    }
    Ok((players, batchers))
}

/// A batcher serving the weights at `weights` for `spec`.
fn load_batcher<S: Encode>(
    settings: &MatchSettings,
    spec: &AgentSpec,
    weights: &std::path::Path,
    torch_threads: i32,
) -> Result<Batcher, EvalError> {
    let base = BatcherConfig {
        torch_threads,
        // One leaf per game thread and request: batches stay below this.
        max_batch: settings.parallel.clamp(1, 128),
        ..BatcherConfig::default()
    };
    spawn_batcher::<S>(weights, settings.kind, settings.net, base).map_err(|cause| {
        EvalError::Model {
            spec: spec.to_string(),
            cause,
        }
    })
}

/// A batcher serving the weights at `weights` (a net of game `kind`) as `net` says, on
/// `base`'s batch and threads; the settled precision is announced once on stderr.
pub fn spawn_batcher<S: Encode>(
    weights: &std::path::Path,
    kind: GameKind,
    net: NetSettings,
    base: BatcherConfig,
) -> Result<Batcher, NetError> {
    let model = Model::load(weights, &S::net_shape(kind), Device::Cpu)?;
    let (config, precision) = prepare(&model, net, base)?;
    announce(&precision);
    Ok(Batcher::spawn(model, config))
}

/// The player of `spec`; a net or policy spec plays through batcher `batcher`, a net
/// spec with `search` (its model's) as agents play it, then its overrides.
fn player_for<S: Encode>(
    settings: &MatchSettings,
    spec: &AgentSpec,
    batcher: Option<usize>,
    search: &SearchConfig,
) -> Result<Player, EvalError> {
    let bad_search = |source| {
        EvalError::Spec(SpecError::BadSearch {
            spec: spec.to_string(),
            source,
        })
    };
    Ok(match (spec, batcher) {
        (AgentSpec::Exported { dir, search }, _) => {
            let model = ExportedModel::load_with(dir, settings.net)
                .and_then(|m| m.check_game::<S>().map(|_| m))
                .map_err(|e| EvalError::NoModel {
                    spec: spec.to_string(),
                    reason: e.to_string(),
                })?;
            let search = model
                .meta()
                .search
                .for_play()
                .with(search)
                .map_err(bad_search)?;
            Player::Net {
                net: NetSource::Exported(Arc::new(model)),
                search,
            }
        }
        (AgentSpec::Random, _) => Player::Random,
        (AgentSpec::Uct { playouts }, _) => Player::Uct(*playouts),
        (AgentSpec::AlphaBeta { budget }, _) => Player::AlphaBeta(*budget),
        (AgentSpec::Net { search: o, .. }, Some(batcher)) => Player::Net {
            net: NetSource::Batcher(batcher),
            search: search.for_play().with(o).map_err(bad_search)?,
        },
        (AgentSpec::Policy { .. }, Some(batcher)) => Player::Policy { batcher },
        _ => unreachable!("net and policy specs have a model path"),
    })
}

/// The search the weights of a net agent trained with: their run's `[search]`, or
/// `fallback` for a model outside a run.
fn trained_search(
    spec: &AgentSpec,
    weights: &Path,
    fallback: &SearchConfig,
) -> Result<SearchConfig, EvalError> {
    let trained = RunConfig::of_checkpoint(weights).map_err(|e| EvalError::NoModel {
        spec: spec.to_string(),
        reason: format!("its run's search settings: {e}"),
    })?;
    Ok(trained.map_or_else(|| fallback.clone(), |run| run.search))
}

/// The libtorch threads each of `models` batchers gets on this machine's cores.
pub(super) fn torch_threads_per_batcher(models: usize) -> i32 {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (cores / models.max(1)).max(1) as i32
}
