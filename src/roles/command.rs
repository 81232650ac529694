//! The command line of the roles: `train` (all of them in one process), `learn`,
//! `selfplay`, `evaluate` and `status`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::evaluation::{evaluate, EvaluateOptions};
use super::fork::ForkPoint;
use super::learner::{learn, Clock, LearnOptions, LOG_EVERY};
use super::local::{train, TrainOptions};
use super::selfplay::{selfplay, SelfPlayOptions};
use crate::config::timings::RoleTimings;
use crate::store::RunStore;

/// The defaults of the roles' timings.
const DISTRIBUTED: RoleTimings = RoleTimings::DISTRIBUTED;

/// Where the run lives, shared by every role.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// The run location: a directory, or a URL of an object store (`s3://bucket/prefix`,
    /// `gs://…`, `az://…`, `http(s)://…`); credentials and endpoint from the environment
    /// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT`,
    /// `AWS_ALLOW_HTTP`, …).
    #[arg(long, env = "CHECKERS_ZERO_STORE")]
    pub store: String,
    /// Local scratch directory (default: a temporary directory, removed at exit).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// Hide the progress bar (`learn`: print the progress line as a log line instead).
    #[arg(long)]
    pub quiet: bool,
}

impl StoreArgs {
    fn progress(&self) -> bool {
        !self.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr())
    }
}

/// Arguments of `checkers-zero train`.
#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// The run's config (`configs/<game>.toml`); needed to start a run.
    #[arg(long)]
    config: Option<PathBuf>,
    /// The run directory (default: `runs/<config name>-<unix time>`).
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Continue the run in --run-dir from its newest checkpoint that loads.
    #[arg(long)]
    resume: bool,
    /// Start a new run from a checkpoint of a base run, BASE_RUN@STEP (or BASE_RUN: its
    /// newest; or a shipped model's folder, models/GAME: the checkpoint it was exported
    /// from), with its weights, optimizer state and replay window; the config is --config
    /// if given, else the base's, with --set over it (an A/B arm).
    #[arg(long, value_name = "BASE_RUN@STEP")]
    fork: Option<ForkPoint>,
    /// A config key set over the config, e.g. `--set train.learning_rate=0.0005`
    /// (repeatable); with --resume, the run's settings change from its newest checkpoint
    /// on (not its game or net; the config before is kept in the run).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Stop once this many iterations are done in total (overrides train.iterations).
    #[arg(long)]
    iterations: Option<u64>,
    /// Stop after this many minutes (overrides train.max_minutes).
    #[arg(long)]
    minutes: Option<f64>,
    /// Minutes of the same budget spent by earlier invocations: with --minutes, the
    /// learning rate's decay (train.learning_rate_decay_share) goes on where it stopped.
    #[arg(long, value_name = "MINUTES", default_value_t = 0.0)]
    spent_minutes: f64,
    /// What --minutes and --spent-minutes count: wall minutes, or the process's CPU
    /// minutes (self-play and the learner together), which other work on the machine does
    /// not take from.
    #[arg(long, value_enum, default_value_t = Clock::Wall)]
    clock: Clock,
    /// Print the progress line as a log line (every --log-every iterations) instead of
    /// rewriting it in place, as when stderr is not a terminal.
    #[arg(long)]
    quiet: bool,
    /// Iterations between progress lines when stderr is not a terminal (or with --quiet).
    #[arg(long, value_name = "N", default_value_t = LOG_EVERY)]
    log_every: u64,
    #[command(flatten)]
    net: crate::net::args::NetArgs,
}

/// Runs `train`.
pub fn run_train(args: &TrainArgs, out: &mut impl Write) -> Result<()> {
    let options = TrainOptions {
        config: args.config.clone(),
        run_dir: args.run_dir.clone(),
        resume: args.resume,
        fork: args.fork.clone(),
        set: args.set.clone(),
        iterations: args.iterations,
        minutes: args.minutes,
        spent_minutes: args.spent_minutes,
        clock: args.clock,
        progress: !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        log_every: args.log_every,
        net: args.net,
    };
    let summary = train(&options)?;
    writeln!(
        out,
        "run {}: steps {} -> {}, {} games, {} samples; checkpoint {}",
        summary.run_dir.display(),
        summary.start_step,
        summary.final_step,
        summary.games,
        summary.samples,
        summary.checkpoint.display()
    )?;
    let bin = invocation(std::env::var_os("PATH").as_deref());
    write!(
        out,
        "{}",
        next_commands(&summary.run_dir, summary.game, &bin)
    )?;
    Ok(())
}

/// What to do with a run once `train` stops: export it, match it against a baseline,
/// watch it on the web page, or train on; each command starts with `bin`, the program as
/// it can be run from here ([`invocation`]).
pub fn next_commands(run: &std::path::Path, game: crate::game::GameKind, bin: &str) -> String {
    let run = run.display();
    let game = game.name();
    format!(
        "next:\n  \
         {bin} match --game {game} --agent net:{run} --agent uct:1000 --openings openings/{game}.txt --games 200   # its strength against a baseline, seats swapped\n  \
         {bin} serve --run-dir {run}   # play it, analyse with it and chart the run at http://127.0.0.1:8080\n  \
         {bin} export --checkpoint {run} --out {run}/export   # a model for play, engine and Python\n  \
         {bin} train --run-dir {run} --resume --minutes 30   # train on\n"
    )
}

