//! `probe-build`: a probe set from game records. Positions at turn boundaries where the
//! seat to move has more than one turn, deduplicated by their key, are grouped by seat and
//! phase, shuffled, and labelled in turn from each group until the set is full or the
//! candidates run out. ReMATCH positions are labelled by the exact solver and kept where it
//! proves at least the position's class; HexDame and Eximo positions by two searches
//! (alpha-beta with a transposition table, UCT with random playouts) and kept where
//! alpha-beta has one best turn and UCT plays it: search labels, not proofs.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use super::{Label, LabelKind, Phase, ProbeError, ProbePosition, ProbeSet};
use crate::game::turns::distinct_turns;
use crate::game::{GameKind, GameState, RulesConfig};
use crate::search::agents::{turn_values, uct_config, RolloutEvaluator};
use crate::search::run::Budget;
use crate::search::solve::{solve_position, under_rules_alone, Proven};
use crate::search::think::TurnSearch;
use crate::selfplay::record::read_records;
use crate::with_game;

/// What to build a set from, and how.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// The game (the records must be of it).
    pub game: GameKind,
    /// Game record files (`games.jsonl` of self-play or `match`).
    pub records: Vec<PathBuf>,
    /// Positions wanted.
    pub count: usize,
    /// The solver's node budget per position (solver labels).
    pub nodes: u64,
    /// Alpha-beta's depth in whole turns (search labels).
    pub depth: u32,
    /// UCT's random playouts per searched step (search labels).
    pub playouts: u32,
    /// Seed of the shuffles.
    pub seed: u64,
    /// The command line that rebuilds the set, for the file's header.
    pub command: String,
    /// Whether to draw a progress line on stderr.
    pub progress: bool,
}

/// How many positions of each phase were labelled and kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Distinct candidate positions found in the records.
    pub candidates: usize,
    /// Positions labelled, per phase (opening, middle, end).
    pub tried: [usize; 3],
    /// Positions kept (value proven, or the searches agreed), per phase.
    pub kept: [usize; 3],
}

impl BuildReport {
    /// `opening 12/300 (4.0%), middle ..., end ...`: kept of tried per phase.
    pub fn by_phase(&self) -> String {
        let parts: Vec<String> = Phase::ALL
            .iter()
            .enumerate()
            .map(|(i, phase)| {
                let share = 100.0 * self.kept[i] as f64 / self.tried[i].max(1) as f64;
                format!("{phase} {}/{} ({share:.1}%)", self.kept[i], self.tried[i])
            })
            .collect();
        parts.join(", ")
    }
}

/// One position to label: the state under the rules alone and its phase.
struct Candidate<S> {
    state: S,
    phase: Phase,
}

/// How positions of `game` are labelled: HexDame and Eximo, beyond the solver's reach, by
/// agreeing searches; ReMATCH by the solver.
pub fn label_kind(game: GameKind) -> LabelKind {
    match game {
        GameKind::Hexdame | GameKind::Eximo => LabelKind::Search,
        _ => LabelKind::Solver,
    }
}

/// Builds a set as `options` say; the report says what was tried and kept.
pub fn build_set(options: &BuildOptions) -> Result<(ProbeSet, BuildReport), ProbeError> {
    if label_kind(options.game) == LabelKind::Search
        && (options.depth == 0 || options.playouts == 0)
    {
        return Err(ProbeError::Settings(
            "search labels need an alpha-beta depth and UCT playouts of at least 1".into(),
        ));
    }
    with_game!(options.game, S => build_in::<S>(options))
}

fn build_in<S: GameState>(options: &BuildOptions) -> Result<(ProbeSet, BuildReport), ProbeError> {
    let candidates = candidates::<S>(options)?;
    let mut report = BuildReport {
        candidates: candidates.len(),
        ..BuildReport::default()
    };
    let mut strata: BTreeMap<(u8, Phase), Vec<Candidate<S>>> = BTreeMap::new();
    for c in candidates {
        strata
            .entry((c.state.seat_to_move().0, c.phase))
            .or_default()
            .push(c);
    }
    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut queues: Vec<std::vec::IntoIter<Candidate<S>>> = strata
        .into_values()
        .map(|mut group| {
            group.shuffle(&mut rng);
            group.into_iter()
        })
        .collect();
    let bar = progress_bar(options);
    let mut kept: Vec<ProbePosition> = Vec::new();
    while kept.len() < options.count {
        let mut any = false;
        for queue in queues.iter_mut() {
            let Some(c) = queue.next().filter(|_| kept.len() < options.count) else {
                continue;
            };
            any = true;
            let phase = c.phase as usize;
            report.tried[phase] += 1;
            let labelled = match label_kind(options.game) {
                LabelKind::Solver => solver_label(&c, options)?,
                LabelKind::Search => search_label(&c, options)?,
            };
            if let Some(position) = labelled {
                report.kept[phase] += 1;
                kept.push(position);
            }
            bar.set_position(kept.len() as u64);
            bar.set_message(format!("{} labelled", report.tried.iter().sum::<usize>()));
        }
        if !any {
            break;
        }
    }
    bar.finish_and_clear();
    kept.sort_by(|a, b| (a.phase, &a.seat).cmp(&(b.phase, &b.seat)));
    let set = ProbeSet {
        game: options.game,
        labels: label_kind(options.game),
        comments: header(options, &report, kept.len()),
        positions: kept,
    };
    Ok((set, report))
}

