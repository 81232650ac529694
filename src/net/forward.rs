//! The forward pass self-play's evaluator runs: a batch's input staged for the net's device
//! (on a GPU padded to few shapes and copied through pinned memory), the net, and its
//! outputs read back in one copy. The precision probe and the benchmarks time this same pass.

use tch::{Kind, Tensor};

use super::backend::RawOutput;
use super::model::Model;
use super::NetError;
use crate::config::batching::BatchingConfig;

/// How batches reach a GPU: padding, pinned host memory, cuDNN's benchmark. Each is a
/// setting so that `bench` and `scripts/` can measure it on and off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuStaging {
    /// Batches are padded with empty positions to a multiple of this (1: not padded), so
    /// that the net sees few batch shapes: cuDNN's benchmark times each shape once.
    pub pad_to: usize,
    /// Inputs go through a pinned host buffer of each stream, copied to the GPU without
    /// blocking the stream's thread (false: from ordinary memory, a blocking copy).
    pub pinned: bool,
    /// cuDNN times its convolution algorithms for each shape and keeps the fastest
    /// (`torch.backends.cudnn.benchmark`).
    pub cudnn_benchmark: bool,
}

impl GpuStaging {
    /// The staging `[batching]` sets.
    pub fn of(batching: &BatchingConfig) -> GpuStaging {
        GpuStaging {
            pad_to: batching.pad_to,
            pinned: batching.pinned,
            cudnn_benchmark: batching.cudnn_benchmark,
        }
    }
}

impl Default for GpuStaging {
    /// `[batching]`'s defaults.
    fn default() -> Self {
        GpuStaging::of(&BatchingConfig::default())
    }
}

/// How a batch's input reaches the net's device: on a GPU, padded to a multiple of
/// [`GpuStaging::pad_to`] positions and copied through a pinned host buffer that the stream
/// keeps (allocated once it knows the size: a batch's copy does not wait for the GPU); on
/// the CPU, as it is.
pub struct Staging {
    pad_to: usize,
    /// Pin for this device (None: ordinary memory).
    pin_for: Option<tch::Device>,
    pinned: Option<Tensor>,
}

impl Staging {
    /// Input as it is (the CPU; benchmarks of the bare forward pass).
    pub fn plain() -> Staging {
        Staging {
            pad_to: 1,
            pin_for: None,
            pinned: None,
        }
    }

    /// The staging for batches on `device` under `gpu`; on a GPU, also switches cuDNN's
    /// benchmark as `gpu` says (a process-wide switch).
    pub fn new(gpu: GpuStaging, device: tch::Device) -> Staging {
        if !device.is_cuda() {
            return Staging::plain();
        }
        tch::Cuda::cudnn_set_benchmark(gpu.cudnn_benchmark);
        Staging {
            pad_to: gpu.pad_to.max(1),
            pin_for: gpu.pinned.then_some(device),
            pinned: None,
        }
    }

    /// The pinned buffer, at least `values` long (kept and grown); `None` when the input
    /// goes from ordinary memory, or pinning failed (said once).
    fn pinned_buffer(&mut self, values: usize) -> Option<&mut Tensor> {
        let device = self.pin_for?;
        if self
            .pinned
            .as_ref()
            .is_none_or(|b| (b.size()[0] as usize) < values)
        {
            let buffer = Tensor::zeros([values as i64], (Kind::Float, tch::Device::Cpu));
            match buffer.f_pin_memory(device) {
                Ok(pinned) => self.pinned = Some(pinned),
                Err(e) => {
                    eprintln!("warning: inputs go to the GPU from ordinary memory: {e}");
                    self.pin_for = None;
                    return None;
                }
            }
        }
        self.pinned.as_mut()
    }

