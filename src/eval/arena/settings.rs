//! How a match is played: its settings.

use crate::config::search::SearchConfig;
use crate::eval::openings::OpeningRange;
use crate::eval::sprt::Sprt;
use crate::game::{GameKind, RulesConfig};
use crate::net::args::NetSettings;

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
