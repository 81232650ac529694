//! One training step: the policy cross-entropy to the search target (over legal steps) plus
//! the W/D/L cross-entropy to the game's result (plus, for a net with the head, the Huber
//! loss of the predicted steps left), minimised with AdamW.

use tch::{Kind, Tensor};

use super::optimizer::AdamW;
use super::window::Batch;
use crate::config::batching::Form;
use crate::config::train::TrainConfig;
use crate::net::inference::laid_out;
use crate::net::model::Model;

/// How the learner computes the net: the kind of the forward and backward passes (Float,
/// or BFloat16 for mixed precision) and the training form's memory layout
/// ([`Form::Training`] or [`Form::TrainingChannelsLast`]). The same numbers either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compute {
    /// The passes' kind; the weights and optimizer stay fp32.
    pub kind: Kind,
    /// The layout, as a training form.
    pub form: Form,
}

impl Compute {
    /// fp32 in NCHW memory: the reference.
    pub const FP32: Compute = Compute {
        kind: Kind::Float,
        form: Form::Training,
    };

    /// `kind` in NCHW memory.
    pub fn of(kind: Kind) -> Compute {
        Compute {
            kind,
            form: Form::Training,
        }
    }

    /// In words: `fp32` or `mixed bf16`, and the layout.
    pub fn describe(&self) -> String {
        let kind = match self.kind {
            Kind::BFloat16 => "mixed bf16",
            _ => "fp32",
        };
        format!("{kind}, {}", self.form.layout())
    }
}

/// Losses and statistics of one step (or a mean over several).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Policy cross-entropy to the search target.
    pub policy_loss: f64,
    /// W/D/L cross-entropy to the result.
    pub value_loss: f64,
    /// Huber loss of the moves-left head (0 without the head).
    pub moves_left_loss: f64,
    /// `policy_loss + value_loss_weight * value_loss + moves_left_loss_weight *
    /// moves_left_loss`.
    pub total_loss: f64,
    /// Entropy of the net's policy over legal steps.
    pub policy_entropy: f64,
}

impl StepStats {
    /// Accumulates `other` (for means: divide by the count afterwards).
    pub fn add(&mut self, other: &StepStats) {
        self.policy_loss += other.policy_loss;
        self.value_loss += other.value_loss;
        self.moves_left_loss += other.moves_left_loss;
        self.total_loss += other.total_loss;
        self.policy_entropy += other.policy_entropy;
    }

    /// Each field divided by `n`.
    pub fn scaled(&self, n: f64) -> StepStats {
        let n = n.max(1.0);
        StepStats {
            policy_loss: self.policy_loss / n,
            value_loss: self.value_loss / n,
            moves_left_loss: self.moves_left_loss / n,
            total_loss: self.total_loss / n,
            policy_entropy: self.policy_entropy / n,
        }
    }
}

/// The weights of the losses beside the policy's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossWeights {
    /// Of the W/D/L loss.
    pub value: f64,
    /// Of the moves-left loss (read only when the net has the head).
    pub moves_left: f64,
}

impl LossWeights {
    /// The weights `[train]` sets.
    pub fn of(t: &TrainConfig) -> LossWeights {
        LossWeights {
            value: t.value_loss_weight,
            moves_left: t.moves_left_loss_weight,
        }
    }
}

/// The losses of `batch` under `model` (train mode: batch statistics in batch norm), computed
/// in fp32: (total loss tensor, stats).
pub fn losses(model: &Model, batch: &Batch, weights: LossWeights) -> (Tensor, StepStats) {
    losses_in(model, batch, weights, Compute::FP32)
}

/// [`losses`] with the net computed as `compute` says (the losses themselves are taken in
/// fp32).
pub fn losses_in(
    model: &Model,
    batch: &Batch,
    weights: LossWeights,
    compute: Compute,
) -> (Tensor, StepStats) {
    let shape = &model.meta().shape;
    let n = batch.size as i64;
    let device = model.var_store().device();
    let input = Tensor::from_slice(&batch.inputs)
        .reshape([n, shape.planes, shape.height, shape.width])
        .to_device(device)
        .to_kind(compute.kind);
    let input = laid_out(&input, compute.form);
    let policy_target = Tensor::from_slice(&batch.policy)
        .reshape([n, shape.num_actions])
        .to_device(device);
    let mask = Tensor::from_slice(&batch.mask)
        .reshape([n, shape.num_actions])
        .to_device(device);
    let value_target = Tensor::from_slice(&batch.value)
        .reshape([n, 3])
        .to_device(device);
    let out = model.forward_outputs(&input, true);
    let log_probs = (out.policy.to_kind(Kind::Float) + &mask).log_softmax(-1, Kind::Float);
    let policy_loss = -(&policy_target * &log_probs)
        .sum_dim_intlist(-1, false, Kind::Float)
        .mean(Kind::Float);
    // Cross-entropy against the (possibly soft) W/D/L target; a one-hot target gives the
    // plain classification loss.
    let value_loss = -(value_target * out.value.log_softmax(-1, Kind::Float))
        .sum_dim_intlist(-1, false, Kind::Float)
        .mean(Kind::Float);
    let mut total = &policy_loss + &value_loss * weights.value;
    let moves_left_loss = out.moves_left.map(|predicted| {
        let target = Tensor::from_slice(&batch.moves_left).to_device(device);
        let loss = predicted
            .to_kind(Kind::Float)
            .huber_loss(&target, tch::Reduction::Mean, 1.0);
        total = &total + &loss * weights.moves_left;
        loss.double_value(&[])
    });
    let entropy = tch::no_grad(|| {
        -(log_probs.exp() * &log_probs)
            .sum_dim_intlist(-1, false, Kind::Float)
            .mean(Kind::Float)
    });
    let stats = StepStats {
        policy_loss: policy_loss.double_value(&[]),
        value_loss: value_loss.double_value(&[]),
        moves_left_loss: moves_left_loss.unwrap_or(0.0),
        total_loss: total.double_value(&[]),
        policy_entropy: entropy.double_value(&[]),
    };
    (total, stats)
}

/// One optimisation step on `batch`, the net computed in `compute` ([`losses_in`]).
pub fn train_step(
    model: &Model,
    optimizer: &mut AdamW,
    batch: &Batch,
    weights: LossWeights,
    compute: Compute,
) -> StepStats {
    optimizer.zero_grad();
    let (total, stats) = losses_in(model, batch, weights, compute);
    total.backward();
    optimizer.step();
    stats
}
