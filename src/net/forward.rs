//! The forward pass self-play's batcher runs: a batch's input staged for the net's device
//! (on a GPU padded to few shapes and written straight into pinned memory), the net (on a
//! GPU on the thread's own CUDA stream, replayed as a CUDA graph per shape), and its outputs
//! read back in one copy. The precision probe and the benchmarks time this same pass.

use std::collections::HashMap;

use tch::{Kind, Tensor};

use super::backend::RawOutput;
use super::cuda::{self, Graph, GraphPool};
use super::inference::InferenceNet;
use super::NetError;
use crate::config::batching::BatchingConfig;

/// How batches reach a GPU: padding, pinned host memory, cuDNN's benchmark, streams and
/// graphs. Each is a setting so that `bench` and `scripts/` can measure it on and off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuStaging {
    /// Batches are padded with empty positions to a multiple of this (1: not padded), so
    /// that the net sees few batch shapes: cuDNN's benchmark times each shape once, and a
    /// CUDA graph is captured for each.
    pub pad_to: usize,
    /// Inputs are written into a pinned host buffer of each stream and copied to the GPU
    /// without blocking, answers read back through another (false: ordinary memory).
    pub pinned: bool,
    /// cuDNN times its convolution algorithms for each shape and keeps the fastest
    /// (`torch.backends.cudnn.benchmark`).
    pub cudnn_benchmark: bool,
    /// Each stream's thread runs on a CUDA stream of its own.
    pub own_stream: bool,
    /// Each stream replays its forward pass as a CUDA graph per batch shape.
    pub cuda_graphs: bool,
}

impl GpuStaging {
    /// Whether a stream's thread asks for a CUDA stream of its own (graphs need one).
    pub fn wants_own_stream(&self) -> bool {
        self.own_stream || self.cuda_graphs
    }

    /// The staging `[batching]` sets.
    pub fn of(batching: &BatchingConfig) -> GpuStaging {
        GpuStaging {
            pad_to: batching.pad_to,
            pinned: batching.pinned,
            cudnn_benchmark: batching.cudnn_benchmark,
            own_stream: batching.own_stream,
            cuda_graphs: batching.cuda_graphs,
        }
    }
}

impl Default for GpuStaging {
    /// `[batching]`'s defaults.
    fn default() -> Self {
        GpuStaging::of(&BatchingConfig::default())
    }
}

/// How a batch's input reaches the net's device and its answer comes back: on a GPU,
/// padded to a multiple of [`GpuStaging::pad_to`] positions, through pinned host buffers
/// that the stream keeps (allocated once they are large enough), on the thread's own CUDA
/// stream, replayed as graphs; on the CPU, as it is.
pub struct Staging {
    pad_to: usize,
    /// Pin for this device (None: ordinary memory).
    pin_for: Option<tch::Device>,
    pinned_in: Option<Tensor>,
    pinned_out: Option<Tensor>,
    graphs: Option<Graphs>,
}

impl Staging {
    /// Input as it is (the CPU; benchmarks of the bare forward pass).
    pub fn plain() -> Staging {
        Staging {
            pad_to: 1,
            pin_for: None,
            pinned_in: None,
            pinned_out: None,
            graphs: None,
        }
    }

    /// The staging for batches on `device` under `gpu`, for the calling thread (its own
    /// stream is set here); on a GPU, also switches cuDNN's benchmark as `gpu` says (a
    /// process-wide switch). A stream or graphs that cannot be had are said once, and the
    /// thread goes on without them.
    pub fn new(gpu: GpuStaging, device: tch::Device) -> Staging {
        if !device.is_cuda() {
            return Staging::plain();
        }
        tch::Cuda::cudnn_set_benchmark(gpu.cudnn_benchmark);
        let own = match gpu.wants_own_stream() {
            true => warn_once(
                cuda::use_own_stream(device),
                "runs on the default CUDA stream",
            ),
            false => None,
        };
        let graphs = match (own, gpu.cuda_graphs) {
            (Some(true), true) => warn_once(Graphs::new(device), "runs eagerly, without CUDA graphs"),
            (Some(false), true) => warn_once(
                Err(NetError::Device(format!(
                    "more threads than libtorch's {} pooled CUDA streams asked for streams of their own, so some share one",
                    cuda::POOL_STREAMS
                ))),
                "runs those threads' passes eagerly, without CUDA graphs",
            ),
            _ => None,
        };
        Staging {
            pad_to: gpu.pad_to.max(1),
            pin_for: gpu.pinned.then_some(device),
            pinned_in: None,
            pinned_out: None,
            graphs,
        }
    }

