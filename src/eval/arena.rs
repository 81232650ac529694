//! Matches: agents play each other, games in parallel, seats rotating, with an optional SPRT
//! stop; results as a [`MatchReport`] (saved as JSON) and every game as a
//! [`GameRecord`](crate::selfplay::record::GameRecord).
//!
//! **Seats.** 2 seats: game `g` gives seat `s` to agent `(s + g) mod 2` (sides swap every
//! game). 3 seats (3-player ReMATCH; seats Red, White, Orange): the roles rotate
//! counter-clockwise around the table Red → White → Orange → Red: the player who was Red plays
//! White in the next game, White plays Orange, Orange plays Red; game `g` gives seat `s` to
//! agent `(s - g) mod 3`, so every agent plays every role once in 3 games.
//!
//! **Points** (ReMATCH's recommended scoring, applied to every game): a side scores 1 for a
//! win, ½ for a draw, 0 for a loss, shared equally by the seats of that side: a lone Red win
//! gives Red's player 1, a Team win ½ to each member; \[project\] a 3-player draw gives Red's
//! player ½ and each Team member ¼. **Sets** (`first_to`): the games in order are cut into
//! sets that end when an agent reaches `first_to` points (3 in ReMATCH's format); playing
//! the games in parallel is the same as playing the sets one after another, since agents
//! do not learn between games.
//!
//! **Openings.** \[project\] Searches with a fixed budget are deterministic, so each game may
//! begin with `opening_turns` uniformly random whole turns; the games of one rotation (2 or 3
//! games, every agent in every seat) share the same opening. With an opening suite
//! ([`super::openings`]) game `g` starts from opening `offset + g / seats` instead
//! (the record's start position is the opening), so with 2 seats games `2i` and `2i + 1`
//! play one opening with the seats swapped: a *pair*, scored by the pentanomial
//! ([`super::pairs`]), and the SPRT runs on pairs, deciding only at completed pairs.
//!
//! **Elo.** Every pair of seats on opposite sides is a head-to-head result (the seat's side
//! score). Ratings are relative to the last agent (the anchor): two agents, the head-to-head
//! Elo of agent 0 (the candidate) against agent 1 with a 95% interval; three,
//! maximum-likelihood Elo ([`super::elo::solve`]).
//!
//! **Report file** (`result.json`, written atomically; `matches/*.json` in a run directory):
//! ```text
//! { "format_version": 2, "game": "rematch", "agents": ["net:runs/a:100", "random"],
//!   "seed": 1, "opening_turns": 2, "ply_cap": 200,
//!   "ply_cap_from": "the model's training rules of net:runs/a:100", "project_draws": true,
//!   "games": [ { "index": 0, "seats": [0, 1], "winner": 0 | 1 | null,
//!                "reason": "NoPieces", "steps": 57 }, ... ],
//!   "sprt": { "elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05 } | null,
//!   "sprt_decision": "AcceptH1" | "AcceptH0" | "Continue" | null, "llr": 3.1 | null,
//!   "searches": [ { "kind": "gumbel", "visits": 100, ... } | null, ... ],
//!   "suite": { "file": "openings/rematch.txt", "offset": 0, "openings": 600,
//!              "pentanomial": { "counts": [2, 5, 30, 9, 4] } | null,
//!              "pair_elo": { "elo": 35.2, "low": 1.5, "high": 69.8 } | null } }
//! ```
//! `seats[s]` is the index (into `agents`) of the agent that played seat `s`; `searches[a]`
//! the search settings agent `a` played with (its model's own, see below; `null` without a
//! net). `suite` is left out without an opening suite; `pentanomial` counts the completed
//! pairs of a 2-seat game (null with 3 seats). Version 1 reports (before suites) are still
//! read.
//!
//! **Search of net agents.** A `net:` agent searches with the `[search]` its checkpoint's
//! run trained with (the match's settings only for a model outside a run), an `export:`
//! agent with its `model.json`'s, both as [`SearchConfig::for_play`] makes them (no root
//! noise: play is deterministic given the opening), then the spec's overrides.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::rngs::StdRng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use tch::Device;

