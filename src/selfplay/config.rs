//! Self-play settings (`[selfplay]` of a run config): search kind, visits, temperature,
//! resignation and when new weights are taken up.

use serde::{Deserialize, Serialize};

/// How root search targets are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchKind {
    /// Gumbel root (sequential halving, completed-Q policy target): good with few visits.
    Gumbel,
    /// PUCT with Dirichlet noise at the root; visit counts are the target.
    Puct,
}

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
    /// `gumbel` or `puct`.
    pub search: SearchKind,
    /// Visits of a full search (its position becomes a training sample).
    pub full_visits: u32,
    /// Visits of a fast search (playout cap randomization: not a training sample).
    pub fast_visits: u32,
    /// Share of steps searched in full.
    pub full_search_share: f32,
    /// Gumbel: root steps considered (k).
    pub gumbel_considered: usize,
    /// PUCT exploration constant.
    pub c_puct: f32,
    /// PUCT first-play-urgency reduction.
    pub fpu_reduction: f32,
    /// PUCT: Dirichlet noise concentration at the root of full searches.
    pub dirichlet_alpha: f32,
    /// PUCT: share of the root prior replaced by noise.
    pub dirichlet_fraction: f32,
    /// Temperature of the step choice at the first turn.
    pub temperature_start: f32,
    /// Temperature the schedule decays towards.
    pub temperature_end: f32,
    /// Turns over which the temperature's distance to its end value halves.
    pub temperature_halflife: f32,
    /// Whole turns after which a game is adjudicated a draw (0: the rules' own cap).
    pub ply_cap: u32,
    /// A side resigns when the search's value for it stays below this...
    pub resign_threshold: f32,
    /// ...for this many of its consecutive searched steps (0 disables resignation).
    pub resign_consecutive: u32,
    /// Share of games played through with resignation off, to measure false resignations.
    pub resign_playthrough: f32,
    /// `between_games` or `at_once`.
    pub new_weights: NewWeights,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            workers: crate::net::threads::Count::Auto,
            games_in_flight: 128,
            search: SearchKind::Gumbel,
            full_visits: 64,
            fast_visits: 16,
            full_search_share: 0.25,
            gumbel_considered: 8,
            c_puct: 1.5,
            fpu_reduction: 0.25,
            dirichlet_alpha: 0.3,
            dirichlet_fraction: 0.25,
            temperature_start: 1.0,
            temperature_end: 0.25,
            temperature_halflife: 8.0,
            ply_cap: 300,
            resign_threshold: -0.9,
            resign_consecutive: 3,
            resign_playthrough: 0.1,
            new_weights: NewWeights::BetweenGames,
        }
    }
}
