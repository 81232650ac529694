//! Match reports: the games' results, what they add up to (points, per-seat results,
//! pairs, Elo, sets), and the `result.json` file (the format in [`super`]'s documentation).

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::seats::{seat_agents, seat_points, seat_sides, side_score};
use super::settings::MatchSettings;
use crate::config::search::SearchConfig;
use crate::eval::elo::{self, EloEstimate, PairGames, Wdl};
use crate::eval::pairs::{Grouped, Pentanomial, Rotations};
use crate::eval::sprt::{Sprt, SprtDecision};
use crate::eval::EvalError;
use crate::game::{GameKind, Side};
use crate::selfplay::record::{write_records, GameRecord};

/// Version of the report format; readers take this one and version 1 (no `suite`) and
/// refuse others.
pub const REPORT_FORMAT_VERSION: u32 = 2;

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

impl MatchReport {
    /// A report of finished games, game `i` won by `winners[i]` (`None`: drawn) with its
    /// seats rotating among `agents` as `match` rotates them: for reports put together
    /// outside a match (tests, imported results).
    pub fn of_winners(kind: GameKind, agents: Vec<String>, winners: &[Option<u8>]) -> MatchReport {
        let seats = seat_sides(kind).len();
        MatchReport {
            format_version: REPORT_FORMAT_VERSION,
            game: kind.name().to_string(),
            agents,
            seed: 0,
            opening_turns: 0,
            ply_cap: crate::game::RulesConfig::default().ply_cap,
            ply_cap_from: None,
            project_draws: true,
            games: winners
                .iter()
                .enumerate()
                .map(|(i, &winner)| GameResult {
                    index: i as u64,
                    seats: seat_agents(seats, i as u64),
                    winner,
                    reason: "NoPieces".into(),
                    steps: 10,
                })
                .collect(),
            sprt: None,
            sprt_decision: None,
            llr: None,
            searches: Vec::new(),
            suite: None,
        }
    }

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
        let rotations = (sides.len() == 3).then(|| rotation_results(&self.games, &sides));
        Ok(Summary {
            points,
            games,
            by_seat,
            pairs,
            elo,
            pentanomial,
            rotations,
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
    /// The candidate's completed rotations (3-seat games; absent with 2 seats and in
    /// reports written before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotations: Option<Rotations>,
    /// The candidate's Elo from the pairs (or rotations), with its 95% interval.
    pub pair_elo: Option<EloEstimate>,
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
    /// With 3 seats, agent 0's completed rotations.
    pub rotations: Option<Rotations>,
}

/// Agent 0's points per group of `size` games of one opening (games `size * i` to
/// `size * i + size - 1` make group `i`: a pair, a rotation), as games come in, in any order.
struct GameGroups {
    size: u64,
    /// Games in and agent 0's points so far in each group not yet complete.
    open: HashMap<u64, (u64, f64)>,
}

impl GameGroups {
    fn new(size: u64) -> GameGroups {
        GameGroups {
            size,
            open: HashMap::new(),
        }
    }

    /// Adds agent 0's `points` in game `index`; its group's total when this completes it.
    fn add(&mut self, index: u64, points: f64) -> Option<f64> {
        let group = index / self.size;
        let entry = self.open.entry(group).or_insert((0, 0.0));
        entry.0 += 1;
        entry.1 += points;
        if entry.0 < self.size {
            return None;
        }
        self.open.remove(&group).map(|(_, total)| total)
    }
}

/// Agent 0's pairs as games come in, in any order: games `2i` and `2i + 1` (one opening,
/// seats swapped) make pair `i`.
pub(super) struct PairTally {
    games: GameGroups,
    /// The completed pairs.
    pub(super) pairs: Pentanomial,
}

impl Default for PairTally {
    fn default() -> PairTally {
        PairTally {
            games: GameGroups::new(2),
            pairs: Pentanomial::default(),
        }
    }
}

impl PairTally {
    /// Adds agent 0's `score` in game `index`; true when it completes a pair.
    pub(super) fn add(&mut self, index: u64, score: f64) -> bool {
        let pair = self.games.add(index, score);
        // The pentanomial counts a pair by its two games' points together.
        pair.map(|total| self.pairs.add(total, 0.0)).is_some()
    }
}

/// Agent 0's rotations as games come in, in any order: games `3i` to `3i + 2` (one
/// opening, agent 0 in each seat once) make rotation `i`.
pub(super) struct RotationTally {
    games: GameGroups,
    /// The completed rotations.
    pub(super) rotations: Rotations,
}

impl Default for RotationTally {
    fn default() -> RotationTally {
        RotationTally {
            games: GameGroups::new(3),
            rotations: Rotations::default(),
        }
    }
}

impl RotationTally {
    /// Adds agent 0's `points` in game `index`; true when it completes a rotation.
    pub(super) fn add(&mut self, index: u64, points: f64) -> bool {
        let rotation = self.games.add(index, points);
        rotation.map(|total| self.rotations.add(total)).is_some()
    }
}

/// The seat agent 0 played in `game`.
fn candidate_seat(game: &GameResult) -> usize {
    game.seats.iter().position(|&a| a == 0).unwrap_or(0)
}

/// Agent 0's points in `game` of a game whose seats play `sides` (a Team's result shared
/// by its members).
pub(super) fn candidate_points(game: &GameResult, sides: &[Side]) -> f64 {
    seat_points(sides, game.winner)[candidate_seat(game)]
}

/// Agent 0's results on the completed rotations of `games` of a 3-seat game.
pub fn rotation_results(games: &[GameResult], sides: &[Side]) -> Rotations {
    let mut tally = RotationTally::default();
    for game in games {
        tally.add(game.index, candidate_points(game, sides));
    }
    tally.rotations
}

/// Agent 0's score in `game`, whose seats play `sides`.
pub(super) fn candidate_score(game: &GameResult, sides: &[Side]) -> f64 {
    side_score(game.winner, sides[candidate_seat(game)])
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

/// A report with no games yet.
pub(super) fn empty_report(settings: &MatchSettings, agents: Vec<String>) -> MatchReport {
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
            rotations: None,
            pair_elo: None,
        }),
    }
}

/// Fills in the suite's paired results once the games are in.
pub(super) fn finish_suite_report(report: &mut MatchReport) -> Result<(), EvalError> {
    let summary = report.summary()?;
    if let Some(suite) = &mut report.suite {
        suite.pentanomial = summary.pentanomial;
        suite.rotations = summary.rotations;
        suite.pair_elo = match (summary.pentanomial, summary.rotations) {
            (Some(pairs), _) => pairs.elo(),
            (None, Some(rotations)) => rotations.elo(),
            (None, None) => None,
        };
    }
    Ok(())
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