use super::elo::{self, EloEstimate, PairGames, Wdl};
use super::openings::OpeningRange;
use super::pairs::Pentanomial;
use super::spec::AgentSpec;
use super::sprt::{Sprt, SprtDecision};
use super::EvalError;
use crate::export::torchscript::{exported_agent, ExportedModel};
use crate::game::facts::capitalized;
use crate::game::{GameKind, GameState, RulesConfig, Seat, Side};
use crate::layout::resolve_model;
use crate::net::args::{announce, prepare, NetSettings};
use crate::net::encode::Encode;
use crate::net::batcher::{Batcher, BatcherConfig, BatcherHandle};
use crate::net::model::Model;
use crate::net::net_eval::NetEvaluator;
use crate::net::NetError;
use crate::search::agents::PolicyAgent;
use crate::search::agents::{rollout_uct, Agent, AlphaBetaAgent, Budget, RandomAgent, SearchAgent};
use crate::search::config::SearchConfig;
use crate::selfplay::record::{write_records, GameRecord};
use crate::util::game_seed;
use crate::with_game;

/// Version of the report format; readers take this one and version 1 (no `suite`) and
/// refuse others.
pub const REPORT_FORMAT_VERSION: u32 = 2;

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// The game.
    pub kind: GameKind,
    /// Its rules.
    pub rules: RulesConfig,
    /// Games to play (fewer if the SPRT decides first).
    pub games: u64,
    /// Games in flight at once (one thread each).
    pub parallel: usize,
    /// The match's seed; game `g` is seeded from it and `g`.
    pub seed: u64,
    /// Uniformly random whole turns at the start of every game (without a suite).
    pub opening_turns: u32,
    /// The openings of a suite: game `g` starts from opening `offset + g / seats` (`None`:
    /// `opening_turns` random turns).
    pub openings: Option<OpeningRange>,
    /// Stop once this test decides (2 agents only; agent 0 is the candidate).
    pub sprt: Option<Sprt>,
    /// The search of net agents whose model lies outside a run (a checkpoint's agent takes
    /// its run's `[search]`), before [`SearchConfig::for_play`] and their specs' overrides.
    pub search: SearchConfig,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Precision and device of the net agents.
    pub net: NetSettings,
}

/// One finished game of a match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// The game's number in the match (sets its seats and seed).
    pub index: u64,
    /// Per seat, the index of the agent that played it.
    pub seats: Vec<usize>,
    /// The winning side (`None`: a draw).
    pub winner: Option<u8>,
    /// Why the game ended.
    pub reason: String,
    /// Steps played.
    pub steps: u32,
}

/// A match's results (the `result.json` format in the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchReport {
    /// [`REPORT_FORMAT_VERSION`].
    pub format_version: u32,
    /// The game's command-line name.
    pub game: String,
    /// The agents' specs, in `--agent` order.
    pub agents: Vec<String>,
    /// The match's seed.
    pub seed: u64,
    /// Random whole turns at the start of each game.
    pub opening_turns: u32,
    /// The ply cap of the games.
    pub ply_cap: u32,
    /// Where the cap came from (`match`: `--ply-cap`, a model's training rules or the
    /// default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ply_cap_from: Option<String>,
    /// Whether the project's extra draw rules applied.
    pub project_draws: bool,
    /// The finished games, by index.
    pub games: Vec<GameResult>,
    /// The SPRT, if one was run.
    pub sprt: Option<Sprt>,
    /// Its decision.
    pub sprt_decision: Option<SprtDecision>,
    /// Its final log-likelihood ratio.
    pub llr: Option<f64>,
    /// Per agent (in `agents` order), the search settings it played with; `None` for an
    /// agent without a net (older reports: empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub searches: Vec<Option<SearchConfig>>,
    /// The opening suite and the paired results (`None`: random openings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<SuiteReport>,
}

/// A match on an opening suite: which openings, and the pairs' results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteReport {
    /// The suite's file, as given.
    pub file: String,
    /// The first opening used.
    pub offset: u64,
    /// Openings in the suite.
    pub openings: u64,
    /// The candidate's completed pairs (2-seat games; `None` with 3 seats).
    pub pentanomial: Option<Pentanomial>,
    /// The candidate's Elo from the pairs, with its 95% interval.
    pub pair_elo: Option<EloEstimate>,
}

/// The agent that plays seat `seat` of game `game` (see the module documentation).
pub fn seat_agent(seats: usize, seat: usize, game: u64) -> usize {
    let g = (game % seats as u64) as usize;
    match seats {
        2 => (seat + g) % 2,
        _ => (seat + seats - g) % seats,
    }
}

