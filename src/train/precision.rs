//! The learner's arithmetic, chosen by measurement like the batcher's: `auto` times a few
//! training steps in fp32 and in mixed bf16, in each memory layout `[train] layout` allows
//! (NCHW, channels-last), on a copy of the net (its own optimizer, a synthetic batch) and
//! takes the fastest; the result is cached per machine, libtorch, net, batch size, threads
//! and layouts, so later starts skip it. Mixed bf16 keeps the weights, the optimizer and
//! batch norm's statistics in fp32, and the layout changes only the activations' memory
//! order, so a checkpoint depends on neither.

use std::time::Duration;

use tch::Kind;

use super::optimizer::AdamW;
use super::trainer::{train_step, Compute, LossWeights};
use super::window::Batch;
use crate::config::batching::Precision;
use crate::config::train::{MemoryLayout, TrainConfig};
use crate::net::model::Model;
use crate::net::precision::{
    net_label, probe_with, resolve, FormTimings, ProbeCache, ProbeKey, ProbeTimings, Resolved,
};
use crate::net::NetError;

/// Longest time the learner's probe spends timing steps (both precisions together).
pub const PROBE_BUDGET: Duration = Duration::from_millis(1500);

/// How the learner computes under `resolved` and the layout setting: the chosen precision,
/// in the layout measured fastest for it (the setting's first candidate when nothing was
/// measured).
pub fn compute(resolved: &Resolved, layout: MemoryLayout) -> Compute {
    let bf16 = resolved.choice.bf16_from.is_some();
    let form = match &resolved.timings {
        Some(t) if bf16 => t.bf16_form,
        Some(t) => t.fp32_form,
        None => layout.candidates()[0],
    };
    Compute {
        kind: if bf16 { Kind::BFloat16 } else { Kind::Float },
        form,
    }
}

/// Settles `[train] precision` for `model` under `train`: forced as given, else from the
/// cache or a probe of `train.batch_size`-sample steps with the trainer's threads.
pub fn settle(
    model: &Model,
    train: &TrainConfig,
    cache: &ProbeCache,
) -> Result<Resolved, NetError> {
    let batch = train.batch_size.max(1);
    let meta = model.meta();
    let net = format!(
        "{} learner (mixed bf16 / fp32 training steps)",
        net_label(&meta.shape, &meta.config)
    );
    let key = ProbeKey::new(
        &net,
        model.var_store().device(),
        (train.layout.candidates(), train.torch_threads),
        &[batch],
    );
    resolve(train.precision, &key, cache, || {
        time_steps(model, train, batch, PROBE_BUDGET)
    })
}

/// Seconds per training step of `batch` samples in fp32 and in mixed bf16 (best of the
/// repetitions within `budget`) in each layout `train.layout` allows, on a copy of `model`
/// with an optimizer of its own; the fastest layout per precision is the one chosen.
pub fn time_steps(
    model: &Model,
    train: &TrainConfig,
    batch: usize,
    budget: Duration,
) -> Result<ProbeTimings, NetError> {
    let copy = model.try_clone()?;
    let mut optimizer = AdamW::new(copy.var_store(), train.learning_rate, train.weight_decay);
    let data = synthetic_batch(model, batch);
    let weights = LossWeights::of(train);
    let forms = train.layout.candidates();
    let share = budget.div_f64(forms.len() as f64);
    let mut measured = Vec::new();
    for &form in forms {
        let t = probe_with(&[batch], share, |precision, _| {
            let kind = match precision {
                Precision::Bf16 => Kind::BFloat16,
                _ => Kind::Float,
            };
            train_step(
                &copy,
                &mut optimizer,
                &data,
                weights,
                Compute { kind, form },
            );
            Ok::<(), NetError>(())
        })?;
        measured.push(FormTimings {
            form,
            fp32: t.fp32,
            bf16: t.bf16,
        });
    }
    Ok(ProbeTimings::of_forms(&[batch], measured))
}

