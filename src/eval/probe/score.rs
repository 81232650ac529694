//! `probe`: a checkpoint measured on a probe set, per seat: how often the raw policy's top
//! turn and a 100-visit search's turn are optimal, the policy mass on turns that lose
//! value, and the value head's log-loss against the proven results.
//!
//! A whole turn's policy is the product of the step priors along its steps (a forced step
//! counts 1), summed over the step orders that reach the same position. All positions go
//! through the net in batches, and the searches run in lockstep, one batch per round.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::{Label, LabelKind, ProbeError, ProbePosition, ProbeSet};
use crate::config::search::SearchConfig;
use crate::config::RunConfig;
use crate::eval::arena::spawn_batcher;
use crate::game::turns::{distinct_turns, Turn};
use crate::game::{GameKind, GameState, StepList};
use crate::layout::resolve_model;
use crate::net::args::NetSettings;
use crate::net::batcher::BatcherConfig;
use crate::net::encode::Encode;
use crate::net::net_eval::Evaluate;
use crate::net::net_eval::{NetAnswer, NetEvaluator};
use crate::net::NetError;
use crate::search::root::RootSearch;
use crate::search::run::{run_searches, start_search};
use crate::search::solve::Proven;
use crate::search::tree::Mcts;
use crate::with_game;

/// Positions per net call and per round of lockstep searches.
const BATCH: usize = 256;
/// Visits per searched step of the probe's search.
pub const PROBE_VISITS: u32 = 100;

/// What the probe asks of a net besides search: priors over the legal steps and W/D/L for a
/// batch of positions.
pub trait ProbeNet<S> {
    /// One answer per state, in order.
    fn answer(&mut self, states: &[&S]) -> Result<Vec<NetAnswer>, NetError>;
}

impl<S: Encode> ProbeNet<S> for NetEvaluator {
    fn answer(&mut self, states: &[&S]) -> Result<Vec<NetAnswer>, NetError> {
        self.evaluate_states(states)
    }
}

/// The probe's measures for the positions of one seat (or all of them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatScore {
    /// The seat's name, or `all`.
    pub seat: String,
    /// Positions of this seat in the set.
    pub positions: usize,
    /// Positions where the policy's most probable turn is proven optimal.
    pub policy_optimal: usize,
    /// Positions where the search's turn is proven optimal.
    pub search_optimal: usize,
    /// The sum over positions of the policy mass on turns proven to lose value (solver
    /// labels only).
    pub losing_mass: f64,
    /// The sum over positions with a proven class of −ln(the value head's probability of
    /// that class).
    pub value_loss: f64,
    /// Positions with a proven class.
    pub valued: usize,
    /// The solver's view: positions where a mistake is possible (a turn is proven to lose
    /// value, so the position is a proven win or draw).
    pub contested: usize,
    /// Of those, the ones where the turn chosen (the search's, or an agent's) has a proven
    /// class...
    pub contested_proven: usize,
    /// ...and where it is proven optimal.
    pub contested_optimal: usize,
}

impl SeatScore {
    fn add(&mut self, other: &SeatScore) {
        self.positions += other.positions;
        self.policy_optimal += other.policy_optimal;
        self.search_optimal += other.search_optimal;
        self.losing_mass += other.losing_mass;
        self.value_loss += other.value_loss;
        self.valued += other.valued;
        self.contested += other.contested;
        self.contested_proven += other.contested_proven;
        self.contested_optimal += other.contested_optimal;
    }

    /// An empty row for each seat of `game`, in seat order.
    pub fn per_seat(game: GameKind) -> Vec<SeatScore> {
        game.seat_names()
            .iter()
            .map(|s| SeatScore {
                seat: s.to_string(),
                ..SeatScore::default()
            })
            .collect()
    }

    /// `rows` with a last row, `all`, summing them.
    pub fn with_total(mut rows: Vec<SeatScore>) -> Vec<SeatScore> {
        let mut all = SeatScore {
            seat: "all".into(),
            ..SeatScore::default()
        };
        rows.iter().for_each(|r| all.add(r));
        rows.push(all);
        rows
    }