/// The agents of every seat of game `game`.
pub fn seat_agents(seats: usize, game: u64) -> Vec<usize> {
    (0..seats).map(|s| seat_agent(seats, s, game)).collect()
}

/// The side of each seat of `kind`.
pub fn seat_sides(kind: GameKind) -> Vec<Side> {
    with_game!(kind, S => {
        let state = S::start(kind, RulesConfig::default());
        (0..state.num_seats()).map(|s| state.side_of(Seat(s as u8))).collect()
    })
}

/// The score of `side` when `winner` won (`None`: a draw).
fn side_score(winner: Option<u8>, side: Side) -> f64 {
    match winner {
        None => 0.5,
        Some(w) if w == side.0 => 1.0,
        Some(_) => 0.0,
    }
}

/// Points of each seat for a game won by `winner`: its side's score shared equally by the
/// seats of that side.
pub fn seat_points(sides: &[Side], winner: Option<u8>) -> Vec<f64> {
    sides
        .iter()
        .map(|&side| {
            let members = sides.iter().filter(|&&s| s == side).count() as f64;
            side_score(winner, side) / members
        })
        .collect()
}

/// What a match's games add up to.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Per agent: points (see the module documentation).
    pub points: Vec<f64>,
    /// Per agent: games played.
    pub games: Vec<u64>,
    /// Per agent and seat: results of that side when the agent held that seat.
    pub by_seat: Vec<Vec<Wdl>>,
    /// `pairs[a][b]`: agent `a`'s results against `b` (seats on opposite sides).
    pub pairs: Vec<Vec<Wdl>>,
    /// Elo relative to the last agent (the anchor, 0): two agents, the head-to-head Elo of
    /// agent 0 against agent 1; three, maximum likelihood (`None` if no finite ratings).
    pub elo: Option<Vec<EloEstimate>>,
    /// On an opening suite with 2 seats, agent 0's completed pairs.
    pub pentanomial: Option<Pentanomial>,
}

/// Agent 0's pairs as games come in, in any order: games `2i` and `2i + 1` (one opening,
/// seats swapped) make pair `i`.
#[derive(Default)]
struct PairTally {
    /// Agent 0's score in the game of each pair that is in so far.
    halves: HashMap<u64, f64>,
    /// The completed pairs.
    pairs: Pentanomial,
}

impl PairTally {
    /// Adds agent 0's `score` in game `index`; true when it completes a pair.
    fn add(&mut self, index: u64, score: f64) -> bool {
        match self.halves.remove(&(index / 2)) {
            Some(first) => {
                self.pairs.add(first, score);
                true
            }
            None => {
                self.halves.insert(index / 2, score);
                false
            }
        }
    }
}

/// Agent 0's score in `game`, whose seats play `sides`.
fn candidate_score(game: &GameResult, sides: &[Side]) -> f64 {
    let seat = game.seats.iter().position(|&a| a == 0).unwrap_or(0);
    side_score(game.winner, sides[seat])
}

/// Agent 0's results on the completed pairs of `games` (games `2i` and `2i + 1`, one
/// opening with the seats swapped) of a 2-seat game whose seats play `sides`.
pub fn pair_results(games: &[GameResult], sides: &[Side]) -> Pentanomial {
    let mut tally = PairTally::default();
    for game in games {
        tally.add(game.index, candidate_score(game, sides));
    }
    tally.pairs
}

impl MatchReport {
    /// The game's kind.
    pub fn kind(&self) -> Result<GameKind, EvalError> {
        self.game
            .parse()
            .map_err(|e: crate::game::NotationError| EvalError::Settings(e.to_string()))
    }

