//! The precision the net runs in, chosen by measurement: `auto` times the actual net at the
//! batch sizes it will serve, in fp32 and in bf16, and takes the faster one per batch band
//! ([`choose`], a pure function of the timings). Whether bf16 pays depends on the machine
//! (native bf16 units such as AMX, `avx512_bf16`, a GPU; or none): no CPU flag table
//! decides it, only the probe. Results are cached per machine ([`ProbeCache`]) so later
//! starts skip the probe; `checkers-zero bench` shows the same timings as a table.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tch::{Device, Kind};

use super::forward::{forward_raw, GpuStaging, Staging};
use super::inference::InferenceNet;
use super::model::{Model, NetShape};
use super::threads::on_torch_threads;
use super::NetError;
use crate::config::batching::{Form, Precision};
use crate::config::net::NetConfig;

/// Seconds per forward pass (best of the repetitions) at each probed batch size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeTimings {
    /// Batch sizes, ascending.
    pub batches: Vec<usize>,
    /// fp32 seconds per pass, one per batch size.
    pub fp32: Vec<f64>,
    /// bf16 seconds per pass, one per batch size.
    pub bf16: Vec<f64>,
    /// The inference form the fp32 timings are of (the fastest measured).
    #[serde(default)]
    pub fp32_form: Form,
    /// The inference form the bf16 timings are of.
    #[serde(default)]
    pub bf16_form: Form,
    /// Every form measured, with its timings (empty in entries from before forms).
    #[serde(default)]
    pub forms: Vec<FormTimings>,
}

/// One inference form's seconds per pass at each probed batch size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FormTimings {
    /// The form.
    pub form: Form,
    /// fp32 seconds per pass.
    pub fp32: Vec<f64>,
    /// bf16 seconds per pass.
    pub bf16: Vec<f64>,
}

impl ProbeTimings {
    /// Timings of one form, that form chosen for both precisions.
    pub fn single(batches: &[usize], form: Form, fp32: Vec<f64>, bf16: Vec<f64>) -> ProbeTimings {
        ProbeTimings::of_forms(batches, vec![FormTimings { form, fp32, bf16 }])
    }

    /// The fastest of `forms` per precision, by the mean time per position over the probed
    /// batches (each batch band weighing the same).
    pub fn of_forms(batches: &[usize], forms: Vec<FormTimings>) -> ProbeTimings {
        let per_position = |times: &[f64]| -> f64 {
            times
                .iter()
                .zip(batches)
                .map(|(t, &b)| t / b.max(1) as f64)
                .sum()
        };
        let best = |pick: fn(&FormTimings) -> &Vec<f64>| {
            forms
                .iter()
                .min_by(|a, b| per_position(pick(a)).total_cmp(&per_position(pick(b))))
                .map(|f| (f.form, pick(f).clone()))
                .unwrap_or((Form::default(), vec![f64::INFINITY; batches.len()]))
        };
        let (fp32_form, fp32) = best(|f| &f.fp32);
        let (bf16_form, bf16) = best(|f| &f.bf16);
        ProbeTimings {
            batches: batches.to_vec(),
            fp32,
            bf16,
            fp32_form,
            bf16_form,
            forms,
        }
    }
}

/// What the batcher runs: bf16 from `bf16_from` positions per batch on (fp32 below), or
/// fp32 throughout (`bf16_from` = None).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrecisionChoice {
    /// The smallest batch run in bf16; `None`: fp32 at every batch.
    pub bf16_from: Option<usize>,
    /// Why, in words (the measured ratio, or "forced").
    pub reason: String,
}

impl PrecisionChoice {
    /// The choice `precision` forces, if it is not `auto`.
    pub fn forced(precision: Precision, by: &str) -> Option<PrecisionChoice> {
        let bf16_from = match precision {
            Precision::Auto => return None,
            Precision::Fp32 => None,
            Precision::Bf16 => Some(0),
        };
        Some(PrecisionChoice {
            bf16_from,
            reason: format!("{precision} forced by {by}"),
        })
    }

    /// Short form: `fp32`, `bf16` or `bf16 from batch N (fp32 below)`.
    pub fn label(&self) -> String {
        match self.bf16_from {
            None => "fp32".into(),
            Some(0 | 1) => "bf16".into(),
            Some(n) => format!("bf16 from batch {n} (fp32 below)"),
        }
    }
}

