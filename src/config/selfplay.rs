//! Self-play settings (`[selfplay]` of a run config): what is particular to self-play on
//! top of the search (`[search]`, [`super::search::SearchConfig`]): playout cap
//! randomization, the temperature schedule, how a Gumbel search's step is played,
//! resignation, opening diversity and when new weights are taken up.

use serde::{Deserialize, Serialize};

use super::batching::Count;
use super::check::{first_failure, Check};
use super::decided::DecidedCheck;

/// Which step a Gumbel self-play search plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GumbelPlay {
    /// A step sampled from the improved policy π′ under the temperature schedule.
    Sample,
    /// The sequential-halving winner once `gumbel_sample_turns` turns are played (sampled
    /// from π′ before).
    Winner,
    /// Sampled from the root's visit counts (under the temperature) for the first
    /// `gumbel_sample_turns` turns, the sequential-halving winner after.
    Visits,
}

/// The `[search]` keys that used to live in `[selfplay]`, with their new names.
pub const MOVED_TO_SEARCH: [(&str, &str); 7] = [
    ("search", "search.kind"),
    ("full_visits", "search.visits"),
    ("gumbel_considered", "search.considered"),
    ("c_puct", "search.c_puct"),
    ("fpu_reduction", "search.fpu_reduction"),
    ("dirichlet_alpha", "search.dirichlet_alpha"),
    ("dirichlet_fraction", "search.dirichlet_fraction"),
];

/// When self-play takes up new weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewWeights {
    /// New games start with them; games in flight finish with the weights they began with
    /// (each game is played by one checkpoint, as its record says).
    BetweenGames,
    /// Every search from the next one on uses them (fresher, no second pool while the old
    /// games finish; a game may span checkpoints).
    AtOnce,
}

/// Self-play settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Self-play threads, each running `games_in_flight` games (`auto`: see
    /// [`crate::net::threads`]).
    pub workers: Count,
    /// Games each worker plays at once; their leaves go to the net as one batch.
    pub games_in_flight: usize,
    /// Groups each worker splits its games into, each with a batch of its own in flight:
    /// while one group's leaves are with the net, the worker searches the next group
    /// (latency hiding; 1: one batch at a time, the plain lockstep).
    pub groups: usize,
    /// Games each worker starts with while playing the step-0 net, one more for each game it
    /// finishes, up to `games_in_flight` (0: all at once). Fewer games at once finish
    /// sooner, so the first samples, and the first training step, come sooner.
    pub games_in_flight_start: usize,
    /// Visits of a fast search (playout cap randomization: not a training sample); a full
    /// search has `search.visits`.
    pub fast_visits: u32,
    /// Share of steps searched in full.
    pub full_search_share: f32,
    /// Gumbel: `sample` (from π′ with the temperature), `winner` (the sequential-halving
    /// winner after the opening turns) or `visits` (the opening turns sampled from visit
    /// counts, the winner after).
    pub gumbel_play: GumbelPlay,
    /// Gumbel with `winner` or `visits`: whole turns at the start of a game still sampled
    /// (from π′, or from the visit counts).
    pub gumbel_sample_turns: u32,
    /// Temperature of the step choice at the first turn.
    pub temperature_start: f32,
    /// Temperature the schedule decays towards.
    pub temperature_end: f32,
    /// Turns over which the temperature's distance to its end value halves.
    pub temperature_halflife: f32,
    /// Opening diversity: each game opens with a number of uniformly random whole turns
    /// drawn uniformly from 0 to this (0: none), unsearched and not training samples.
    pub opening_random_turns: u32,
    /// Balanced openings: with a check (`alphabeta:DEPTH:MARGIN`, as `openings --check`),
    /// the random opening is drawn again while the check calls it decided or it is a
    /// position of the game's shipped evaluation suite ([`crate::selfplay::opening`]);
    /// `none`: every draw is kept.
    pub balanced_openings: DecidedCheck,
    /// Whole turns after which a game is adjudicated a draw; by default the rules' one
    /// default cap ([`super::rules::PLY_CAP`]; in older configs 0 meant it, and is read so).
    pub ply_cap: u32,
    /// A side resigns when the search's value for it stays below this (with calibration:
    /// the highest threshold calibration may pick)...
    pub resign_threshold: f32,
    /// ...for this many of its consecutive searched steps (0 disables resignation).
    pub resign_consecutive: u32,
    /// Share of games played through with resignation off, to measure false resignations.
    pub resign_playthrough: f32,
    /// Calibrate each side's threshold from the played-through games, and count only full
    /// searches toward it ([`crate::selfplay::resign`]); false: the fixed threshold, every search.
    pub resign_calibrate: bool,
    /// Calibration: the largest share of false resignations allowed.
    pub resign_false_rate: f32,
    /// Calibration: would-be resignations needed before a threshold is trusted.
    pub resign_min_samples: usize,
    /// Calibration: played-through games per side remembered.
    pub resign_history: usize,
    /// `between_games` or `at_once`.
    pub new_weights: NewWeights,
    /// Share of new game slots that reanalyse a recent game with the newest net instead of
    /// playing a new one (MuZero Reanalyse; 0 = off). See [`crate::selfplay::reanalyse`].
    pub reanalyse_share: f32,
    /// How many of the newest games (of this process) reanalysis draws from.
    pub reanalyse_games: usize,
    /// Proven value targets: after a game, the exact solver tries its last searched
    /// positions with this many nodes each, and a proven one's class replaces the game's
    /// result as its value target ([`crate::selfplay::proven`]; 0: off).
    pub proven_nodes: u64,
    /// Share of new games in which one side (drawn at random) is played by an earlier
    /// checkpoint, `opponent_lag` checkpoints older than the current one (Polygames'
    /// tournament mode); its steps make no training samples (0: off).
    pub opponent_share: f32,
    /// How many checkpoints back that opponent is (the oldest kept while fewer exist).
    pub opponent_lag: usize,
}