    /// Points, per-seat results, pairwise results and Elo of the games on record.
    pub fn summary(&self) -> Result<Summary, EvalError> {
        let sides = seat_sides(self.kind()?);
        let n = self.agents.len();
        let mut points = vec![0.0; n];
        let mut games = vec![0u64; n];
        let mut by_seat = vec![vec![Wdl::default(); sides.len()]; n];
        let mut pairs = vec![vec![Wdl::default(); n]; n];
        for game in &self.games {
            if game.seats.len() != sides.len() || game.seats.iter().any(|&a| a >= n) {
                return Err(EvalError::Settings(format!(
                    "game {} has seats {:?} for {} agents",
                    game.index, game.seats, n
                )));
            }
            let seat_pts = seat_points(&sides, game.winner);
            for (seat, &agent) in game.seats.iter().enumerate() {
                points[agent] += seat_pts[seat];
                games[agent] += 1;
                by_seat[agent][seat].add(side_score(game.winner, sides[seat]));
                for (other, &opponent) in game.seats.iter().enumerate() {
                    if sides[other] != sides[seat] {
                        pairs[agent][opponent].add(side_score(game.winner, sides[seat]));
                    }
                }
            }
        }
        let anchor = n - 1;
        let elo = if n == 2 {
            let anchor_row = EloEstimate {
                elo: 0.0,
                low: 0.0,
                high: 0.0,
            };
            Some(vec![elo::head_to_head(&pairs[0][1]), anchor_row])
        } else {
            let pair_games: Vec<PairGames> = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .map(|(a, b)| PairGames {
                    a,
                    b,
                    games: pairs[a][b].games(),
                    score: pairs[a][b].wins + 0.5 * pairs[a][b].draws,
                })
                .collect();
            elo::solve(n, &pair_games, anchor, 0.0)
                .ok()
                .map(|r| r.players)
        };
        let pentanomial = match (&self.suite, sides.len()) {
            (Some(_), 2) => Some(pair_results(&self.games, &sides)),
            _ => None,
        };
        Ok(Summary {
            points,
            games,
            by_seat,
            pairs,
            elo,
            pentanomial,
        })
    }

    /// Sets of ReMATCH's format: the games in order, cut when an agent reaches `first_to`
    /// points. Returns per agent the sets won (a set reached together is shared), the
    /// number of complete sets, and the points of the unfinished last set.
    pub fn sets(&self, first_to: f64) -> Result<(Vec<f64>, u64, Vec<f64>), EvalError> {
        let sides = seat_sides(self.kind()?);
        let n = self.agents.len();
        let mut won = vec![0.0; n];
        let mut complete = 0;
        let mut current = vec![0.0; n];
        let mut games: Vec<&GameResult> = self.games.iter().collect();
        games.sort_by_key(|g| g.index);
        for game in games {
            for (seat, p) in seat_points(&sides, game.winner).into_iter().enumerate() {
                current[game.seats[seat]] += p;
            }
            let winners: Vec<usize> = (0..n).filter(|&a| current[a] >= first_to).collect();
            if !winners.is_empty() {
                for &a in &winners {
                    won[a] += 1.0 / winners.len() as f64;
                }
                complete += 1;
                current = vec![0.0; n];
            }
        }
        Ok((won, complete, current))
    }
}

/// An agent ready to be built for a game: what it is and which evaluator it uses.
enum Player {
    Random,
    Uct(u32),
    AlphaBeta(Budget),
    Net {
        evaluator: usize,
        search: SearchConfig,
    },
    Policy {
        evaluator: usize,
    },
    Exported {
        model: Arc<ExportedModel>,
        search: SearchConfig,
    },
}

impl Player {
    fn build<S: Encode>(&self, seed: u64, handles: &[BatcherHandle]) -> Box<dyn Agent<S>> {
        match *self {
            Player::Random => Box::new(RandomAgent::new(seed)),
            Player::Uct(playouts) => Box::new(rollout_uct(playouts, seed)),
            Player::AlphaBeta(budget) => Box::new(AlphaBetaAgent::new(budget, seed)),
            Player::Net {
                evaluator,
                ref search,
            } => Box::new(SearchAgent::new(
                "net",
                NetEvaluator::new(handles[evaluator].clone()),
                search.clone(),
                Budget::Count(search.visits),
                seed,
            )),
            Player::Policy { evaluator } => Box::new(PolicyAgent::new(handles[evaluator].clone())),
            Player::Exported {
                ref model,
                ref search,
            } => Box::new(
                exported_agent::<S>(Arc::clone(model), search.clone(), seed)
                    .expect("the game was checked when the model was loaded"),
            ),
        }
    }
}

