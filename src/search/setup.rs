//! The tree's and the roots' settings ([`MctsConfig`], [`GumbelConfig`],
//! [`ForcedPlayouts`]) built from the run's search settings
//! ([`crate::config::search::SearchConfig`]); they have no defaults of their own.

use super::gumbel::GumbelConfig;
use super::puct::ForcedPlayouts;
use super::tree::MctsConfig;
use crate::config::search::SearchConfig;

impl SearchConfig {
    /// The PUCT settings of the tree; `noise` keeps the Dirichlet root noise (self-play's
    /// full searches), otherwise it is off.
    pub fn mcts(&self, noise: bool) -> MctsConfig {
        MctsConfig {
            c_puct: self.c_puct,
            fpu_reduction: self.fpu_reduction,
            dirichlet_alpha: if noise { self.dirichlet_alpha } else { 0.0 },
            dirichlet_fraction: if noise { self.dirichlet_fraction } else { 0.0 },
            solver: self.solver,
            rollouts: self.rollouts,
            rollout_weight: self.rollout_weight,
            root_policy_temperature: if noise {
                self.root_policy_temperature
            } else {
                1.0
            },
        }
    }

    /// The forced playouts of a PUCT search under these settings: self-play's full
    /// searches (`noise`) with `forced_playouts` set; none otherwise.
    pub fn forced_playouts(&self, noise: bool) -> Option<ForcedPlayouts> {
        (noise && self.forced_playouts > 0.0).then_some(ForcedPlayouts {
            k: self.forced_playouts,
            c_puct: self.c_puct,
        })
    }

    /// The Gumbel root settings.
    pub fn gumbel(&self) -> GumbelConfig {
        GumbelConfig {
            considered: self.considered,
            c_visit: self.c_visit,
            c_scale: self.c_scale,
            q_rescale: self.q_rescale,
            gumbel_scale: self.gumbel_scale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::search::SearchOverrides;

    #[test]
    fn the_solver_is_a_search_key_off_by_default_and_reaches_the_tree() {
        let default = SearchConfig::default();
        assert!(!default.solver && !default.mcts(false).solver);
        assert!(!toml::to_string(&default).unwrap().contains("solver"));
        let on = default
            .with(&SearchOverrides::parse("solver=true").unwrap())
            .unwrap();
        assert!(on.solver && on.mcts(true).solver && on.for_play().solver);
        assert!(on.describe().contains(" solver=true "), "{}", on.describe());
        assert!(SearchOverrides::parse("solver=maybe").is_err());
    }
}