    /// Forgets the graphs captured so far: they hold the weights they were captured with,
    /// so new weights need new graphs.
    pub fn forget_graphs(&mut self) {
        if let Some(graphs) = &mut self.graphs {
            graphs.captured.clear();
        }
    }

    /// Whether forward passes replay CUDA graphs.
    pub fn graphs(&self) -> bool {
        self.graphs.is_some()
    }

    /// A pinned buffer of `values` floats from `slot` (kept and grown); `None` when
    /// the data goes through ordinary memory, or pinning failed (said once).
    fn pinned(
        pin_for: &mut Option<tch::Device>,
        slot: &mut Option<Tensor>,
        values: usize,
    ) -> Option<Tensor> {
        let device = (*pin_for)?;
        let held = slot.as_ref().map_or(0, |b| b.size()[0] as usize);
        if held < values {
            // Grown at least twofold: batches grow as a run starts, and each pinning is a
            // slow call (and a warning of libtorch's).
            let size = values.max(2 * held) as i64;
            let buffer = Tensor::zeros([size], (Kind::Float, tch::Device::Cpu));
            match buffer.f_pin_memory(device) {
                Ok(pinned) => *slot = Some(pinned),
                Err(e) => {
                    eprintln!(
                        "warning: data goes to and from the GPU through ordinary memory: {e}"
                    );
                    *pin_for = None;
                    return None;
                }
            }
        }
        slot.as_ref().map(|b| b.narrow(0, 0, values as i64))
    }

    /// `chunk`'s `batch` positions (`per` values each) as a host tensor of `padded`
    /// positions, the padding zero: written straight into the pinned buffer, or copied
    /// from ordinary memory.
    fn host_input(
        &mut self,
        chunk: &[f32],
        batch: usize,
        padded: usize,
    ) -> Result<Tensor, NetError> {
        let per = chunk.len() / batch.max(1);
        let Some(buffer) = Self::pinned(&mut self.pin_for, &mut self.pinned_in, padded * per)
        else {
            let x = Tensor::from_slice(chunk);
            return Ok(match padded == batch {
                true => x,
                false => Tensor::f_cat(
                    &[
                        x,
                        Tensor::zeros(
                            [((padded - batch) * per) as i64],
                            (Kind::Float, tch::Device::Cpu),
                        ),
                    ],
                    0,
                )?,
            });
        };
        // SAFETY: the buffer is a contiguous f32 host tensor of `padded * per` values, and
        // no copy from it is in flight: the previous pass read its answer back, which waits
        // for everything queued before it on this thread's stream.
        let values =
            unsafe { std::slice::from_raw_parts_mut(buffer.data_ptr() as *mut f32, padded * per) };
        values[..chunk.len()].copy_from_slice(chunk);
        values[chunk.len()..].fill(0.0);
        Ok(buffer)
    }

    /// Runs `batch` positions of `chunk` on `model` staged (a GPU's way, or padding on the
    /// CPU in tests), appending the answers to `raw`.
    fn forward_staged(
        &mut self,
        net: &InferenceNet,
        chunk: &[f32],
        batch: usize,
        dims: [i64; 3],
        raw: &mut RawOutput,
    ) -> Result<(), NetError> {
        let padded = batch.div_ceil(self.pad_to) * self.pad_to;
        let input = self.host_input(chunk, batch, padded)?.reshape([
            padded as i64,
            dims[0],
            dims[1],
            dims[2],
        ]);
        let replayed = match &mut self.graphs {
            Some(graphs) => warn_once(
                graphs.run(net, &input, padded),
                "stops replaying CUDA graphs: the eager pass answers",
            ),
            None => None,
        };
        if replayed.is_none() {
            self.graphs = None;
        }
        let both = match replayed {
            Some(both) => both,
            None => {
                let x =
                    input.f_to_device_(net.device(), Kind::Float, self.pin_for.is_some(), false)?;
                net.answers(&x)?
            }
        };
        self.read_back(&both.narrow(0, 0, batch as i64), raw)
    }