    /// Counts a chosen turn of a position for the solver's view: `contested` (see
    /// [`is_contested`]), `keeps` what the chosen turn's label says ([`super::Label::keeps`]).
    pub fn count_choice(&mut self, contested: bool, keeps: Option<bool>) {
        if contested {
            self.contested += 1;
            self.contested_proven += usize::from(keeps.is_some());
            self.contested_optimal += usize::from(keeps == Some(true));
        }
    }

    /// The solver's view as a table row: who chose, the seat, the positions where a mistake
    /// is possible, the choices of proven class among them, and the optimal ones.
    pub fn solver_row(&self, who: &str) -> String {
        let share = match self.contested_proven {
            0 => "-".into(),
            n => format!("{:.1}%", 100.0 * self.contested_optimal as f64 / n as f64),
        };
        format!(
            "{:<40} {:<8} {:>9} {:>8} {:>8} {:>8}",
            who, self.seat, self.contested, self.contested_proven, self.contested_optimal, share
        )
    }

    /// The header of [`SeatScore::solver_row`].
    pub fn solver_header() -> String {
        format!(
            "{:<40} {:<8} {:>9} {:>8} {:>8} {:>8}",
            "chosen by", "seat", "contested", "proven", "optimal", "share"
        )
    }

    /// The table row: positions, the two optimal shares, mean losing mass, mean log-loss.
    pub fn row(&self, labels: LabelKind) -> String {
        let n = self.positions.max(1) as f64;
        let share = |k: usize| format!("{:.1}%", 100.0 * k as f64 / n);
        let losing = match labels {
            LabelKind::Solver => format!("{:.3}", self.losing_mass / n),
            LabelKind::Search => "-".into(),
        };
        let value = match self.valued {
            0 => "-".into(),
            v => format!("{:.3}", self.value_loss / v as f64),
        };
        format!(
            "{:<8} {:>9} {:>14} {:>14} {:>12} {:>14}",
            self.seat,
            self.positions,
            share(self.policy_optimal),
            share(self.search_optimal),
            losing,
            value
        )
    }

    /// The table's header line.
    pub fn header() -> String {
        format!(
            "{:<8} {:>9} {:>14} {:>14} {:>12} {:>14}",
            "seat", "positions", "policy-optimal", "search-optimal", "losing-mass", "value-logloss"
        )
    }
}

/// A checkpoint's scores on a set.
#[derive(Clone, Debug)]
pub struct CheckpointScore {
    /// The checkpoint as given.
    pub checkpoint: PathBuf,
    /// Its training step, when known.
    pub step: Option<u64>,
    /// One row per seat, then `all`.
    pub seats: Vec<SeatScore>,
    /// Seconds the scoring took (model loading included).
    pub seconds: f64,
}

/// Scores `set` with the net behind `net` (priors, W/D/L) and a search through it as
/// `search` says: one row per seat of the game, then `all`.
pub fn score_set<S, E>(
    set: &ProbeSet,
    net: &mut E,
    search: &SearchConfig,
) -> Result<Vec<SeatScore>, ProbeError>
where
    S: GameState,
    E: ProbeNet<S> + Evaluate<S>,
{
    let net_error = |e: NetError| ProbeError::Settings(format!("the net failed: {e}"));
    let states: Vec<S> = set
        .positions
        .iter()
        .map(|p| p.state(set.game))
        .collect::<Result<_, _>>()
        .map_err(ProbeError::Settings)?;
    let answers = choice_answers(&states, net).map_err(net_error)?;
    let searched = search_turns(&states, search, net).map_err(net_error)?;
    let mut rows = SeatScore::per_seat(set.game);
    for (i, (p, state)) in set.positions.iter().zip(&states).enumerate() {
        let turns = distinct_turns(state);
        let label_of = |hash: u64| turn_label(p, &turns, hash);
        let masses = turn_masses(state, &answers[i]);
        let row = &mut rows[state.seat_to_move().0 as usize];
        row.positions += 1;
        // The most probable turn; the first in path order among equals.
        let top = turns
            .iter()
            .map(|t| t.state.position_hash())
            .enumerate()
            .max_by(|(i, a), (j, b)| masses[a].total_cmp(&masses[b]).then(j.cmp(i)))
            .map(|(_, hash)| hash)
            .expect("probe positions have turns");
        let optimal = |hash| label_of(hash).and_then(|l| l.keeps(p.value)) == Some(true);
        row.policy_optimal += usize::from(optimal(top));
        row.search_optimal += usize::from(optimal(searched[i]));
        let keeps = label_of(searched[i]).and_then(|l| l.keeps(p.value));
        row.count_choice(is_contested(p), keeps);
        row.losing_mass += masses
            .iter()
            .filter(|(hash, _)| label_of(**hash).and_then(|l| l.keeps(p.value)) == Some(false))
            .map(|(_, m)| m)
            .sum::<f64>();
        if let Some(loss) = value_loss(p.value, answers[i][&state.position_hash()].wdl) {
            row.value_loss += loss;
            row.valued += 1;
        }
    }
    Ok(SeatScore::with_total(rows))
}

