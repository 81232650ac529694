//! `checkers-zero bench`: what this machine does with a config's net, like KataGo's
//! `benchmark`/`genconfig`. It times the net in fp32 and bf16 at the batch sizes self-play
//! serves, for each libtorch thread count worth trying, then plays self-play for a few
//! seconds with each batcher layout worth trying at the precision `auto` picks, prints
//! the tables with the CPU (model and flags) and GPU, recommends settings and can write them
//! as a config snippet. With the net on a GPU it measures the CPU cores too: for small nets
//! on many cores, self-play's net can be faster there. Bounded by `--seconds`; a progress
//! bar shows where it is. [`limits`]: how far the net runs from the machine's limit.

pub mod limits;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::config::batching::{DeviceChoice, Form, Precision, FORMS};
use crate::config::RunConfig;
use crate::net::args::{NetArgs, NetSettings};
use crate::net::batcher::BatcherConfig;
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::net::precision::{
    choose, cpu_identity, probe_batches, probe_model, relevant_flags, torch_version,
    PrecisionChoice, ProbeTimings,
};
use crate::net::threads::{auto_plan, cores, ThreadPlan};
use crate::selfplay::pool::SelfPlayPool;
use crate::selfplay::worker::WorkerSettings;
use crate::with_game;
use limits::{learner_lines, measure_limits, net_table, peak_lines, torchscript_lines, Limits};

/// Arguments of `checkers-zero bench`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// The config whose net and self-play settings to measure.
    #[arg(long, conflicts_with = "game")]
    pub config: Option<PathBuf>,
    /// Or a game, with its standard net and default settings.
    #[arg(long)]
    pub game: Option<String>,
    /// About how long the whole benchmark runs (seconds).
    #[arg(long, default_value_t = 60.0)]
    pub seconds: f64,
    /// Write the recommended settings to this file as a config snippet.
    #[arg(long)]
    pub write: Option<PathBuf>,
    /// Measure self-play's pipeline alone: the net replaced by the latency backend, which
    /// sleeps this many milliseconds per forward pass and answers a uniform policy and a
    /// value of 0 (0: no wait). The last line is the best layout's rate.
    #[arg(long, conflicts_with = "write")]
    pub latency_ms: Option<f64>,
    /// With the net on a GPU, measure that device alone (no comparison with the CPU cores:
    /// for measuring GPU settings against each other).
    #[arg(long)]
    pub device_only: bool,
    /// A config key over the config (repeatable), e.g. `--set selfplay.groups=4`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    #[command(flatten)]
    pub net: NetArgs,
}

/// Self-play speed of one layout.
#[derive(Clone, Debug)]
pub struct LayoutRun {
    /// The layout.
    pub layout: ThreadPlan,
    /// Positions played per second.
    pub positions_per_s: f64,
    /// What the net did meanwhile.
    pub net: NetLoad,
}

/// The batcher's work over a measured window, to tell where self-play's time goes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NetLoad {
    /// Positions the net evaluated per second (search leaves, not played positions).
    pub evals_per_s: f64,
    /// Mean positions per forward pass.
    pub mean_batch: f64,
    /// Mean milliseconds of a forward pass, input and output copies included.
    pub forward_ms: f64,
    /// Steps counted per game in flight: a worker's games search in lockstep, so their steps
    /// come in waves, and a window of few waves reads high or low.
    pub steps_per_game: f64,
}

/// Fewer steps per game in flight than this in a measured window: the rate is rough.
const FEW_STEPS_PER_GAME: f64 = 5.0;

/// What the benchmark measured.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// Net timings per libtorch thread count, every form.
    pub net: Vec<(usize, ProbeTimings)>,
    /// The precision choice at the recommended layout's threads.
    pub choice: PrecisionChoice,
    /// The forms chosen for fp32 and bf16 (the fastest the form setting allows).
    pub forms: (Form, Form),
    /// The machine's matmul peaks and the learner's speed (none in tests).
    pub limits: Option<Limits>,
    /// Self-play per layout, the first being `auto`'s.
    pub selfplay: Vec<LayoutRun>,
}