/// The faster precision per batch band, from probe timings: bf16 from the smallest probed
/// batch at which bf16 is faster there and at every larger probed batch; fp32 if bf16 loses
/// at the largest batch (what self-play serves most).
pub fn choose(timings: &ProbeTimings) -> PrecisionChoice {
    let n = timings.batches.len();
    let bf16_wins = |i: usize| timings.bf16[i] < timings.fp32[i];
    let mut from = n;
    while from > 0 && bf16_wins(from - 1) {
        from -= 1;
    }
    let ratio = |i: usize| timings.fp32[i] / timings.bf16[i].max(1e-12);
    let table: Vec<String> = (0..n)
        .map(|i| format!("{}:{:.2}x", timings.batches[i], ratio(i)))
        .collect();
    let measured = format!("measured bf16 speed over fp32 by batch {}", table.join(" "));
    let bf16_from = match from {
        _ if n == 0 => None,
        f if f == n => None,
        0 => Some(0),
        f => Some(timings.batches[f]),
    };
    PrecisionChoice {
        bf16_from,
        reason: measured,
    }
}

/// The batch sizes to probe for a batcher serving up to `max_batch`: 1, then every
/// fourfold step, and `max_batch` itself.
pub fn probe_batches(max_batch: usize) -> Vec<usize> {
    let max_batch = max_batch.max(1);
    let mut batches = vec![1];
    let mut b = 4;
    while b < max_batch {
        batches.push(b);
        b *= 4;
    }
    if max_batch > 1 {
        batches.push(max_batch);
    }
    batches
}

/// Times `run(precision, batch)` for fp32 and bf16 at every batch within about `budget` in
/// all: one untimed warm-up call each, then repetitions until the point's share of the
/// budget is used (at least 2, at most 30), keeping the fastest.
pub fn probe_with<E>(
    batches: &[usize],
    budget: Duration,
    mut run: impl FnMut(Precision, usize) -> Result<(), E>,
) -> Result<ProbeTimings, E> {
    let share = budget.div_f64((2 * batches.len()).max(1) as f64);
    let mut time = |precision: Precision, batch: usize| -> Result<f64, E> {
        run(precision, batch)?;
        let started = Instant::now();
        let mut best = f64::INFINITY;
        for rep in 0..30 {
            let t = Instant::now();
            run(precision, batch)?;
            best = best.min(t.elapsed().as_secs_f64());
            if rep >= 1 && started.elapsed() >= share {
                break;
            }
        }
        Ok(best)
    };
    let (mut fp32, mut bf16) = (Vec::new(), Vec::new());
    for &batch in batches {
        fp32.push(time(Precision::Fp32, batch)?);
        bf16.push(time(Precision::Bf16, batch)?);
    }
    Ok(ProbeTimings {
        batches: batches.to_vec(),
        fp32,
        bf16,
        fp32_form: Form::default(),
        bf16_form: Form::default(),
        forms: Vec::new(),
    })
}

/// Probes `model` as the batcher runs it (input to the device, forward, results back as
/// f32) in each of `forms` at `batches`, with `threads` libtorch threads (0: libtorch's
/// default), in a thread of its own so the setting does not leak; the fastest form per
/// precision is the one chosen.
pub fn probe_model(
    model: &Model,
    forms: &[Form],
    batches: &[usize],
    threads: i32,
    budget: Duration,
) -> Result<ProbeTimings, NetError> {
    let mut measured = Vec::new();
    for &form in forms {
        let share = budget.div_f64(forms.len().max(1) as f64);
        let t = probe_form(model, form, batches, threads, share)?;
        measured.push(FormTimings {
            form,
            fp32: t.fp32,
            bf16: t.bf16,
        });
    }
    Ok(ProbeTimings::of_forms(batches, measured))
}

/// Times one inference form of `model` in fp32 and bf16 ([`probe_model`]).
fn probe_form(
    model: &Model,
    form: Form,
    batches: &[usize],
    threads: i32,
    budget: Duration,
) -> Result<ProbeTimings, NetError> {
    let bf16 = InferenceNet::build(model, Kind::BFloat16, form)?;
    let fp32 = InferenceNet::build(model, Kind::Float, form)?;
    let shape = model.meta().shape.clone();
    let device = model.var_store().device();
    on_torch_threads(threads, "the precision probe", move || {
        let _no_grad = tch::no_grad_guard();
        let largest = batches.iter().copied().max().unwrap_or(1);
        let per = (shape.planes * shape.height * shape.width) as usize;
        let input: Vec<f32> = (0..largest * per).map(|i| (i % 7) as f32 / 7.0).collect();
        let mut staging = Staging::new(probe_staging(), device);
        probe_with(batches, budget, |precision, batch| {
            let net = if precision == Precision::Bf16 {
                &bf16
            } else {
                &fp32
            };
            let input = &input[..batch * per];
            forward_raw(|_| net, input, batch, batch, &mut staging)?;
            Ok::<(), NetError>(())
        })
    })
}

