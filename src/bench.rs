//! `checkers-zero bench`: what this machine does with a config's net, like KataGo's
//! `benchmark`/`genconfig`. It times the net in fp32 and bf16 at the batch sizes self-play
//! serves, for each libtorch thread count worth trying, then plays self-play for a few
//! seconds with each evaluator layout worth trying at the precision `auto` picks, prints
//! the tables with the CPU (model and flags) and GPU, recommends settings and can write them
//! as a config snippet. Bounded by `--seconds`; a progress bar shows where it is.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::net::args::{NetArgs, NetSettings};
use crate::net::batcher::BatcherConfig;
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
    let device = settings.device.resolve()?;
    let report = with_game!(config.kind(), S => measure::<S>(&config, settings, args.seconds))?;
    let layout = best_layout(&report);
    write!(out, "{}", describe(&config, device, &report, &layout))?;
    if let Some(path) = &args.write {
        let snippet = snippet(&report.choice, &layout, settings.precision);
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

/// The layout with the most self-play positions per second (`auto`'s on a tie).
pub fn best_layout(report: &BenchReport) -> Layout {
    let mut best = &report.selfplay[0];
    for run in &report.selfplay[1..] {
        if run.positions_per_s > best.positions_per_s {
            best = run;
        }
    }
    best.layout
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

/// The recommendation as a config snippet (`[evaluator]` and `[selfplay]` keys). A choice
/// with an fp32 band stays `auto` (no key expresses the band; the probe finds it again).
pub fn snippet(
    choice: &PrecisionChoice,
    layout: &Layout,
    given: crate::net::precision::Precision,
) -> String {
    let precision = match choice.bf16_from {
        _ if given != crate::net::precision::Precision::Auto => given.to_string(),
        None => "fp32".into(),
        Some(0 | 1) => "bf16".into(),
        Some(_) => "auto".into(),
    };
    let (cpu, flags) = cpu_identity();
    format!(
        "# From `checkers-zero bench` on {cpu} ({}), libtorch {}.\n\
         [selfplay]\nworkers = {}\n\n[evaluator]\nprecision = \"{precision}\"\n\
         instances = {}\ntorch_threads = {}\n",
        relevant_flags(&flags),
        torch_version(),
        layout.workers,
        layout.instances,
        layout.torch_threads
    )
}