/// Loads the models the specs need, one evaluator per distinct weights file, each using
/// `torch_threads` threads, in the settings' precision and device; net agents search with
/// their run's `[search]` (`search` for a model outside a run) and their overrides.
fn load_players<S: Encode>(
    settings: &MatchSettings,
    specs: &[AgentSpec],
    search: &SearchConfig,
    torch_threads: i32,
) -> Result<(Vec<Player>, Vec<Batcher>), EvalError> {
    let mut evaluators: Vec<Batcher> = Vec::new();
    let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
    let mut players = Vec::new();
    for spec in specs {
        let model = match spec.model_path() {
            None => None,
            Some(path) => {
                let resolved = resolve_model(path).map_err(|reason| EvalError::NoModel {
                    spec: spec.to_string(),
                    reason,
                })?;
                let key = resolved
                    .weights
                    .canonicalize()
                    .unwrap_or(resolved.weights.clone());
                let index = match by_path.get(&key) {
                    Some(&i) => i,
                    None => {
                        let weights = &resolved.weights;
                        evaluators.push(load_batcher::<S>(
                            settings,
                            spec,
                            weights,
                            torch_threads,
                        )?);
                        by_path.insert(key, evaluators.len() - 1);
                        evaluators.len() - 1
                    }
                };
                Some((index, resolved.weights))
            }
        };
        let base = match (spec, &model) {
            (AgentSpec::Net { .. }, Some((_, weights))) => trained_search(spec, weights, search)?,
            _ => search.clone(),
        };
        let evaluator = model.map(|(index, _)| index);
        players.push(player_for::<S>(settings, spec, evaluator, &base)?);
    }
    Ok((players, evaluators))
}

/// An evaluator serving the weights at `weights` for `spec`.
fn load_batcher<S: Encode>(
    settings: &MatchSettings,
    spec: &AgentSpec,
    weights: &std::path::Path,
    torch_threads: i32,
) -> Result<Batcher, EvalError> {
    let base = BatcherConfig {
        torch_threads,
        // One leaf per game thread and request: batches stay below this.
        max_batch: settings.parallel.clamp(1, 128),
        ..BatcherConfig::default()
    };
    spawn_batcher::<S>(weights, settings.kind, settings.net, base).map_err(|cause| {
        EvalError::Model {
            spec: spec.to_string(),
            cause,
        }
    })
}

/// An evaluator serving the weights at `weights` (a net of game `kind`) as `net` says, on
/// `base`'s batch and threads; the settled precision is announced once on stderr.
pub fn spawn_batcher<S: Encode>(
    weights: &std::path::Path,
    kind: GameKind,
    net: NetSettings,
    base: BatcherConfig,
) -> Result<Batcher, NetError> {
    let model = Model::load(weights, &S::net_shape(kind), Device::Cpu)?;
    let (config, precision) = prepare(&model, net, base)?;
    announce(&precision);
    Ok(Batcher::spawn(model, config))
}

/// The player of `spec`; a net or policy spec plays through evaluator `evaluator`, a net
/// spec with `search` (its model's) as agents play it, then its overrides.
fn player_for<S: Encode>(
    settings: &MatchSettings,
    spec: &AgentSpec,
    evaluator: Option<usize>,
    search: &SearchConfig,
) -> Result<Player, EvalError> {
    let bad_search = |source| {
        EvalError::Spec(super::spec::SpecError::BadSearch {
            spec: spec.to_string(),
            source,
        })
    };
    Ok(match (spec, evaluator) {
        (AgentSpec::Exported { dir, search }, _) => {
            let model = ExportedModel::load_with(dir, settings.net)
                .and_then(|m| m.check_game::<S>().map(|_| m))
                .map_err(|e| EvalError::NoModel {
                    spec: spec.to_string(),
                    reason: e.to_string(),
                })?;
            let search = model
                .meta()
                .search
                .for_play()
                .with(search)
                .map_err(bad_search)?;
            Player::Exported {
                model: Arc::new(model),
                search,
            }
        }
        (AgentSpec::Random, _) => Player::Random,
        (AgentSpec::Uct { playouts }, _) => Player::Uct(*playouts),
        (AgentSpec::AlphaBeta { budget }, _) => Player::AlphaBeta(*budget),
        (AgentSpec::Net { search: o, .. }, Some(evaluator)) => Player::Net {
            evaluator,
            search: search.for_play().with(o).map_err(bad_search)?,
        },
        (AgentSpec::Policy { .. }, Some(evaluator)) => Player::Policy { evaluator },
        _ => unreachable!("net and policy specs have a model path"),
    })
}

