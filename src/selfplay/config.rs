//! Self-play settings (`[selfplay]` of a run config): what is particular to self-play on
//! top of the search (`[search]`, [`crate::search::config::SearchConfig`]): playout cap
//! randomization, the temperature schedule, how a Gumbel search's step is played,
//! resignation and when new weights are taken up.

use serde::{Deserialize, Serialize};

pub use crate::search::config::SearchKind;

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
    pub workers: crate::net::threads::Count,
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
    /// Whole turns after which a game is adjudicated a draw (0: the rules' own cap).
    pub ply_cap: u32,
    /// A side resigns when the search's value for it stays below this (with calibration:
    /// the highest threshold calibration may pick)...
    pub resign_threshold: f32,
    /// ...for this many of its consecutive searched steps (0 disables resignation).
    pub resign_consecutive: u32,
    /// Share of games played through with resignation off, to measure false resignations.
    pub resign_playthrough: f32,
    /// Calibrate each side's threshold from the played-through games, and count only full
    /// searches toward it ([`super::resign`]); false: the fixed threshold, every search.
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
    /// playing a new one (MuZero Reanalyse; 0 = off). See [`super::reanalyse`].
    pub reanalyse_share: f32,
    /// How many of the newest games (of this process) reanalysis draws from.
    pub reanalyse_games: usize,
    /// Proven value targets: after a game, the exact solver tries its last searched
    /// positions with this many nodes each, and a proven one's class replaces the game's
    /// result as its value target ([`super::proven`]; 0: off).
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

    /// The resignation settings.
    pub fn resign(&self) -> super::resign::ResignSettings {
        super::resign::ResignSettings {
            consecutive: self.resign_consecutive,
            threshold: self.resign_threshold,
            calibrate: self.resign_calibrate,
            max_false_rate: self.resign_false_rate,
            min_samples: self.resign_min_samples,
            history: self.resign_history,
        }
    }
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            workers: crate::net::threads::Count::Auto,
            games_in_flight: 128,
            groups: 1,
            games_in_flight_start: 8,
            fast_visits: 16,
            full_search_share: 0.25,
            gumbel_play: GumbelPlay::Sample,
            gumbel_sample_turns: 8,
            temperature_start: 1.0,
            temperature_end: 0.25,
            temperature_halflife: 8.0,
            opening_random_turns: 0,
            ply_cap: 300,
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
