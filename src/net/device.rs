//! Where the net runs: `auto` (CUDA when libtorch sees a GPU, else the CPU), `cpu`, `cuda`
//! or `cuda:N`. The CUDA path is the CPU path with tensors on another device: the batcher
//! moves inputs to the model's device and results back, the trainer moves its batches.

use tch::{Cuda, Device};

use super::NetError;
use crate::config::batching::DeviceChoice;

impl DeviceChoice {
    /// The setting that names `device` itself (never `auto`).
    pub fn of(device: Device) -> Self {
        match device {
            Device::Cuda(n) => DeviceChoice::Cuda(n),
            _ => DeviceChoice::Cpu,
        }
    }

    /// The libtorch device; a CUDA device libtorch does not see is an error.
    pub fn resolve(self) -> Result<Device, NetError> {
        let gpus = if Cuda::is_available() {
            Cuda::device_count().max(0) as usize
        } else {
            0
        };
        match self {
            DeviceChoice::Auto if gpus > 0 => Ok(Device::Cuda(0)),
            DeviceChoice::Auto | DeviceChoice::Cpu => Ok(Device::Cpu),
            DeviceChoice::Cuda(n) if n < gpus => Ok(Device::Cuda(n)),
            DeviceChoice::Cuda(n) => Err(NetError::Device(format!(
                "device cuda:{n} asked for, but libtorch sees {gpus} CUDA GPU(s) (use --device cpu or auto)"
            ))),
        }
    }
}
