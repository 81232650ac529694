//! The `match` subcommand's arguments and driver, kept here so that `main.rs` only adds a
//! variant and a dispatch line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, Context, Result};
use clap::Args;

use super::arena::{
    play_match, seat_sides, summary_table, write_match, MatchReport, MatchSettings,
};
use super::openings::{
    default_suite, generate_suite, suite_text, OpeningRange, OpeningSuite, SuitePlan,
};
use super::spec::AgentSpec;
use super::sprt::Sprt;
use crate::config::decided::DecidedCheck;
use crate::config::search::SearchConfig;
use crate::export::ExportMeta;
use crate::game::{GameKind, RulesConfig};
use crate::layout::resolve_model;
use crate::net::model::Model;

/// Arguments of `checkers-zero match`.
#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    /// Game: rematch, rematch3, hexdame or eximo.
    #[arg(long)]
    pub game: String,
    /// An agent, once per seat (2; 3 for rematch3), the first being the candidate:
    /// `random`, `uct:N` (N playouts per step), `alphabeta:D` (D whole turns deep) or
    /// `alphabeta:Nms`, `policy:PATH` (the net's best step, no search), `net:PATH[:V]` or
    /// `PATH[@V]` (net + its run's search, V visits per step, default the run's; 100 for a
    /// model outside a run), `export:DIR[:V]` (an exported model), `shipped[:V]` (the
    /// game's shipped model, models/GAME);
    /// `net:PATH:KEY=VALUE,...` overrides search settings by name, e.g.
    /// `net:runs/a:visits=200,search=puct` (docs/search.md). PATH is a checkpoint
    /// directory, a run directory (its latest checkpoint) or a model .safetensors file.
    #[arg(long = "agent", required = true, num_args = 1)]
    pub agents: Vec<String>,
    /// Games to play (fewer if the SPRT decides first; default 100, or with --openings one
    /// per seat and opening from the offset on, the most the suite allows).
    #[arg(long)]
    pub games: Option<u64>,
    /// Games in flight at once, one thread each (default 32 with an agent on a checkpoint,
    /// `net:`, `policy:` or PATH, else the number of cores; exports do not count).
    #[arg(long)]
    pub parallel: Option<usize>,
    /// Seed of the match; every game gets its own seed derived from it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Uniformly random whole turns opening every game (shared by the games of one seat
    /// rotation), so that deterministic agents do not replay one game. Not with --openings.
    #[arg(long, default_value_t = 2, conflicts_with = "openings")]
    pub opening_turns: u32,
    #[command(flatten)]
    pub suite: SuiteArgs,
    /// Stop once the SPRT decides: `elo0,elo1,alpha,beta` (e.g. `0,10,0.05,0.05`): H1 is
    /// "the first agent is elo1 stronger than the others", H0 "elo0 stronger". On an
    /// opening suite the test runs on pairs of games; with 3 seats (rematch3) on rotations,
    /// the 3 games in which the first agent plays each seat once.
    #[arg(long)]
    pub sprt: Option<String>,
    /// Report sets of ReMATCH's format: first to this many points (default 3 for rematch
    /// and rematch3; 0 turns it off).
    #[arg(long)]
    pub first_to: Option<f64>,
    /// Whole turns after which a game is an adjudicated draw (0: no cap; default: the cap
    /// the first agent with a model was trained under, else 1000). `result.json` says which.
    #[arg(long)]
    pub ply_cap: Option<u32>,
    /// Folder for `result.json` and `games.jsonl` (default `matches/<game>-<unix time>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub net: crate::net::args::NetArgs,
}

/// `--openings` and `--opening-offset` (of `match`).
#[derive(Args, Debug, Clone, Default)]
pub struct SuiteArgs {
    /// Start the games from this opening suite (docs/evaluation.md#opening-suites, e.g.
    /// openings/rematch.txt): game g plays opening (offset + g / seats), so each opening
    /// is played once per seat with the seats swapped (a pair), scored as a pair.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Use the suite's openings from this one on (0 = the first), in file order; give two
    /// matches disjoint ranges (e.g. 0 and 300 with --games 600) to use disjoint openings.
    #[arg(long, default_value_t = 0, requires = "openings", value_name = "K")]
    pub opening_offset: usize,
}