/// The label of the turn of `p` (whose distinct turns are `turns`) that leads to the
/// position with hash `hash`.
pub fn turn_label<S: GameState>(p: &ProbePosition, turns: &[Turn<S>], hash: u64) -> Option<Label> {
    let turn = turns.iter().find(|t| t.state.position_hash() == hash)?;
    p.turns
        .iter()
        .find(|(t, _)| *t == turn.path)
        .map(|(_, l)| *l)
}

/// Whether a mistake is possible at `p`: one of its turns is proven to lose value (so the
/// position is a proven win or draw).
pub fn is_contested(p: &ProbePosition) -> bool {
    p.turns.iter().any(|(_, l)| l.keeps(p.value) == Some(false))
}

/// −ln of the probability the W/D/L head gives the proven class, when there is one.
fn value_loss(value: Proven, wdl: [f32; 3]) -> Option<f64> {
    let index = match value.class()? {
        1 => 0,
        0 => 1,
        _ => 2,
    };
    Some(-(wdl[index].max(1e-12) as f64).ln())
}

/// The net's answers for every position's choice points (the position itself and each
/// unfinished turn with more than one step), per position by position hash.
fn choice_answers<S: GameState, E: ProbeNet<S>>(
    states: &[S],
    net: &mut E,
) -> Result<Vec<HashMap<u64, NetAnswer>>, NetError> {
    let mut queries: Vec<(usize, S)> = Vec::new();
    for (i, state) in states.iter().enumerate() {
        let mut seen = HashMap::new();
        choice_points(state, true, &mut |s: &S| {
            if seen.insert(s.position_hash(), ()).is_none() {
                queries.push((i, s.clone()));
            }
        });
    }
    let mut answers: Vec<HashMap<u64, NetAnswer>> = vec![HashMap::new(); states.len()];
    for chunk in queries.chunks(BATCH) {
        let batch: Vec<&S> = chunk.iter().map(|(_, s)| s).collect();
        for ((i, s), answer) in chunk.iter().zip(net.answer(&batch)?) {
            answers[*i].insert(s.position_hash(), answer);
        }
    }
    Ok(answers)
}

/// Calls `visit` on `state` when it is a choice point (or `root`) and on every choice point
/// of the turns that go on from it.
fn choice_points<S: GameState>(state: &S, root: bool, visit: &mut impl FnMut(&S)) {
    let mut legal = StepList::new();
    state.legal_steps(&mut legal);
    if root || legal.len() > 1 {
        visit(state);
    }
    for &step in &legal {
        let mut next = state.clone();
        next.apply_step(step);
        if next.turn_in_progress() && next.outcome().is_none() {
            choice_points(&next, false, visit);
        }
    }
}

/// The policy's mass on each whole turn, by the hash of the position it leads to.
fn turn_masses<S: GameState>(state: &S, answers: &HashMap<u64, NetAnswer>) -> HashMap<u64, f64> {
    let mut masses = HashMap::new();
    add_masses(state, 1.0, answers, &mut masses);
    masses
}