/// How to run this program from the current directory: `checkers-zero` when that name on
/// `path` (the `PATH` variable) is this executable, else its path (relative to here when
/// it lies below, as `target/release/checkers-zero` does).
pub fn invocation(path: Option<&std::ffi::OsStr>) -> String {
    let Ok(exe) = std::env::current_exe().and_then(|e| e.canonicalize()) else {
        return "checkers-zero".into();
    };
    let on_path = path.into_iter().flat_map(std::env::split_paths).any(|dir| {
        dir.join("checkers-zero")
            .canonicalize()
            .is_ok_and(|found| found == exe)
    });
    if on_path {
        return "checkers-zero".into();
    }
    let here = std::env::current_dir().and_then(|d| d.canonicalize());
    match here
        .ok()
        .and_then(|d| exe.strip_prefix(&d).ok().map(|p| p.to_path_buf()))
    {
        Some(relative) => relative.display().to_string(),
        None => exe.display().to_string(),
    }
}

/// Arguments of `checkers-zero learn`.
#[derive(Args, Debug, Clone)]
pub struct LearnArgs {
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    net: crate::net::args::NetArgs,
    /// The config to start the run with (when resuming, it must equal the stored one).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Stop at this training step (default: train.iterations × train.steps_per_iteration).
    #[arg(long)]
    max_steps: Option<u64>,
    /// Stop after this many minutes (default: train.max_minutes; 0: no limit).
    #[arg(long)]
    max_minutes: Option<f64>,
    /// Stop once no new shard has come for this many seconds and no step is allowed.
    #[arg(long)]
    idle_exit: Option<f64>,
    /// While another learner's lease runs, wait (up to twice the lease time) for it to
    /// expire, then take the run over, instead of exiting with code 2 (a restarted pod).
    #[arg(long)]
    wait_for_lease: bool,
    /// Iterations between progress lines when stderr is not a terminal (or with --quiet).
    #[arg(long, value_name = "N", default_value_t = LOG_EVERY)]
    log_every: u64,
    /// Seconds between listings of new shards.
    #[arg(long, default_value_t = DISTRIBUTED.learner_poll_seconds)]
    poll_seconds: f64,
}

/// Arguments of `checkers-zero selfplay`.
#[derive(Args, Debug, Clone)]
pub struct SelfPlayArgs {
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    net: crate::net::args::NetArgs,
    /// This worker's name (default: the host name).
    #[arg(long)]
    worker_id: Option<String>,
    /// Games per published shard.
    #[arg(long, default_value_t = DISTRIBUTED.games_per_shard)]
    games_per_shard: usize,
    /// Publish a smaller shard once its first game is this many seconds old.
    #[arg(long, default_value_t = DISTRIBUTED.shard_seconds)]
    shard_seconds: f64,
    /// Stop after publishing at least this many games.
    #[arg(long)]
    max_games: Option<u64>,
    /// Stop after this many minutes.
    #[arg(long)]
    max_minutes: Option<f64>,
    /// On stopping (a limit, SIGTERM or SIGINT), let the games in flight finish for up to
    /// this many seconds and publish them (keep it under Kubernetes' grace period, 30 s).
    #[arg(long, default_value_t = DISTRIBUTED.drain_seconds)]
    drain_seconds: f64,
    /// Minutes to wait for the run's config and first checkpoint.
    #[arg(long, default_value_t = DISTRIBUTED.selfplay_wait_minutes)]
    wait_minutes: f64,
    /// Seconds between looks for a newer checkpoint.
    #[arg(long, default_value_t = DISTRIBUTED.selfplay_poll_seconds)]
    poll_seconds: f64,
}

/// Arguments of `checkers-zero evaluate`.
#[derive(Args, Debug, Clone)]
pub struct EvaluateArgs {
    #[command(flatten)]
    store: StoreArgs,
    #[command(flatten)]
    net: crate::net::args::NetArgs,
    /// Stop after this many minutes (0: no limit).
    #[arg(long)]
    max_minutes: Option<f64>,
    /// Evaluate the newest checkpoint if it is due, then exit.
    #[arg(long)]
    once: bool,
    /// While another evaluation role's lease runs, wait (up to twice the lease time) for it to
    /// expire, then take over, instead of exiting with code 2 (a restarted pod).
    #[arg(long)]
    wait_for_lease: bool,
    /// Minutes to wait for the run's config.
    #[arg(long, default_value_t = DISTRIBUTED.evaluation_wait_minutes)]
    wait_minutes: f64,
    /// Seconds between looks for a new checkpoint.
    #[arg(long, default_value_t = DISTRIBUTED.evaluation_poll_seconds)]
    poll_seconds: f64,
}