/// Runs `bench` and prints its tables; writes the snippet if asked.
pub fn run_bench(args: &BenchArgs, out: &mut impl std::io::Write) -> Result<()> {
    let mut config = match (&args.config, &args.game) {
        (Some(path), _) => RunConfig::load_with(path, &args.set)?,
        (None, Some(game)) => {
            RunConfig::parse_with(&format!("game = \"{game}\""), "--game", &args.set)?
        }
        (None, None) => anyhow::bail!("give --config FILE or --game GAME"),
    };
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        anyhow::bail!("--seconds must be in (0, 3600]");
    }
    args.net.apply_to(&mut config);
    if let Some(ms) = args.latency_ms {
        if !(0.0..=1000.0).contains(&ms) {
            anyhow::bail!("--latency-ms must be in [0, 1000]");
        }
        return latency_bench(&config, ms, args.seconds, out);
    }
    let settings = NetSettings::of(&config.batching);
    let devices = match settings.device.resolve()? {
        gpu @ tch::Device::Cuda(_) if !args.device_only => vec![gpu, tch::Device::Cpu],
        other => vec![other],
    };
    let seconds = args.seconds / devices.len() as f64;
    let mut reports = Vec::new();
    for device in devices {
        let settings = NetSettings {
            device: DeviceChoice::of(device),
            ..settings
        };
        let report = with_game!(config.kind(), S => measure::<S>(&config, settings, seconds))?;
        write!(
            out,
            "{}",
            describe(&config, device, &report, &best_plan(&report))
        )?;
        reports.push((device, report));
    }
    let decision = if reports.len() > 1 {
        let decision =
            with_game!(config.kind(), S => settle_device::<S>(&config, &reports, seconds))?;
        writeln!(out, "\n{}", decision.verdict())?;
        decision
    } else {
        DeviceDecision::of(&[(reports[0].0, vec![best_rate(&reports[0].1)])])
    };
    let (device, report) = &reports[decision.chosen];
    let layout = best_plan(report);
    if let Some(path) = &args.write {
        let compared = (reports.len() > 1).then_some(*device);
        let snippet = snippet(&report.choice, &layout, settings.precision, compared);
        crate::util::write_atomic(path, snippet.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        writeln!(out, "wrote {}", path.display())?;
    }
    Ok(())
}

/// The layouts worth trying on this machine: `auto`'s first, then one instance with every
/// core as its libtorch threads, then half as many instances with two threads each.
pub fn candidate_plans(cores: usize, device: tch::Device) -> Vec<ThreadPlan> {
    let auto = auto_plan(cores, device);
    let mut layouts = vec![auto];
    for (instances, torch_threads) in [(1, cores.max(1)), (cores / 2, 2)] {
        let layout = ThreadPlan {
            workers: auto.workers,
            instances,
            torch_threads,
        };
        if instances >= 1 && !layouts.contains(&layout) {
            layouts.push(layout);
        }
    }
    layouts
}

