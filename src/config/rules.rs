//! The rules' settings: the one default cap on whole turns ([`PLY_CAP`]), the rules a game is
//! played under when nothing else says ([`RulesConfig`]'s `Default`), and the rules to play
//! a trained model under ([`RulesConfig::for_play`]). The struct itself is the game's
//! (`crate::game`, below this module).

use crate::game::RulesConfig;

/// Whole turns after which a game is an adjudicated draw, unless a setting says otherwise:
/// self-play's `selfplay.ply_cap` and the rules of play with no trained rules to follow
/// (matches, the page, Python, `moves`) both default to it.
///
/// 1000, the rules' cap since the first version. Self-play's default was 300 until it was
/// made this one; every shipped config and every run's recorded config sets
/// `selfplay.ply_cap`, and the tests' games end long before either cap, so no game changes.
pub const PLY_CAP: u32 = 1000;

impl Default for RulesConfig {
    fn default() -> Self {
        RulesConfig {
            ply_cap: PLY_CAP,
            project_draws: true,
        }
    }
}

impl RulesConfig {
    /// The rules to play a trained model under: `ply_cap` when given (`--ply-cap`), else
    /// the rules the model was trained under, else the defaults; with the phrase naming
    /// which, for reports.
    pub fn for_play(
        ply_cap: Option<u32>,
        trained: Option<RulesConfig>,
    ) -> (RulesConfig, &'static str) {
        match (ply_cap, trained) {
            (Some(ply_cap), trained) => (
                RulesConfig {
                    ply_cap,
                    ..trained.unwrap_or_default()
                },
                "--ply-cap",
            ),
            (None, Some(trained)) => (trained, "the model's training rules"),
            (None, None) => (RulesConfig::default(), "the default"),
        }
    }
}
