//! The batching section (`[batching]`, `[evaluator]` in older configs): how self-play's
//! positions go through the net together, with its value types: the precision, the device
//! and counts that may be `auto`. What `auto` settles to is measured on the machine at hand
//! ([`crate::net::precision`], [`crate::net::device`], [`crate::net::threads`]).

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::check::{first_failure, Check};

/// Batched-inference settings for self-play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BatchingConfig {
    /// Most positions per forward pass.
    pub max_batch: usize,
    /// Longest wait (ms) for a batch to fill.
    pub max_wait_ms: f64,
    /// `auto` (fp32 or bf16, whichever the probe measures faster on this machine), `fp32`
    /// or `bf16`.
    pub precision: Precision,
    /// Older spelling of `precision` (true: bf16, false: fp32); kept so that configs of
    /// older runs still load. Not written back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bf16: Option<bool>,
    /// Where self-play's net runs: `auto`, `cpu`, `cuda` or `cuda:N`.
    pub device: DeviceChoice,
    /// libtorch threads of each batcher instance (0: libtorch's default; `auto`: see
    /// [`crate::net::threads`]).
    pub torch_threads: Count,
    /// Batcher instances, each with its own copy of the net; worker `w` uses instance
    /// `w % instances` (`auto`: see [`crate::net::threads`]).
    pub instances: Count,
    /// Forward passes each batcher instance keeps in flight at once, each stream with its
    /// own copy of the net: with `selfplay.groups`, a worker's next group is launched while
    /// the last one is still in the net, which hides a GPU's latency (1: one at a time).
    pub streams: usize,
    /// On a GPU: batches padded with empty positions to a multiple of this (few shapes for
    /// cuDNN's benchmark; 1: not padded).
    pub pad_to: usize,
    /// On a GPU: inputs copied through a pinned host buffer, without blocking.
    pub pinned: bool,
    /// On a GPU: cuDNN times its convolution algorithms per shape and keeps the fastest.
    pub cudnn_benchmark: bool,
    /// On a GPU: each stream runs on a CUDA stream of its own, so that streams' forward
    /// passes overlap instead of queueing on the default stream (needs the CUDA shim).
    pub own_stream: bool,
    /// On a GPU: each stream captures its forward pass as a CUDA graph per batch shape and
    /// replays it (one launch instead of one per kernel; implies `own_stream`; needs the
    /// CUDA shim). Each graph is checked against the eager pass once when captured. Off by
    /// default: on one H200 it cut the pass by 18% but self-play by no more than noise, which the CPU
    /// cores' search then bounds (docs/benchmarks.md).
    pub cuda_graphs: bool,
    /// The net's inference form: `auto` (the faster of `folded` and `folded-channels-last`
    /// per precision, measured with the precision), `folded` (batch norm folded into the
    /// convolutions), `folded-channels-last`, or `training` (the training form's pass).
    pub form: FormSetting,
}

impl Default for BatchingConfig {
    fn default() -> Self {
        BatchingConfig {
            max_batch: 128,
            max_wait_ms: 2.0,
            precision: Precision::Auto,
            bf16: None,
            device: DeviceChoice::Auto,
            torch_threads: Count::Auto,
            instances: Count::Auto,
            streams: 1,
            pad_to: 64,
            pinned: true,
            cudnn_benchmark: true,
            own_stream: true,
            cuda_graphs: false,
            form: FormSetting::Auto,
        }
    }
}

impl BatchingConfig {
    /// Checks every value's range, naming the first bad key.
    pub fn check(&self) -> Check {
        let checks = [
            (
                "max_batch",
                (1..=4096).contains(&self.max_batch),
                "must be 1..=4096",
            ),
            (
                "max_wait_ms",
                (0.0..=1000.0).contains(&self.max_wait_ms),
                "must be in [0, 1000]",
            ),
            (
                "torch_threads",
                self.torch_threads.within(0..=256),
                "must be 0..=256 or \"auto\"",
            ),
            (
                "instances",
                self.instances.within(1..=64),
                "must be 1..=64 or \"auto\"",
            ),
            (
                "streams",
                (1..=16).contains(&self.streams),
                "must be 1..=16",
            ),
            (
                "pad_to",
                (1..=4096).contains(&self.pad_to),
                "must be 1..=4096",
            ),
            (
                "bf16",
                self.bf16.is_none() || self.precision == Precision::Auto,
                "give either `precision` or the older `bf16`, not both",
            ),
        ];
        first_failure("batching.", &checks)
    }
}

