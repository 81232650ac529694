//! The one place where the web server touches search and models: loading a model for a
//! game, an evaluator over it, a turn chosen by search, and an analysis that reports what
//! the tree holds while it grows. Everything else in `serve` goes through this file.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::Serialize;
use tch::Device;

use super::words::thousands;
use crate::config::search::{SearchConfig, SearchKind};
use crate::config::RunConfig;
use crate::export::torchscript::ExportedModel;
use crate::game::turns::{parse_turn, push_step_text};
use crate::game::{Action, GameKind, GameState};
use crate::layout::{is_export_dir, resolve_model};
use crate::net::backend::Backend;
use crate::net::batcher::{Batcher, BatcherConfig};
use crate::net::encode::Encode;
use crate::net::model::Model;
use crate::net::net_eval::NetEvaluator;
use crate::net::net_eval::{Evaluate, LeafEval};
use crate::net::NetError;
use crate::search::agents::RolloutEvaluator;
use crate::search::lines::LinesFloor;
use crate::search::puct::PuctRoot;
use crate::search::root::{RootSearch, SearchResult};
use crate::search::run::Budget;
use crate::search::run::{run_searches, search_in_chunks};
use crate::search::solve::{quick_proof, Proven, QUICK_PROOF_NODES};
use crate::search::think::{principal_variation, TurnSearch};
use crate::search::tree::Mcts;

/// A model the server plays and analyses with: a backend (an export's TorchScript net,
/// evaluated in the searching thread, or a checkpoint behind a batcher thread),
/// the search it plays with and what it is.
pub struct LoadedModel {
    /// The net; every request gets its own evaluator over it.
    backend: Box<dyn Backend>,
    /// The search its run trained with (the defaults for a model outside a run).
    search: SearchConfig,
    /// Where it came from (`export DIR`, `checkpoint step N`).
    source: String,
}

impl std::fmt::Debug for LoadedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl LoadedModel {
    /// Loads an export directory, a checkpoint directory, a run directory (its newest
    /// checkpoint) or a weights file; returns the game it plays with it.
    pub fn load(path: &Path) -> Result<(GameKind, LoadedModel), String> {
        let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        if is_export_dir(path) {
            let model = ExportedModel::load(path).map_err(|e| fail(&e))?;
            let kind = model.meta().kind().map_err(|e| fail(&e))?;
            crate::with_game!(kind, S => model.check_game::<S>().map_err(|e| fail(&e))?);
            let loaded = LoadedModel {
                backend: Box::new(model.net().clone()),
                search: model.meta().search.clone(),
                source: format!("export {}", model.dir().display()),
            };
            return Ok((kind, loaded));
        }
        let resolved = resolve_model(path)?;
        let meta = Model::read_meta(&resolved.weights).map_err(|e| fail(&e))?;
        let kind: GameKind = meta.shape.game.parse().map_err(|e| fail(&e))?;
        let shape = crate::with_game!(kind, S => S::net_shape(kind));
        let model = Model::load(&resolved.weights, &shape, Device::Cpu).map_err(|e| fail(&e))?;
        let config = BatcherConfig {
            torch_threads: 1,
            ..BatcherConfig::default()
        };
        let search = RunConfig::search_of_checkpoint(&resolved.weights)
            .map_err(|e| fail(&format!("its run's search settings: {e}")))?;
        let source = match resolved.step {
            Some(step) => format!("checkpoint step {step}"),
            None => "checkpoint".into(),
        };
        let loaded = LoadedModel {
            backend: Box::new(Batcher::spawn(model, config)),
            search,
            source,
        };
        Ok((kind, loaded))
    }

    /// A short description for the page: where the model came from and what runs it.
    pub fn describe(&self) -> String {
        format!("{}: {}", self.source, self.backend.info())
    }

    /// An evaluator over the model, for one request.
    fn evaluator(&self) -> NetEvaluator {
        NetEvaluator::boxed(self.backend.boxed_clone())
    }
}

