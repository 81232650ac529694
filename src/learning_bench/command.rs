//! `checkers-zero bench-learning`: the driver. Training is one `train` child process for the
//! rest of the budget; rating is one `match` child process per checkpoint and rung, each
//! result saved by `match` itself, the tables rewritten after every match. Ctrl-C or SIGTERM
//! stops the child (which saves what it has) and the benchmark; `--resume` carries on.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;

use super::diversity::{self, write_diversity};
use super::{
    ladder_panels, match_dir, row_from_report, select_checkpoints, side_names, time_on,
    write_tables, BenchPlan, Row, DEFAULT_LADDER, PLAN_VERSION,
};
use crate::config::RunConfig;
use crate::eval::arena::{fmt_elo, read_report, seat_sides};
use crate::eval::command::RatingOpenings;
use crate::eval::plot::render_png;
use crate::eval::ratings::{list_checkpoints, Checkpoint};
use crate::game::GameKind;
use crate::layout;
use crate::metrics::log::MetricsLog;
use crate::metrics::{IntakeLine, MetricsLine};
use crate::roles::learner::Clock;
use crate::selfplay::diversity::DiversityReport;
use crate::util::write_atomic;

/// Games per checkpoint and rung unless `--games` says otherwise.
pub const DEFAULT_GAMES: u64 = 100;
/// Checkpoints rated unless `--checkpoints` says otherwise.
pub const DEFAULT_CHECKPOINTS: usize = 5;
/// Seed of the ladder matches unless `--seed` says otherwise (used for nothing else).
pub const DEFAULT_SEED: u64 = 18_022;
/// Visits per step of the rated checkpoints unless `--visits` says otherwise.
pub const DEFAULT_VISITS: u32 = 100;

/// Arguments of `checkers-zero bench-learning`.
#[derive(Args, Debug, Clone)]
pub struct LearningBenchArgs {
    /// Game: rematch, rematch3, hexdame or eximo.
    pub game: String,
    /// Training budget: minutes of training (wall-clock, or the run's CPU minutes with
    /// `--clock cpu`), summed over `--resume` invocations.
    pub minutes: f64,
    /// What MINUTES counts: wall minutes, or the run's CPU minutes (self-play and the
    /// learner together), which other work on the machine does not take from; a resumed
    /// benchmark keeps its plan's unless given.
    #[arg(long, value_enum)]
    pub clock: Option<Clock>,
    /// Continue the benchmark in the run directory: train what is left of the budget, then
    /// play only the matches not yet on record.
    #[arg(long)]
    pub resume: bool,
    /// The run directory (default `runs/bench-<game>-<minutes>min`, `...cpumin` on the
    /// CPU clock; a resume without `--clock` finds either).
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
    /// The config to train (default `configs/<game>.toml`); ignored with `--resume`.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The rungs, comma-separated `match` agent specs (default
    /// random,alphabeta:2,alphabeta:4,uct:300,uct:1000,uct:3000).
    #[arg(long, value_delimiter = ',')]
    pub ladder: Option<Vec<String>>,
    /// Games per checkpoint and rung, seats alternating (default 100).
    #[arg(long)]
    pub games: Option<u64>,
    /// Checkpoints rated, spread evenly over the training time (default 5).
    #[arg(long)]
    pub checkpoints: Option<usize>,
    /// Seed of the ladder matches (default 18022, a seed used for nothing else).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Visits per step of the rated checkpoints' net + MCTS (default 100).
    #[arg(long)]
    pub visits: Option<u32>,
    /// Whole turns after which a ladder game is a draw (default: the config's
    /// `selfplay.ply_cap`, the cap the net trained under).
    #[arg(long)]
    pub ply_cap: Option<u32>,
    /// Ladder games in flight at once (default: `match`'s).
    #[arg(long)]
    pub parallel: Option<usize>,
    /// A config key set over the config, e.g. `--set train.weight_decay=0.01` (repeatable;
    /// an A/B arm); with `--resume`, the run's settings change from its newest checkpoint on
    /// (`train --resume --set`), added to the plan's overrides.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// How the ladder games open (default: the game's opening suite); with `--resume`,
    /// the recorded choice unless one is given.
    #[command(flatten)]
    pub openings: RatingOpenings,
    /// Only draw again the plot of a benchmark folder (its `plan.json` and
    /// `ladder.csv`, such as those kept in docs/learning/): no training, no games.
    #[arg(long, value_name = "DIR")]
    pub replot: Option<PathBuf>,
}