fn measure<S: Encode>(
    config: &RunConfig,
    settings: NetSettings,
    seconds: f64,
) -> Result<BenchReport> {
    let device = settings.device.resolve()?;
    tch::manual_seed(config.seed as i64);
    let model = Model::new(S::net_shape(config.kind()), config.net_config(), device)?;
    let layouts = candidate_plans(cores(), device);
    let mut threads: Vec<usize> = layouts.iter().map(|l| l.torch_threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let bar = ProgressBar::new((threads.len() + layouts.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("bench [{bar:30}] {pos}/{len} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let net_budget = Duration::from_secs_f64(0.3 * seconds / threads.len() as f64);
    let batches = probe_batches(config.batching.max_batch);
    let mut net = Vec::new();
    for &t in &threads {
        bar.set_message(format!("net, {t} thread(s), every form"));
        net.push((
            t,
            probe_model(&model, &FORMS, &batches, t as i32, net_budget)?,
        ));
        bar.inc(1);
    }
    bar.set_message("matmul peaks, learner steps");
    let limits = measure_limits(
        &model,
        config,
        (&threads, &batches),
        Duration::from_secs_f64(0.15 * seconds),
    )?;
    let auto_threads = layouts[0].torch_threads;
    let full = &net
        .iter()
        .find(|(t, _)| *t == auto_threads)
        .expect("probed")
        .1;
    let candidates = settings.form.candidates();
    let timings = ProbeTimings::of_forms(
        &batches,
        full.forms
            .iter()
            .filter(|f| candidates.contains(&f.form))
            .cloned()
            .collect(),
    );
    let choice = PrecisionChoice::forced(settings.precision, "--precision or the config")
        .unwrap_or_else(|| choose(&timings));
    let forms = (timings.fp32_form, timings.bf16_form);
    let play_budget = Duration::from_secs_f64(0.55 * seconds / layouts.len() as f64);
    let mut selfplay = Vec::new();
    for layout in layouts {
        bar.set_message(format!(
            "self-play, {} worker(s), {} instance(s) x {} thread(s)",
            layout.workers, layout.instances, layout.torch_threads
        ));
        let (positions_per_s, net) =
            play::<S>(config, &model, (&choice, forms), &layout, play_budget, None)?;
        selfplay.push(LayoutRun {
            layout,
            positions_per_s,
            net,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(BenchReport {
        net,
        choice,
        forms,
        limits: Some(limits),
        selfplay,
    })
}

/// `--latency-ms`: self-play through the latency backend with each layout worth trying on
/// this machine's cores, printed as a table, then `self-play: N positions/s (latency L
/// ms)` for the best layout.
fn latency_bench(
    config: &RunConfig,
    ms: f64,
    seconds: f64,
    out: &mut impl std::io::Write,
) -> Result<()> {
    let latency = Duration::from_secs_f64(ms / 1000.0);
    let runs = with_game!(config.kind(), S => latency_runs::<S>(config, latency, seconds))?;
    let (cpu, flags) = cpu_identity();
    writeln!(
        out,
        "machine: {cpu}, {} cores, flags: {}\n\
         self-play through the latency backend ({ms} ms a forward pass, max_batch {}), \
         {} games in flight per worker in {} groups, {} streams per instance\n\
         workers  instances  positions/s  net evals/s  mean batch",
        cores(),
        relevant_flags(&flags),
        config.batching.max_batch,
        config.selfplay.games_in_flight,
        config.selfplay.groups,
        config.batching.streams
    )?;
    for run in &runs {
        let l = run.layout;
        writeln!(
            out,
            "{:>7} {:>10} {:>12.0} {:>12.0} {:>11.1}",
            l.workers, l.instances, run.positions_per_s, run.net.evals_per_s, run.net.mean_batch
        )?;
    }
    let best = runs.iter().map(|r| r.positions_per_s).fold(0.0, f64::max);
    writeln!(out, "self-play: {best:.0} positions/s (latency {ms} ms)")?;
    Ok(())
}

/// Self-play positions per second of each candidate layout with the latency backend.
fn latency_runs<S: Encode>(
    config: &RunConfig,
    latency: Duration,
    seconds: f64,
) -> Result<Vec<LayoutRun>> {
    tch::manual_seed(config.seed as i64);
    let model = Model::new(
        S::net_shape(config.kind()),
        config.net_config(),
        tch::Device::Cpu,
    )?;
    let choice = PrecisionChoice::forced(Precision::Fp32, "the latency backend")
        .context("fp32 is a forced precision")?;
    let layouts = candidate_plans(cores(), tch::Device::Cpu);
    let budget = Duration::from_secs_f64(seconds / layouts.len() as f64);
    layouts
        .into_iter()
        .map(|layout| {
            let forms = (Form::default(), Form::default());
            let (rate, net) = play::<S>(
                config,
                &model,
                (&choice, forms),
                &layout,
                budget,
                Some(latency),
            )?;
            Ok(LayoutRun {
                layout,
                positions_per_s: rate,
                net,
            })
        })
        .collect()
}

/// Self-play positions per second with `layout` for about `budget` (the first fifth warms
/// up and is not counted), and the net's work meanwhile; with `latency`, through the
/// latency backend instead of the net.
fn play<S: Encode>(
    config: &RunConfig,
    model: &Model,
    run: (&PrecisionChoice, (Form, Form)),
    layout: &ThreadPlan,
    budget: Duration,
    latency: Option<Duration>,
) -> Result<(f64, NetLoad)> {
    let (choice, (fp32_form, bf16_form)) = run;
    let batching = BatcherConfig {
        fp32_form,
        bf16_form,
        bf16: choice.bf16_from.is_some(),
        fp32_below: choice.bf16_from.unwrap_or(0),
        device: model.var_store().device(),
        latency,
        ..BatcherConfig::of(&config.batching, layout)
    };
    let pool = SelfPlayPool::start::<S>(
        WorkerSettings::steady_state(config),
        layout.workers,
        model.try_clone()?,
        batching,
        layout.instances,
        0,
        0,
        None,
    )?;
    std::thread::sleep(budget / 5);
    let (start_steps, start_net, started) =
        (pool.steps_played(), pool.batcher_totals(), Instant::now());
    std::thread::sleep(budget * 4 / 5);
    let seconds = started.elapsed().as_secs_f64();
    let steps = pool.steps_played() - start_steps;
    let rate = steps as f64 / seconds;
    let end_net = pool.batcher_totals();
    let in_flight = (layout.workers * config.selfplay.games_in_flight).max(1);
    pool.stop();
    let (positions, batches) = (
        end_net.positions - start_net.positions,
        (end_net.batches - start_net.batches).max(1),
    );
    let net = NetLoad {
        evals_per_s: positions as f64 / seconds,
        mean_batch: positions as f64 / batches as f64,
        forward_ms: (end_net.busy_nanos - start_net.busy_nanos) as f64 / 1e6 / batches as f64,
        steps_per_game: steps as f64 / in_flight as f64,
    };
    Ok((rate, net))
}

/// The most self-play positions per second one of `report`'s layouts played.
fn best_rate(report: &BenchReport) -> f64 {
    best_run(report).positions_per_s
}

/// Repeated measurements of each device's best layout beyond the first.
const DEVICE_REPEATS: usize = 3;

/// Where self-play's net goes, from repeated measurements of each device's best layout.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceDecision {
    /// Each device and its self-play positions/s, one per measurement.
    pub samples: Vec<(tch::Device, Vec<f64>)>,
    /// Index of the chosen device.
    pub chosen: usize,
    /// True when the devices' means differ by no more than the run-to-run spread: the
    /// measurement cannot tell them apart, and the CPU is kept.
    pub close: bool,
    /// The largest spread (max − min) of one device's measurements.
    pub spread: f64,
}

impl DeviceDecision {
    /// The decision on `samples`: the device with the highest mean, unless the two best
    /// means differ by no more than the largest spread, then the CPU (else the first).
    pub fn of(samples: &[(tch::Device, Vec<f64>)]) -> DeviceDecision {
        let spread = samples
            .iter()
            .map(|(_, v)| {
                let (lo, hi) = v
                    .iter()
                    .fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
                if v.len() > 1 {
                    hi - lo
                } else {
                    0.0
                }
            })
            .fold(0.0, f64::max);
        let mut order: Vec<usize> = (0..samples.len()).collect();
        order.sort_by(|&a, &b| mean(&samples[b].1).total_cmp(&mean(&samples[a].1)));
        let close =
            order.len() > 1 && mean(&samples[order[0]].1) - mean(&samples[order[1]].1) <= spread;
        let cpu = samples.iter().position(|(d, _)| *d == tch::Device::Cpu);
        let chosen = match (close, cpu) {
            (true, Some(cpu)) => cpu,
            _ => order.first().copied().unwrap_or(0),
        };
        DeviceDecision {
            samples: samples.to_vec(),
            chosen,
            close,
            spread,
        }
    }

    /// One line: where self-play's net goes, with each device's mean and the spread.
    pub fn verdict(&self) -> String {
        let rates: Vec<String> = self
            .samples
            .iter()
            .map(|(d, v)| {
                format!(
                    "{} {:.0} over {} runs",
                    DeviceChoice::of(*d),
                    mean(v),
                    v.len()
                )
            })
            .collect();
        let why = if self.close {
            format!(
                "close: the means differ by no more than the run-to-run spread of {:.0}, so \
                 the CPU is kept",
                self.spread
            )
        } else {
            format!(
                "faster by more than the run-to-run spread of {:.0}",
                self.spread
            )
        };
        format!(
            "self-play's net on: {} ({why}; mean positions/s: {}); the learner is set apart by \
             [train] device",
            DeviceChoice::of(self.samples[self.chosen].0),
            rates.join(", ")
        )
    }
}

/// The mean of `rates` (0 for none).
fn mean(rates: &[f64]) -> f64 {
    rates.iter().sum::<f64>() / rates.len().max(1) as f64
}

/// Measures each device's best layout again, in turn, until the devices' means differ by
/// more than the run-to-run spread or [`DEVICE_REPEATS`] rounds are done.
fn settle_device<S: Encode>(
    config: &RunConfig,
    reports: &[(tch::Device, BenchReport)],
    seconds: f64,
) -> Result<DeviceDecision> {
    let mut samples: Vec<(tch::Device, Vec<f64>)> = reports
        .iter()
        .map(|(d, r)| (*d, vec![best_rate(r)]))
        .collect();
    let budget = Duration::from_secs_f64((0.3 * seconds).max(2.0));
    for _ in 0..DEVICE_REPEATS {
        for ((device, report), (_, rates)) in reports.iter().zip(samples.iter_mut()) {
            tch::manual_seed(config.seed as i64);
            let model = Model::new(S::net_shape(config.kind()), config.net_config(), *device)?;
            let layout = best_plan(report);
            let run = (&report.choice, report.forms);
            let (rate, _) = play::<S>(config, &model, run, &layout, budget, None)?;
            rates.push(rate);
        }
        let decision = DeviceDecision::of(&samples);
        if !decision.close {
            return Ok(decision);
        }
    }
    Ok(DeviceDecision::of(&samples))
}

/// The layout with the most self-play positions per second (`auto`'s on a tie).
pub fn best_plan(report: &BenchReport) -> ThreadPlan {
    best_run(report).layout
}

/// The run with the most self-play positions per second (the first, `auto`'s, on a tie).
fn best_run(report: &BenchReport) -> &LayoutRun {
    let mut best = &report.selfplay[0];
    for run in &report.selfplay[1..] {
        if run.positions_per_s > best.positions_per_s {
            best = run;
        }
    }
    best
}

/// The tables and the recommendation, for people.
pub fn describe(
    config: &RunConfig,
    device: tch::Device,
    report: &BenchReport,
    best: &ThreadPlan,
) -> String {
    let (cpu, flags) = cpu_identity();
    let mut text = String::new();
    let gpus = if tch::Cuda::is_available() {
        tch::Cuda::device_count()
    } else {
        0
    };
    let _ = writeln!(
        text,
        "machine: {cpu}, {} cores, flags: {}; CUDA GPUs: {gpus}; libtorch {}; net on {device:?}{}",
        cores(),
        relevant_flags(&flags),
        torch_version(),
        gpu_staging(device, &config.batching)
    );
    let c = config.net_config();
    let _ = writeln!(
        text,
        "net: {} {} blocks x {} channels{}",
        config.game,
        c.blocks,
        c.channels,
        report.limits.as_ref().map_or(String::new(), |l| format!(
            ", {:.1} MFLOP a position",
            l.flops_per_position / 1e6
        ))
    );
    if let Some(limits) = &report.limits {
        peak_lines(&mut text, limits);
    }
    let _ = writeln!(
        text,
        "\nnet positions/s (standalone forward passes), every form"
    );
    net_table(&mut text, &report.net, report.limits.as_ref());
    if let Some(limits) = &report.limits {
        torchscript_lines(&mut text, limits);
    }
    let _ = writeln!(
        text,
        "\nprecision: {} ({}); forms: fp32 {}, bf16 {}\n",
        report.choice.label(),
        report.choice.reason,
        report.forms.0,
        report.forms.1
    );
    if let Some(limits) = &report.limits {
        learner_lines(&mut text, limits);
    }
    let _ = writeln!(text, "\nself-play positions/s at that precision and form");
    selfplay_table(&mut text, report);
    let _ = writeln!(
        text,
        "\nrecommended: precision {}, workers {}, instances {}, torch_threads {}",
        report.choice.label(),
        best.workers,
        best.instances,
        best.torch_threads
    );
    text
}

/// The self-play rows of `describe`: each layout's rate and what the net did meanwhile, and
/// a note when a window counted too few steps per game for a steady rate.
fn selfplay_table(text: &mut String, report: &BenchReport) {
    let _ = writeln!(
        text,
        "workers  instances  threads  positions/s  net evals/s  mean batch  forward ms"
    );
    for (i, run) in report.selfplay.iter().enumerate() {
        let (l, n) = (run.layout, run.net);
        let _ = writeln!(
            text,
            "{:>7} {:>10} {:>8} {:>12.0} {:>12.0} {:>11.1} {:>11.2}{}",
            l.workers,
            l.instances,
            l.torch_threads,
            run.positions_per_s,
            n.evals_per_s,
            n.mean_batch,
            n.forward_ms,
            if i == 0 { "  (auto)" } else { "" }
        );
    }
    let few = report
        .selfplay
        .iter()
        .map(|r| r.net.steps_per_game)
        .fold(f64::MAX, f64::min);
    if few < FEW_STEPS_PER_GAME {
        let _ = writeln!(
            text,
            "note: as few as {few:.1} steps per game in flight were counted; with many games \
             a worker the steps come in waves, so give a longer --seconds for a steady rate"
        );
    }
}

/// The recommendation as a config snippet (`[batching]` and `[selfplay]` keys; `device`
/// where devices were compared). A choice with an fp32 band stays `auto` (no key expresses
/// the band; the probe finds it again).
pub fn snippet(
    choice: &PrecisionChoice,
    layout: &ThreadPlan,
    given: Precision,
    device: Option<tch::Device>,
) -> String {
    let precision = match choice.bf16_from {
        _ if given != Precision::Auto => given.to_string(),
        None => "fp32".into(),
        Some(0 | 1) => "bf16".into(),
        Some(_) => "auto".into(),
    };
    let (cpu, flags) = cpu_identity();
    let device = device.map_or(String::new(), |d| {
        format!("device = \"{}\"\n", DeviceChoice::of(d))
    });
    format!(
        "# From `checkers-zero bench` on {cpu} ({}), libtorch {}.\n\
         [selfplay]\nworkers = {}\n\n[batching]\n{device}precision = \"{precision}\"\n\
         instances = {}\ntorch_threads = {}\n",
        relevant_flags(&flags),
        torch_version(),
        layout.workers,
        layout.instances,
        layout.torch_threads
    )
}

/// How batches reach a GPU, for the machine line (nothing on the CPU).
fn gpu_staging(device: tch::Device, batching: &crate::config::batching::BatchingConfig) -> String {
    if !device.is_cuda() {
        return String::new();
    }
    let shim = crate::net::cuda::available();
    let gpu = crate::net::forward::GpuStaging::of(batching);
    let on = |set: bool| if set && shim { "on" } else { "off" };
    format!(
        "; own CUDA streams {}, CUDA graphs {}{}",
        on(gpu.wants_own_stream()),
        on(gpu.cuda_graphs),
        if shim {
            ""
        } else {
            " (this build has no CUDA shim)"
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::batching::Precision;

    fn report(rates: &[f64]) -> BenchReport {
        let layout = ThreadPlan {
            workers: 2,
            instances: 2,
            torch_threads: 1,
        };
        BenchReport {
            net: Vec::new(),
            choice: PrecisionChoice::forced(Precision::Fp32, "test").unwrap(),
            forms: (Form::Folded, Form::Folded),
            limits: None,
            selfplay: rates
                .iter()
                .map(|&positions_per_s| LayoutRun {
                    layout,
                    positions_per_s,
                    net: NetLoad::default(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_device_is_chosen_only_when_it_is_faster_than_the_run_to_run_spread() {
        let gpu = tch::Device::Cuda(0);
        let cpu = tch::Device::Cpu;
        // The first H100's figures: the CPU clearly faster.
        let clear = DeviceDecision::of(&[(gpu, vec![3540.0, 3500.0]), (cpu, vec![4389.0, 4300.0])]);
        assert_eq!((clear.chosen, clear.close), (1, false));
        assert!(
            clear
                .verdict()
                .starts_with("self-play's net on: cpu (faster"),
            "{}",
            clear.verdict()
        );
        // The re-check's: 2,423 against 2,237 once, then the other way round: too close to
        // call, so the CPU is kept.
        let close = DeviceDecision::of(&[(gpu, vec![2424.0, 2150.0]), (cpu, vec![2237.0, 2380.0])]);
        assert!(close.close);
        assert_eq!(close.chosen, 1);
        assert!(close.verdict().contains("close"), "{}", close.verdict());
        assert!(
            close.verdict().contains("cuda:0 2287 over 2 runs"),
            "{}",
            close.verdict()
        );
        // A GPU well ahead is chosen.
        let gpu_ahead =
            DeviceDecision::of(&[(gpu, vec![9000.0, 9100.0]), (cpu, vec![4000.0, 4100.0])]);
        assert_eq!((gpu_ahead.chosen, gpu_ahead.close), (0, false));
        // One device: itself.
        assert_eq!(DeviceDecision::of(&[(cpu, vec![100.0])]).chosen, 0);
        // A layout report's best rate is its best layout's.
        assert_eq!(best_rate(&report(&[685.0, 4389.0])), 4389.0);
    }

    #[test]
    fn the_snippet_names_the_device_only_where_devices_were_compared() {
        let r = report(&[1.0]);
        let layout = r.selfplay[0].layout;
        let plain = snippet(&r.choice, &layout, Precision::Auto, None);
        assert!(!plain.contains("device"), "{plain}");
        let compared = snippet(&r.choice, &layout, Precision::Auto, Some(tch::Device::Cpu));
        assert!(
            compared.contains("[batching]\ndevice = \"cpu\"\n"),
            "{compared}"
        );
        // The snippet is a config fragment the loader takes.
        let config = format!("game = \"rematch\"\n{compared}");
        let parsed = RunConfig::parse(&config, "snippet").unwrap();
        assert_eq!(NetSettings::of(&parsed.batching).device, DeviceChoice::Cpu);
        assert_eq!(
            DeviceChoice::of(tch::Device::Cuda(1)),
            DeviceChoice::Cuda(1)
        );
    }
}
