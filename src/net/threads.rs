//! Thread counts that may be `auto`, and the layout `auto` means: self-play workers, evaluator
//! instances and libtorch threads per instance for this machine's cores. The rule is one
//! worker per core and, on the CPU, one single-threaded evaluator instance per worker (no
//! OpenMP team shared between workers); on a GPU one instance serves every worker.
//! `checkers-zero bench` measures this layout against the alternatives on the machine at
//! hand (docs/benchmarks.md).

use serde::{Deserialize, Serialize};
use tch::Device;

/// A count that is either given or chosen for the machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Count {
    /// Chosen by [`auto_layout`].
    #[default]
    #[serde(with = "auto_string")]
    Auto,
    /// This many.
    Fixed(usize),
}

mod auto_string {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("auto")
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<(), D::Error> {
        match String::deserialize(d)?.as_str() {
            "auto" => Ok(()),
            other => Err(serde::de::Error::custom(format!(
                "expected a number or \"auto\", got \"{other}\""
            ))),
        }
    }
}

impl Count {
    /// The given count, or `auto` as `layout` decides it.
    pub fn or(self, auto: usize) -> usize {
        match self {
            Count::Auto => auto,
            Count::Fixed(n) => n,
        }
    }

    /// Whether a fixed count lies in `range` (`auto` always does).
    pub fn within(self, range: std::ops::RangeInclusive<usize>) -> bool {
        match self {
            Count::Auto => true,
            Count::Fixed(n) => range.contains(&n),
        }
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Count::Auto => f.write_str("auto"),
            Count::Fixed(n) => write!(f, "{n}"),
        }
    }
}

/// Self-play threads and evaluator layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Self-play worker threads.
    pub workers: usize,
    /// Evaluator instances (each with its own copy of the net).
    pub instances: usize,
    /// libtorch threads of each instance.
    pub torch_threads: usize,
}

/// The layout `auto` stands for on `cores` cores with the net on `device`.
pub fn auto_layout(cores: usize, device: Device) -> Layout {
    let cores = cores.max(1);
    match device {
        Device::Cpu => Layout {
            workers: cores,
            instances: cores,
            torch_threads: 1,
        },
        _ => Layout {
            workers: cores,
            instances: 1,
            torch_threads: 1,
        },
    }
}

/// This machine's cores, as the OS reports them.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