impl SuiteArgs {
    /// The suite, read and checked for `kind`, from the offset on (`None` without
    /// `--openings`).
    pub fn read(&self, kind: GameKind) -> Result<Option<OpeningRange>> {
        Ok(match &self.openings {
            Some(path) => Some(OpeningRange {
                suite: Arc::new(OpeningSuite::read(path, kind)?),
                offset: self.opening_offset,
            }),
            None => None,
        })
    }
}

/// The games of a match: `--games`, else with a suite one per seat and opening left after
/// the offset, else 100.
fn match_games(games: Option<u64>, openings: Option<&OpeningRange>, seats: usize) -> u64 {
    match (games, openings) {
        (Some(games), _) => games,
        (None, Some(r)) => (r.suite.len().saturating_sub(r.offset) * seats) as u64,
        (None, None) => 100,
    }
}

/// Runs a match from the command line: plays, writes the files, prints the summary.
pub fn run_match(args: &MatchArgs, out: &mut impl Write) -> Result<()> {
    let kind: GameKind = args.game.parse()?;
    let openings = args.suite.read(kind)?;
    let games = match_games(args.games, openings.as_ref(), seat_sides(kind).len());
    let specs = args
        .agents
        .iter()
        .map(|s| AgentSpec::parse_for(s, kind))
        .collect::<Result<Vec<_>, _>>()?;
    let sprt = args.sprt.as_deref().map(str::parse::<Sprt>).transpose()?;
    let has_net = specs.iter().any(|s| s.model_path().is_some());
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let parallel = args.parallel.unwrap_or(if has_net { 32 } else { cores });
    let first_to = match args.first_to {
        Some(p) if p > 0.0 => Some(p),
        Some(_) => None,
        None => kind.facts().match_first_to,
    };
    let (rules, ply_cap_from) = match_rules(args.ply_cap, &specs)?;
    let settings = MatchSettings {
        kind,
        rules,
        games,
        parallel,
        seed: args.seed,
        opening_turns: args.opening_turns,
        openings,
        sprt,
        // For models outside a run; a checkpoint's agent takes its run's `[search]`.
        search: SearchConfig::default(),
        progress: !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        net: args.net.settings(),
    };
    let dir = args.out.clone().unwrap_or_else(|| {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        crate::layout::default_match_dir(&kind.to_string(), secs)
    });
    let started = std::time::Instant::now();
    let (mut report, records) = play_match(&specs, &settings)?;
    report.ply_cap_from = Some(ply_cap_from);
    let seconds = started.elapsed().as_secs_f64();
    write_match(&dir, &report, &records).context("saving the match")?;
    write!(out, "{}", search_lines(&report))?;
    write!(out, "{}", summary_table(&report, first_to)?)?;
    writeln!(
        out,
        "{} games in {seconds:.1} s ({:.2} games/s); results {}, games {}",
        report.games.len(),
        report.games.len() as f64 / seconds.max(1e-9),
        dir.join(crate::layout::MATCH_REPORT_FILE).display(),
        dir.join(crate::layout::MATCH_GAMES_FILE).display()
    )?;
    Ok(())
}

/// One line per agent with a net: the search settings it played with.
fn search_lines(report: &MatchReport) -> String {
    report
        .agents
        .iter()
        .zip(&report.searches)
        .filter_map(|(agent, search)| Some(format!("{agent}: {}\n", search.as_ref()?.describe())))
        .collect()
}

/// The rules the model of `spec` was trained under, if it has a model that records them.
fn trained_rules(spec: &AgentSpec) -> Result<Option<RulesConfig>> {
    if let AgentSpec::Exported { dir, .. } = spec {
        return Ok(ExportMeta::read(dir)?.rules);
    }
    let Some(path) = spec.model_path() else {
        return Ok(None);
    };
    let resolved = resolve_model(path).map_err(|reason| anyhow!("agent {spec}: {reason}"))?;
    Ok(Model::read_meta(&resolved.weights)?.rules)
}