/// The search settings for a game: the model's own (an export's `model.json`, a
/// checkpoint's run), else the defaults; as agents play them (no root noise).
pub fn search_config(model: Option<&LoadedModel>) -> SearchConfig {
    match model {
        Some(model) => model.search.for_play(),
        None => SearchConfig::default().for_play(),
    }
}

/// The search an analysis runs (a turn's, the graph's): the game's settings with a PUCT root,
/// whose visit shares are its preference (a Gumbel root's sequential halving spreads its
/// visits by schedule, not by preference).
pub fn analysis_config(model: Option<&LoadedModel>) -> SearchConfig {
    SearchConfig {
        kind: SearchKind::Puct,
        ..search_config(model)
    }
}

/// Where one request's evaluations go: the model, or random playouts without one.
enum EvalSource {
    /// The model's backend.
    Net(NetEvaluator),
    /// No model for this game: UCT with random playouts.
    Rollout(Box<RolloutEvaluator>),
}

/// The evaluator of one request, which fails at once when its stop flag is set (the
/// client went away or stopped the analysis): every search ends at its next evaluation.
pub struct RequestEvaluator {
    source: EvalSource,
    stop: Arc<AtomicBool>,
}

impl RequestEvaluator {
    /// The evaluator for `model` (random playouts without one), stopped by `stop`.
    pub fn new(model: Option<&LoadedModel>, seed: u64, stop: Arc<AtomicBool>) -> RequestEvaluator {
        let source = match model {
            Some(model) => EvalSource::Net(model.evaluator()),
            None => EvalSource::Rollout(Box::new(RolloutEvaluator::new(seed))),
        };
        RequestEvaluator { source, stop }
    }

    /// True once the stop flag is set.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The net's win/draw/loss for the side to move (`None` without a net).
    pub fn wdl<S: Encode>(&self, state: &S) -> Result<Option<[f32; 3]>, String> {
        match &self.source {
            EvalSource::Net(e) => e
                .evaluate_one(state)
                .map(|(_, wdl)| Some(wdl))
                .map_err(|e| e.to_string()),
            EvalSource::Rollout(_) => Ok(None),
        }
    }
}

impl<S: Encode> Evaluate<S> for RequestEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        if self.stopped() {
            return Err(NetError::Stopped);
        }
        match &mut self.source {
            EvalSource::Net(e) => e.evaluate(states),
            EvalSource::Rollout(e) => e.as_mut().evaluate(states),
        }
    }
}

/// A whole turn chosen by search within `budget` per searched step, and within `bound`
/// for the whole turn (the best turn found by then).
pub fn choose_turn<S: Encode>(
    state: &S,
    eval: RequestEvaluator,
    config: SearchConfig,
    budget: Budget,
    bound: Duration,
) -> Result<(String, S), String> {
    let mut search = TurnSearch::new(eval, config, 0);
    let thought = search
        .think_within(state, budget, Some(bound))
        .map_err(|error| format!("the model failed: {error}"))?
        .ok_or("the game is over")?;
    Ok((thought.path, thought.state))
}

/// One whole turn as the tree sees it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TurnStats {
    /// The turn in the move notation.
    pub turn: String,
    /// Simulations that went through the turn's last step.
    pub visits: u32,
    /// The product of the priors of its steps.
    pub prior: f32,
    /// Its mean value for the side that makes it, in [-1, 1].
    pub q: f32,
    /// Its searched win/draw/loss for the side that makes it: from the values and draw
    /// probabilities backed up through it (`q` = win − loss), or its proven result.
    pub wdl: [f32; 3],
}