impl SelfPlayConfig {
    /// Games a worker starts with when its net is at `model_step`: the start-up ramp applies
    /// to the step-0 net only (a later pool replaces a full one).
    pub fn first_games_in_flight(&self, model_step: u64) -> usize {
        if model_step == 0 && self.games_in_flight_start > 0 {
            self.games_in_flight_start.min(self.games_in_flight)
        } else {
            self.games_in_flight
        }
    }

    /// Checks every value's range, naming the first bad key.
    pub fn check(&self) -> Check {
        let s = self;
        first_failure(
            "selfplay.",
            &[
                (
                    "workers",
                    s.workers.within(1..=64),
                    "must be 1..=64 or \"auto\"",
                ),
                (
                    "games_in_flight",
                    (1..=4096).contains(&s.games_in_flight),
                    "must be 1..=4096",
                ),
                (
                    "games_in_flight_start",
                    s.games_in_flight_start <= 4096,
                    "must be 0..=4096",
                ),
                ("fast_visits", s.fast_visits >= 1, "must be at least 1"),
                (
                    "full_search_share",
                    s.full_search_share > 0.0 && s.full_search_share <= 1.0,
                    "must be in (0, 1]",
                ),
                (
                    "reanalyse_share",
                    (0.0..=0.9).contains(&s.reanalyse_share),
                    "must be in [0, 0.9] (some slots must play new games)",
                ),
                (
                    "reanalyse_games",
                    (1..=1_000_000).contains(&s.reanalyse_games),
                    "must be 1..=1000000",
                ),
            ],
        )
        .and_then(|_| check_play(s))
        .and_then(|_| check_resign(s))
    }
}

/// The keys of `[selfplay]` that shape how steps are chosen and games open.
fn check_play(s: &SelfPlayConfig) -> Check {
    first_failure(
        "selfplay.",
        &[
            (
                "temperature_start",
                s.temperature_start >= 0.0,
                "must be >= 0",
            ),
            ("temperature_end", s.temperature_end >= 0.0, "must be >= 0"),
            (
                "temperature_halflife",
                s.temperature_halflife > 0.0,
                "must be positive",
            ),
            (
                "ply_cap",
                (1..=100_000).contains(&s.ply_cap),
                "must be 1..=100000 (self-play needs a cap)",
            ),
            (
                "opening_random_turns",
                s.opening_random_turns <= 1000,
                "must be 0..=1000",
            ),
            (
                "balanced_openings",
                s.balanced_openings == DecidedCheck::None || s.opening_random_turns > 0,
                "needs random opening turns to draw (selfplay.opening_random_turns above 0)",
            ),
            (
                "groups",
                (1..=64).contains(&s.groups) && s.groups <= s.games_in_flight.max(1),
                "must be 1..=64 and at most games_in_flight",
            ),
            (
                "proven_nodes",
                s.proven_nodes <= 10_000_000,
                "must be 0..=10000000",
            ),
            (
                "opponent_share",
                (0.0..=0.9).contains(&s.opponent_share),
                "must be in [0, 0.9] (most games must train the current net)",
            ),
            (
                "opponent_lag",
                (1..=1000).contains(&s.opponent_lag),
                "must be 1..=1000",
            ),
        ],
    )
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            workers: Count::Auto,
            games_in_flight: 128,
            groups: 1,
            games_in_flight_start: 8,
            fast_visits: 16,
            full_search_share: 0.25,
            gumbel_play: GumbelPlay::Visits,
            gumbel_sample_turns: 8,
            temperature_start: 1.0,
            temperature_end: 0.25,
            temperature_halflife: 8.0,
            opening_random_turns: 4,
            balanced_openings: DecidedCheck::None,
            ply_cap: super::rules::PLY_CAP,
            resign_threshold: -0.9,
            resign_consecutive: 3,
            resign_playthrough: 0.1,
            resign_calibrate: false,
            resign_false_rate: 0.05,
            resign_min_samples: 20,
            resign_history: 400,
            new_weights: NewWeights::BetweenGames,
            reanalyse_share: 0.0,
            reanalyse_games: 1000,
            proven_nodes: 0,
            opponent_share: 0.0,
            opponent_lag: 10,
        }
    }
}

/// The resignation keys of `[selfplay]`.
fn check_resign(s: &SelfPlayConfig) -> Check {
    let unit = |v: f32| (0.0..=1.0).contains(&v);
    first_failure(
        "selfplay.",
        &[
            (
                "resign_threshold",
                (-1.0..=1.0).contains(&s.resign_threshold),
                "must be in [-1, 1]",
            ),
            (
                "resign_playthrough",
                unit(s.resign_playthrough),
                "must be in [0, 1]",
            ),
            (
                "resign_false_rate",
                unit(s.resign_false_rate),
                "must be in [0, 1]",
            ),
            (
                "resign_min_samples",
                s.resign_min_samples >= 1,
                "must be at least 1",
            ),
            (
                "resign_history",
                s.resign_history >= s.resign_min_samples,
                "must be at least selfplay.resign_min_samples",
            ),
        ],
    )
}