/// How the batcher computes the net (`crate::net::inference` builds each form).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// The training form's forward pass (batch norm as separate ops).
    Training,
    /// Batch norm folded into the convolutions, contiguous (NCHW) memory.
    #[default]
    Folded,
    /// Folded, in channels-last (NHWC) memory.
    FoldedChannelsLast,
    /// The training form's pass in channels-last memory (what the learner may train in).
    TrainingChannelsLast,
}

/// Every form, in the order tables list them.
pub const FORMS: [Form; 3] = [Form::Training, Form::Folded, Form::FoldedChannelsLast];

/// The values `[batching] form` accepts.
pub const FORM_VALUES: &str = "auto, training, folded, folded-channels-last";

impl Form {
    /// True for the forms that keep activations in channels-last (NHWC) memory.
    pub fn channels_last(self) -> bool {
        matches!(self, Form::FoldedChannelsLast | Form::TrainingChannelsLast)
    }

    /// Its memory layout in words: `channels-last` or `contiguous`.
    pub fn layout(self) -> &'static str {
        match self.channels_last() {
            true => "channels-last",
            false => "contiguous",
        }
    }

    /// Its name in configs and tables.
    pub fn name(self) -> &'static str {
        match self {
            Form::Training => "training",
            Form::Folded => "folded",
            Form::FoldedChannelsLast => "folded-channels-last",
            Form::TrainingChannelsLast => "training-channels-last",
        }
    }
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The form setting: measured (`auto`) or one form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FormSetting {
    /// The faster folded form, measured per precision.
    #[default]
    Auto,
    /// The training form.
    Training,
    /// Folded, NCHW.
    Folded,
    /// Folded, NHWC.
    FoldedChannelsLast,
}

impl FormSetting {
    /// The forms the probe measures under this setting (the training form only adds work,
    /// so `auto` leaves it out).
    pub fn candidates(self) -> &'static [Form] {
        match self {
            FormSetting::Auto => &[Form::Folded, Form::FoldedChannelsLast],
            FormSetting::Training => &[Form::Training],
            FormSetting::Folded => &[Form::Folded],
            FormSetting::FoldedChannelsLast => &[Form::FoldedChannelsLast],
        }
    }
}

impl FromStr for FormSetting {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "auto" => Ok(FormSetting::Auto),
            "training" => Ok(FormSetting::Training),
            "folded" => Ok(FormSetting::Folded),
            "folded-channels-last" => Ok(FormSetting::FoldedChannelsLast),
            _ => Err(format!(
                "unknown net form `{text}` (allowed: {FORM_VALUES})"
            )),
        }
    }
}

/// The precision setting: measured (`auto`) or forced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Time both on this machine and this net, take the faster per batch band.
    #[default]
    Auto,
    /// float32 at every batch.
    Fp32,
    /// bfloat16 weights and inputs at every batch (results read back as f32).
    Bf16,
}

/// The values `--precision` and `batching.precision` accept.
pub const PRECISION_VALUES: &str = "auto, fp32, bf16";

impl FromStr for Precision {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "auto" => Ok(Precision::Auto),
            "fp32" => Ok(Precision::Fp32),
            "bf16" => Ok(Precision::Bf16),
            _ => Err(format!(
                "unknown precision `{text}` (allowed: {PRECISION_VALUES})"
            )),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Precision::Auto => "auto",
            Precision::Fp32 => "fp32",
            Precision::Bf16 => "bf16",
        })
    }
}

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

/// A count that is either given or chosen for the machine: a number or `"auto"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Count {
    /// Chosen for the machine ([`crate::net::threads::auto_plan`]).
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
    /// The given count, or `auto` as the machine's layout decides it.
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
