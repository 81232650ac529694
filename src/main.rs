//! The `checkers-zero` command line: parse, dispatch, print.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use checkers_zero::export;
use checkers_zero::game::GameKind;
use checkers_zero::net::args::NetArgs;
use checkers_zero::rules_commands;
use checkers_zero::selfplay::record::{read_records, GameRecord};
use checkers_zero::selfplay::show::show_game;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "checkers-zero",
    version,
    about = "AlphaZero-style trainer for ReMATCH, HexDame and Eximo"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the whole-turn tree (distinct positions) at each depth 1..=N.
    Perft {
        /// Game: rematch, rematch3, hexdame or eximo.
        #[arg(long)]
        game: String,
        /// Deepest depth to count.
        #[arg(long)]
        depth: u32,
        /// Position in the project notation (default: the start position).
        #[arg(long)]
        position: Option<String>,
    },
    /// List the legal whole turns, one per distinct resulting position, sorted.
    Moves {
        /// Game: rematch, rematch3, hexdame or eximo.
        #[arg(long)]
        game: String,
        /// Position in the project notation (default: the start position).
        #[arg(long)]
        position: Option<String>,
    },
    /// Solve a position exactly: each legal turn's proven value (`win N`, `loss N`, `draw`,
    /// `unknown`; N whole turns to the end with best play), then the position's, by the
    /// rules alone (no ply cap), for the side to move (docs/evaluation.md#solver).
    Solve {
        /// Game: rematch, rematch3, hexdame or eximo.
        #[arg(long)]
        game: String,
        /// Position in the project notation (default: the start position).
        #[arg(long)]
        position: Option<String>,
        /// The most positions the search expands; values it cannot prove within them are
        /// `unknown`.
        #[arg(long, default_value_t = 1_000_000)]
        nodes: u64,
    },
    /// Build a probe set from game records: positions labelled by the exact solver
    /// (docs/evaluation.md#probe-sets).
    ProbeBuild(checkers_zero::eval::probe::command::ProbeBuildArgs),
    /// Measure checkpoints on a probe set, per seat: optimal turns of the policy and of a
    /// 100-visit search, policy mass on losing turns, value log-loss.
    Probe(checkers_zero::eval::probe::command::ProbeArgs),
    /// Average checkpoints' weights (weight averaging over a run's last checkpoints), with
    /// batch norm re-estimated on the run's newest games (docs/learning.md).
    Average(checkers_zero::export::average::AverageArgs),
    /// Train: self-play, the learner and the evaluation role in one process, in a run directory
    /// that survives being stopped (the layout of a distributed run; docs/training.md).
    Train(checkers_zero::roles::command::TrainArgs),
    /// Distributed run, learner role (one per run): take in the game shards self-play
    /// publishes at --store, train, publish checkpoints. Starts the run from --config or
    /// resumes it.
    Learn(checkers_zero::roles::command::LearnArgs),
    /// Distributed run, self-play role (any number, any machines): play games with the
    /// newest checkpoint at --store and publish them as shards.
    Selfplay(checkers_zero::roles::command::SelfPlayArgs),
    /// Distributed run, evaluation role (at most one): play each new checkpoint against the
    /// previous one and the config's anchors; with gating, promote winners to self-play.
    Evaluate(checkers_zero::roles::command::EvaluateArgs),
    /// Distributed run: what the learner, the self-play sessions and the evaluation role are doing,
    /// read from the store.
    Status(checkers_zero::roles::command::StatusArgs),
    /// Play a match between agents: games in parallel, seats rotating, per-seat results,
    /// Elo with a 95% interval, optional SPRT stop; writes result.json and games.jsonl.
    Match(checkers_zero::eval::command::MatchArgs),
    /// Build an opening suite: distinct, undecided positions after random whole turns, one
    /// per line, for match --openings and the ratings (docs/evaluation.md#opening-suites).
    Openings(checkers_zero::eval::command::OpeningsArgs),
    /// Rate a run's checkpoints (and anchors) from the matches on record, playing the games
    /// still needed; writes ratings.csv, ratings.png and losses.png into the run directory.
    Ratings(checkers_zero::eval::command::RatingsArgs),
    /// The learning benchmark: train a game's config for MINUTES of wall-clock, then rate
    /// checkpoints spread over it against a fixed ladder; writes RUN/bench/ladder.md, .csv
    /// and .png. Resumable with --resume (see docs/learning.md).
    BenchLearning(checkers_zero::learning_bench::command::LearningBenchArgs),
    /// Read game records (self-play and match games).
    Games {
        #[command(subcommand)]
        command: GamesCommand,
    },
    /// Export a checkpoint's net: TorchScript `model.pt` + `model.json`, for play and Python.
    Export {
        /// A checkpoint directory, a run directory (its newest checkpoint) or a
        /// `.safetensors` model file.
        #[arg(long)]
        checkpoint: std::path::PathBuf,
        /// The export directory to write.
        #[arg(long)]
        out: std::path::PathBuf,
    },
    /// Play an exported model in the terminal (any mix of people and models at the seats).
    Play(PlayArgs),
    /// Run an exported model as an engine: a line protocol on stdin/stdout (docs/export.md).
    Engine(EngineArgs),
    /// Measure this machine: net positions/s per precision, batch and threads, self-play
    /// positions/s per batcher layout; recommend settings (`--write` saves them).
    Bench(checkers_zero::bench::BenchArgs),
    /// Serve the web page (play, analyse, watch, dashboard) and its JSON API (docs/web.md).
    Serve(checkers_zero::serve::command::ServeArgs),
    /// Draw the board with coordinates.
    Show {
        /// Game: rematch, rematch3, hexdame or eximo.
        #[arg(long)]
        game: String,
        /// Position in the project notation (default: the start position).
        #[arg(long)]
        position: Option<String>,
    },
}

