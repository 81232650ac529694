//! How far the net runs from this machine's limit: the matmul peak in each precision, the
//! net's GFLOP/s at each batch and form as a share of that peak, and the learner's training
//! steps in fp32 and mixed bf16 (samples/s, GFLOP/s, share of the peak).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use anyhow::Result;
use tch::{Kind, Tensor};

use crate::config::batching::Form;
use crate::config::RunConfig;
use crate::export::torchscript::trace_form;
use crate::net::inference::InferenceNet;
use crate::net::model::Model;
use crate::net::peak::{matmul_peak, MatmulPeak};
use crate::net::precision::ProbeTimings;
use crate::net::threads::on_torch_threads;
use crate::train::precision::time_steps;

/// A training step's multiply-adds next to the forward pass's: forward, and backward for
/// both the activations and the weights.
const TRAIN_FLOPS_FACTOR: f64 = 3.0;

/// The learner's measured steps.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnerTimes {
    /// Samples per step.
    pub batch: usize,
    /// libtorch threads of the trainer.
    pub threads: usize,
    /// Seconds per fp32 step (the fastest layout).
    pub fp32_s: f64,
    /// Seconds per mixed-bf16 step (the fastest layout).
    pub bf16_s: f64,
    /// Each layout (as a training form) with its seconds per step in fp32 and bf16.
    pub layouts: Vec<(Form, f64, f64)>,
}

/// The machine's ceilings and the learner's speed.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Matmul peak per libtorch thread count.
    pub peaks: Vec<(usize, MatmulPeak)>,
    /// The net's forward multiply-adds x2 per position.
    pub flops_per_position: f64,
    /// The learner's steps.
    pub learner: LearnerTimes,
    /// libtorch's own route: the folded fp32 form traced into TorchScript, positions/s at
    /// each probed batch, per thread count.
    pub torchscript: Vec<(usize, Vec<(usize, f64)>)>,
}

impl Limits {
    fn peak(&self, threads: usize) -> Option<MatmulPeak> {
        self.peaks.iter().find(|(t, _)| *t == threads).map(|p| p.1)
    }
}

/// Measures the peaks and the traced module at each of `threads` (the module at `batches`)
/// and the learner's steps under `config`, within about `budget`.
pub fn measure_limits(
    model: &Model,
    config: &RunConfig,
    (threads, batches): (&[usize], &[usize]),
    budget: Duration,
) -> Result<Limits> {
    let device = model.var_store().device();
    let train_threads = config.train.torch_threads.max(1) as usize;
    let mut all: Vec<usize> = threads.to_vec();
    all.push(train_threads);
    all.sort_unstable();
    all.dedup();
    let share = budget.div_f64(3.0 * all.len() as f64);
    let mut peaks = Vec::new();
    for &t in &all {
        peaks.push((t, matmul_peak(device, t as i32, share)?));
    }
    let batch = config.train.batch_size.max(1);
    let mut torchscript = Vec::new();
    for &t in threads {
        torchscript.push((t, traced_rates(model, batches, t, share)?));
    }
    let copy = model.try_clone()?;
    let steps = on_torch_threads(train_threads as i32, "the learner's timing", move || {
        time_steps(&copy, &config.train, batch, budget / 2)
    })?;
    Ok(Limits {
        peaks,
        flops_per_position: model.flops_per_position(),
        learner: LearnerTimes {
            batch,
            threads: train_threads,
            fp32_s: steps.fp32[0],
            bf16_s: steps.bf16[0],
            layouts: steps
                .forms
                .iter()
                .map(|f| (f.form, f.fp32[0], f.bf16[0]))
                .collect(),
        },
        torchscript,
    })
}

/// Positions/s of the folded fp32 form traced into TorchScript (what `export` writes), at
/// each of `batches`, with `threads` libtorch threads, within about `budget`.
fn traced_rates(
    model: &Model,
    batches: &[usize],
    threads: usize,
    budget: Duration,
) -> Result<Vec<(usize, f64)>> {
    let net = InferenceNet::build(model, Kind::Float, Form::Folded)?;
    let module = trace_form(&net)?;
    let shape = net.shape().clone();
    let per = budget.div_f64(batches.len().max(1) as f64);
    on_torch_threads(threads as i32, "the TorchScript timing", move || {
        let _no_grad = tch::no_grad_guard();
        batches
            .iter()
            .map(|&b| {
                let x = Tensor::ones(
                    [b as i64, shape.planes, shape.height, shape.width],
                    (Kind::Float, net.device()),
                );
                let started = Instant::now();
                let mut best = f64::INFINITY;
                for rep in 0..30 {
                    let t = Instant::now();
                    let _ = module.forward_ts(&[&x])?;
                    best = best.min(t.elapsed().as_secs_f64());
                    if rep >= 2 && started.elapsed() >= per {
                        break;
                    }
                }
                Ok((b, b as f64 / best))
            })
            .collect::<Result<Vec<_>>>()
    })
}