/// One line (multi-PV): a first turn and the search's best continuation after it, with what
/// the search, the net and the solver make of the first turn, each for the side that plays
/// it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EngineLine {
    /// Whole turns in the move notation, the first turn first.
    pub turns: Vec<String>,
    /// The seat that makes each of `turns` (the page numbers them by round).
    pub seats: Vec<u8>,
    /// Simulations through the first turn.
    pub visits: u32,
    /// The first turn's mean value in the search, in [-1, 1].
    pub q: f32,
    /// The first turn's searched win/draw/loss ([`TurnStats::wdl`]).
    pub wdl: [f32; 3],
    /// The net's raw win/draw/loss after the first turn, no search (the result when it ends
    /// the game); filled once the search is done.
    pub net_wdl: Option<[f32; 3]>,
    /// The solver's value after the first turn in words ("win in 13 turns"), when it
    /// proves one within its budget; once the search is done.
    pub proven: Option<String>,
    /// The first turn's steps (for judging the line; not sent).
    #[serde(skip)]
    pub steps: Vec<Action>,
}

/// What an analysis knows so far.
#[derive(Clone, Debug, Serialize, Default)]
pub struct Snapshot {
    /// Root visits so far.
    pub visits: u32,
    /// The root visits asked for.
    pub asked: u32,
    /// The index of the side to move (for whom `value`, `wdl` and `proven` are).
    pub side: u8,
    /// The search's value of the position for the side to move, in [-1, 1]: its best turn's
    /// (the first line's) value.
    pub value: f32,
    /// The search's win/draw/loss of the position for the side to move: its best turn's
    /// ([`TurnStats::wdl`]; `None` before the first visit).
    pub wdl: Option<[f32; 3]>,
    /// The net's raw win/draw/loss of the position for the side to move, no search (`None`
    /// without a model).
    pub net_wdl: Option<[f32; 3]>,
    /// The exact solver's value for the side to move in words (`win in 3 turns`, `draw`,
    /// ...), when it proves the class within [`QUICK_PROOF_NODES`].
    pub proven: Option<String>,
    /// That proven value as a win/draw/loss for the side to move (what the bar shows), when
    /// the class is proven.
    pub proven_wdl: Option<[f32; 3]>,
    /// Visited turns, most visited first.
    pub turns: Vec<TurnStats>,
    /// The principal variation in whole turns.
    pub pv: Vec<String>,
    /// The lines asked for (multi-PV): the most visited first turns, each with its
    /// continuation, most visited first.
    pub lines: Vec<EngineLine>,
    /// Root step priors summed by landing cell: the policy on the board.
    pub heat: Vec<(String, f32)>,
    /// Milliseconds since the search began.
    pub elapsed_ms: u64,
    /// True once the search has stopped (budget reached, stopped, or failed).
    pub done: bool,
    /// Why the search failed, if it did.
    pub error: Option<String>,
    /// Why the search ended before its visits were spent (the time limit, stopped by its
    /// client, nobody polling it), in words; `None` while it runs or when they were spent.
    pub stopped: Option<String>,
}

/// The limits of one analysis.
#[derive(Clone, Copy, Debug)]
pub struct AnalysisBudget {
    /// Root visits to reach.
    pub visits: u32,
    /// Longest time to search.
    pub time: Duration,
    /// Root visits between two progress reports.
    pub chunk: u32,
    /// Publish a snapshot after every chunk (else only the final one).
    pub progress: bool,
    /// Engine lines to report (multi-PV).
    pub lines: usize,
}