/// How the probe stages its batches on a GPU: `[batching]`'s defaults.
fn probe_staging() -> GpuStaging {
    GpuStaging::default()
}

/// What a cached probe result is valid for: this machine, libtorch and net, as run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeKey {
    /// CPU model name.
    pub cpu: String,
    /// CPU feature flags (as /proc/cpuinfo lists them).
    pub cpu_flags: String,
    /// The libtorch version the binary was built against.
    pub torch: String,
    /// The device (`cpu`, `cuda:0`, ...).
    pub device: String,
    /// libtorch threads of the batcher.
    pub threads: i32,
    /// The net: game, input and output shape, tower and head sizes.
    pub net: String,
    /// The probed batch sizes.
    pub batches: Vec<usize>,
    /// The inference forms measured ([`Form`]), by name.
    pub forms: Vec<String>,
}

impl ProbeKey {
    /// The key for `model` run on its device in `forms` with `threads` threads at `batches`.
    pub fn for_model(model: &Model, forms: &[Form], threads: i32, batches: &[usize]) -> ProbeKey {
        let meta = model.meta();
        let device = model.var_store().device();
        ProbeKey::new(
            &net_label(&meta.shape, &meta.config),
            device,
            (forms, threads),
            batches,
        )
    }

    /// The key for the net described by `net` run on `device` in the forms and with the
    /// threads of `run`, at `batches`, on this machine and libtorch.
    pub fn new(net: &str, device: Device, run: (&[Form], i32), batches: &[usize]) -> ProbeKey {
        let (forms, threads) = run;
        let (cpu, cpu_flags) = cpu_identity();
        ProbeKey {
            cpu,
            cpu_flags,
            torch: torch_version().to_string(),
            // A GPU's passes are timed as the probe stages them: as CUDA graphs when
            // its staging replays them and this build has them.
            device: match device.is_cuda()
                && super::cuda::available()
                && probe_staging().cuda_graphs
            {
                true => format!("{device:?} with CUDA graphs"),
                false => format!("{device:?}"),
            },
            threads,
            net: net.to_string(),
            batches: batches.to_vec(),
            forms: forms.iter().map(|f| f.name().to_string()).collect(),
        }
    }

    /// A file name for the key: a stable hash of every field.
    pub fn file_name(&self) -> String {
        let text = serde_json::to_string(self).expect("keys serialise");
        // FNV-1a, 64 bits: stable across builds, unlike std's hasher.
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{hash:016x}.json")
    }
}

/// Version of the cache entry format; other versions are stale.
const CACHE_FORMAT_VERSION: u32 = 2;

/// One cached probe: the key it was measured under and what was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct CacheEntry {
    format_version: u32,
    key: ProbeKey,
    timings: ProbeTimings,
}

/// Probe results on disk, one JSON file per key, written atomically. An entry that cannot
/// be read, has another format version or another key is ignored (and rewritten by the
/// next probe).
#[derive(Clone, Debug)]
pub struct ProbeCache {
    dir: Option<PathBuf>,
}

impl ProbeCache {
    /// The cache in `dir`.
    pub fn at(dir: &Path) -> ProbeCache {
        ProbeCache {
            dir: Some(dir.to_path_buf()),
        }
    }

