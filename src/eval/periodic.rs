//! Periodic evaluation during training: the newest checkpoint plays the previous one (or,
//! with gating, the one self-play currently uses) and fixed anchor agents, on a background
//! thread, so training never waits for it. Results go to `evaluator/metrics.jsonl` (type
//! `evaluation`) and, as match records, to `RUN/matches/` in the format `ratings` reads
//! (players named `step-NNNNNNNN@VISITS` and anchors by spec), so a later `ratings` with the
//! same visits counts them instead of replaying them. With
//! gating, a checkpoint reaches self-play only if it scores at least `gate_score` against
//! the incumbent.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use super::arena::{play_match, write_report, MatchSettings};
use super::spec::AgentSpec;
use crate::config::check::{Check, KeyError};
use crate::config::evaluation::EvaluationConfig;
use crate::config::search::{SearchConfig, SearchOverrides};
use crate::game::{GameKind, RulesConfig};
use crate::metrics::{EvaluationFailure, EvaluationLine, EvaluationResult, MetricsLine};
use crate::selfplay::record::write_records;
use crate::util::game_seed;

/// Checks the anchors of `[evaluation]` as agent specs, naming the first bad one
/// (`evaluation.anchors[i]`); the rest of the section checks itself on load.
pub fn check_anchors(config: &EvaluationConfig) -> Check {
    for (i, anchor) in config.anchors.iter().enumerate() {
        if let Err(e) = AgentSpec::parse(anchor) {
            return Err(KeyError::new(
                format!("evaluation.anchors[{i}]"),
                e.to_string(),
            ));
        }
    }
    Ok(())
}

/// One opponent's result against the candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct OpponentResult {
    /// The opponent's spec.
    pub opponent: String,
    /// True for the incumbent (previous or promoted checkpoint).
    pub incumbent: bool,
    /// Games played.
    pub games: u64,
    /// The candidate's score (0–1).
    pub score: f64,
    /// The candidate's Elo against the opponent and its 95% interval.
    pub elo: (f64, f64, f64),
}

/// An evaluation running on its own thread.
pub struct EvaluationJob {
    /// The candidate's training step.
    pub step: u64,
    /// The candidate's checkpoint directory.
    pub candidate: PathBuf,
    thread: Option<JoinHandle<Result<Vec<OpponentResult>, String>>>,
}

/// What an evaluation needs to know of the run.
#[derive(Clone, Debug)]
pub struct EvaluationContext {
    /// The game.
    pub kind: GameKind,
    /// Its rules.
    pub rules: RulesConfig,
    /// The run's seed.
    pub seed: u64,
    /// The run directory (match records go to `matches/` in it).
    pub run_dir: PathBuf,
    /// The run's search (the checkpoints search with it, `visits` from the evaluation's).
    pub search: SearchConfig,
    /// Precision and device of the nets (the run's `[batching]` settings).
    pub net: crate::net::args::NetSettings,
}

impl EvaluationJob {
    /// Starts evaluating `candidate` (at `step`) against `incumbent` (its step and
    /// checkpoint directory) and the anchors.
    pub fn start(
        config: &EvaluationConfig,
        context: &EvaluationContext,
        step: u64,
        candidate: &Path,
        incumbent: Option<(u64, &Path)>,
    ) -> EvaluationJob {
        let config = config.clone();
        let context = context.clone();
        let candidate_dir = candidate.to_path_buf();
        let incumbent = incumbent.map(|(s, p)| (s, p.to_path_buf()));
        let thread = std::thread::Builder::new()
            .name("evaluation".into())
            .spawn(move || {
                let incumbent = incumbent.as_ref().map(|(s, p)| (*s, p.as_path()));
                run(&config, &context, step, &candidate_dir, incumbent)
            })
            .expect("spawning the evaluation thread");
        EvaluationJob {
            step,
            candidate: candidate.to_path_buf(),
            thread: Some(thread),
        }
    }

    /// The results once the evaluation has finished (`None` while it runs).
    pub fn poll(&mut self) -> Option<Result<Vec<OpponentResult>, String>> {
        if self.thread.as_ref().is_some_and(|t| t.is_finished()) {
            return Some(self.wait());
        }
        None
    }

    /// Waits for the results.
    pub fn wait(&mut self) -> Result<Vec<OpponentResult>, String> {
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err("the evaluation thread panicked".into())),
            None => Err("evaluation already collected".into()),
        }
    }
}