    /// Appends `both` (`[batch, actions + 3]` on the GPU: policy logits, then W/D/L) to
    /// `raw`: one copy back, through the pinned buffer when there is one.
    fn read_back(&mut self, both: &Tensor, raw: &mut RawOutput) -> Result<(), NetError> {
        let (rows, width) = (both.size()[0] as usize, both.size()[1] as usize);
        let actions = width - 3;
        let mut copied = Vec::new();
        let values: &[f32] =
            match Self::pinned(&mut self.pin_for, &mut self.pinned_out, rows * width) {
                Some(mut buffer) => {
                    // A blocking copy: waits for this thread's stream only.
                    buffer.f_copy_(&both.reshape([-1]))?;
                    // SAFETY: a contiguous f32 host tensor of `rows * width` values, just written.
                    unsafe {
                        std::slice::from_raw_parts(buffer.data_ptr() as *const f32, rows * width)
                    }
                }
                None => {
                    append_f32(both, &mut copied)?;
                    &copied
                }
            };
        for row in values.chunks(width) {
            raw.policy.extend_from_slice(&row[..actions]);
            raw.value.extend_from_slice(&row[actions..]);
        }
        Ok(())
    }
}

/// `result`'s value, or `None` with a warning, said once per process for each `then`.
fn warn_once<T>(result: Result<T, NetError>, then: &str) -> Option<T> {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    match result {
        Ok(value) => Some(value),
        Err(error) => {
            let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
            if !said.iter().any(|s| s == then) {
                said.push(then.to_string());
                eprintln!("warning: {error}; the GPU {then}");
            }
            None
        }
    }
}

/// A stream's CUDA graphs: one per batch shape, precision and form, captured on first use, their
/// memory from one pool (they replay one after another on one thread, and each answer is
/// read back before the next replay).
struct Graphs {
    device: tch::Device,
    pool: GraphPool,
    captured: HashMap<(usize, Kind, crate::config::batching::Form), Captured>,
}

/// A captured forward pass: the graph, and the tensors it reads and writes.
struct Captured {
    graph: Graph,
    input: Tensor,
    output: Tensor,
}

impl Graphs {
    fn new(device: tch::Device) -> Result<Graphs, NetError> {
        Ok(Graphs {
            device,
            pool: GraphPool::new()?,
            captured: HashMap::new(),
        })
    }

    /// Replays the graph of `net` for `padded` positions on `input` (a host tensor),
    /// capturing it first if need be; its output, `[padded, actions + 3]` on the GPU, holds
    /// until the next replay.
    fn run(
        &mut self,
        net: &InferenceNet,
        input: &Tensor,
        padded: usize,
    ) -> Result<Tensor, NetError> {
        let key = (padded, net.kind(), net.form());
        if !self.captured.contains_key(&key) {
            let captured = self.capture(net, input)?;
            self.captured.insert(key, captured);
        }
        let captured = self.captured.get_mut(&key).expect("captured above");
        // tch copies in place only blocking: the thread waits for the input's copy (from
        // pinned memory, a fraction of the pass), not for other threads' work.
        captured.input.f_copy_(input)?;
        captured.graph.replay()?;
        Ok(captured.output.shallow_clone())
    }

    /// Captures `net`'s pass on `input`'s shape after two eager passes (cuDNN's
    /// benchmark and cuBLAS's set-up happen outside the capture), and checks the replay
    /// against the eager answer.
    fn capture(&self, net: &InferenceNet, input: &Tensor) -> Result<Captured, NetError> {
        let x = input.f_to_device(self.device)?;
        let _ = net.answers(&x)?;
        let eager = net.answers(&x)?;
        cuda::sync_own_stream(self.device)?;
        let mut graph = Graph::begin(self.pool)?;
        let output = net.answers(&x);
        graph.end()?;
        let output = output?;
        graph.replay()?;
        let differs = (&output - &eager).f_abs()?.f_max()?.f_double_value(&[])?;
        let scale = 1.0 + eager.f_abs()?.f_max()?.f_double_value(&[])?;
        let tolerance = if net.kind() == Kind::Float {
            1e-3
        } else {
            3e-2
        };
        if differs.is_nan() || differs > tolerance * scale {
            return Err(NetError::Device(format!(
                "a CUDA graph's answers differ from the eager pass's by {differs:.2e} (allowed {:.2e})",
                tolerance * scale
            )));
        }
        Ok(Captured {
            graph,
            input: x,
            output,
        })
    }
}

