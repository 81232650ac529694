//! The `probe-build` and `probe` subcommands' arguments and drivers.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::agents::score_agent;
use super::build::{build_set, label_kind, BuildOptions};
use super::score::{score_checkpoint, SeatScore, PROBE_VISITS};
use super::validate::{correlation_report, rated_checkpoints};
use super::{LabelKind, ProbeSet};
use crate::eval::spec::AgentSpec;
use crate::game::GameKind;
use crate::net::args::NetArgs;

/// Arguments of `checkers-zero probe-build`.
#[derive(Args, Debug, Clone)]
pub struct ProbeBuildArgs {
    /// Game: rematch or rematch3 (labelled by the exact solver), hexdame or eximo (labelled
    /// by two agreeing searches).
    #[arg(long)]
    pub game: String,
    /// Game record files (`games.jsonl` of self-play or `match`).
    #[arg(long, required = true, num_args = 1..)]
    pub records: Vec<PathBuf>,
    /// Positions wanted (fewer when the records run out first).
    #[arg(long, default_value_t = 3000)]
    pub count: usize,
    /// The set file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// The solver's node budget per position (ReMATCH).
    #[arg(long, default_value_t = 20_000)]
    pub nodes: u64,
    /// Alpha-beta's depth in whole turns (HexDame, Eximo).
    #[arg(long, default_value_t = 6)]
    pub depth: u32,
    /// UCT's random playouts per searched step (HexDame, Eximo).
    #[arg(long, default_value_t = 20_000)]
    pub playouts: u32,
    /// Seed of the shuffles that pick positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl ProbeBuildArgs {
    /// The command line that rebuilds the same set.
    fn command(&self) -> String {
        let records: Vec<String> = self
            .records
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let labelling = match self.game.parse::<GameKind>().map(label_kind) {
            Ok(LabelKind::Search) => format!("--depth {} --playouts {}", self.depth, self.playouts),
            _ => format!("--nodes {}", self.nodes),
        };
        format!(
            "checkers-zero probe-build --game {} --records {} --count {} --out {} {labelling} \
             --seed {}",
            self.game,
            records.join(" "),
            self.count,
            self.out.display(),
            self.seed
        )
    }
}

/// `probe-build`: builds, writes and reports a set.
pub fn run_probe_build(args: &ProbeBuildArgs, out: &mut impl Write) -> Result<()> {
    let options = BuildOptions {
        game: args.game.parse::<GameKind>()?,
        records: args.records.clone(),
        count: args.count,
        nodes: args.nodes,
        depth: args.depth,
        playouts: args.playouts,
        seed: args.seed,
        command: args.command(),
        progress: true,
    };
    let (set, report) = build_set(&options)?;
    set.write(&args.out)?;
    writeln!(
        out,
        "wrote {} positions to {} ({} distinct candidates)",
        set.positions.len(),
        args.out.display(),
        report.candidates
    )?;
    let kept_means = match set.labels {
        LabelKind::Solver => "proven",
        LabelKind::Search => "agreed",
    };
    writeln!(
        out,
        "{kept_means} (kept/labelled) by phase: {}",
        report.by_phase()
    )?;
    Ok(())
}

/// Arguments of `checkers-zero probe`.
#[derive(Args, Debug, Clone)]
pub struct ProbeArgs {
    /// The probe set file (e.g. probe/rematch.txt).
    #[arg(long)]
    pub set: PathBuf,
    /// Checkpoints to measure: checkpoint directories, run directories (their newest
    /// checkpoint) or weights files.
    #[arg(required_unless_present_any = ["ratings", "agent"], conflicts_with = "ratings")]
    pub checkpoints: Vec<PathBuf>,
    /// An agent without a net to set beside them in the solver's view (repeatable):
    /// `random`, `uct:N`, `alphabeta:D`; asked only where a mistake is possible.
    #[arg(long, value_name = "SPEC", conflicts_with = "ratings")]
    pub agent: Vec<String>,
    /// Validate the set instead: measure every checkpoint rated in this `RUN/ratings.csv`
    /// and print each measure's Spearman rank correlation with their Elo.
    #[arg(long)]
    pub ratings: Option<PathBuf>,
    #[command(flatten)]
    pub net: NetArgs,
}

/// `probe`: per checkpoint, a table of the measures per seat; with `--ratings`, the rated
/// checkpoints of a run, then each measure's rank correlation with their Elo.
pub fn run_probe(args: &ProbeArgs, out: &mut impl Write) -> Result<()> {
    let set = ProbeSet::read(&args.set)?;
    let rated = match &args.ratings {
        Some(csv) => Some(rated_checkpoints(csv)?),
        None => None,
    };
    let checkpoints: Vec<PathBuf> = match &rated {
        Some(rated) => rated.iter().map(|r| r.dir.clone()).collect(),
        None => args.checkpoints.clone(),
    };
    writeln!(
        out,
        "{}: {} {} positions, {} labels; search: {PROBE_VISITS} visits per step with each \
         run's settings",
        args.set.display(),
        set.positions.len(),
        set.game,
        set.labels.name()
    )?;
    let agents: Vec<AgentSpec> = args
        .agent
        .iter()
        .map(|s| AgentSpec::parse(s).map_err(|e| anyhow::anyhow!("--agent {s}: {e}")))
        .collect::<Result<_>>()?;
    let mut totals = Vec::new();
    let mut solver_view = Vec::new();
    for path in &checkpoints {
        let score = score_checkpoint(&set, path, args.net.settings())?;
        let step = score.step.map_or(String::new(), |s| format!(" (step {s})"));
        writeln!(
            out,
            "\n{}{step}: {:.1} s",
            score.checkpoint.display(),
            score.seconds
        )?;
        writeln!(out, "{}", SeatScore::header())?;
        for row in &score.seats {
            writeln!(out, "{}", row.row(set.labels))?;
        }
        totals.extend(score.seats.last().cloned());
        let who = format!("{}{step}", score.checkpoint.display());
        solver_view.extend(score.seats.iter().map(|row| row.solver_row(&who)));
    }
    for spec in &agents {
        let started = std::time::Instant::now();
        let rows = score_agent(&set, spec)?;
        writeln!(out, "\n{spec}: {:.1} s", started.elapsed().as_secs_f64())?;
        solver_view.extend(rows.iter().map(|row| row.solver_row(&spec.to_string())));
    }
    if set.labels == LabelKind::Solver {
        writeln!(
            out,
            "\nThe solver's view: positions where a mistake is possible (a turn proven to \
             lose value); of the turns chosen there (a checkpoint's {PROBE_VISITS}-visit \
             search, an agent's turn), those of proven class and the optimal ones"
        )?;
        writeln!(out, "{}", SeatScore::solver_header())?;
        for line in &solver_view {
            writeln!(out, "{line}")?;
        }
    }
    if let Some(rated) = rated {
        let elos: Vec<f64> = rated.iter().map(|r| r.elo).collect();
        writeln!(out, "\n{}", correlation_report(&elos, &totals, set.labels))?;
    }
    Ok(())
}
