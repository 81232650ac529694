//! A TorchScript module of the net as a [`Backend`]: loaded on the CPU in fp32, run in the
//! calling thread, one forward pass per call (any batch size).
//!
//! The module's `forward` takes `[batch, planes, height, width]` float32 planes and returns
//! one tensor `[batch, num_actions + 3]`: the policy logits, then the win/draw/loss logits
//! (`crate::export` writes such modules and reads the record beside them).

use std::path::Path;
use std::sync::Arc;

use tch::{CModule, Device, Kind, Tensor};

use super::args::NetSettings;
use super::backend::{Backend, BackendInfo, IoShape, Logits, RawOutput};
use super::NetError;
use crate::config::batching::{DeviceChoice, Precision};

/// A loaded TorchScript net. Clones share the module.
#[derive(Clone, Debug)]
pub struct TorchScriptNet {
    module: Arc<CModule>,
    /// Input planes, height and width.
    input: [i64; 3],
    num_actions: i64,
}

impl TorchScriptNet {
    /// Loads the module at `path` on the CPU, in inference mode, for inputs of
    /// `[planes, height, width]` and `num_actions` policy outputs.
    pub fn load(
        path: &Path,
        input: [i64; 3],
        num_actions: i64,
    ) -> Result<TorchScriptNet, NetError> {
        let mut module = CModule::load_on_device(path, Device::Cpu)?;
        module.f_set_eval()?;
        Ok(TorchScriptNet {
            module: Arc::new(module),
            input,
            num_actions,
        })
    }

    /// Whether `net`'s settings can run a TorchScript module: it runs fp32 on the CPU, since
    /// tracing made its weights fp32 constants (libtorch's `to` does not convert them) and
    /// fixed the board mask's device. So `auto` means that, and `bf16` or a CUDA device are
    /// errors that say so.
    pub fn check_settings(net: NetSettings) -> Result<(), NetError> {
        if let DeviceChoice::Cuda(n) = net.device {
            return Err(NetError::Device(format!(
                "exported models run on the CPU (the traced module fixes its device), not on cuda:{n}"
            )));
        }
        if net.precision == Precision::Bf16 {
            return Err(NetError::Device(
                "exported models run in fp32 (tracing made their weights fp32 constants): use --precision fp32 or auto"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Policy logits `[N, num_actions]` and W/D/L logits `[N, 3]` for planes
    /// `[N, planes, height, width]`.
    pub fn forward_tensors(&self, input: &Tensor) -> Result<(Tensor, Tensor), NetError> {
        let _no_grad = tch::no_grad_guard();
        let output = self.module.forward_ts(&[input])?;
        let actions = self.num_actions;
        let size = output.size();
        if size.len() != 2 || size[1] != actions + 3 {
            return Err(NetError::Shape(format!(
                "the module returned shape {size:?}, expected [batch, {}]",
                actions + 3
            )));
        }
        Ok((output.narrow(1, 0, actions), output.narrow(1, actions, 3)))
    }
}

impl Backend for TorchScriptNet {
    fn forward(&self, input: Vec<f32>, positions: usize) -> Result<Logits, NetError> {
        let [planes, height, width] = self.input;
        let x = Tensor::from_slice(&input).reshape([positions as i64, planes, height, width]);
        let (policy, value) = self.forward_tensors(&x)?;
        let raw = RawOutput {
            policy: Vec::<f32>::try_from(policy.to_kind(Kind::Float).flatten(0, -1))?,
            value: Vec::<f32>::try_from(value.to_kind(Kind::Float).flatten(0, -1))?,
        };
        Ok(Logits {
            raw: Arc::new(raw),
            first: 0,
        })
    }

    fn shape(&self) -> IoShape {
        let [planes, height, width] = self.input;
        IoShape {
            per_position: (planes * height * width) as usize,
            num_actions: self.num_actions as usize,
        }
    }

    fn info(&self) -> BackendInfo {
        BackendInfo {
            runtime: "TorchScript",
            device: "cpu".into(),
            precision: "fp32".into(),
            max_batch: None,
        }
    }

    fn boxed_clone(&self) -> Box<dyn Backend> {
        Box::new(self.clone())
    }
}
