//! `checkers-zero bench`: what this machine does with a config's net, like KataGo's
//! `benchmark`/`genconfig`. It times the net in fp32 and bf16 at the batch sizes self-play
//! serves, for each libtorch thread count worth trying, then plays self-play for a few
//! seconds with each evaluator layout worth trying at the precision `auto` picks, prints
//! the tables with the CPU (model and flags) and GPU, recommends settings and can write them
//! as a config snippet. With the net on a GPU it measures the CPU cores too: for small nets
//! on many cores, self-play's net can be faster there. Bounded by `--seconds`; a progress
//! bar shows where it is.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::net::args::{NetArgs, NetSettings};
use crate::net::batcher::BatcherConfig;
use crate::net::device::DeviceChoice;
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::net::precision::{
    choose, cpu_identity, probe_batches, probe_model, relevant_flags, torch_version,
    PrecisionChoice, ProbeTimings,
};
use crate::net::threads::{auto_layout, cores, Layout};
use crate::selfplay::pool::SelfPlayPool;
use crate::train::config::RunConfig;
use crate::with_game;

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
    #[command(flatten)]
    pub net: NetArgs,
}

/// Self-play speed of one layout.
#[derive(Clone, Debug)]
pub struct LayoutRun {
    /// The layout.
    pub layout: Layout,
    /// Positions played per second.
    pub positions_per_s: f64,
}

/// What the benchmark measured.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// Net timings per libtorch thread count.
    pub net: Vec<(usize, ProbeTimings)>,
    /// The precision choice at the recommended layout's threads.
    pub choice: PrecisionChoice,
    /// Self-play per layout, the first being `auto`'s.
    pub selfplay: Vec<LayoutRun>,
}

