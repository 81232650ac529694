//! The game runner: plays a match's games on threads (each from its opening, the seats
//! rotating), collects them into the report as they finish, and stops on the SPRT's
//! decision or an agent's failure.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::players::{load_players, torch_threads_per_batcher, Player};
use super::report::{
    candidate_points, candidate_score, empty_report, finish_suite_report, GameResult, MatchReport,
    PairTally, RotationTally,
};
use super::seats::{seat_agents, seat_sides};
use super::settings::MatchSettings;
use crate::eval::elo::Wdl;
use crate::eval::openings::OpeningRange;
use crate::eval::spec::AgentSpec;
use crate::eval::sprt::{Sprt, SprtDecision};
use crate::eval::EvalError;
use crate::game::Side;
use crate::net::batcher::{Batcher, BatcherHandle};
use crate::net::encode::Encode;
use crate::search::agents::Agent;
use crate::selfplay::record::GameRecord;
use crate::util::game_seed;
use crate::with_game;

/// Salt separating opening seeds from game seeds.
const OPENING_SALT: u64 = 0x6f70_656e_696e_6773;

/// Everything the game threads share.
struct Arena<'a> {
    settings: &'a MatchSettings,
    labels: Vec<String>,
    players: Vec<Player>,
    handles: Vec<BatcherHandle>,
    seats: usize,
    stop: AtomicBool,
    next: AtomicU64,
    /// The first agent failure; it stops the match.
    failure: Mutex<Option<EvalError>>,
}

impl Arena<'_> {
    /// Plays game `index`; `None` if the match was stopped meanwhile; an error when an
    /// agent failed (its net did).
    fn play<S: Encode>(&self, index: u64) -> Result<Option<GameRecord>, EvalError> {
        let s = self.settings;
        let seats = seat_agents(self.seats, index);
        let seed = game_seed(s.seed, index);
        let (mut state, mut record) = self.opening::<S>(index, seed)?;
        record.index = index;
        record.agents = seats.iter().map(|&a| self.labels[a].clone()).collect();
        let mut agents: Vec<Box<dyn Agent<S>>> = seats
            .iter()
            .enumerate()
            .map(|(seat, &a)| self.players[a].build(game_seed(seed, seat as u64), &self.handles))
            .collect();
        let outcome = loop {
            if let Some(outcome) = state.outcome() {
                break outcome;
            }
            if self.stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let seat = state.seat_to_move().0 as usize;
            let action = agents[seat]
                .choose(&state)
                .map_err(|cause| EvalError::Play {
                    spec: self.labels[seats[seat]].clone(),
                    game: index,
                    cause,
                })?;
            record.play_unsearched(&mut state, action);
        };
        record.finish(outcome.winner, outcome.reason);
        Ok(Some(record))
    }

    /// The position game `index` starts from and its record so far: the suite's opening,
    /// or the start and `opening_turns` random turns (shared by the games of a rotation).
    fn opening<S: Encode>(&self, index: u64, seed: u64) -> Result<(S, GameRecord), EvalError> {
        let s = self.settings;
        let rotation = index / self.seats as u64;
        if let Some(range) = &s.openings {
            let (n, suite) = (range.offset + rotation as usize, &range.suite);
            let state = S::from_notation(s.kind, &suite.positions[n], s.rules).map_err(|e| {
                EvalError::Settings(format!(
                    "opening {} of {}: {e}",
                    n + 1,
                    suite.path.display()
                ))
            })?;
            let record = GameRecord::new(&state, s.rules, seed, 0);
            return Ok((state, record));
        }
        let mut state = S::start(s.kind, s.rules);
        let mut record = GameRecord::new(&state, s.rules, seed, 0);
        let mut rng = StdRng::seed_from_u64(game_seed(s.seed ^ OPENING_SALT, rotation));
        record.play_random_turns(&mut state, s.opening_turns, &mut rng);
        Ok((state, record))
    }

    /// Plays games until none are left or the match stops, sending each to `finished`; the
    /// first failure stops the match and is kept.
    fn play_games<S: Encode>(&self, finished: mpsc::Sender<GameRecord>) {
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            if index >= self.settings.games || self.stop.load(Ordering::Relaxed) {
                break;
            }
            match self.play::<S>(index) {
                Ok(Some(record)) => {
                    if finished.send(record).is_err() {
                        break;
                    }
                }
                Ok(None) => break,
                Err(error) => {
                    self.stop.store(true, Ordering::Relaxed);
                    let mut failure = self.failure.lock().expect("no panics holding it");
                    failure.get_or_insert(error);
                    break;
                }
            }
        }
    }
}