/// Runs `positions` laid out in `input` through the net, at most `max_batch` at a time, each
/// chunk on `net_for(chunk size)`, its input staged by `staging`: the batcher's forward
/// pass (the precision probe and benchmarks time it alone).
pub fn forward_raw<'a>(
    net_for: impl Fn(usize) -> &'a InferenceNet,
    input: &[f32],
    positions: usize,
    max_batch: usize,
    staging: &mut Staging,
) -> Result<RawOutput, NetError> {
    let shape = net_for(positions.min(max_batch)).shape();
    let per_position = (shape.planes * shape.height * shape.width) as usize;
    let actions = shape.num_actions as usize;
    let mut raw = RawOutput {
        policy: Vec::with_capacity(positions * actions),
        value: Vec::with_capacity(positions * 3),
    };
    let dims = [shape.planes, shape.height, shape.width];
    for chunk in input.chunks(max_batch * per_position) {
        let batch = chunk.len() / per_position;
        let net = net_for(batch);
        if staging.pad_to > 1 || net.device().is_cuda() {
            staging.forward_staged(net, chunk, batch, dims, &mut raw)?;
            continue;
        }
        let x = Tensor::from_slice(chunk).reshape([batch as i64, dims[0], dims[1], dims[2]]);
        staging.read_back(&net.answers(&x)?, &mut raw)?;
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
    use crate::config::batching::Form;
    use crate::config::net::NetConfig;
    use crate::game::rematch::Rematch;
    use crate::game::GameKind;
    use crate::net::encode::Encode;
    use crate::net::model::Model;

    #[test]
    fn padded_batches_answer_exactly_the_positions_asked_for() {
        tch::manual_seed(7);
        let shape = Rematch::net_shape(GameKind::Rematch);
        let config = NetConfig::default_for(GameKind::Rematch);
        let model = Model::new(shape.clone(), config, tch::Device::Cpu).unwrap();
        let model = InferenceNet::build(&model, Kind::Float, Form::Folded).unwrap();
        let per = (shape.planes * shape.height * shape.width) as usize;
        let input: Vec<f32> = (0..5 * per)
            .map(|i| ((i * 37) % 11) as f32 / 11.0)
            .collect();
        let _guard = tch::no_grad_guard();
        let plain = forward_raw(|_| &model, &input, 5, 4, &mut Staging::plain()).unwrap();
        let mut padded = Staging {
            pad_to: 64,
            ..Staging::plain()
        };
        let with_padding = forward_raw(|_| &model, &input, 5, 4, &mut padded).unwrap();
        let actions = shape.num_actions as usize;
        assert_eq!(with_padding.policy.len(), 5 * actions);
        assert_eq!(with_padding.value.len(), 5 * 3);
        let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5);
        assert!(close(&plain.policy, &with_padding.policy));
        assert!(close(&plain.value, &with_padding.value));
    }

    #[test]
    fn on_a_gpu_graph_replays_answer_as_the_eager_pass() {
        if !tch::Cuda::is_available() || !crate::net::cuda::available() {
            eprintln!("no CUDA GPU or no CUDA shim here: scripts/check-gpu covers a GPU");
            return;
        }
        tch::manual_seed(11);
        let device = tch::Device::Cuda(0);
        let shape = Rematch::net_shape(GameKind::Rematch);
        let config = NetConfig::default_for(GameKind::Rematch);
        let model = Model::new(shape.clone(), config, device).unwrap();
        let model = InferenceNet::build(&model, Kind::Float, Form::Folded).unwrap();
        let per = (shape.planes * shape.height * shape.width) as usize;
        let input: Vec<f32> = (0..100 * per)
            .map(|i| ((i * 13) % 5) as f32 / 5.0)
            .collect();
        let _guard = tch::no_grad_guard();
        let eager = GpuStaging {
            cuda_graphs: false,
            ..GpuStaging::default()
        };
        let reference = forward_raw(
            |_| &model,
            &input,
            100,
            64,
            &mut Staging::new(eager, device),
        )
        .unwrap();
        let with_graphs = GpuStaging {
            cuda_graphs: true,
            ..GpuStaging::default()
        };
        let mut graphs = Staging::new(with_graphs, device);
        assert!(graphs.graphs(), "graphs are on where the shim is built");
        // Twice: captured (and checked), then replayed; batches of 64 and 36 (padded to 64).
        for _ in 0..2 {
            let replayed = forward_raw(|_| &model, &input, 100, 64, &mut graphs).unwrap();
            let close = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-3);
            assert!(close(&reference.policy, &replayed.policy));
            assert!(close(&reference.value, &replayed.value));
        }
        assert!(graphs.graphs(), "no graph was turned off");
    }
}