    /// `batch` positions laid out in `chunk` as the net's input on `device` in `kind`:
    /// `[padded, dims...]`, the padding rows zero.
    fn upload(
        &mut self,
        chunk: &[f32],
        batch: usize,
        dims: [i64; 3],
        device: tch::Device,
        kind: Kind,
    ) -> Result<Tensor, NetError> {
        let padded = batch.div_ceil(self.pad_to) * self.pad_to;
        let per = chunk.len() / batch.max(1);
        let shape = |rows: usize| [rows as i64, dims[0], dims[1], dims[2]];
        let x = Tensor::from_slice(chunk);
        if let Some(buffer) = self.pinned_buffer(padded * per) {
            buffer.narrow(0, 0, chunk.len() as i64).f_copy_(&x)?;
            let _ = buffer
                .narrow(0, chunk.len() as i64, ((padded - batch) * per) as i64)
                .f_zero_()?;
            let view = buffer.narrow(0, 0, (padded * per) as i64);
            return Ok(view
                .reshape(shape(padded))
                .f_to_device_(device, kind, true, false)?);
        }
        let x = x
            .reshape(shape(batch))
            .f_to_device_(device, kind, false, false)?;
        if padded == batch {
            return Ok(x);
        }
        let zeros = Tensor::zeros(shape(padded - batch), (kind, device));
        Ok(Tensor::f_cat(&[x, zeros], 0)?)
    }
}

/// Runs `positions` laid out in `input` through the net, at most `max_batch` at a time, each
/// chunk on `model_for(chunk size)`, its input staged by `staging`: the evaluator's forward
/// pass (the precision probe and benchmarks time it alone).
pub fn forward_raw<'a>(
    model_for: impl Fn(usize) -> &'a Model,
    input: &[f32],
    positions: usize,
    max_batch: usize,
    staging: &mut Staging,
) -> Result<RawOutput, NetError> {
    let shape = &model_for(positions.min(max_batch)).meta().shape;
    let per_position = (shape.planes * shape.height * shape.width) as usize;
    let actions = shape.num_actions as usize;
    let mut raw = RawOutput {
        policy: Vec::with_capacity(positions * actions),
        value: Vec::with_capacity(positions * 3),
    };
    for chunk in input.chunks(max_batch * per_position) {
        let batch = chunk.len() / per_position;
        let model = model_for(batch);
        let device = model.var_store().device();
        let dims = [shape.planes, shape.height, shape.width];
        let x = staging.upload(chunk, batch, dims, device, model.kind())?;
        let (policy, value) = model.forward_t(&x, false);
        let (policy, value) = (
            policy.narrow(0, 0, batch as i64),
            value.narrow(0, 0, batch as i64),
        );
        if device.is_cuda() {
            // One copy back, not two: policy and W/D/L side by side.
            let both = Tensor::f_cat(&[policy, value], 1)?;
            let mut all = Vec::new();
            append_f32(&both, &mut all)?;
            for row in all.chunks(actions + 3) {
                raw.policy.extend_from_slice(&row[..actions]);
                raw.value.extend_from_slice(&row[actions..]);
            }
        } else {
            append_f32(&policy, &mut raw.policy)?;
            append_f32(&value, &mut raw.value)?;
        }
    }
    Ok(raw)
}

/// Appends the values of `tensor` (any float kind) to `out` as f32.
fn append_f32(tensor: &Tensor, out: &mut Vec<f32>) -> Result<(), NetError> {
    let values = tensor
        .to_kind(Kind::Float)
        .to_device(tch::Device::Cpu)
        .contiguous();
    let n = values.numel();
    let at = out.len();
    out.resize(at + n, 0.0);
    values.f_copy_data(&mut out[at..], n)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::net::NetConfig;
    use crate::game::rematch::Rematch;
    use crate::game::GameKind;
    use crate::net::encode::Encode;

    #[test]
    fn padded_batches_answer_exactly_the_positions_asked_for() {
        tch::manual_seed(7);
        let shape = Rematch::net_shape(GameKind::Rematch);
        let config = NetConfig::default_for(GameKind::Rematch);
        let model = Model::new(shape.clone(), config, tch::Device::Cpu).unwrap();
        let per = (shape.planes * shape.height * shape.width) as usize;
        let input: Vec<f32> = (0..5 * per)
            .map(|i| ((i * 37) % 11) as f32 / 11.0)
            .collect();
        let _guard = tch::no_grad_guard();
        let plain = forward_raw(|_| &model, &input, 5, 4, &mut Staging::plain()).unwrap();
        let mut padded = Staging {
            pad_to: 64,
            pin_for: None,
            pinned: None,
        };
        let with_padding = forward_raw(|_| &model, &input, 5, 4, &mut padded).unwrap();
        let actions = shape.num_actions as usize;
        assert_eq!(with_padding.policy.len(), 5 * actions);
        assert_eq!(with_padding.value.len(), 5 * 3);
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
        assert!(close(&plain.policy, &with_padding.policy));
        assert!(close(&plain.value, &with_padding.value));
    }
}