/// Searches `state` by PUCT ([`analysis_config`]'s kind, whatever `config` says) until the
/// budget is spent or `stop` is set, calling `publish` with a snapshot after every chunk of
/// visits and once at the end (with `done`, and `stopped` saying why when visits were left).
/// Each of the asked lines' turns (the whole turns of highest prior) gets a floor of visits
/// ([`LinesFloor`]), so that every line shown has a searched value.
pub fn analyse<S: Encode>(
    state: &S,
    mut eval: RequestEvaluator,
    config: SearchConfig,
    budget: AnalysisBudget,
    stop: &AtomicBool,
    mut publish: impl FnMut(Snapshot),
) {
    let start = Instant::now();
    let mut snapshot = first_snapshot(state, &eval, budget.visits);
    let config = SearchConfig {
        kind: SearchKind::Puct,
        ..config
    };
    let mut tree = Mcts::new(state.clone(), config.mcts(false));
    if snapshot.error.is_none() && state.outcome().is_none() {
        let root = Box::new(LinesFloor::new(budget.visits, budget.lines));
        let mut rng = StdRng::seed_from_u64(0);
        let mut next_report = budget.chunk.max(1);
        // Looked at after every visit (the clock and the stop flag), reported every chunk.
        let between = |tree: &Mcts<S>| {
            let finished = tree.root_visits() >= budget.visits
                || start.elapsed() >= budget.time
                || stop.load(Ordering::Relaxed);
            if !finished && budget.progress && tree.root_visits() >= next_report {
                next_report = tree.root_visits() + budget.chunk.max(1);
                fill_snapshot(tree, &mut snapshot, budget.lines, start);
                publish(snapshot.clone());
            }
            !finished
        };
        let searched = search_in_chunks(&mut tree, root, 1, &mut rng, &mut eval, between);
        if let (Err(error), false) = (searched, eval.stopped()) {
            snapshot.error = Some(format!("the model failed: {error}"));
        }
    }
    if tree.root_expanded() {
        fill_snapshot(&tree, &mut snapshot, budget.lines, start);
        judge_lines(&tree, &mut snapshot, |after| eval.wdl(after).ok().flatten());
    }
    if snapshot.visits < budget.visits && snapshot.error.is_none() && state.outcome().is_none() {
        let (done, asked) = (snapshot.visits.into(), budget.visits.into());
        let at = format!("at {} of {} visits", thousands(done), thousands(asked));
        snapshot.stopped = Some(if start.elapsed() >= budget.time {
            format!(
                "the time limit of {:.0} s was reached {at}",
                budget.time.as_secs_f64()
            )
        } else {
            format!("stopped {at}")
        });
    }
    snapshot.done = true;
    publish(snapshot);
}

/// An analysis's snapshot before its search: the net's raw guess and the quick proof.
fn first_snapshot<S: Encode>(state: &S, eval: &RequestEvaluator, asked: u32) -> Snapshot {
    let mut snapshot = Snapshot {
        asked,
        side: state.side_to_move().0,
        ..Snapshot::default()
    };
    match eval.wdl(state) {
        Ok(wdl) => snapshot.net_wdl = wdl,
        Err(error) => snapshot.error = Some(error),
    }
    match quick_proof(state, QUICK_PROOF_NODES) {
        Ok(proven) => {
            snapshot.proven = proven.map(Proven::in_words);
            snapshot.proven_wdl = proven.and_then(proven_wdl);
        }
        Err(error) => snapshot.error = Some(error.to_string()),
    }
    snapshot
}

fn fill_snapshot<S: GameState>(
    tree: &Mcts<S>,
    snapshot: &mut Snapshot,
    lines: usize,
    start: Instant,
) {
    snapshot.visits = tree.root_visits();
    let turns = turns_with_steps(tree);
    (snapshot.value, snapshot.wdl) = match turns.first() {
        Some((best, _)) => (best.q, Some(best.wdl)),
        None => (tree.root_value(), None),
    };
    snapshot.lines = best_lines(tree, &turns, lines);
    snapshot.turns = turns.into_iter().map(|(t, _)| t).collect();
    snapshot.pv = principal_variation(tree);
    let state = tree.root_state();
    let mut heat: Vec<(String, f32)> = Vec::new();
    for child in tree.root_children() {
        let cell = state.describe_step(child.action).to.to_string();
        match heat.iter_mut().find(|(c, _)| *c == cell) {
            Some((_, p)) => *p += child.prior,
            None => heat.push((cell, child.prior)),
        }
    }
    snapshot.heat = heat;
    snapshot.elapsed_ms = start.elapsed().as_millis() as u64;
}

/// A win/draw/loss from a value `q` (win − loss) and a draw probability `draw`.
pub fn wdl_of(q: f32, draw: f32) -> [f32; 3] {
    let draw = draw.clamp(0.0, 1.0 - q.abs().min(1.0));
    let win = ((1.0 + q - draw) / 2.0).clamp(0.0, 1.0);
    [win, draw, (1.0 - win - draw).max(0.0)]
}