fn add_masses<S: GameState>(
    state: &S,
    mass: f64,
    answers: &HashMap<u64, NetAnswer>,
    masses: &mut HashMap<u64, f64>,
) {
    let mut legal = StepList::new();
    state.legal_steps(&mut legal);
    let priors = (legal.len() > 1).then(|| &answers[&state.position_hash()].priors);
    for (k, &step) in legal.iter().enumerate() {
        let mut next = state.clone();
        next.apply_step(step);
        let m = mass * priors.map_or(1.0, |p| p[k] as f64);
        if next.turn_in_progress() && next.outcome().is_none() {
            add_masses(&next, m, answers, masses);
        } else {
            *masses.entry(next.position_hash()).or_insert(0.0) += m;
        }
    }
}

/// The turn the search plays in each position (a new tree per searched step, all positions
/// in lockstep), as the hash of the position it leads to.
fn search_turns<S: GameState, E: Evaluate<S>>(
    states: &[S],
    config: &SearchConfig,
    evaluator: &mut E,
) -> Result<Vec<u64>, NetError> {
    let mut current: Vec<S> = states.to_vec();
    let mut open = vec![true; current.len()];
    let mut rng = StdRng::seed_from_u64(0);
    loop {
        for (state, open) in current.iter_mut().zip(open.iter_mut()) {
            *open = *open && play_forced(state);
        }
        let choosing: Vec<usize> = (0..current.len()).filter(|&i| open[i]).collect();
        if choosing.is_empty() {
            return Ok(current.iter().map(S::position_hash).collect());
        }
        for chunk in choosing.chunks(BATCH) {
            let mut trees: Vec<Mcts<S>> = chunk
                .iter()
                .map(|&i| Mcts::new(current[i].clone(), config.mcts(false)))
                .collect();
            let mut roots: Vec<Box<dyn RootSearch<S>>> = trees
                .iter()
                .map(|t| start_search(config, t, config.visits, false))
                .collect();
            let mut refs: Vec<&mut Mcts<S>> = trees.iter_mut().collect();
            let results = run_searches(&mut refs, &mut roots, evaluator, &mut rng)?;
            for (&i, result) in chunk.iter().zip(results) {
                let result = result.expect("a position with a choice is not over");
                current[i].apply_step(result.action);
                open[i] = current[i].turn_in_progress() && current[i].outcome().is_none();
            }
        }
    }
}

/// Plays the forced steps of `state`'s turn (not finished, game not over); true while a
/// choice is left in it.
pub fn play_forced<S: GameState>(state: &mut S) -> bool {
    let mut legal = StepList::new();
    loop {
        state.legal_steps(&mut legal);
        if legal.len() > 1 {
            return true;
        }
        state.apply_step(legal[0]);
        if !state.turn_in_progress() || state.outcome().is_some() {
            return false;
        }
    }
}

/// Scores `set` with the checkpoint at `path` (a checkpoint directory, a run directory:
/// its newest checkpoint, or a weights file), searching with the settings of its run.
pub fn score_checkpoint(
    set: &ProbeSet,
    path: &Path,
    net: NetSettings,
) -> Result<CheckpointScore, ProbeError> {
    let started = Instant::now();
    let model_error = |reason: String| ProbeError::Model {
        path: path.to_path_buf(),
        reason,
    };
    // resolve_model's errors name the path already.
    let resolved = resolve_model(path).map_err(ProbeError::Settings)?;
    // The checkpoint's own search as an agent plays it: no root noise of any kind.
    let mut search = RunConfig::search_of_checkpoint(&resolved.weights)
        .map_err(|e| model_error(e.to_string()))?
        .for_play();
    search.visits = PROBE_VISITS;
    let base = BatcherConfig {
        max_batch: BATCH,
        ..BatcherConfig::default()
    };
    let seats = with_game!(set.game, S => {
        let batcher = spawn_batcher::<S>(&resolved.weights, set.game, net, base)
            .map_err(|e| model_error(e.to_string()))?;
        let mut net = NetEvaluator::new(batcher.handle());
        score_set::<S, _>(set, &mut net, &search)?
    });
    Ok(CheckpointScore {
        checkpoint: path.to_path_buf(),
        step: resolved.step,
        seats,
        seconds: started.elapsed().as_secs_f64(),
    })
}
