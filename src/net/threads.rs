//! Thread counts that may be `auto`, and the layout `auto` means: self-play workers, evaluator
//! instances and libtorch threads per instance for this machine's cores. The rule is one
//! worker per core and, on the CPU, one single-threaded evaluator instance per worker (no
//! OpenMP team shared between workers); on a GPU one instance serves every worker.
//! `checkers-zero bench` measures this layout against the alternatives on the machine at
//! hand (`docs/benchmarks.md`).

use serde::{Deserialize, Serialize};
use tch::Device;

/// A count that is either given or chosen for the machine: a number or `"auto"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Count {
    /// Chosen by [`auto_layout`].
    #[default]
    Auto,
    /// This many.
    Fixed(usize),
}

impl Serialize for Count {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Count::Auto => s.serialize_str("auto"),
            Count::Fixed(n) => s.serialize_u64(*n as u64),
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number or \"auto\"")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Count, E> {
                Ok(Count::Fixed(n as usize))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Count, E> {
                usize::try_from(n)
                    .map(Count::Fixed)
                    .map_err(|_| E::custom(format!("expected a number >= 0 or \"auto\", got {n}")))
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Count, E> {
                match text {
                    "auto" => Ok(Count::Auto),
                    _ => Err(E::custom(format!(
                        "expected a number or \"auto\", got \"{text}\""
                    ))),
                }
            }
        }
        d.deserialize_any(Visitor)
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
    /// Batcher instances (each with its own copy of the net).
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