/// Runs `bench` and prints its tables; writes the snippet if asked.
pub fn run_bench(args: &BenchArgs, out: &mut impl std::io::Write) -> Result<()> {
    let mut config = match (&args.config, &args.game) {
        (Some(path), _) => RunConfig::load(path)?,
        (None, Some(game)) => RunConfig::parse(&format!("game = \"{game}\""), "--game")?,
        (None, None) => anyhow::bail!("give --config FILE or --game GAME"),
    };
    if !(args.seconds > 0.0 && args.seconds <= 3600.0) {
        anyhow::bail!("--seconds must be in (0, 3600]");
    }
    config.override_net(&args.net);
    let settings = config.net_settings();
    let devices = match settings.device.resolve()? {
        gpu @ tch::Device::Cuda(_) => vec![gpu, tch::Device::Cpu],
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
            describe(&config, device, &report, &best_layout(&report))
        )?;
        reports.push((device, report));
    }
    let (device, report) = &reports[fastest_device(&reports)];
    let layout = best_layout(report);
    if reports.len() > 1 {
        writeln!(out, "\n{}", device_verdict(&reports, *device))?;
    }
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
pub fn candidate_layouts(cores: usize, device: tch::Device) -> Vec<Layout> {
    let auto = auto_layout(cores, device);
    let mut layouts = vec![auto];
    for (instances, torch_threads) in [(1, cores.max(1)), (cores / 2, 2)] {
        let layout = Layout {
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
    let layouts = candidate_layouts(cores(), device);
    let mut threads: Vec<usize> = layouts.iter().map(|l| l.torch_threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let bar = ProgressBar::new((threads.len() + layouts.len()) as u64);
    bar.set_style(
        ProgressStyle::with_template("bench [{bar:30}] {pos}/{len} {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let net_budget = Duration::from_secs_f64(0.4 * seconds / threads.len() as f64);
    let batches = probe_batches(config.evaluator.max_batch);
    let mut net = Vec::new();
    for &t in &threads {
        bar.set_message(format!("net, {t} thread(s)"));
        net.push((t, probe_model(&model, &batches, t as i32, net_budget)?));
        bar.inc(1);
    }
    let auto_threads = layouts[0].torch_threads;
    let timings = &net
        .iter()
        .find(|(t, _)| *t == auto_threads)
        .expect("probed")
        .1;
    let choice = PrecisionChoice::forced(settings.precision, "--precision or the config")
        .unwrap_or_else(|| choose(timings));
    let play_budget = Duration::from_secs_f64(0.6 * seconds / layouts.len() as f64);
    let mut selfplay = Vec::new();
    for layout in layouts {
        bar.set_message(format!(
            "self-play, {} worker(s), {} instance(s) x {} thread(s)",
            layout.workers, layout.instances, layout.torch_threads
        ));
        let positions_per_s = play::<S>(config, &model, &choice, &layout, play_budget)?;
        selfplay.push(LayoutRun {
            layout,
            positions_per_s,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(BenchReport {
        net,
        choice,
        selfplay,
    })
}

/// Self-play positions per second with `layout` for about `budget` (the first fifth warms
/// up and is not counted).
fn play<S: Encode>(
    config: &RunConfig,
    model: &Model,
    choice: &PrecisionChoice,
    layout: &Layout,
    budget: Duration,
) -> Result<f64> {
    let evaluator = BatcherConfig {
        bf16: choice.bf16_from.is_some(),
        fp32_below: choice.bf16_from.unwrap_or(0),
        device: model.var_store().device(),
        ..config.evaluator_config(layout)
    };
    let pool = SelfPlayPool::start::<S>(
        config.worker_settings(),
        layout.workers,
        model.try_clone()?,
        evaluator,
        layout.instances,
        0,
        0,
    )?;
    std::thread::sleep(budget / 5);
    let (start_steps, started) = (pool.steps_played(), Instant::now());
    std::thread::sleep(budget * 4 / 5);
    let rate = (pool.steps_played() - start_steps) as f64 / started.elapsed().as_secs_f64();
    pool.stop();
    Ok(rate)
}

/// The most self-play positions per second one of `report`'s layouts played.
fn best_rate(report: &BenchReport) -> f64 {
    best_run(report).positions_per_s
}

/// Which of the devices measured played the most self-play positions per second (the
/// first, the configured one, on a tie).
pub fn fastest_device(reports: &[(tch::Device, BenchReport)]) -> usize {
    let mut best = 0;
    for (i, (_, report)) in reports.iter().enumerate().skip(1) {
        if best_rate(report) > best_rate(&reports[best].1) {
            best = i;
        }
    }
    best
}

/// One line: where self-play's net plays fastest, with each device's best rate.
fn device_verdict(reports: &[(tch::Device, BenchReport)], chosen: tch::Device) -> String {
    let rates: Vec<String> = reports
        .iter()
        .map(|(d, r)| format!("{} {:.0}", DeviceChoice::of(*d), best_rate(r)))
        .collect();
    format!(
        "self-play's net on: {} (best positions/s: {}); the learner is set apart by \
         [train] device",
        DeviceChoice::of(chosen),
        rates.join(", ")
    )
}

/// The layout with the most self-play positions per second (`auto`'s on a tie).
pub fn best_layout(report: &BenchReport) -> Layout {
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
    best: &Layout,
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
        "machine: {cpu}, {} cores, flags: {}; CUDA GPUs: {gpus}; libtorch {}; net on {device:?}",
        cores(),
        relevant_flags(&flags),
        torch_version()
    );
    let c = config.net_config();
    let _ = writeln!(
        text,
        "net: {} {} blocks x {} channels\n\nnet positions/s (standalone forward passes)",
        config.game, c.blocks, c.channels
    );
    let _ = writeln!(text, "threads  batch      fp32      bf16  bf16/fp32");
    for (threads, t) in &report.net {
        for (i, &batch) in t.batches.iter().enumerate() {
            let _ = writeln!(
                text,
                "{threads:>7} {batch:>6} {:>9.0} {:>9.0} {:>10.2}",
                batch as f64 / t.fp32[i],
                batch as f64 / t.bf16[i],
                t.fp32[i] / t.bf16[i]
            );
        }
    }
    let _ = writeln!(
        text,
        "\nprecision: {} ({})\n\nself-play positions/s at that precision",
        report.choice.label(),
        report.choice.reason
    );
    let _ = writeln!(text, "workers  instances  threads  positions/s");
    for (i, run) in report.selfplay.iter().enumerate() {
        let l = run.layout;
        let _ = writeln!(
            text,
            "{:>7} {:>10} {:>8} {:>12.0}{}",
            l.workers,
            l.instances,
            l.torch_threads,
            run.positions_per_s,
            if i == 0 { "  (auto)" } else { "" }
        );
    }
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

/// The recommendation as a config snippet (`[evaluator]` and `[selfplay]` keys; `device`
/// where devices were compared). A choice with an fp32 band stays `auto` (no key expresses
/// the band; the probe finds it again).
pub fn snippet(
    choice: &PrecisionChoice,
    layout: &Layout,
    given: crate::net::precision::Precision,
    device: Option<tch::Device>,
) -> String {
    let precision = match choice.bf16_from {
        _ if given != crate::net::precision::Precision::Auto => given.to_string(),
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
         [selfplay]\nworkers = {}\n\n[evaluator]\n{device}precision = \"{precision}\"\n\
         instances = {}\ntorch_threads = {}\n",
        relevant_flags(&flags),
        torch_version(),
        layout.workers,
        layout.instances,
        layout.torch_threads
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::precision::Precision;

    fn report(rates: &[f64]) -> BenchReport {
        let layout = Layout {
            workers: 2,
            instances: 2,
            torch_threads: 1,
        };
        BenchReport {
            net: Vec::new(),
            choice: PrecisionChoice::forced(Precision::Fp32, "test").unwrap(),
            selfplay: rates
                .iter()
                .map(|&positions_per_s| LayoutRun {
                    layout,
                    positions_per_s,
                })
                .collect(),
        }
    }

    #[test]
    fn the_device_whose_best_layout_plays_most_is_chosen_the_configured_one_on_a_tie() {
        let gpu = tch::Device::Cuda(0);
        let cpu = tch::Device::Cpu;
        // The GPU's best layout (3,540) against the CPU's (4,389): the CPU.
        let measured = [
            (gpu, report(&[3540.0, 2984.0])),
            (cpu, report(&[685.0, 4389.0])),
        ];
        assert_eq!(fastest_device(&measured), 1);
        let measured = [(gpu, report(&[5000.0])), (cpu, report(&[4389.0]))];
        assert_eq!(fastest_device(&measured), 0);
        let tie = [(gpu, report(&[100.0])), (cpu, report(&[100.0]))];
        assert_eq!(fastest_device(&tie), 0);
        let verdict = device_verdict(&measured, gpu);
        assert!(
            verdict.starts_with("self-play's net on: cuda:0"),
            "{verdict}"
        );
        assert!(verdict.contains("cuda:0 5000, cpu 4389"), "{verdict}");
    }

    #[test]
    fn the_snippet_names_the_device_only_where_devices_were_compared() {
        let r = report(&[1.0]);
        let layout = r.selfplay[0].layout;
        let plain = snippet(&r.choice, &layout, Precision::Auto, None);
        assert!(!plain.contains("device"), "{plain}");
        let compared = snippet(&r.choice, &layout, Precision::Auto, Some(tch::Device::Cpu));
        assert!(
            compared.contains("[evaluator]\ndevice = \"cpu\"\n"),
            "{compared}"
        );
        // The snippet is a config fragment the loader takes.
        let config = format!("game = \"rematch\"\n{compared}");
        let parsed = RunConfig::parse(&config, "snippet").unwrap();
        assert_eq!(parsed.net_settings().device, DeviceChoice::Cpu);
        assert_eq!(
            DeviceChoice::of(tch::Device::Cuda(1)),
            DeviceChoice::Cuda(1)
        );
    }
}