/// Plays a match between `specs` (one per seat of the game) and returns its report and the
/// records of its games, both ordered by game index.
pub fn play_match(
    specs: &[AgentSpec],
    settings: &MatchSettings,
) -> Result<(MatchReport, Vec<GameRecord>), EvalError> {
    with_game!(settings.kind, S => play_match_in::<S>(specs, settings))
}

fn play_match_in<S: Encode>(
    specs: &[AgentSpec],
    settings: &MatchSettings,
) -> Result<(MatchReport, Vec<GameRecord>), EvalError> {
    let kind = settings.kind;
    let seats = S::start(kind, settings.rules).num_seats();
    check_match(settings, specs.len(), seats)?;
    let models: std::collections::HashSet<&Path> =
        specs.iter().filter_map(|s| s.model_path()).collect();
    let threads = torch_threads_per_batcher(models.len());
    let (players, batchers) = load_players::<S>(settings, specs, &settings.search, threads)?;
    let searches = players.iter().map(Player::search).collect();
    let arena = Arena {
        settings,
        labels: specs.iter().map(|s| s.to_string()).collect(),
        players,
        handles: batchers.iter().map(Batcher::handle).collect(),
        seats,
        stop: AtomicBool::new(false),
        next: AtomicU64::new(0),
        failure: Mutex::new(None),
    };
    let mut report = empty_report(settings, arena.labels.clone());
    report.searches = searches;
    let mut records = Vec::new();
    std::thread::scope(|scope| {
        let (finished, results) = mpsc::channel::<GameRecord>();
        for _ in 0..settings.parallel.min(settings.games as usize).max(1) {
            let finished = finished.clone();
            let arena = &arena;
            scope.spawn(move || arena.play_games::<S>(finished));
        }
        drop(finished);
        collect_results(&arena, results, &mut report, &mut records);
    });
    let failure = arena.failure.lock().expect("no panics holding it").take();
    drop(arena);
    drop(batchers);
    if let Some(error) = failure {
        return Err(error);
    }
    report.games.sort_by_key(|g| g.index);
    records.sort_by_key(|r| r.index);
    finish_suite_report(&mut report)?;
    Ok((report, records))
}

/// Checks that `settings` and `agents` agents can make a match of a `seats`-seat game.
fn check_match(settings: &MatchSettings, agents: usize, seats: usize) -> Result<(), EvalError> {
    let kind = settings.kind;
    if agents != seats {
        return Err(EvalError::Settings(format!(
            "{kind} has {seats} seats: give {seats} agents, not {agents}"
        )));
    }
    if settings.parallel == 0 {
        return Err(EvalError::Settings("parallel must be at least 1".into()));
    }
    match &settings.openings {
        Some(range) => check_suite(settings, range, seats),
        None => Ok(()),
    }
}