/// The visited whole turns below the root of `tree` (at a turn boundary), each with its
/// steps, most visited first (ties to the better value): the search's preference. Paths
/// that end in the same position (captures in another order, drops) are one turn, the
/// most visited path standing for it.
fn turns_with_steps<S: GameState>(tree: &Mcts<S>) -> Vec<(TurnStats, Vec<Action>)> {
    let mut out = Vec::new();
    collect_turns(tree, (String::new(), Vec::new()), 1.0, &mut out);
    out.sort_by(|(a, ..), (b, ..)| b.visits.cmp(&a.visits).then(b.q.total_cmp(&a.q)));
    let mut ends = std::collections::HashSet::new();
    out.into_iter()
        .filter(|(.., end)| ends.insert(*end))
        .map(|(stats, steps, _)| (stats, steps))
        .collect()
}

fn collect_turns<S: GameState>(
    tree: &Mcts<S>,
    (path, steps): (String, Vec<Action>),
    prior: f32,
    out: &mut Vec<(TurnStats, Vec<Action>, u64)>,
) {
    let state = tree.root_state();
    let children = tree
        .root_children()
        .into_iter()
        .zip(tree.root_child_draws());
    for (child, draw) in children.filter(|(c, _)| c.visits > 0) {
        let mut text = path.clone();
        push_step_text(state, child.action, path.is_empty(), &mut text);
        let mut turn = steps.clone();
        turn.push(child.action);
        let mut next = state.clone();
        next.apply_step(child.action);
        let prior = prior * child.prior;
        if next.turn_in_progress() && next.outcome().is_none() {
            let mut below = tree.clone();
            below.advance(child.action);
            collect_turns(&below, (text, turn), prior, out);
        } else {
            let stats = TurnStats {
                turn: text,
                visits: child.visits,
                prior,
                q: child.q,
                wdl: wdl_of(child.q, draw),
            };
            out.push((stats, turn, next.position_hash()));
        }
    }
}

/// The first `count` lines of `tree`: its most visited turns (`turns`, with their
/// steps), each followed by the search's best continuation below it.
fn best_lines<S: GameState>(
    tree: &Mcts<S>,
    turns: &[(TurnStats, Vec<Action>)],
    count: usize,
) -> Vec<EngineLine> {
    let line = |(stats, steps): &(TurnStats, Vec<Action>)| {
        let mut below = tree.clone();
        for &step in steps {
            below.advance(step);
        }
        let mut turns = vec![stats.turn.clone()];
        turns.extend(principal_variation(&below));
        EngineLine {
            seats: seats_of(tree.root_state(), &turns),
            turns,
            visits: stats.visits,
            q: stats.q,
            wdl: stats.wdl,
            net_wdl: None,
            proven: None,
            steps: steps.clone(),
        }
    };
    turns.iter().take(count).map(line).collect()
}

/// The seat that makes each of `turns`, played one after the other from `state` (as far
/// as they parse).
fn seats_of<S: GameState>(state: &S, turns: &[String]) -> Vec<u8> {
    let mut state = state.clone();
    let mut seats = Vec::with_capacity(turns.len());
    for turn in turns {
        seats.push(state.seat_to_move().0);
        match parse_turn(&state, turn) {
            Ok(next) => state = next.state,
            Err(_) => break,
        }
    }
    seats
}

/// Adds to each line of `snapshot` the net's raw W/D/L (`wdl_of`, for the side to move)
/// and the solver's value after its first turn, both for the side that plays that turn.
fn judge_lines<S: GameState>(
    tree: &Mcts<S>,
    snapshot: &mut Snapshot,
    mut net_wdl_of: impl FnMut(&S) -> Option<[f32; 3]>,
) {
    let root = tree.root_state();
    let mover = root.side_to_move();
    let nodes = QUICK_PROOF_NODES / snapshot.lines.len().max(1) as u64;
    for line in &mut snapshot.lines {
        let mut after = root.clone();
        for &step in &line.steps {
            after.apply_step(step);
        }
        if let Some(outcome) = after.outcome() {
            line.net_wdl = Some(match outcome.winner {
                Some(winner) if winner == mover => [1.0, 0.0, 0.0],
                Some(_) => [0.0, 0.0, 1.0],
                None => [0.0, 1.0, 0.0],
            });
            continue;
        }
        let same = after.side_to_move() == mover;
        line.net_wdl = net_wdl_of(&after).map(|[w, d, l]| if same { [w, d, l] } else { [l, d, w] });
        let proven = quick_proof(&after, nodes).ok().flatten();
        line.proven = proven.map(|p| (if same { p } else { p.flipped() }).in_words());
    }
}