#[derive(Subcommand)]
enum GamesCommand {
    /// Replay the games of a record file: turns, the search's values, and the result.
    Show {
        /// A game record file (`*.jsonl`, e.g. from a run's `games/` folder).
        file: std::path::PathBuf,
        /// Only the game at this 0-based position in the file.
        #[arg(long)]
        index: Option<usize>,
        /// Draw the board after every turn.
        #[arg(long)]
        boards: bool,
    },
}

/// `play`'s options.
#[derive(clap::Args)]
struct PlayArgs {
    /// The export directory (default: the shipped model of --game).
    #[arg(long)]
    model: Option<std::path::PathBuf>,
    /// Without --model: the game whose shipped model plays (default rematch).
    #[arg(long, conflicts_with = "model")]
    game: Option<String>,
    /// Seats people play: names or numbers, comma-separated, `all` or `none`
    /// (default: the seat that moves first).
    #[arg(long)]
    seat: Option<String>,
    /// Root visits per searched step (default: the export's).
    #[arg(long)]
    visits: Option<u32>,
    /// Start position in the project notation (default: the start position).
    #[arg(long)]
    position: Option<String>,
    #[command(flatten)]
    net: NetArgs,
    /// Whole turns after which a game is an adjudicated draw (0: no cap; default: the
    /// cap the model was trained under).
    #[arg(long)]
    ply_cap: Option<u32>,
}

impl PlayArgs {
    fn run(self, out: &mut impl Write) -> Result<()> {
        let options = export::play::PlayOptions {
            model: model_or_shipped(self.model, self.game.as_deref())?,
            seats: self.seat,
            visits: self.visits,
            position: self.position,
            net: self.net.settings(),
            ply_cap: self.ply_cap,
        };
        export::play::play(&options, std::io::stdin().lock(), out)?;
        Ok(())
    }
}

/// `engine`'s options.
#[derive(clap::Args)]
struct EngineArgs {
    /// The export directory (default: the shipped model of --game).
    #[arg(long)]
    model: Option<std::path::PathBuf>,
    /// Without --model: the game whose shipped model plays (default rematch).
    #[arg(long, conflicts_with = "model")]
    game: Option<String>,
    /// Default root visits per searched step of `go` (default: the export's).
    #[arg(long)]
    visits: Option<u32>,
    #[command(flatten)]
    net: NetArgs,
    /// Whole turns after which a game is an adjudicated draw (0: no cap; default: the
    /// cap the model was trained under).
    #[arg(long)]
    ply_cap: Option<u32>,
}

impl EngineArgs {
    fn run(self, out: &mut impl Write) -> Result<()> {
        let input = std::io::stdin().lock();
        let net = self.net.settings();
        let model = model_or_shipped(self.model, self.game.as_deref())?;
        export::engine::run_engine(&model, self.visits, self.ply_cap, net, input, out)?;
        Ok(())
    }
}

