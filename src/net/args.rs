//! How a command runs its nets (precision and device), as settings and as the command-line
//! flags every command that runs a net takes ([`NetArgs`], flattened into its arguments), and
//! [`prepare`]: a model made ready for a batcher under those settings.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::batcher::BatcherConfig;
use super::model::Model;
use super::precision::{probe_batches, probe_model, resolve, ProbeCache, ProbeKey, Resolved};
use super::threads::ThreadPlan;
use super::NetError;
use crate::config::batching::{BatchingConfig, DeviceChoice, FormSetting, Precision};
use crate::config::RunConfig;

/// Longest time the precision probe spends timing the net.
pub const PROBE_BUDGET: Duration = Duration::from_millis(1500);

/// Precision and device of inference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetSettings {
    /// `auto`, `fp32` or `bf16`.
    pub precision: Precision,
    /// `auto`, `cpu`, `cuda` or `cuda:N`.
    pub device: DeviceChoice,
    /// The inference form: `auto` (measured with the precision) or one form.
    #[serde(default)]
    pub form: FormSetting,
}

/// `--precision` and `--device`: override the config (or the defaults, `auto` both).
#[derive(clap::Args, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetArgs {
    /// Precision of the net: auto (time fp32 and bf16 on this machine, take the faster),
    /// fp32 or bf16.
    #[arg(long)]
    pub precision: Option<Precision>,
    /// Device of the net: auto (a CUDA GPU if libtorch sees one, else the CPU), cpu, cuda
    /// or cuda:N.
    #[arg(long)]
    pub device: Option<DeviceChoice>,
    /// Inference form of the net: auto (the faster folded form, measured), folded,
    /// folded-channels-last or training (the training form's pass, the reference).
    #[arg(long)]
    pub form: Option<FormSetting>,
}

impl NetSettings {
    /// The precision and device of a `[batching]` section (the older `bf16` key, when
    /// given, sets the precision).
    pub fn of(batching: &BatchingConfig) -> NetSettings {
        NetSettings {
            precision: match batching.bf16 {
                Some(true) => Precision::Bf16,
                Some(false) => Precision::Fp32,
                None => batching.precision,
            },
            device: batching.device,
            form: batching.form,
        }
    }
}

impl NetArgs {
    /// Puts these flags over a run's config: `--precision` over self-play's, `--device`
    /// over both self-play's and the trainer's device.
    pub fn apply_to(&self, config: &mut RunConfig) {
        if let Some(precision) = self.precision {
            config.batching.precision = precision;
            config.batching.bf16 = None;
        }
        if let Some(device) = self.device {
            config.batching.device = device;
            config.train.device = device;
        }
        if let Some(form) = self.form {
            config.batching.form = form;
        }
    }

    /// `settings` with the flags given here put over them.
    pub fn over(&self, settings: NetSettings) -> NetSettings {
        NetSettings {
            precision: self.precision.unwrap_or(settings.precision),
            device: self.device.unwrap_or(settings.device),
            form: self.form.unwrap_or(settings.form),
        }
    }

    /// The settings these flags give on their own (unset: `auto`).
    pub fn settings(&self) -> NetSettings {
        self.over(NetSettings::default())
    }
}

/// Self-play's layout and the batcher config that runs `model` on this machine under a
/// run's config: `auto` counts, device and precision settled (the precision is printed
/// once).
pub fn settle_selfplay(
    config: &RunConfig,
    model: &Model,
) -> Result<(ThreadPlan, BatcherConfig, Resolved), NetError> {
    let layout = ThreadPlan::of(config)?;
    let base = BatcherConfig::of(&config.batching, &layout);
    let (batcher, precision) = prepare(model, NetSettings::of(&config.batching), base)?;
    announce(&precision);
    Ok((layout, batcher, precision))
}

/// The batcher config that runs `model` under `settings`: `base` with the device and
/// the settled precision filled in, and how the precision was settled. The probe times the
/// net at `base`'s batch sizes and threads on that device; a cached probe for the same
/// machine, libtorch, net and threads is reused.
pub fn prepare(
    model: &Model,
    settings: NetSettings,
    base: BatcherConfig,
) -> Result<(BatcherConfig, Resolved), NetError> {
    let device = settings.device.resolve()?;
    let batches = probe_batches(base.max_batch);
    let moved;
    let probed = if model.var_store().device() == device {
        model
    } else {
        moved = model.copy_to(device)?;
        &moved
    };
    let forms = settings.form.candidates();
    let key = ProbeKey::for_model(probed, forms, base.torch_threads, &batches);
    let precision = resolve(settings.precision, &key, &ProbeCache::user(), || {
        probe_model(probed, forms, &batches, base.torch_threads, PROBE_BUDGET)
    })?;
    let (fp32_form, bf16_form) = match &precision.timings {
        Some(t) => (t.fp32_form, t.bf16_form),
        None => (forms[0], forms[0]),
    };
    let config = BatcherConfig {
        fp32_form,
        bf16_form,
        bf16: precision.choice.bf16_from.is_some(),
        fp32_below: precision.choice.bf16_from.unwrap_or(0),
        device,
        check_in_place: settings.precision == Precision::Auto,
        probe_speedups: precision
            .timings
            .as_ref()
            .map(|t| {
                t.fp32
                    .iter()
                    .zip(&t.bf16)
                    .map(|(f, b)| f / b.max(1e-12))
                    .collect()
            })
            .unwrap_or_default(),
        ..base
    };
    Ok((config, precision))
}

/// Prints `resolved.describe()` to stderr, once per process for each distinct line.
pub fn announce(resolved: &Resolved) {
    announce_line(&resolved.describe());
}

/// Prints `line` to stderr, once per process for each distinct line.
pub fn announce_line(line: &str) {
    static SHOWN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut shown = SHOWN.lock().unwrap_or_else(|e| e.into_inner());
    if shown
        .get_or_insert_with(HashSet::new)
        .insert(line.to_string())
    {
        eprintln!("{line}");
    }
}