/// A position's value in the graph of a game, for its side to move.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PositionValue {
    /// The index of the side to move.
    pub side: u8,
    /// Root visits spent on it.
    pub visits: u32,
    /// The search's value (its best turn's, as an analysis has it), or the proven one, in
    /// [-1, 1].
    pub value: f32,
    /// The search's win/draw/loss (its best turn's), or the proven one.
    pub wdl: [f32; 3],
    /// The solver's value in words, when it proves one (the game's result at its end).
    pub proven: Option<String>,
    /// True when `value` and `wdl` are proven (or the game's result).
    pub exact: bool,
    /// The search's best turn (none at the end of the game).
    pub best: Option<String>,
}

/// Solver nodes for each position of a graph (a whole game's positions are proved one
/// after the other).
const GRAPH_PROOF_NODES: u64 = QUICK_PROOF_NODES / 8;

/// The values of `states` for the graph of a game: every position searched by PUCT for
/// `visits` root visits, all at once (every round, one leaf of each position's tree goes to
/// the net in one batch), ending early at `deadline`; then each proved as far as
/// [`GRAPH_PROOF_NODES`] allow.
pub fn graph_values<S: Encode>(
    states: &[S],
    mut eval: RequestEvaluator,
    config: SearchConfig,
    visits: u32,
    deadline: Instant,
) -> Result<Vec<PositionValue>, String> {
    let config = SearchConfig {
        kind: SearchKind::Puct,
        ..config
    };
    let mut trees: Vec<Mcts<S>> = states
        .iter()
        .map(|s| Mcts::new(s.clone(), config.mcts(false)))
        .collect();
    let mut roots: Vec<Box<dyn RootSearch<S>>> = states
        .iter()
        .map(|s| {
            let visits = if s.outcome().is_some() { 0 } else { visits };
            Box::new(Bounded {
                inner: PuctRoot::new(visits, false),
                deadline,
                ran: false,
            }) as Box<dyn RootSearch<S>>
        })
        .collect();
    let mut refs: Vec<&mut Mcts<S>> = trees.iter_mut().collect();
    let mut rng = StdRng::seed_from_u64(0);
    if let Err(error) = run_searches(&mut refs, &mut roots, &mut eval, &mut rng) {
        return Err(match eval.stopped() {
            true => "the graph's search was stopped".into(),
            false => format!("the model failed: {error}"),
        });
    }
    Ok(trees.iter().map(position_value).collect())
}

/// The value of `tree`'s root position for the graph: the result, a proof, or its best turn's.
fn position_value<S: GameState>(tree: &Mcts<S>) -> PositionValue {
    let state = tree.root_state();
    let mover = state.side_to_move();
    let mut value = PositionValue {
        side: mover.0,
        visits: tree.root_visits(),
        value: 0.0,
        wdl: [0.0, 1.0, 0.0],
        proven: None,
        exact: true,
        best: None,
    };
    if let Some(outcome) = state.outcome() {
        (value.value, value.wdl) = match outcome.winner {
            Some(winner) if winner == mover => (1.0, [1.0, 0.0, 0.0]),
            Some(_) => (-1.0, [0.0, 0.0, 1.0]),
            None => (0.0, [0.0, 1.0, 0.0]),
        };
        return value;
    }
    let proven = quick_proof(state, GRAPH_PROOF_NODES).ok().flatten();
    value.proven = proven.map(Proven::in_words);
    let turns = turns_with_steps(tree);
    value.best = turns.first().map(|(t, _)| t.turn.clone());
    if let Some(wdl) = proven.and_then(proven_wdl) {
        (value.value, value.wdl) = (wdl[0] - wdl[2], wdl);
        return value;
    }
    value.exact = false;
    (value.value, value.wdl) = match turns.first() {
        Some((best, _)) => (best.q, best.wdl),
        None => (
            tree.root_value(),
            wdl_of(tree.root_value(), tree.root_draw()),
        ),
    };
    value
}