/// `gflops` as a share of `peak`, in percent (blank without a peak).
fn share(gflops: f64, peak: Option<f64>) -> String {
    match peak {
        Some(p) if p > 0.0 => format!("{:>5.1}%", 100.0 * gflops / p),
        _ => "     -".into(),
    }
}

/// The matmul peaks, one line per thread count.
pub fn peak_lines(text: &mut String, limits: &Limits) {
    for (threads, p) in &limits.peaks {
        let _ = writeln!(
            text,
            "peak, {threads} thread(s): fp32 {:.0} GFLOP/s, bf16 {:.0} GFLOP/s ({:.2}x); \
             matmul alone fp32 {:.0}, bf16 {:.0}",
            p.fp32,
            p.bf16,
            p.bf16 / p.fp32.max(1e-9),
            p.matmul_fp32,
            p.matmul_bf16
        );
    }
}

/// The net's table: positions/s and GFLOP/s (share of the peak) per thread count, batch
/// and form, in fp32 and bf16; the forms the choice took from marked.
pub fn net_table(text: &mut String, net: &[(usize, ProbeTimings)], limits: Option<&Limits>) {
    let _ = writeln!(
        text,
        "threads  batch  form                    fp32 pos/s  GFLOP/s  %peak   bf16 pos/s  GFLOP/s  %peak"
    );
    let flops = limits.map_or(0.0, |l| l.flops_per_position);
    for (threads, t) in net {
        let peak = limits.and_then(|l| l.peak(*threads));
        for (i, &batch) in t.batches.iter().enumerate() {
            for form in &t.forms {
                let rate = |secs: f64| batch as f64 / secs.max(1e-12);
                let (f, b) = (rate(form.fp32[i]), rate(form.bf16[i]));
                let _ = writeln!(
                    text,
                    "{threads:>7} {batch:>6}  {:<22} {f:>11.0} {:>8.1} {} {b:>12.0} {:>8.1} {}",
                    form.form.name(),
                    f * flops / 1e9,
                    share(f * flops / 1e9, peak.map(|p| p.fp32)),
                    b * flops / 1e9,
                    share(b * flops / 1e9, peak.map(|p| p.bf16)),
                );
            }
        }
    }
}

/// The TorchScript lines: libtorch's traced route, for comparison with the forms.
pub fn torchscript_lines(text: &mut String, limits: &Limits) {
    for (threads, rates) in &limits.torchscript {
        let peak = limits.peak(*threads).map(|p| p.fp32);
        let cells: Vec<String> = rates
            .iter()
            .map(|(b, r)| {
                let gflops = r * limits.flops_per_position / 1e9;
                format!("batch {b}: {r:.0} ({})", share(gflops, peak).trim())
            })
            .collect();
        let _ = writeln!(
            text,
            "torchscript (folded fp32 form traced, as exported), {threads} thread(s), pos/s (% of fp32 peak): {}",
            cells.join(", ")
        );
    }
}

/// The learner's lines: samples/s, GFLOP/s and share of the peak in each precision and
/// layout, and which is fastest.
pub fn learner_lines(text: &mut String, limits: &Limits) {
    let l = &limits.learner;
    let peak = limits.peak(l.threads);
    let _ = writeln!(
        text,
        "learner (batch {}, {} thread(s); a step ~{TRAIN_FLOPS_FACTOR}x the forward pass's work):",
        l.batch, l.threads
    );
    let mut fastest = (f64::INFINITY, String::new());
    for &(form, fp32_s, bf16_s) in &l.layouts {
        for (name, secs, kind) in [
            ("fp32", fp32_s, Kind::Float),
            ("bf16 mixed", bf16_s, Kind::BFloat16),
        ] {
            let samples = l.batch as f64 / secs.max(1e-12);
            let gflops = samples * limits.flops_per_position * TRAIN_FLOPS_FACTOR / 1e9;
            let label = format!("{name}, {}", form.layout());
            let _ =
                writeln!(
                text,
                "  {label:<25} {samples:>8.0} samples/s {gflops:>7.1} GFLOP/s {} of the {} peak",
                share(gflops, peak.map(|p| p.of(kind))),
                if kind == Kind::BFloat16 { "bf16" } else { "fp32" }
            );
            if secs < fastest.0 {
                fastest = (secs, label);
            }
        }
    }
    let _ = writeln!(
        text,
        "  fastest: {}{}; `[train] precision` and `layout` = \"auto\" measure the same at start-up",
        fastest.1,
        layout_ratios(&l.layouts)
    );
}

/// With both layouts measured: channels-last's speed over contiguous in each precision.
fn layout_ratios(layouts: &[(Form, f64, f64)]) -> String {
    let find = |nhwc: bool| layouts.iter().find(|l| l.0.channels_last() == nhwc);
    match (find(false), find(true)) {
        (Some(nchw), Some(nhwc)) => format!(
            " (channels-last over contiguous: fp32 {:.2}x, bf16 {:.2}x)",
            nchw.1 / nhwc.1.max(1e-12),
            nchw.2 / nhwc.2.max(1e-12)
        ),
        _ => String::new(),
    }
}