/// Checks that the suite is for the match's game and has an opening for every game.
fn check_suite(
    settings: &MatchSettings,
    range: &OpeningRange,
    seats: usize,
) -> Result<(), EvalError> {
    let (suite, offset) = (&range.suite, range.offset);
    let (kind, file) = (settings.kind, suite.path.display());
    if suite.kind != kind {
        return Err(EvalError::Settings(format!(
            "the opening suite {file} is for {}, not for {kind}",
            suite.kind
        )));
    }
    let left = suite.len().saturating_sub(offset);
    if left == 0 {
        return Err(EvalError::Settings(format!(
            "the opening offset {offset} leaves none of the {} openings of {file}",
            suite.len()
        )));
    }
    let games = settings.games;
    if !games.is_multiple_of(seats as u64) || games > (left * seats) as u64 {
        return Err(EvalError::Settings(format!(
            "{games} games on an opening suite: give a multiple of {seats} (one game per seat \
             and opening) up to {} ({left} openings of {file} from offset {offset})",
            left * seats
        )));
    }
    Ok(())
}

/// Takes the finished games as they come: into the report, the progress bar and the SPRT
/// (which may stop the match).
fn collect_results(
    arena: &Arena<'_>,
    results: mpsc::Receiver<GameRecord>,
    report: &mut MatchReport,
    records: &mut Vec<GameRecord>,
) {
    let settings = arena.settings;
    let bar = progress_bar(settings);
    let sides = seat_sides(settings.kind);
    let mut candidate = Wdl::default();
    let mut groups = GroupTally::new(settings, arena.seats);
    for record in results {
        if arena.stop.load(Ordering::Relaxed) {
            continue; // finished after the SPRT decided (or a failure): not counted
        }
        let result = GameResult {
            index: record.index,
            seats: seat_agents(arena.seats, record.index),
            winner: record.winner,
            reason: record.reason.clone(),
            steps: record.steps.len() as u32,
        };
        let score = candidate_score(&result, &sides);
        candidate.add(score);
        let llr = settings
            .sprt
            .and_then(|sprt| groups.add(&result, &sides, &candidate, &sprt));
        report.games.push(result);
        records.push(record);
        bar.inc(1);
        bar.set_message(format!(
            "score {:.1}/{}",
            candidate.wins + 0.5 * candidate.draws,
            candidate.games()
        ));
        if let (Some(sprt), Some(llr)) = (&settings.sprt, llr) {
            report.llr = Some(llr);
            let decision = sprt.decision(llr);
            report.sprt_decision = Some(decision);
            if decision != SprtDecision::Continue {
                arena.stop.store(true, Ordering::Relaxed);
            }
        }
    }
    bar.finish_and_clear();
}

/// What the SPRT counts: games, pairs (a 2-seat game on a suite) or rotations (a 3-seat
/// game); a group's LLR is new only when the group completes.
enum GroupTally {
    Games,
    Pairs(PairTally),
    Rotations(RotationTally),
}

impl GroupTally {
    fn new(settings: &MatchSettings, seats: usize) -> GroupTally {
        match (seats, settings.openings.is_some()) {
            (3, _) => GroupTally::Rotations(RotationTally::default()),
            (_, true) => GroupTally::Pairs(PairTally::default()),
            (_, false) => GroupTally::Games,
        }
    }

    /// Counts `result` (agent 0 scored `candidate` over its games so far); the LLR when it
    /// completes a group (every game, when the test counts games).
    fn add(
        &mut self,
        result: &GameResult,
        sides: &[Side],
        candidate: &Wdl,
        sprt: &Sprt,
    ) -> Option<f64> {
        match self {
            GroupTally::Games => Some(sprt.llr(candidate)),
            GroupTally::Pairs(tally) => tally
                .add(result.index, candidate_score(result, sides))
                .then(|| sprt.llr_groups(&tally.pairs)),
            GroupTally::Rotations(tally) => tally
                .add(result.index, candidate_points(result, sides))
                .then(|| sprt.llr_groups(&tally.rotations)),
        }
    }
}

fn progress_bar(settings: &MatchSettings) -> ProgressBar {
    if !settings.progress {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(settings.games), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} games  {per_sec}  ETA {eta}  {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(500));
    bar
}