/// Runs the benchmark: train for what is left of the budget, rate, write the tables.
pub fn run_learning_bench(args: &LearningBenchArgs, out: &mut impl Write) -> Result<()> {
    if let Some(dir) = &args.replot {
        return replot(dir, &args.game, out);
    }
    let run_dir = args
        .run_dir
        .clone()
        .unwrap_or_else(|| default_run_dir(Path::new("runs"), args));
    let bench_dir = run_dir.join(layout::BENCH);
    let plan = prepare_plan(args, &run_dir, &bench_dir)?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop)).context("signal handler")?;
    }
    let exe = std::env::current_exe().context("finding the checkers-zero binary")?;
    let config = bench_dir.join(layout::CONFIG);
    train_phase(&exe, &plan, &args.set, &run_dir, &config, &stop, out)?;
    for file in write_diversity(&run_dir, &bench_dir, &plan.game)? {
        writeln!(out, "wrote {}", file.display())?;
    }
    let rows = rate_phase(&exe, &plan, &run_dir, args.parallel, &stop, out)?;
    let files = write_tables(&bench_dir, &plan, &rows)?;
    let kind = plan.kind().map_err(anyhow::Error::msg)?;
    writeln!(out, "\n{}", super::markdown_table(&rows, &side_names(kind)))?;
    for file in files {
        writeln!(out, "wrote {}", file.display())?;
    }
    Ok(())
}

/// The run directory under `runs` when `--run-dir` is not given:
/// `bench-<game>-<minutes>min`, or `...cpumin` on the CPU clock. A resumed benchmark
/// without `--clock` takes the CPU clock's folder where only that one exists.
fn default_run_dir(runs: &Path, args: &LearningBenchArgs) -> PathBuf {
    let name = |clock: Clock| {
        let unit = match clock {
            Clock::Wall => "min",
            Clock::Cpu => "cpumin",
        };
        runs.join(format!("bench-{}-{}{unit}", args.game, args.minutes))
    };
    match args.clock {
        Some(clock) => name(clock),
        None if args.resume && !name(Clock::Wall).exists() && name(Clock::Cpu).exists() => {
            name(Clock::Cpu)
        }
        None => name(Clock::default()),
    }
}

/// Draws `ladder.png` of the benchmark folder `dir` again from its `plan.json` and
/// `ladder.csv` (the tables stay as they were written).
fn replot(dir: &Path, game: &str, out: &mut impl Write) -> Result<()> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
    };
    let plan: BenchPlan = serde_json::from_str(&read(layout::BENCH_PLAN_FILE)?)
        .with_context(|| format!("{}: not a benchmark plan", dir.display()))?;
    if plan.game != game {
        bail!("{} benchmarks {}, not {game}", dir.display(), plan.game);
    }
    let kind = plan.kind().map_err(anyhow::Error::msg)?;
    let csv = read(layout::LADDER_FILES[1])?;
    let rows = super::rows_from_csv(&csv, side_names(kind).len())
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.join(layout::LADDER_FILES[1]).display()))?;
    let png = render_png(
        &ladder_panels(&rows, &plan.ladder, &plan.game, plan.clock),
        2,
    )
    .map_err(|e| anyhow::anyhow!("ladder plot: {e}"))?;
    let path = dir.join(layout::LADDER_FILES[2]);
    write_atomic(&path, &png).with_context(|| format!("writing {}", path.display()))?;
    writeln!(out, "wrote {}", path.display())?;
    let [csv, png] = layout::DIVERSITY_FILES.map(|name| dir.join(name));
    if let Ok(text) = std::fs::read_to_string(&csv) {
        let rows = diversity::rows_from_csv(&text)
            .map_err(|e| anyhow::anyhow!("{}: {e}", csv.display()))?;
        write_atomic(&png, &diversity::diversity_png(&rows, game)?)
            .with_context(|| format!("writing {}", png.display()))?;
        writeln!(out, "wrote {}", png.display())?;
    }
    Ok(())
}