/// The rules of a match: `--ply-cap`, else those the first agent with a model was trained
/// under, else the defaults; with a phrase saying which (`result.json`'s `ply_cap_from`).
fn match_rules(ply_cap: Option<u32>, specs: &[AgentSpec]) -> Result<(RulesConfig, String)> {
    let mut trained = None;
    for spec in specs {
        if let Some(rules) = trained_rules(spec)? {
            trained = Some((rules, spec));
            break;
        }
    }
    let (rules, from) = RulesConfig::for_play(ply_cap, trained.map(|(rules, _)| rules));
    Ok(match (ply_cap, trained) {
        (None, Some((_, spec))) => (rules, format!("{from} of {spec}")),
        _ => (rules, from.to_string()),
    })
}

/// The rules of a run's rating matches: `--ply-cap`, else those its newest checkpoint was
/// trained under, else the defaults.
fn ratings_rules(args: &RatingsArgs) -> RulesConfig {
    let newest = AgentSpec::Policy {
        path: args.run_dir.clone(),
    };
    RulesConfig::for_play(args.ply_cap, trained_rules(&newest).unwrap_or(None)).0
}

/// Arguments of `checkers-zero ratings`.
#[derive(Args, Debug, Clone)]
pub struct RatingsArgs {
    /// The training run directory.
    #[arg(long)]
    pub run_dir: PathBuf,
    /// An agent rated with the checkpoints (repeat); the first is the Elo anchor (0),
    /// else the first checkpoint is. Same forms as `match --agent`.
    #[arg(long = "anchor", num_args = 1)]
    pub anchors: Vec<String>,
    /// Visits per step of the checkpoints' net + MCTS.
    #[arg(long, default_value_t = SearchConfig::default().visits)]
    pub visits: u32,
    /// Games every scheduled pair should have on record.
    #[arg(long, default_value_t = 40)]
    pub games_per_pair: u64,
    /// Games in flight at once.
    #[arg(long, default_value_t = 32)]
    pub parallel: usize,
    /// Seed of the scheduled matches.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub openings: RatingOpenings,
    /// Whole turns after which a game is an adjudicated draw (0: no cap; default: the cap
    /// the run's newest checkpoint was trained under).
    #[arg(long)]
    pub ply_cap: Option<u32>,
    /// Only rate the results on record; play nothing.
    #[arg(long)]
    pub no_play: bool,
    /// Rate only every this many checkpoints (by step order; the newest always), to rate a
    /// long run quickly.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub every: u64,
    /// Hide the progress bars.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub net: crate::net::args::NetArgs,
}