/// The search the weights of a net agent trained with: their run's `[search]`, or
/// `fallback` for a model outside a run.
fn trained_search(
    spec: &AgentSpec,
    weights: &Path,
    fallback: &SearchConfig,
) -> Result<SearchConfig, EvalError> {
    let trained = SearchConfig::of_checkpoint(weights).map_err(|e| EvalError::NoModel {
        spec: spec.to_string(),
        reason: format!("its run's search settings: {e}"),
    })?;
    Ok(trained.unwrap_or_else(|| fallback.clone()))
}

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

impl Player {
    /// The search settings a net or exported agent plays with.
    fn search(&self) -> Option<SearchConfig> {
        match self {
            Player::Net { search, .. } | Player::Exported { search, .. } => Some(search.clone()),
            _ => None,
        }
    }
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

/// The libtorch threads each of `models` evaluators gets on this machine's cores.
fn torch_threads_per_evaluator(models: usize) -> i32 {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (cores / models.max(1)).max(1) as i32
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
    let threads = torch_threads_per_evaluator(models.len());
    let (players, evaluators) = load_players::<S>(settings, specs, &settings.search, threads)?;
    let searches = players.iter().map(Player::search).collect();
    let arena = Arena {
        settings,
        labels: specs.iter().map(|s| s.to_string()).collect(),
        players,
        handles: evaluators.iter().map(Batcher::handle).collect(),
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
    drop(evaluators);
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
    if settings.sprt.is_some() && seats != 2 {
        return Err(EvalError::Settings(
            "the SPRT needs a 2-seat game (agent 0 against agent 1)".into(),
        ));
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

/// A report with no games yet.
fn empty_report(settings: &MatchSettings, agents: Vec<String>) -> MatchReport {
    MatchReport {
        format_version: REPORT_FORMAT_VERSION,
        game: settings.kind.name().to_string(),
        agents,
        seed: settings.seed,
        // No random turns when the games start from a suite's openings.
        opening_turns: match settings.openings {
            Some(_) => 0,
            None => settings.opening_turns,
        },
        ply_cap: settings.rules.ply_cap,
        ply_cap_from: None,
        project_draws: settings.rules.project_draws,
        games: Vec::new(),
        sprt: settings.sprt,
        sprt_decision: settings.sprt.map(|_| SprtDecision::Continue),
        llr: settings.sprt.map(|_| 0.0),
        searches: Vec::new(),
        suite: settings.openings.as_ref().map(|range| SuiteReport {
            file: range.suite.path.display().to_string(),
            offset: range.offset as u64,
            openings: range.suite.len() as u64,
            pentanomial: None,
            pair_elo: None,
        }),
    }
}

/// Fills in the suite's paired results once the games are in.
fn finish_suite_report(report: &mut MatchReport) -> Result<(), EvalError> {
    let pentanomial = report.summary()?.pentanomial;
    if let Some(suite) = &mut report.suite {
        suite.pentanomial = pentanomial;
        suite.pair_elo = pentanomial.and_then(|p| p.elo());
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
    // On a suite the SPRT runs on pairs and decides only when a pair completes.
    let mut pairs = (settings.openings.is_some() && arena.seats == 2).then(PairTally::default);
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
        let llr = match (&mut pairs, &settings.sprt) {
            (_, None) => None,
            (None, Some(sprt)) => Some(sprt.llr(&candidate)),
            (Some(tally), Some(sprt)) => tally
                .add(result.index, score)
                .then(|| sprt.llr_pairs(&tally.pairs)),
        };
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

/// Writes `result.json` and `games.jsonl` into `dir` (created if needed), atomically.
pub fn write_match(
    dir: &Path,
    report: &MatchReport,
    records: &[GameRecord],
) -> Result<(), EvalError> {
    let file_error = |path: &Path, reason: String| EvalError::File {
        path: path.to_path_buf(),
        reason,
    };
    std::fs::create_dir_all(dir).map_err(|e| file_error(dir, e.to_string()))?;
    write_report(&dir.join(crate::layout::MATCH_REPORT_FILE), report)?;
    let games = dir.join(crate::layout::MATCH_GAMES_FILE);
    write_records(&games, records).map_err(|e| file_error(&games, e.to_string()))
}

/// Writes a report as pretty JSON, atomically.
pub fn write_report(path: &Path, report: &MatchReport) -> Result<(), EvalError> {
    let json = serde_json::to_string_pretty(report).expect("reports serialise");
    crate::util::write_atomic(path, json.as_bytes()).map_err(|e| EvalError::File {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Reads a report written by [`write_report`].
pub fn read_report(path: &Path) -> Result<MatchReport, EvalError> {
    let file_error = |reason: String| EvalError::File {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| file_error(e.to_string()))?;
    let report: MatchReport =
        serde_json::from_str(&text).map_err(|e| file_error(format!("not a match report: {e}")))?;
    if !(1..=REPORT_FORMAT_VERSION).contains(&report.format_version) {
        return Err(file_error(format!(
            "report format version {} (this build reads versions 1 to {REPORT_FORMAT_VERSION})",
            report.format_version
        )));
    }
    Ok(report)
}

/// An Elo difference as a table shows it: `+85`, `-3`, `+inf`.
pub fn fmt_elo(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.0}")
    } else if x > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

/// The summary table printed at the end of a match: per agent score, per-seat results,
/// Elo with its 95% interval, sets, and the SPRT decision.
pub fn summary_table(report: &MatchReport, first_to: Option<f64>) -> Result<String, EvalError> {
    let kind = report.kind()?;
    let summary = report.summary()?;
    let seat_names = seat_names(kind);
    let mut out = String::new();
    let name_width = report
        .agents
        .iter()
        .map(|a| a.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = write!(
        out,
        "{:<name_width$}  {:>6}  {:>6}",
        "agent", "games", "points"
    );
    for name in &seat_names {
        let _ = write!(out, "  {:>13}", format!("as {name} W-D-L"));
    }
    let _ = writeln!(out, "  {:>22}", "Elo (95%)");
    for (a, label) in report.agents.iter().enumerate() {
        let _ = write!(
            out,
            "{label:<name_width$}  {:>6}  {:>6.1}",
            summary.games[a], summary.points[a]
        );
        for wdl in &summary.by_seat[a] {
            let _ = write!(
                out,
                "  {:>13}",
                format!("{}-{}-{}", wdl.wins, wdl.draws, wdl.losses)
            );
        }
        let elo = match &summary.elo {
            Some(_) if a + 1 == report.agents.len() => "0 (anchor)".to_string(),
            Some(e) => format!(
                "{} [{}, {}]",
                fmt_elo(e[a].elo),
                fmt_elo(e[a].low),
                fmt_elo(e[a].high)
            ),
            None => "n/a".into(),
        };
        let _ = writeln!(out, "  {elo:>22}");
    }
    if let Some(first_to) = first_to {
        let (won, complete, current) = report.sets(first_to)?;
        let _ = write!(
            out,
            "sets (first to {first_to} points): {complete} complete;"
        );
        for (label, w) in report.agents.iter().zip(&won) {
            let _ = write!(out, " {label} {w}");
        }
        if current.iter().any(|&p| p > 0.0) {
            let _ = write!(out, "; unfinished set at {current:?}");
        }
        out.push('\n');
    }
    if let Some(pairs) = summary.pentanomial {
        let _ = writeln!(out, "{}", pentanomial_line(&pairs));
    }
    if let (Some(sprt), Some(decision), Some(llr)) = (report.sprt, report.sprt_decision, report.llr)
    {
        let (low, high) = sprt.bounds();
        let on = if summary.pentanomial.is_some() {
            "pairs"
        } else {
            "games"
        };
        let _ = writeln!(
            out,
            "SPRT on {on} elo0={} elo1={} alpha={} beta={}: LLR {llr:.2} in ({low:.2}, {high:.2}): {decision}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        );
    }
    Ok(out)
}

/// `pairs 0/½/1/1½/2 points: 1 3 10 4 2 (20 pairs); pair Elo +17 [-30, +64]`: the first
/// agent's pairs (one opening, seats swapped) by its points, and the Elo they give.
pub fn pentanomial_line(pairs: &Pentanomial) -> String {
    let counts: Vec<String> = pairs.counts.iter().map(u64::to_string).collect();
    let elo = match pairs.elo() {
        Some(e) => format!(
            "pair Elo {} [{}, {}]",
            fmt_elo(e.elo),
            fmt_elo(e.low),
            fmt_elo(e.high)
        ),
        None => "no complete pair".into(),
    };
    format!(
        "pairs 0/½/1/1½/2 points: {} ({} pairs); {elo}",
        counts.join(" "),
        pairs.pairs()
    )
}

/// Names of the seats of `kind`, for tables.
pub fn seat_names(kind: GameKind) -> Vec<String> {
    kind.seat_names().iter().map(|n| capitalized(n)).collect()
}