    /// The user's cache: `$CHECKERS_ZERO_CACHE/probe`, else `$XDG_CACHE_HOME/checkers-zero/probe`,
    /// else `~/.cache/checkers-zero/probe`; none if no home is known.
    pub fn user() -> ProbeCache {
        let var = |name| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let dir = var("CHECKERS_ZERO_CACHE")
            .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("checkers-zero")))
            .or_else(|| var("HOME").map(|d| d.join(".cache").join("checkers-zero")))
            .map(|d| d.join("probe"));
        ProbeCache { dir }
    }

    /// The file for `key`, if the cache has a place.
    pub fn path(&self, key: &ProbeKey) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(key.file_name()))
    }

    /// The timings stored for `key`, if a valid entry for exactly that key is there.
    pub fn get(&self, key: &ProbeKey) -> Option<ProbeTimings> {
        let text = std::fs::read_to_string(self.path(key)?).ok()?;
        let entry: CacheEntry = serde_json::from_str(&text).ok()?;
        let n = entry.key.batches.len();
        let whole = entry.timings.batches == entry.key.batches
            && entry.timings.fp32.len() == n
            && entry.timings.bf16.len() == n;
        (entry.format_version == CACHE_FORMAT_VERSION && entry.key == *key && whole)
            .then_some(entry.timings)
    }

    /// Stores `timings` for `key` (atomically; a cache that cannot be written is skipped).
    pub fn put(&self, key: &ProbeKey, timings: &ProbeTimings) -> Option<PathBuf> {
        let path = self.path(key)?;
        let entry = CacheEntry {
            format_version: CACHE_FORMAT_VERSION,
            key: key.clone(),
            timings: timings.clone(),
        };
        let text = serde_json::to_string_pretty(&entry).ok()?;
        std::fs::create_dir_all(path.parent()?).ok()?;
        crate::util::write_atomic(&path, text.as_bytes()).ok()?;
        Some(path)
    }
}

/// How a precision was settled: the choice and where its timings came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    /// What the batcher runs.
    pub choice: PrecisionChoice,
    /// The timings behind an `auto` choice (none when forced).
    pub timings: Option<ProbeTimings>,
    /// `forced`, `probe` or `cache`.
    pub source: &'static str,
}

impl Resolved {
    /// One line for people: the choice and its reason, and the forms measured.
    pub fn describe(&self) -> String {
        let forms = match &self.timings {
            Some(t) if t.forms.len() > 1 => format!(
                "; forms: fp32 {}, bf16 {} (fastest of {})",
                t.fp32_form,
                t.bf16_form,
                t.forms
                    .iter()
                    .map(|f| f.form.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(t) if t.forms.len() == 1 => format!("; form {}", t.fp32_form),
            _ => String::new(),
        };
        format!(
            "precision: {} ({}; {}){forms}",
            self.choice.label(),
            self.choice.reason,
            self.source
        )
    }
}

/// Settles `precision` for a key: a forced value as it is; `auto` from the cache entry for
/// `key` or, failing that, from `probe()` (whose timings are then cached).
pub fn resolve<E>(
    precision: Precision,
    key: &ProbeKey,
    cache: &ProbeCache,
    probe: impl FnOnce() -> Result<ProbeTimings, E>,
) -> Result<Resolved, E> {
    if let Some(choice) = PrecisionChoice::forced(precision, "the config or --precision") {
        return Ok(Resolved {
            choice,
            timings: None,
            source: "forced",
        });
    }
    let (timings, source) = match cache.get(key) {
        Some(timings) => (timings, "cached probe"),
        None => {
            let timings = probe()?;
            cache.put(key, &timings);
            (timings, "probed now")
        }
    };
    Ok(Resolved {
        choice: choose(&timings),
        timings: Some(timings),
        source,
    })
}

/// The net's game, input and output shape, tower and head sizes, in words.
pub fn net_label(s: &NetShape, c: &NetConfig) -> String {
    format!(
        "{} enc{} {}x{}x{} actions {} hex {} blocks {} channels {} policy {} value {}",
        s.game,
        s.encoding_version,
        s.planes,
        s.height,
        s.width,
        s.num_actions,
        s.hex,
        c.blocks,
        c.channels,
        c.policy_channels,
        c.value_hidden
    )
}

/// The CPU's model name and feature flags (empty where /proc/cpuinfo is not there).
pub fn cpu_identity() -> (String, String) {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default()
    };
    (field("model name"), field("flags"))
}

/// The flags that bear on the net's speed (vector width, bf16 and matrix units).
pub fn relevant_flags(flags: &str) -> String {
    let keep = |f: &&str| {
        [
            "avx2",
            "fma",
            "avx512f",
            "avx512_bf16",
            "avx512_vnni",
            "avx_vnni",
        ]
        .contains(f)
            || f.starts_with("amx")
    };
    let kept: Vec<&str> = flags.split_whitespace().filter(keep).collect();
    if kept.is_empty() {
        "none of avx2/avx512/amx".into()
    } else {
        kept.join(" ")
    }
}

/// The libtorch version the binary was built against (`unknown` if the build did not see it).
pub fn torch_version() -> &'static str {
    option_env!("CHECKERS_ZERO_TORCH_VERSION").unwrap_or("unknown")
}