/// Runs `ratings`: plays the missing games, rates, writes the CSV and plots, prints a table.
pub fn run_ratings(args: &RatingsArgs, out: &mut impl Write) -> Result<()> {
    let anchors = args
        .anchors
        .iter()
        .map(|s| AgentSpec::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    if args.visits == 0 {
        anyhow::bail!("--visits must be at least 1");
    }
    let options = super::ratings::RatingsOptions {
        run_dir: args.run_dir.clone(),
        anchors,
        visits: args.visits,
        games_per_pair: args.games_per_pair,
        parallel: args.parallel,
        seed: args.seed,
        opening_turns: args.openings.opening_turns,
        // Nothing is played with --no-play: no suite needed.
        openings: match args.no_play {
            true => None,
            false => args
                .openings
                .suite(crate::config::RunConfig::game_of_run(&args.run_dir)?)?,
        },
        rules: ratings_rules(args),
        play: !args.no_play,
        every: args.every as usize,
        progress: !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        net: args.net.settings(),
    };
    let summary = super::ratings::rate_run(&options)
        .with_context(|| format!("rating {}", args.run_dir.display()))?;
    write!(out, "{}", super::ratings::outputs::ratings_table(&summary))?;
    writeln!(
        out,
        "anchor {} = 0; {} games played now",
        summary.anchor, summary.games_played
    )?;
    for note in &summary.notes {
        writeln!(out, "note: {note}")?;
    }
    for file in &summary.files {
        writeln!(out, "wrote {}", file.display())?;
    }
    Ok(())
}

/// How rating matches open (`ratings`, `bench-learning`): the game's suite by default.
#[derive(Args, Debug, Clone, Default)]
pub struct RatingOpenings {
    /// The opening suite of the rating matches (default: the game's suite,
    /// `openings/<game>.txt` in the working directory or the source tree).
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Open the games with --opening-turns random whole turns instead of a suite.
    #[arg(long, conflicts_with = "openings")]
    pub random_openings: bool,
    /// Random whole turns opening every game, with --random-openings.
    #[arg(long, default_value_t = 2, requires = "random_openings")]
    pub opening_turns: u32,
}

impl RatingOpenings {
    /// The suite file: `--openings`, else the game's shipped suite (an error naming the
    /// flags when there is none); `None` with `--random-openings`.
    pub fn file(&self, kind: GameKind) -> Result<Option<PathBuf>> {
        Ok(match (&self.openings, self.random_openings) {
            (_, true) => None,
            (Some(path), false) => Some(path.clone()),
            (None, false) => Some(default_suite(kind)?),
        })
    }

    /// The suite, read and checked for `kind`; `None` with `--random-openings`.
    pub fn suite(&self, kind: GameKind) -> Result<Option<Arc<OpeningSuite>>> {
        Ok(match self.file(kind)? {
            Some(path) => Some(Arc::new(OpeningSuite::read(&path, kind)?)),
            None => None,
        })
    }
}

/// Arguments of `checkers-zero openings`.
#[derive(Args, Debug, Clone)]
pub struct OpeningsArgs {
    /// Game: rematch, rematch3, hexdame or eximo.
    #[arg(long)]
    pub game: String,
    /// Uniformly random whole turns from the start position to each opening.
    #[arg(long)]
    pub turns: u32,
    /// Openings to write (distinct, unfinished, not decided).
    #[arg(long)]
    pub count: usize,
    /// The file to write (atomically; e.g. openings/rematch.txt).
    #[arg(long)]
    pub out: PathBuf,
    /// How to find decided positions: `alphabeta:DEPTH:MARGIN` drops a position whose
    /// alpha-beta value on material, DEPTH whole turns deep, differs from the start
    /// position's by MARGIN or more (or that is a forced result); `none` keeps all.
    #[arg(long, default_value = "alphabeta:6:2")]
    pub check: String,
    /// Seed of the random turns.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Runs `openings`: generates a suite and writes it with its header.
pub fn run_openings(args: &OpeningsArgs, out: &mut impl Write) -> Result<()> {
    let kind: GameKind = args.game.parse()?;
    let check: DecidedCheck = args.check.parse().map_err(anyhow::Error::msg)?;
    if args.turns == 0 || args.count == 0 {
        anyhow::bail!("--turns and --count must be at least 1");
    }
    let plan = SuitePlan {
        kind,
        turns: args.turns,
        count: args.count,
        check,
        seed: args.seed,
    };
    let suite = generate_suite(&plan).map_err(anyhow::Error::msg)?;
    let command = format!(
        "checkers-zero openings --game {kind} --turns {} --count {} --check {check} --seed {} --out {}",
        args.turns,
        args.count,
        args.seed,
        args.out.display()
    );
    let text = suite_text(&plan, &suite, &command);
    write_suite(&args.out, &text)?;
    writeln!(
        out,
        "{} openings of {kind} written to {} ({} drawn: {} repeated, {} finished, {} decided)",
        suite.positions.len(),
        args.out.display(),
        suite.drawn,
        suite.repeated,
        suite.finished,
        suite.decided
    )?;
    Ok(())
}

/// Writes `text` to `path` atomically, creating its folder.
fn write_suite(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    crate::util::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))
}