/// The plan: new (from the arguments and defaults) or, with `--resume`, the recorded one
/// with the arguments given now replacing its values. Written to `plan.json`.
fn prepare_plan(args: &LearningBenchArgs, run_dir: &Path, bench_dir: &Path) -> Result<BenchPlan> {
    let plan_path = bench_dir.join(layout::BENCH_PLAN_FILE);
    let mut new_config = None;
    let mut plan = if args.resume {
        recorded_plan(args, run_dir, bench_dir)?
    } else {
        if run_dir.exists() {
            bail!(
                "{} already exists: pass --resume to continue it, or choose another --run-dir",
                run_dir.display()
            );
        }
        let config = bench_config(args)?;
        let plan = BenchPlan {
            version: PLAN_VERSION,
            game: args.game.clone(),
            minutes: args.minutes,
            clock: Clock::Wall,
            ladder: DEFAULT_LADDER.iter().map(|s| s.to_string()).collect(),
            games: DEFAULT_GAMES,
            checkpoints: DEFAULT_CHECKPOINTS,
            seed: DEFAULT_SEED,
            visits: DEFAULT_VISITS,
            ply_cap: config.rules().ply_cap,
            overrides: args.set.clone(),
            openings: None,
            opening_turns: 2,
        };
        new_config = Some(config);
        plan
    };
    plan.minutes = args.minutes;
    plan.clock = args.clock.unwrap_or(plan.clock);
    plan.ladder = args.ladder.clone().unwrap_or(plan.ladder);
    plan.games = args.games.unwrap_or(plan.games);
    plan.checkpoints = args.checkpoints.unwrap_or(plan.checkpoints);
    plan.seed = args.seed.unwrap_or(plan.seed);
    plan.visits = args.visits.unwrap_or(plan.visits);
    plan.ply_cap = args.ply_cap.unwrap_or(plan.ply_cap);
    let kind = plan.kind().map_err(anyhow::Error::msg)?;
    choose_openings(&mut plan, args, kind)?;
    plan.validate().map_err(anyhow::Error::msg)?;
    for rung in &plan.ladder {
        crate::eval::spec::AgentSpec::parse(rung).with_context(|| format!("--ladder {rung}"))?;
    }
    std::fs::create_dir_all(bench_dir)
        .with_context(|| format!("creating {}", bench_dir.display()))?;
    if let Some(config) = new_config {
        let path = bench_dir.join(layout::CONFIG);
        write_atomic(&path, config.to_toml().as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let json = serde_json::to_string_pretty(&plan).expect("plans serialise");
    write_atomic(&plan_path, json.as_bytes())
        .with_context(|| format!("writing {}", plan_path.display()))?;
    Ok(plan)
}

/// The recorded plan of a resumed benchmark, checked to be this build's and this game's;
/// a `--set` given now is added to its overrides and put over the recorded config.
fn recorded_plan(args: &LearningBenchArgs, run_dir: &Path, bench_dir: &Path) -> Result<BenchPlan> {
    let plan_path = bench_dir.join(layout::BENCH_PLAN_FILE);
    let text = std::fs::read_to_string(&plan_path)
        .with_context(|| format!("{} holds no benchmark to resume", run_dir.display()))?;
    let mut plan: BenchPlan = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a benchmark plan", plan_path.display()))?;
    if plan.version != PLAN_VERSION {
        bail!(
            "{}: plan version {} (this build reads {PLAN_VERSION})",
            plan_path.display(),
            plan.version
        );
    }
    if plan.game != args.game {
        bail!(
            "{} benchmarks {}, not {}",
            run_dir.display(),
            plan.game,
            args.game
        );
    }
    if !args.set.is_empty() {
        change_bench_config(bench_dir, &args.set)?;
    }
    for item in &args.set {
        // The same command line resumed again adds nothing.
        if !plan.overrides.contains(item) {
            plan.overrides.push(item.clone());
        }
    }
    Ok(plan)
}

/// The benchmark's record of the config trained, with a resume's `--set` put over it
/// (the run's own config changes in `train --resume --set`).
fn change_bench_config(bench_dir: &Path, set: &[String]) -> Result<()> {
    let path = bench_dir.join(layout::CONFIG);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let config = RunConfig::parse_with(&text, &path.display().to_string(), set)?;
    write_atomic(&path, config.to_toml().as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}

/// The plan's openings: those the arguments give, or on `--resume` without any the recorded
/// ones; a new plan without any takes the game's suite. The suite's path is made absolute
/// (`match` runs in the run directory) and the suite checked; without `--games`, the games
/// are rounded up to whole seat rotations.
fn choose_openings(plan: &mut BenchPlan, args: &LearningBenchArgs, kind: GameKind) -> Result<()> {
    let given = &args.openings;
    if !args.resume || given.openings.is_some() || given.random_openings {
        plan.openings = given.file(kind)?;
        plan.opening_turns = given.opening_turns;
    }
    if let Some(path) = &plan.openings {
        let absolute = std::fs::canonicalize(path)
            .with_context(|| format!("the opening suite {}", path.display()))?;
        crate::eval::openings::OpeningSuite::read(&absolute, kind)?;
        plan.openings = Some(absolute);
        let seats = seat_sides(kind).len() as u64;
        if args.games.is_none() {
            plan.games = plan.games.div_ceil(seats) * seats;
        }
    }
    Ok(())
}

/// The config trained: `--config` (default `configs/<game>.toml`) with the `--set`
/// overrides, checked to be for the benchmarked game.
fn bench_config(args: &LearningBenchArgs) -> Result<RunConfig> {
    let path = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from("configs").join(format!("{}.toml", args.game)));
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let config = RunConfig::parse_with(&text, &path.display().to_string(), &args.set)?;
    if config.game != args.game {
        bail!(
            "{} is a config for {:?}, not {}",
            path.display(),
            config.game,
            args.game
        );
    }
    Ok(config)
}

/// The run's complete checkpoints (none before the run exists).
fn checkpoints(run_dir: &Path) -> Result<Vec<Checkpoint>> {
    if !run_dir.join(layout::CHECKPOINTS).is_dir() {
        return Ok(Vec::new());
    }
    Ok(list_checkpoints(run_dir)?)
}

/// Trains for what is left of the budget: nothing once the newest checkpoint is within 1%
/// (at least 5 s) of it. A resumed run's settings change by `set` from its newest checkpoint on.
fn train_phase(
    exe: &Path,
    plan: &BenchPlan,
    set: &[String],
    run_dir: &Path,
    config: &Path,
    stop: &AtomicBool,
    out: &mut impl Write,
) -> Result<()> {
    let before = checkpoints(run_dir)?
        .last()
        .map(|c| (c.step, time_on(c, plan.clock)));
    let (step, done_s) = before.unwrap_or((0, 0.0));
    let budget_s = plan.minutes * 60.0;
    let left_s = budget_s - done_s;
    let unit = plan.clock.minutes_word();
    if left_s <= (0.01 * budget_s).max(5.0) {
        writeln!(
            out,
            "[bench] training done: step {step} at {:.1} of {} {unit}{}",
            done_s / 60.0,
            plan.minutes,
            if set.is_empty() {
                ""
            } else {
                " (--set changes no training)"
            }
        )?;
        return Ok(());
    }
    let mut command = Command::new(exe);
    command.arg("train").arg("--run-dir").arg(run_dir);
    if run_dir.join(layout::CONFIG).is_file() {
        command.arg("--resume");
        for item in set {
            command.arg("--set").arg(item);
        }
    } else {
        command.arg("--config").arg(config);
    }
    command.args(["--minutes", &format!("{:.4}", left_s / 60.0), "--quiet"]);
    // The learning rate decays over the whole budget, not over what this leg has left.
    command.args(["--spent-minutes", &format!("{:.4}", done_s / 60.0)]);
    command.args(["--clock", plan.clock.name()]);
    let until = match plan.clock {
        Clock::Wall => format!(", until about {} UTC", clock_after(left_s)),
        Clock::Cpu => String::new(),
    };
    writeln!(
        out,
        "[bench] training {} from step {step}: {:.1} of {} {unit} left{until}",
        plan.game,
        left_s / 60.0,
        plan.minutes,
    )?;
    out.flush()?;
    run_child(&mut command, Stdio::inherit(), Echo::Lines, stop).context("train")?;
    let after = checkpoints(run_dir)?
        .last()
        .map(|c| (c.step, time_on(c, plan.clock)));
    if stop.load(Ordering::SeqCst) {
        bail!(
            "stopped during training at step {}; continue with --resume",
            after.map_or(0, |a| a.0)
        );
    }
    match after {
        None => bail!("train wrote no checkpoint in {}", run_dir.display()),
        Some(a) if Some(a) == before => writeln!(
            out,
            "[bench] note: train made no progress (an iteration limit in the config?)"
        )?,
        Some((step, elapsed)) => writeln!(
            out,
            "[bench] trained to step {step} in {:.1} {unit}",
            elapsed / 60.0
        )?,
    }
    Ok(())
}

/// The wall-clock time (UTC, `HH:MM`) `seconds` from now.
fn clock_after(seconds: f64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let t = (now + seconds.max(0.0) as u64) % 86_400;
    format!("{:02}:{:02}", t / 3600, t / 60 % 60)
}

/// Whether a child's stderr is shown as it comes (train's progress lines) or only kept.
#[derive(Clone, Copy, PartialEq)]
enum Echo {
    Lines,
    Off,
}

/// Runs a child process to its end, forwarding a stop (SIGINT) to it once. Its stderr is
/// kept (a failure is an error carrying its last line) and, with [`Echo::Lines`], passed on
/// line by line as it comes.
fn run_child(command: &mut Command, stdout: Stdio, echo: Echo, stop: &AtomicBool) -> Result<()> {
    let mut child = command
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .context("starting")?;
    let pipe = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        for line in std::io::BufReader::new(pipe).lines().map_while(|l| l.ok()) {
            if echo == Echo::Lines {
                eprintln!("{line}");
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    let mut forwarded = false;
    let status = loop {
        if let Some(status) = child.try_wait().context("waiting")? {
            break status;
        }
        if stop.load(Ordering::SeqCst) && !forwarded {
            forwarded = true;
            let _ = Command::new("kill")
                .args(["-INT", &child.id().to_string()])
                .status();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr = reader.join().unwrap_or_default();
    if !status.success() && !stop.load(Ordering::SeqCst) {
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let last = last.strip_prefix("error: ").unwrap_or(last);
        bail!("{status}: {last}");
    }
    Ok(())
}

/// One (checkpoint, rung) match of the plan.
struct Job<'a> {
    checkpoint: &'a Checkpoint,
    rung: &'a str,
    agents: Vec<String>,
    dir: PathBuf,
}

/// The checkpoints to rate, pinned so that a resumed (longer) run's retention keeps their
/// weights.
fn choose_and_pin(run_dir: &Path, plan: &BenchPlan) -> Result<Vec<Checkpoint>> {
    let chosen = select_checkpoints(&checkpoints(run_dir)?, plan.checkpoints, plan.clock);
    if chosen.is_empty() {
        bail!("{} holds no checkpoint to rate", run_dir.display());
    }
    for checkpoint in &chosen {
        let pin = checkpoint.dir.join(layout::PINNED_FILE);
        write_atomic(&pin, b"").with_context(|| format!("pinning {}", checkpoint.dir.display()))?;
    }
    Ok(chosen)
}

/// Rates the chosen checkpoints against every rung, playing what is not on record and
/// rewriting the tables after each match. Returns the rows.
fn rate_phase(
    exe: &Path,
    plan: &BenchPlan,
    run_dir: &Path,
    parallel: Option<usize>,
    stop: &AtomicBool,
    out: &mut impl Write,
) -> Result<Vec<Row>> {
    let chosen = choose_and_pin(run_dir, plan)?;
    let mut jobs = Vec::new();
    // The newest checkpoint first: a rating stopped early already has the headline row.
    for checkpoint in chosen.iter().rev() {
        // Paths relative to the run directory, where `match` runs: the agents' names then
        // do not depend on where the benchmark was started from.
        let relative = checkpoint
            .dir
            .strip_prefix(run_dir)
            .unwrap_or(&checkpoint.dir);
        for rung in &plan.ladder {
            jobs.push(Job {
                checkpoint,
                rung,
                agents: plan.agents(relative, rung).map_err(anyhow::Error::msg)?,
                dir: match_dir(Path::new(layout::BENCH), checkpoint, rung),
            });
        }
    }
    let is_done = |job: &Job| {
        read_report(&run_dir.join(&job.dir).join(layout::MATCH_REPORT_FILE))
            .is_ok_and(|r| plan.is_done(&r, &job.agents))
    };
    let done: Vec<bool> = jobs.iter().map(is_done).collect();
    let missing = done.iter().filter(|d| !**d).count();
    writeln!(
        out,
        "[bench] rating {} checkpoints (steps {}) against {} rungs: {} matches of {} games, {missing} to play",
        chosen.len(),
        chosen.iter().map(|c| c.step.to_string()).collect::<Vec<_>>().join(", "),
        plan.ladder.len(),
        jobs.len(),
        plan.games
    )?;
    print_diversity(run_dir, &chosen, out)?;
    let mut timer = Eta::new(
        jobs.iter()
            .zip(&done)
            .filter(|(_, d)| !**d)
            .map(|(j, _)| j.rung),
    );
    let mut rows = Vec::new();
    for (i, (job, done)) in jobs.iter().zip(done).enumerate() {
        if !done {
            write!(
                out,
                "[bench] {}/{} step {} vs {}: ",
                i + 1,
                jobs.len(),
                job.checkpoint.step,
                job.rung
            )?;
            out.flush()?;
            let started = Instant::now();
            play(exe, plan, run_dir, job, parallel, stop)?;
            timer.done(job.rung, started.elapsed().as_secs_f64());
            let row = job_row(run_dir, job)?;
            writeln!(out, "{}; {}", row_summary(&row, plan)?, timer.left())?;
            rows.push(row);
        } else {
            rows.push(job_row(run_dir, job)?);
        }
        // Tables in step order; a stable sort keeps each checkpoint's rungs in ladder order.
        rows.sort_by_key(|r| r.step);
        write_tables(&run_dir.join(layout::BENCH), plan, &rows)?;
    }
    Ok(rows)
}

/// Plays one match with `match` (in the run directory).
fn play(
    exe: &Path,
    plan: &BenchPlan,
    run_dir: &Path,
    job: &Job,
    parallel: Option<usize>,
    stop: &AtomicBool,
) -> Result<()> {
    let mut command = Command::new(exe);
    command
        .current_dir(run_dir)
        .args(["match", "--quiet", "--game", &plan.game]);
    for agent in &job.agents {
        command.args(["--agent", agent]);
    }
    command
        .args(["--games", &plan.games.to_string()])
        .args(["--seed", &plan.seed.to_string()])
        .args(["--ply-cap", &plan.ply_cap.to_string()]);
    match &plan.openings {
        Some(file) => command.arg("--openings").arg(file),
        None => command.args(["--opening-turns", &plan.opening_turns.to_string()]),
    };
    command.arg("--out").arg(&job.dir);
    if let Some(p) = parallel {
        command.args(["--parallel", &p.to_string()]);
    }
    run_child(&mut command, Stdio::null(), Echo::Off, stop)
        .with_context(|| format!("match of step {} against {}", job.checkpoint.step, job.rung))?;
    if stop.load(Ordering::SeqCst) {
        bail!(
            "stopped while rating step {} against {}; continue with --resume",
            job.checkpoint.step,
            job.rung
        );
    }
    Ok(())
}

/// The row of a match on record.
fn job_row(run_dir: &Path, job: &Job) -> Result<Row> {
    let report = read_report(&run_dir.join(&job.dir).join(layout::MATCH_REPORT_FILE))?;
    let games = selfplay_games(run_dir, job.checkpoint);
    Ok(row_from_report(&report, job.checkpoint, games, job.rung)?)
}

/// `62.0% Elo +85 [+20, +150] (Red 70%, Team 54%)`.
fn row_summary(row: &Row, plan: &BenchPlan) -> Result<String> {
    let sides = side_names(plan.kind().map_err(anyhow::Error::msg)?);
    let per_side: Vec<String> = sides
        .iter()
        .zip(&row.by_side)
        .filter(|(_, w)| w.games() > 0.0)
        .map(|(name, w)| format!("{name} {:.0}%", 100.0 * w.score()))
        .collect();
    Ok(format!(
        "{:.1}% Elo {} [{}, {}] ({})",
        100.0 * row.score(),
        fmt_elo(row.elo.elo),
        fmt_elo(row.elo.low),
        fmt_elo(row.elo.high),
        per_side.join(", ")
    ))
}

/// Self-play games taken in by `checkpoint`'s step, from the learner's `intake` metrics
/// (else from its `state.json`).
fn selfplay_games(run_dir: &Path, checkpoint: &Checkpoint) -> u64 {
    let from_metrics = intake_lines_by(run_dir, checkpoint)
        .map(|line| line.games_total)
        .max();
    from_metrics
        .unwrap_or_else(|| layout::read_state(&checkpoint.dir).map_or(0, |state| state.games_seen))
}

/// One line per chosen checkpoint with self-play's diversity at its step (where recorded).
fn print_diversity(run_dir: &Path, chosen: &[Checkpoint], out: &mut impl Write) -> Result<()> {
    for checkpoint in chosen {
        if let Some(diversity) = selfplay_diversity(run_dir, checkpoint) {
            writeln!(
                out,
                "[bench] step {} self-play: {diversity}",
                checkpoint.step
            )?;
        }
    }
    Ok(())
}

/// Self-play's diversity at `checkpoint`'s step: the last `intake` metrics line's at or
/// before it (`None` in runs written before it was recorded).
fn selfplay_diversity(run_dir: &Path, checkpoint: &Checkpoint) -> Option<DiversityReport> {
    intake_lines_by(run_dir, checkpoint)
        .filter_map(|line| line.diversity)
        .last()
}

/// The learner's `intake` lines up to `checkpoint`'s step, oldest first (none where the
/// metrics cannot be read).
fn intake_lines_by(run_dir: &Path, checkpoint: &Checkpoint) -> impl Iterator<Item = IntakeLine> {
    let step = checkpoint.step;
    MetricsLog::read(&run_dir.join(layout::LEARNER_METRICS))
        .unwrap_or_default()
        .into_iter()
        .filter_map(move |line| match line {
            MetricsLine::Intake(line) if line.step <= step => Some(line),
            _ => None,
        })
}

/// Time left of the rating: seconds per match of each rung as measured so far (the mean of
/// all rungs for one not yet played).
struct Eta {
    spent: HashMap<String, (f64, u32)>,
    left: Vec<String>,
}

impl Eta {
    /// A timer for matches against these rungs.
    fn new<'a>(rungs: impl Iterator<Item = &'a str>) -> Eta {
        Eta {
            spent: HashMap::new(),
            left: rungs.map(str::to_string).collect(),
        }
    }

    /// A match against `rung` took `seconds`.
    fn done(&mut self, rung: &str, seconds: f64) {
        if let Some(i) = self.left.iter().position(|r| r == rung) {
            self.left.remove(i);
        }
        let entry = self.spent.entry(rung.to_string()).or_default();
        entry.0 += seconds;
        entry.1 += 1;
    }

    /// `N matches left, about M min`.
    fn left(&self) -> String {
        let (total, count) = self
            .spent
            .values()
            .fold((0.0, 0), |(s, n), v| (s + v.0, n + v.1));
        let mean = total / f64::from(count.max(1));
        let seconds: f64 = self
            .left
            .iter()
            .map(|r| self.spent.get(r).map_or(mean, |(s, n)| s / f64::from(*n)))
            .sum();
        if self.left.is_empty() {
            "rating done".into()
        } else {
            format!(
                "{} more to play, about {:.0} min",
                self.left.len(),
                seconds / 60.0
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: LearningBenchArgs,
    }

    fn args(words: &[&str]) -> LearningBenchArgs {
        Cli::try_parse_from(["bench-learning"].iter().chain(words))
            .unwrap()
            .args
    }

    #[test]
    fn a_resumed_cpu_clock_benchmark_is_found_by_its_default_folder() {
        let runs = std::env::temp_dir().join(format!("bench-default-{}", std::process::id()));
        let cpu = runs.join("bench-hexdame-240cpumin");
        std::fs::create_dir_all(&cpu).unwrap();
        let wall = runs.join("bench-hexdame-240min");
        assert_eq!(default_run_dir(&runs, &args(&["hexdame", "240"])), wall);
        let resumed = args(&["hexdame", "240", "--resume"]);
        assert_eq!(default_run_dir(&runs, &resumed), cpu);
        let told = args(&["hexdame", "240", "--resume", "--clock", "wall"]);
        assert_eq!(default_run_dir(&runs, &told), wall, "a clock given wins");
        std::fs::create_dir_all(&wall).unwrap();
        assert_eq!(
            default_run_dir(&runs, &resumed),
            wall,
            "both there: the default's"
        );
        std::fs::remove_dir_all(&runs).unwrap();
    }
}