fn run(
    config: &EvaluationConfig,
    context: &EvaluationContext,
    step: u64,
    candidate: &Path,
    incumbent: Option<(u64, &Path)>,
) -> Result<Vec<OpponentResult>, String> {
    let me = AgentSpec::Net {
        path: candidate.to_path_buf(),
        search: SearchOverrides::visits(config.visits),
    };
    let player = |step: u64| format!("{}@{}", crate::layout::checkpoint_name(step), config.visits);
    // (agent, its name in the match records, whether it is the incumbent)
    let mut opponents: Vec<(AgentSpec, String, bool)> = Vec::new();
    if let Some((incumbent_step, dir)) = incumbent {
        opponents.push((
            AgentSpec::Net {
                path: dir.to_path_buf(),
                search: SearchOverrides::visits(config.visits),
            },
            player(incumbent_step),
            true,
        ));
    }
    for anchor in &config.anchors {
        let spec = AgentSpec::parse(anchor).map_err(|e| e.to_string())?;
        let name = spec.to_string();
        opponents.push((spec, name, false));
    }
    let mut results = Vec::new();
    for (n, (opponent, name, is_incumbent)) in opponents.into_iter().enumerate() {
        let settings = MatchSettings {
            kind: context.kind,
            rules: context.rules,
            games: config.games,
            parallel: config.parallel,
            seed: game_seed(context.seed ^ 0x6576_616c, step * 64 + n as u64),
            opening_turns: 2,
            openings: None, // random: docs/evaluation.md#opening-suites
            sprt: None,
            search: context.search.clone(),
            progress: false,
            net: context.net,
        };
        let specs = [me.clone(), opponent.clone()];
        let (mut report, records) = play_match(&specs, &settings).map_err(|e| e.to_string())?;
        report.agents = vec![player(step), name.clone()];
        let stem: String = format!("train-{}_vs_{name}", player(step))
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let dir = context.run_dir.join(crate::layout::MATCHES);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // Games first, the report last: `ratings` only counts matches whose report exists.
        write_records(&dir.join(format!("{stem}.games.jsonl")), &records)
            .map_err(|e| e.to_string())?;
        write_report(&dir.join(format!("{stem}.json")), &report).map_err(|e| e.to_string())?;
        let summary = report.summary().map_err(|e| e.to_string())?;
        let games = summary.games[0];
        let elo = summary
            .elo
            .as_ref()
            .map(|e| (e[0].elo, e[0].low, e[0].high))
            .unwrap_or((f64::NAN, f64::NAN, f64::NAN));
        results.push(OpponentResult {
            opponent: name,
            incumbent: is_incumbent,
            games,
            score: summary.points[0] / games.max(1) as f64,
            elo,
        });
    }
    Ok(results)
}

/// What a finished evaluation means for the run: its metrics lines, whether (with gating) the
/// candidate is promoted to self-play, and a one-line summary.
#[derive(Clone, Debug)]
pub struct EvaluationOutcome {
    /// `evaluation` metrics lines, one per opponent (or one with the error).
    pub metrics: Vec<MetricsLine>,
    /// With gating: the candidate scored at least `gate_score` against the incumbent.
    pub promote: bool,
    /// A line for the log.
    pub summary: String,
}

impl EvaluationOutcome {
    /// The outcome of the evaluation of the checkpoint at `step`.
    pub fn of(
        config: &EvaluationConfig,
        step: u64,
        result: Result<Vec<OpponentResult>, String>,
    ) -> EvaluationOutcome {
        let results = match result {
            Ok(results) => results,
            Err(error) => {
                return EvaluationOutcome {
                    metrics: vec![MetricsLine::Evaluation(EvaluationLine::Failed(
                        EvaluationFailure {
                            step,
                            error: error.clone(),
                        },
                    ))],
                    promote: false,
                    summary: format!("evaluation of step {step} failed: {error}"),
                }
            }
        };
        let promote = config.gating
            && results
                .iter()
                .any(|r| r.incumbent && r.score >= config.gate_score);
        let mut summary = format!("evaluation of step {step}:");
        let mut metrics = Vec::new();
        for r in &results {
            metrics.push(MetricsLine::Evaluation(EvaluationLine::Played(
                EvaluationResult {
                    step,
                    opponent: r.opponent.clone(),
                    incumbent: r.incumbent,
                    games: r.games,
                    score: r.score,
                    elo: finite(r.elo.0),
                    elo_low: finite(r.elo.1),
                    elo_high: finite(r.elo.2),
                    promoted: promote && r.incumbent,
                },
            )));
            summary.push_str(&format!(
                " vs {} {:.0}% ({} games, Elo {:+.0} [{:+.0}, {:+.0}]);",
                if r.incumbent {
                    "incumbent"
                } else {
                    r.opponent.as_str()
                },
                100.0 * r.score,
                r.games,
                r.elo.0,
                r.elo.1,
                r.elo.2
            ));
        }
        if config.gating {
            summary.push_str(if promote {
                " promoted to self-play"
            } else {
                " not promoted"
            });
        }
        EvaluationOutcome {
            metrics,
            promote,
            summary,
        }
    }
}

/// `value` if finite, else JSON null (JSON has no infinities).
fn finite(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}