/// The distinct positions of the records with a choice of turns, and their phases.
fn candidates<S: GameState>(options: &BuildOptions) -> Result<Vec<Candidate<S>>, ProbeError> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for path in &options.records {
        let games = read_records(path).map_err(|e| ProbeError::Settings(e.to_string()))?;
        for (i, game) in games.iter().enumerate() {
            let bad = |reason: String| ProbeError::File {
                path: path.clone(),
                reason: format!("game {}: {reason}", i + 1),
            };
            if game.game != options.game.name() {
                return Err(bad(format!("a {} game, not {}", game.game, options.game)));
            }
            let mut boundaries: Vec<S> = Vec::new();
            game.replay::<S>(|state, _| {
                if !state.turn_in_progress() {
                    boundaries.push(state.clone());
                }
            })
            .map_err(|e| bad(e.to_string()))?;
            let turns = boundaries.len();
            for (t, state) in boundaries.iter().enumerate() {
                let state = under_rules_alone(state).map_err(|e| bad(e.to_string()))?;
                let key = state.future_key().unwrap_or(state.position_hash());
                if distinct_turns(&state).len() > 1 && seen.insert(key) {
                    let phase = Phase::of_turn(t, turns);
                    out.push(Candidate { state, phase });
                }
            }
        }
    }
    Ok(out)
}

/// The candidate labelled by the solver, or `None` when its class is not proven.
fn solver_label<S: GameState>(
    c: &Candidate<S>,
    options: &BuildOptions,
) -> Result<Option<ProbePosition>, ProbeError> {
    let solution =
        solve_position(&c.state, options.nodes).map_err(|e| ProbeError::Settings(e.to_string()))?;
    if solution.position.class().is_none() {
        return Ok(None);
    }
    let seat = options.game.seat_names()[c.state.seat_to_move().0 as usize];
    Ok(Some(ProbePosition {
        position: c.state.to_notation(),
        seat: seat.to_string(),
        phase: c.phase,
        turns: solution
            .turns
            .iter()
            .map(|(t, v)| (t.path.clone(), Label::Value(*v)))
            .collect(),
        value: solution.position,
    }))
}

/// The turn two searches agree on, by its index: alpha-beta's only best turn (`values`,
/// one per turn, as [`turn_values`] gives them) when it is also the turn UCT plays (`uct`);
/// `None` when alpha-beta has several best turns or UCT plays another.
pub fn agreed_turn(values: &[f64], uct: Option<usize>) -> Option<usize> {
    only_best(values).filter(|&best| uct == Some(best))
}

/// The index of the only turn with the best of `values`, if one alone has it.
fn only_best(values: &[f64]) -> Option<usize> {
    let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut best_turns = (0..values.len()).filter(|&i| values[i] >= best);
    best_turns.next().filter(|_| best_turns.next().is_none())
}

/// The candidate labelled by two searches, or `None` when they do not agree: alpha-beta
/// `options.depth` whole turns deep, and UCT with `options.playouts` random playouts per
/// searched step (under the project's rules, whose ply cap ends every playout), the latter
/// only where alpha-beta has a single best turn.
fn search_label<S: GameState>(
    c: &Candidate<S>,
    options: &BuildOptions,
) -> Result<Option<ProbePosition>, ProbeError> {
    let notation = c.state.to_notation();
    let state = S::from_notation(options.game, &notation, RulesConfig::default())
        .map_err(|e| ProbeError::Settings(e.to_string()))?;
    let turns = distinct_turns(&state);
    let after: Vec<S> = turns.iter().map(|t| t.state.clone()).collect();
    let values = turn_values(state.side_to_move(), &after, options.depth);
    if only_best(&values).is_none() {
        return Ok(None); // UCT could not agree: spare it the search.
    }
    let seed = options.seed.wrapping_add(state.position_hash());
    let mut uct = TurnSearch::new(
        RolloutEvaluator::new(seed),
        uct_config(options.playouts),
        seed,
    );
    let thought = uct
        .think(&state, Budget::Count(options.playouts))
        .map_err(|e| ProbeError::Settings(format!("UCT failed: {e}")))?;
    let played = thought.map(|t| t.state.position_hash());
    let uct_turn = turns
        .iter()
        .position(|t| Some(t.state.position_hash()) == played);
    let Some(best) = agreed_turn(&values, uct_turn) else {
        return Ok(None);
    };
    let seat = options.game.seat_names()[state.seat_to_move().0 as usize];
    Ok(Some(ProbePosition {
        position: notation,
        seat: seat.to_string(),
        phase: c.phase,
        turns: vec![(turns[best].path.clone(), Label::Best)],
        value: Proven::Unknown,
    }))
}

/// The set file's comment lines: what it is, the command that rebuilt it, what it holds.
fn header(options: &BuildOptions, report: &BuildReport, kept: usize) -> Vec<String> {
    let (labelled_by, kept_means) = match label_kind(options.game) {
        LabelKind::Solver => (
            format!("the exact solver ({} nodes per position)", options.nodes),
            "proven",
        ),
        LabelKind::Search => (
            format!(
                "two agreeing searches (alpha-beta {} turns deep, UCT {} playouts per \
                 step): search labels, not proofs",
                options.depth, options.playouts
            ),
            "agreed",
        ),
    };
    vec![
        format!(
            "checkers-zero probe set: {kept} {} positions labelled by {labelled_by}; \
             docs/evaluation.md#probe-sets",
            options.game
        ),
        format!("rebuild: {}", options.command),
        format!(
            "{} distinct candidate positions; {kept_means} (kept/labelled) by phase: {}",
            report.candidates,
            report.by_phase()
        ),
        "POSITION | SEAT | PHASE | TURN=VALUE;... | position VALUE".into(),
    ]
}

fn progress_bar(options: &BuildOptions) -> ProgressBar {
    if !options.progress {
        return ProgressBar::hidden();
    }
    let bar =
        ProgressBar::with_draw_target(Some(options.count as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} kept  {per_sec}  ETA {eta}  {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}