/// A root search that also ends at `deadline` (after one simulation at least).
struct Bounded {
    inner: PuctRoot,
    deadline: Instant,
    ran: bool,
}

impl<S: GameState> RootSearch<S> for Bounded {
    fn next(&mut self, tree: &mut Mcts<S>, rng: &mut dyn rand::RngCore) -> Option<Option<usize>> {
        if self.ran && Instant::now() >= self.deadline {
            return None;
        }
        self.inner.next(tree, rng)
    }

    fn count_simulation(&mut self) {
        self.ran = true;
    }

    fn finish(&self, tree: &Mcts<S>) -> Option<SearchResult> {
        self.inner.finish(tree)
    }
}

/// A proven class as a win/draw/loss (`None` while only a bound is proven).
fn proven_wdl(proven: Proven) -> Option<[f32; 3]> {
    match proven.class()? {
        1 => Some([1.0, 0.0, 0.0]),
        0 => Some([0.0, 1.0, 0.0]),
        _ => Some([0.0, 0.0, 1.0]),
    }
}

/// A stop flag that is set when dropped: a request that goes away stops its search.
#[derive(Debug, Default, Clone)]
pub struct StopOnDrop(pub Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rematch::Rematch;
    use crate::game::turns::distinct_turns;
    use crate::game::RulesConfig;

    #[test]
    fn analysis_without_a_model_reports_legal_turns_and_stops() {
        let state = Rematch::start(GameKind::Rematch, RulesConfig::default());
        let run = |budget: AnalysisBudget, stop: &AtomicBool| {
            let mut snapshots = Vec::new();
            let config = SearchConfig::default();
            let eval = RequestEvaluator::new(None, 1, Arc::new(AtomicBool::new(false)));
            analyse(&state, eval, config, budget, stop, |s| snapshots.push(s));
            snapshots
        };
        let stop = AtomicBool::new(false);
        let budget = AnalysisBudget {
            visits: 64,
            time: Duration::from_secs(30),
            chunk: 16,
            progress: true,
            lines: 3,
        };
        let snapshots = run(budget, &stop);
        assert!(snapshots.len() >= 4, "a snapshot per chunk");
        let last = snapshots.last().unwrap();
        assert!(last.done && last.error.is_none());
        assert_eq!(last.visits, 64);
        assert!(last.net_wdl.is_none(), "no net: no raw guess");
        assert!(last.stopped.is_none(), "its visits were spent");
        // One evaluation: the position's value is its best turn's, the first line's.
        let best = &last.lines[0];
        assert_eq!(last.wdl, Some(best.wdl));
        assert_eq!(last.value, best.q);
        assert_eq!(last.turns[0].q, best.q);
        let [w, d, l] = best.wdl;
        assert!((w + d + l - 1.0).abs() < 1e-4 && (w - l - best.q).abs() < 1e-4);
        let legal: Vec<String> = distinct_turns(&state).into_iter().map(|t| t.path).collect();
        assert!(!last.turns.is_empty());
        // Turn stats may use any path to a position; every one must parse as legal.
        for t in &last.turns {
            crate::game::turns::parse_turn(&state, &t.turn).unwrap();
        }
        assert!(
            legal.contains(&last.pv[0]),
            "the PV starts with a legal turn"
        );
        let total: f32 = last.heat.iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-3, "heat sums the root priors");
        // A set stop flag ends the search at its next visit.
        stop.store(true, Ordering::Relaxed);
        let budget = AnalysisBudget {
            visits: 100_000,
            ..budget
        };
        let stopped = run(budget, &stop);
        assert_eq!(stopped.len(), 1);
        assert!(
            stopped[0].done && stopped[0].visits <= 1,
            "stopped after one visit"
        );
        let why = stopped[0].stopped.as_deref().unwrap_or_default();
        assert!(why.contains("of 100,000 visits"), "{why}");
    }

    #[test]
    fn every_line_asked_is_searched_and_the_lines_follow_the_visits() {
        let state = Rematch::start(GameKind::Rematch, RulesConfig::default());
        let legal = distinct_turns(&state).len();
        let lines = legal.min(MAX_TEST_LINES);
        let mut last = Snapshot::default();
        let eval = RequestEvaluator::new(None, 1, Arc::new(AtomicBool::new(false)));
        let budget = AnalysisBudget {
            visits: 200,
            time: Duration::from_secs(60),
            chunk: 50,
            progress: false,
            lines,
        };
        let stop = AtomicBool::new(false);
        let config = SearchConfig::default();
        analyse(&state, eval, config, budget, &stop, |s| last = s);
        assert_eq!(last.lines.len(), lines, "{legal} legal turns");
        let visits: Vec<u32> = last.lines.iter().map(|l| l.visits).collect();
        assert!(visits.windows(2).all(|w| w[0] >= w[1]), "{visits:?}");
        assert!(visits.iter().sum::<u32>() < last.visits, "{visits:?}");
        assert!(last.lines.iter().all(|l| l.seats.len() == l.turns.len()));
    }

    const MAX_TEST_LINES: usize = 10;

    #[test]
    fn a_graph_searches_every_position_and_ends_with_the_result() {
        let mut states = vec![Rematch::start(GameKind::Rematch, RulesConfig::default())];
        while states.last().unwrap().outcome().is_none() && states.len() < 400 {
            let next = distinct_turns(states.last().unwrap()).swap_remove(0).state;
            states.push(next);
        }
        let eval = RequestEvaluator::new(None, 1, Arc::new(AtomicBool::new(false)));
        let deadline = Instant::now() + Duration::from_secs(120);
        let values = graph_values(&states, eval, SearchConfig::default(), 16, deadline).unwrap();
        assert_eq!(values.len(), states.len());
        for (v, s) in values.iter().zip(&states) {
            if s.outcome().is_none() {
                assert!(v.visits >= 16 && v.best.is_some(), "{v:?}");
            }
        }
        let last = values.last().unwrap();
        assert!(last.exact && last.visits == 0, "the end: {last:?}");
    }

    #[test]
    fn a_model_move_ends_at_its_time_bound_with_a_legal_turn() {
        let state = Rematch::start(GameKind::Rematch, RulesConfig::default());
        let eval = RequestEvaluator::new(None, 1, Arc::new(AtomicBool::new(false)));
        let config = SearchConfig::default().for_play();
        let started = Instant::now();
        let bound = Duration::from_millis(300);
        let (turn, after) =
            choose_turn(&state, eval, config, Budget::Count(10_000_000), bound).unwrap();
        let took = started.elapsed();
        assert!(took < Duration::from_secs(10), "{took:?} for a 0.3 s bound");
        let legal = distinct_turns(&state);
        assert!(
            legal
                .iter()
                .any(|t| t.state.position_hash() == after.position_hash()),
            "{turn} is not a legal turn"
        );
    }

    #[test]
    fn a_stopped_request_ends_its_turn_search_at_the_next_evaluation() {
        let state = Rematch::start(GameKind::Rematch, RulesConfig::default());
        let stop = Arc::new(AtomicBool::new(true));
        let eval = RequestEvaluator::new(None, 1, Arc::clone(&stop));
        let config = SearchConfig::default().for_play();
        let bound = Duration::from_secs(60);
        let answer = choose_turn(&state, eval, config, Budget::Count(10_000_000), bound);
        let Err(error) = answer else {
            panic!("a stopped search chooses nothing")
        };
        assert!(error.contains("stopped"), "{error}");
    }
}