/// A batch of `size` made-up samples for `model`'s game (inputs 0/1, a uniform policy
/// over every action, a one-hot result): timing data, nothing learnt from it is kept.
pub fn synthetic_batch(model: &Model, size: usize) -> Batch {
    let shape = &model.meta().shape;
    let per = (shape.planes * shape.height * shape.width) as usize;
    let actions = shape.num_actions as usize;
    let results: Vec<i64> = (0..size as i64).map(|i| i % 3).collect();
    Batch {
        size,
        inputs: (0..size * per)
            .map(|i| ((i * 7 % 5) == 0) as u8 as f32)
            .collect(),
        policy: vec![1.0 / actions as f32; size * actions],
        mask: vec![0.0; size * actions],
        value: results
            .iter()
            .flat_map(|&r| (0..3).map(move |k| (k == r) as u8 as f32))
            .collect(),
        results,
        moves_left: vec![1.0; size],
    }
}

/// The timings' reason and the layout in words, for the learner's start line.
pub fn describe(resolved: &Resolved, compute: Compute) -> String {
    format!(
        "learner {}; computing in {}",
        resolved.describe(),
        compute.describe()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::batching::Form;
    use crate::config::net::NetConfig;
    use crate::game::rematch::Rematch;
    use crate::game::GameKind;
    use crate::layout::state::TrainState;
    use crate::net::encode::Encode;
    use crate::train::checkpoint::{load_checkpoint, write_checkpoint};
    use tch::Device;

    fn model() -> Model {
        tch::manual_seed(3);
        let kind = GameKind::Rematch;
        Model::new(
            Rematch::net_shape(kind),
            NetConfig::default_for(kind),
            Device::Cpu,
        )
        .unwrap()
    }

    /// Fixed batches with varied inputs and a one-hot policy target per sample.
    fn batches(model: &Model, count: usize) -> Vec<Batch> {
        let actions = model.meta().shape.num_actions as usize;
        (0..count)
            .map(|b| {
                let mut batch = synthetic_batch(model, 32);
                for (sample, row) in batch.policy.chunks_mut(actions).enumerate() {
                    row.fill(0.0);
                    row[(sample * 31 + b * 7) % actions] = 1.0;
                }
                for (i, x) in batch.inputs.iter_mut().enumerate() {
                    *x = ((i * 13 + b * 3) % 7 < 2) as u8 as f32;
                }
                batch
            })
            .collect()
    }

    fn train(model: &Model, optimizer: &mut AdamW, data: &[Batch], kind: Kind) -> Vec<f64> {
        train_as(model, optimizer, data, Compute::of(kind))
    }

    fn train_as(model: &Model, opt: &mut AdamW, data: &[Batch], compute: Compute) -> Vec<f64> {
        let weights = LossWeights::of(&TrainConfig::default());
        data.iter()
            .map(|b| train_step(model, opt, b, weights, compute).total_loss)
            .collect()
    }

    #[test]
    fn channels_last_training_follows_the_contiguous_layout_in_each_precision() {
        let data = batches(&model(), 12);
        for kind in [Kind::Float, Kind::BFloat16] {
            // One net copied: other tests draw from the global seed meanwhile.
            let a = model();
            let b = a.try_clone().unwrap();
            let mut opt_a = AdamW::new(a.var_store(), 1e-3, 1e-4);
            let mut opt_b = AdamW::new(b.var_store(), 1e-3, 1e-4);
            let nchw = train_as(&a, &mut opt_a, &data, Compute::of(kind));
            let nhwc = Compute {
                kind,
                form: Form::TrainingChannelsLast,
            };
            let nhwc = train_as(&b, &mut opt_b, &data, nhwc);
            // The same sums in another order: fp32 steps agree closely, bf16 within its
            // rounding.
            let tolerance = if kind == Kind::Float { 1e-3 } else { 0.04 };
            for (step, (x, y)) in nchw.iter().zip(&nhwc).enumerate() {
                assert!(
                    (x - y).abs() <= tolerance * x,
                    "{kind:?} step {step}: {nchw:?} vs {nhwc:?}"
                );
            }
            // The stored weights keep their layout, so checkpoints do not depend on it.
            let weight = b.var_store().variables()["stem.weight"].shallow_clone();
            assert!(weight.is_contiguous(), "stored weights stay contiguous");
        }
    }

    #[test]
    fn the_learner_computes_in_the_layout_measured_fastest_for_its_precision() {
        let timings = ProbeTimings::of_forms(
            &[256],
            vec![
                FormTimings {
                    form: Form::Training,
                    fp32: vec![0.010],
                    bf16: vec![0.004],
                },
                FormTimings {
                    form: Form::TrainingChannelsLast,
                    fp32: vec![0.012],
                    bf16: vec![0.003],
                },
            ],
        );
        let resolved = |bf16_from| Resolved {
            choice: crate::net::precision::PrecisionChoice {
                bf16_from,
                reason: String::new(),
            },
            timings: Some(timings.clone()),
            source: "probed now",
        };
        let bf16 = compute(&resolved(Some(0)), MemoryLayout::Auto);
        assert_eq!(
            (bf16.kind, bf16.form),
            (Kind::BFloat16, Form::TrainingChannelsLast)
        );
        let fp32 = compute(&resolved(None), MemoryLayout::Auto);
        assert_eq!((fp32.kind, fp32.form), (Kind::Float, Form::Training));
        let forced = Resolved {
            timings: None,
            ..resolved(None)
        };
        assert_eq!(
            compute(&forced, MemoryLayout::ChannelsLast).form,
            Form::TrainingChannelsLast
        );
        assert_eq!(compute(&forced, MemoryLayout::Auto).form, Form::Training);
    }

    #[test]
    fn mixed_bf16_training_follows_fp32_on_the_same_data() {
        let (a, b) = (model(), model());
        // Four batches seen ten times over: fixed data the net can fit.
        let four = batches(&a, 4);
        let data: Vec<Batch> = (0..40).map(|i| four[i % 4].clone()).collect();
        let mut opt_a = AdamW::new(a.var_store(), 1e-3, 1e-4);
        let mut opt_b = AdamW::new(b.var_store(), 1e-3, 1e-4);
        let fp32 = train(&a, &mut opt_a, &data, Kind::Float);
        let bf16 = train(&b, &mut opt_b, &data, Kind::BFloat16);
        // Compared a pass over the four batches at a time: single steps differ by the
        // threads' order of summation, which bf16 rounding amplifies.
        let epochs = |losses: &[f64]| -> Vec<f64> {
            losses
                .chunks(4)
                .map(|c| c.iter().sum::<f64>() / 4.0)
                .collect()
        };
        for (epoch, (f, h)) in epochs(&fp32).iter().zip(epochs(&bf16)).enumerate() {
            assert!(
                (f - h).abs() <= 0.04 * f,
                "pass {epoch}: fp32 loss {f:.4}, bf16 {h:.4}\n{fp32:?}\n{bf16:?}"
            );
        }
        assert!(fp32[39] < 0.95 * fp32[0], "fp32 learnt: {fp32:?}");
        assert!(bf16[39] < 0.95 * bf16[0], "bf16 learnt: {bf16:?}");
        // The weights stay fp32 whatever the learner computes in.
        assert_eq!(b.kind(), Kind::Float);
    }

    #[test]
    fn a_checkpoint_trained_in_one_precision_trains_on_in_the_other() {
        // Four batches seen five times over: fixed data the net can fit.
        let four = batches(&model(), 4);
        let data: Vec<Batch> = (0..20).map(|i| four[i % 4].clone()).collect();
        let dir = std::env::temp_dir().join(format!("cz-mixed-ckpt-{}", std::process::id()));
        let shape = model().meta().shape.clone();
        for (first, then) in [(Kind::BFloat16, Kind::Float), (Kind::Float, Kind::BFloat16)] {
            let m = model();
            let mut opt = AdamW::new(m.var_store(), 1e-3, 1e-4);
            let before = train(&m, &mut opt, &data[..10], first);
            let state = TrainState {
                step: 10,
                ..TrainState::default()
            };
            let saved =
                write_checkpoint(&dir.join(format!("{first:?}")), &m, &opt, &state).unwrap();
            let (loaded, mut opt2, state2) =
                load_checkpoint(&saved, &shape, (1e-3, 1e-4), Device::Cpu).unwrap();
            assert_eq!((state2.step, loaded.kind()), (10, Kind::Float));
            assert_eq!(opt2.steps(), opt.steps());
            // Going on in the other precision matches going on in the first.
            let after = train(&loaded, &mut opt2, &data[10..], then);
            let same = train(&m, &mut opt, &data[10..], first);
            let mean = |l: &[f64]| l.iter().sum::<f64>() / l.len() as f64;
            let (x, y) = (mean(&after), mean(&same));
            assert!(
                (x - y).abs() <= 0.04 * y,
                "{first:?} then {then:?}: {after:?} vs {same:?}"
            );
            assert!(
                mean(&after) < mean(&before),
                "{first:?} then {then:?} learns on: {before:?} {after:?}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
