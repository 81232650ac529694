//! Where the net runs: `auto` (CUDA when libtorch sees a GPU, else the CPU), `cpu`, `cuda`
//! or `cuda:N`. The CUDA path is the CPU path with tensors on another device: the evaluator
//! moves inputs to the model's device and results back, the trainer moves its batches.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use tch::{Cuda, Device};

use super::NetError;

/// A device setting as written in a config or on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DeviceChoice {
    /// CUDA device 0 when libtorch sees one, else the CPU.
    #[default]
    Auto,
    /// The CPU.
    Cpu,
    /// A CUDA device (`cuda` is `cuda:0`).
    Cuda(usize),
}

/// The values `--device` and the `device` keys accept.
pub const DEVICE_VALUES: &str = "auto, cpu, cuda, cuda:N";

impl FromStr for DeviceChoice {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || format!("unknown device `{text}` (allowed: {DEVICE_VALUES})");
        match text {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" => Ok(DeviceChoice::Cuda(0)),
            _ => text
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(DeviceChoice::Cuda)
                .ok_or_else(bad),
        }
    }
}

impl std::fmt::Display for DeviceChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceChoice::Auto => f.write_str("auto"),
            DeviceChoice::Cpu => f.write_str("cpu"),
            DeviceChoice::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

impl Serialize for DeviceChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DeviceChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

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