/// Arguments of `checkers-zero status`.
#[derive(Args, Debug, Clone)]
pub struct StatusArgs {
    /// The run location (as the roles take it).
    #[arg(long, env = "CHECKERS_ZERO_STORE")]
    store: String,
}

/// Runs `status`.
pub fn run_status(args: &StatusArgs, out: &mut impl Write) -> Result<()> {
    // Reading must not create: a local path has to exist already.
    if !args.store.contains("://") && !std::path::Path::new(&args.store).is_dir() {
        anyhow::bail!("{}: no such run directory", args.store);
    }
    let store = RunStore::open(&args.store)?;
    let status =
        super::status::run_status(&store).with_context(|| format!("status of {}", args.store))?;
    write!(out, "{status}")?;
    Ok(())
}

/// Runs `learn`.
pub fn run_learn(args: &LearnArgs, out: &mut impl Write) -> Result<()> {
    let options = LearnOptions {
        store: args.store.store.clone(),
        config: args.config.clone(),
        max_steps: args.max_steps,
        max_minutes: args.max_minutes,
        idle_exit: args.idle_exit,
        wait_for_lease: args.wait_for_lease,
        work_dir: args.store.work_dir.clone(),
        poll_seconds: args.poll_seconds,
        progress: args.store.progress(),
        log_every: args.log_every,
        net: args.net,
    };
    let summary = learn(&options).with_context(|| format!("learn at {}", args.store.store))?;
    writeln!(
        out,
        "learn {}: steps {} -> {}, window {}; took in {} shards, {} games, {} samples in {:.2} s ({:.1} shards/s, {:.0} samples/s)",
        args.store.store,
        summary.start_step,
        summary.final_step,
        summary.window,
        summary.shards,
        summary.games,
        summary.samples,
        summary.seconds,
        summary.shards as f64 / summary.seconds.max(1e-9),
        summary.samples as f64 / summary.seconds.max(1e-9),
    )?;
    Ok(())
}

/// Runs `selfplay`.
pub fn run_selfplay(args: &SelfPlayArgs, out: &mut impl Write) -> Result<()> {
    let options = SelfPlayOptions {
        store: args.store.store.clone(),
        worker_id: args.worker_id.clone(),
        games_per_shard: args.games_per_shard,
        shard_seconds: args.shard_seconds,
        max_games: args.max_games,
        max_minutes: args.max_minutes,
        drain_seconds: args.drain_seconds,
        wait_minutes: args.wait_minutes,
        poll_seconds: args.poll_seconds,
        work_dir: args.store.work_dir.clone(),
        progress: args.store.progress(),
        net: args.net,
    };
    let summary =
        selfplay(&options).with_context(|| format!("selfplay at {}", args.store.store))?;
    writeln!(
        out,
        "selfplay {}: session {}, {} games in {} shards, {} positions in {:.1} s ({:.0} positions/s), checkpoint {}",
        args.store.store,
        summary.session,
        summary.games,
        summary.shards,
        summary.positions,
        summary.seconds,
        summary.positions as f64 / summary.seconds.max(1e-9),
        summary.model_step,
    )?;
    Ok(())
}

/// Runs `evaluate`.
pub fn run_evaluate(args: &EvaluateArgs, out: &mut impl Write) -> Result<()> {
    let options = EvaluateOptions {
        store: args.store.store.clone(),
        max_minutes: args.max_minutes,
        once: args.once,
        wait_minutes: args.wait_minutes,
        poll_seconds: args.poll_seconds,
        wait_for_lease: args.wait_for_lease,
        work_dir: args.store.work_dir.clone(),
        net: args.net,
    };
    let steps = evaluate(&options).with_context(|| format!("evaluate at {}", args.store.store))?;
    let list: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
    writeln!(
        out,
        "evaluate {}: evaluated {} checkpoint(s){}",
        args.store.store,
        steps.len(),
        if list.is_empty() {
            String::new()
        } else {
            format!(" (steps {})", list.join(", "))
        }
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_commands_name_the_program_as_it_runs_from_here() {
        let here = invocation(None);
        assert_ne!(here, "checkers-zero");
        assert!(std::path::Path::new(&here).is_file(), "{here}");
        let dir = std::env::temp_dir().join(format!("cz-invocation-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("checkers-zero");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(std::env::current_exe().unwrap(), &link).unwrap();
        let path = std::env::join_paths(["/nonexistent".into(), dir.clone()]).unwrap();
        assert_eq!(invocation(Some(&path)), "checkers-zero");
        std::fs::remove_dir_all(&dir).unwrap();
        let text = next_commands(
            std::path::Path::new("runs/r"),
            crate::game::GameKind::Rematch,
            "target/release/checkers-zero",
        );
        let commands: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(commands.len(), 4);
        for line in commands {
            assert!(
                line.trim_start()
                    .starts_with("target/release/checkers-zero "),
                "{line}"
            );
        }
    }
}