/// `model`, or the shipped model of `game` (default rematch), said on stderr.
fn model_or_shipped(
    model: Option<std::path::PathBuf>,
    game: Option<&str>,
) -> Result<std::path::PathBuf> {
    if let Some(model) = model {
        return Ok(model);
    }
    let kind: GameKind = game.unwrap_or("rematch").parse()?;
    let dir = export::shipped::require_shipped(kind).map_err(anyhow::Error::msg)?;
    eprintln!("{}", export::shipped::say_shipped(kind, &dir));
    Ok(dir)
}

fn run(cli: Cli) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Perft {
            game,
            depth,
            position,
        } => {
            let kind: GameKind = game.parse()?;
            rules_commands::perft(kind, position.as_deref(), depth, &mut out)?;
        }
        Command::Moves { game, position } => {
            let kind: GameKind = game.parse()?;
            for path in rules_commands::moves(kind, position.as_deref())? {
                writeln!(out, "{path}")?;
            }
        }
        Command::Solve {
            game,
            position,
            nodes,
        } => {
            let kind: GameKind = game.parse()?;
            for line in rules_commands::solve(kind, position.as_deref(), nodes)? {
                writeln!(out, "{line}")?;
            }
        }
        Command::ProbeBuild(args) => {
            checkers_zero::eval::probe::command::run_probe_build(&args, &mut out)?
        }
        Command::Probe(args) => checkers_zero::eval::probe::command::run_probe(&args, &mut out)?,
        Command::Average(args) => writeln!(out, "{}", args.run()?)?,
        Command::Train(args) => checkers_zero::roles::command::run_train(&args, &mut out)?,
        Command::Learn(args) => checkers_zero::roles::command::run_learn(&args, &mut out)?,
        Command::Selfplay(args) => checkers_zero::roles::command::run_selfplay(&args, &mut out)?,
        Command::Evaluate(args) => checkers_zero::roles::command::run_evaluate(&args, &mut out)?,
        Command::Status(args) => checkers_zero::roles::command::run_status(&args, &mut out)?,
        Command::Match(args) => checkers_zero::eval::command::run_match(&args, &mut out)?,
        Command::Openings(args) => checkers_zero::eval::command::run_openings(&args, &mut out)?,
        Command::Ratings(args) => checkers_zero::eval::command::run_ratings(&args, &mut out)?,
        Command::BenchLearning(args) => {
            checkers_zero::learning_bench::command::run_learning_bench(&args, &mut out)?
        }
        Command::Games {
            command:
                GamesCommand::Show {
                    file,
                    index,
                    boards,
                },
        } => show_games(&file, index, boards, &mut out)?,
        Command::Export {
            checkpoint,
            out: dir,
        } => {
            let summary = export::export_checkpoint(&checkpoint, &dir)?;
            writeln!(out, "{}", summary.describe())?;
        }
        Command::Play(args) => args.run(&mut out)?,
        Command::Engine(args) => args.run(&mut out)?,
        Command::Bench(args) => checkers_zero::bench::run_bench(&args, &mut out)?,
        Command::Serve(args) => checkers_zero::serve::command::run_serve(&args, &mut out)?,
        Command::Show { game, position } => {
            let kind: GameKind = game.parse()?;
            write!(out, "{}", rules_commands::show(kind, position.as_deref())?)?;
        }
    }
    Ok(())
}

/// `games show`: the games of a record file (or one of them) as text.
fn show_games(
    file: &std::path::Path,
    index: Option<usize>,
    boards: bool,
    out: &mut impl Write,
) -> Result<()> {
    let games = read_records(file)?;
    let chosen: Vec<&GameRecord> = match index {
        Some(i) => vec![games.get(i).with_context(|| {
            format!(
                "{} holds {} games; no game {i}",
                file.display(),
                games.len()
            )
        })?],
        None => games.iter().collect(),
    };
    for (n, game) in chosen.into_iter().enumerate() {
        if n > 0 {
            writeln!(out)?;
        }
        write!(out, "{}", show_game(game, boards)?)?;
    }
    Ok(())
}

/// An error and its causes on one line, each cause once: a message that already quotes its
/// cause (`path: No such file or directory`) is not followed by it again.
fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line.replace('\n', " ")
}

fn main() -> ExitCode {
    checkers_zero::net::init_torch_runtime();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // One line naming the problem; bad input is exit code 2, like clap's usage errors.
            eprintln!("error: {}", one_line(&error));
            ExitCode::from(2)
        }
    }
}
