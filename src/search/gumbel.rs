//! The Gumbel root ("Policy improvement by planning with Gumbel", Danihelka et al., ICLR
//! 2022): Gumbel-top-k sampling of the root steps, sequential halving of the simulation
//! budget among them, and the improved policy target from completed Q-values. Below the
//! root the tree search is the ordinary PUCT of [`super::tree`].
//!
//! A [`GumbelRoot`] is a schedule: it says which root child the next simulation goes
//! through, so many trees can run it in lockstep and batch their leaves.

use rand::{Rng, RngCore};

use super::root::{most_visited, RootSearch, SearchResult};
use super::tree::{ChildStats, Mcts};
use crate::game::{Action, GameState};

/// The Gumbel root's settings, built from the one set of search settings by
/// [`SearchConfig::gumbel`](crate::config::search::SearchConfig::gumbel) (they have no defaults of their own).
#[derive(Clone, Debug, PartialEq)]
pub struct GumbelConfig {
    /// Root steps considered (k of Gumbel-top-k).
    pub considered: usize,
    /// σ's visit offset: σ(q) = (c_visit + max visits) · c_scale · q.
    pub c_visit: f32,
    /// σ's scale.
    pub c_scale: f32,
    /// Rescale completed Q by min and max, mixed from the net's raw value (mctx).
    pub q_rescale: bool,
    /// Scale of the Gumbel noise on the root's log priors (0: none, deterministic).
    pub gumbel_scale: f32,
}

/// The sequential-halving schedule of one root.
#[derive(Clone, Debug)]
pub struct GumbelRoot {
    config: GumbelConfig,
    budget: u32,
    /// Gumbel noise plus log prior, per root child (filled once the root is expanded).
    scores: Vec<f32>,
    /// Root-child indices still in the running.
    remaining: Vec<usize>,
    /// Simulations each remaining child gets in the current phase.
    per_child: u32,
    /// Simulations each remaining child has had in the current phase.
    given: Vec<u32>,
    /// Simulations used so far (root expansion included).
    used: u32,
    phases_left: u32,
}

impl GumbelRoot {
    /// A schedule for `budget` simulations (at least one).
    pub fn new(config: GumbelConfig, budget: u32) -> GumbelRoot {
        GumbelRoot {
            config,
            budget: budget.max(1),
            scores: Vec::new(),
            remaining: Vec::new(),
            per_child: 0,
            given: Vec::new(),
            used: 0,
            phases_left: 0,
        }
    }

    /// Samples the Gumbel noise and the top-k root steps; call once the root is expanded.
    fn start<S: GameState>(&mut self, tree: &Mcts<S>, rng: &mut impl Rng) {
        let children = tree.root_children();
        let scale = self.config.gumbel_scale;
        self.scores = children
            .iter()
            .map(|c| {
                let noise = if scale > 0.0 {
                    let u: f32 = rng.gen_range(f32::EPSILON..1.0);
                    scale * -(-u.ln()).ln()
                } else {
                    0.0
                };
                noise + c.prior.max(1e-12).ln()
            })
            .collect();
        let mut order: Vec<usize> = (0..children.len()).collect();
        order.sort_by(|&a, &b| self.scores[b].total_cmp(&self.scores[a]));
        let left = self.budget.saturating_sub(self.used).max(1) as usize;
        order.truncate(self.config.considered.max(1).min(children.len()).min(left));
        self.remaining = order;
        self.phases_left = (self.remaining.len() as f32).log2().ceil().max(1.0) as u32;
        self.plan_phase();
    }

    fn plan_phase(&mut self) {
        let left = self.budget.saturating_sub(self.used);
        let share = left / (self.phases_left.max(1) * self.remaining.len() as u32).max(1);
        self.per_child = share.max(1);
        self.given = vec![0; self.remaining.len()];
    }

    /// The root child the next simulation must go through; `None` when the budget is spent.
    /// `Some(None)` asks for the root itself to be evaluated.
    fn schedule<S: GameState>(
        &mut self,
        tree: &mut Mcts<S>,
        rng: &mut impl Rng,
    ) -> Option<Option<usize>> {
        if self.used >= self.budget {
            return None;
        }
        if !tree.root_expanded() {
            return Some(None);
        }
        if self.remaining.is_empty() {
            tree.temper_root_priors();
            self.start(tree, rng);
            if self.remaining.is_empty() {
                return None; // terminal root
            }
        }
        if let Some(i) = (0..self.remaining.len()).find(|&i| self.given[i] < self.per_child) {
            self.given[i] += 1;
            return Some(Some(self.remaining[i]));
        }
        // Phase over: keep the better half by g + logits + σ(q̂).
        if self.remaining.len() > 1 {
            let keep = self.remaining.len().div_ceil(2);
            let children = tree.root_children();
            let sigma_q = self.sigma_q(&children, &self.completed(tree, &children));
            self.remaining.sort_by(|&a, &b| {
                let sa = self.scores[a] + sigma_q[a];
                let sb = self.scores[b] + sigma_q[b];
                sb.total_cmp(&sa)
            });
            self.remaining.truncate(keep);
        }
        self.phases_left = self.phases_left.saturating_sub(1).max(1);
        self.plan_phase();
        self.given[0] += 1;
        Some(Some(self.remaining[0]))
    }

    /// The completed Q-values of the root's children, from the root's mean value or, with
    /// `q_rescale`, from the net's raw value.
    fn completed<S: GameState>(&self, tree: &Mcts<S>, children: &[ChildStats]) -> Vec<f32> {
        let base = if self.config.q_rescale {
            tree.root_net_value()
        } else {
            tree.root_value()
        };
        completed_q(children, base)
    }

    /// σ(completed q̂) per root child: (c_visit + max visits) · c_scale · q̃, where q̃ is
    /// q̂ mapped to [0, 1] ([`q_unit`]).
    fn sigma_q(&self, children: &[ChildStats], completed: &[f32]) -> Vec<f32> {
        let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0) as f32;
        let sigma = (self.config.c_visit + max_visits) * self.config.c_scale;
        q_unit(completed, self.config.q_rescale)
            .into_iter()
            .map(|q| sigma * q)
            .collect()
    }

    /// The step to play and the improved policy target, from the tree's root statistics.
    fn outcome<S: GameState>(&self, tree: &Mcts<S>) -> Option<SearchResult> {
        let children = tree.root_children();
        if children.is_empty() {
            return None;
        }
        let completed = self.completed(tree, &children);
        let sigma_q = self.sigma_q(&children, &completed);
        // Improved policy: softmax(log prior + σ(completed q)).
        let logits: Vec<f32> = children
            .iter()
            .zip(&sigma_q)
            .map(|(c, &sq)| c.prior.max(1e-12).ln() + sq)
            .collect();
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exps: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
        let total: f32 = exps.iter().sum();
        let policy: Vec<(Action, f32)> = children
            .iter()
            .zip(exps)
            .map(|(c, e)| (c.action, e / total))
            .collect();
        // The value the target implies: Σ π′ · q̂ (not the root's mean, which counts the
        // halving's forced visits to weak steps).
        let value = policy.iter().zip(&completed).map(|(p, q)| p.1 * q).sum();
        // The step: the best remaining candidate by g + logits + σ(q̂) (the move choice of
        // visit counts when the schedule never started, as with a budget of one).
        let best = if let Some(win) = tree.proven_win_child() {
            win // a proven win, even one the halving dropped before its proof
        } else if self.remaining.is_empty() {
            most_visited(&children)?
        } else {
            *self.remaining.iter().max_by(|&&a, &&b| {
                let sa = self.scores[a] + sigma_q[a];
                let sb = self.scores[b] + sigma_q[b];
                sa.total_cmp(&sb)
            })?
        };
        Some(SearchResult {
            action: children[best].action,
            policy,
            value,
            visits: tree.root_visits(),
        })
    }
}

impl<S: GameState> RootSearch<S> for GumbelRoot {
    fn next(&mut self, tree: &mut Mcts<S>, mut rng: &mut dyn RngCore) -> Option<Option<usize>> {
        self.schedule(tree, &mut rng)
    }

    fn count_simulation(&mut self) {
        self.used += 1;
    }

    fn finish(&self, tree: &Mcts<S>) -> Option<SearchResult> {
        self.outcome(tree)
    }
}

/// Completed Q-values mapped to [0, 1]: by their min and max (`rescale`, mctx's
/// `rescale_values`; all equal map to 0) or from [-1, 1].
pub fn q_unit(completed: &[f32], rescale: bool) -> Vec<f32> {
    if !rescale {
        return completed.iter().map(|q| (q + 1.0) / 2.0).collect();
    }
    let min = completed.iter().copied().fold(f32::INFINITY, f32::min);
    let max = completed.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let range = (max - min).max(1e-8);
    completed.iter().map(|q| (q - min) / range).collect()
}

/// Completed Q-values: a visited child's own Q; an unvisited child's the mixed value
/// v_mix = (v̂ + Σ_b N_b / Σ_{b visited} π_b · Σ_{b visited} π_b q_b) / (1 + Σ_b N_b).
pub fn completed_q(children: &[ChildStats], root_value: f32) -> Vec<f32> {
    let total_visits: f32 = children.iter().map(|c| c.visits as f32).sum();
    let visited_prior: f32 = children
        .iter()
        .filter(|c| c.visits > 0)
        .map(|c| c.prior)
        .sum();
    let weighted_q: f32 = children
        .iter()
        .filter(|c| c.visits > 0)
        .map(|c| c.prior * c.q)
        .sum();
    let v_mix = if visited_prior > 0.0 {
        (root_value + total_visits / visited_prior * weighted_q) / (1.0 + total_visits)
    } else {
        root_value
    };
    children
        .iter()
        .map(|c| if c.visits > 0 { c.q } else { v_mix })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::q_unit;

    #[test]
    fn q_unit_maps_to_the_unit_interval_by_range_or_by_min_and_max() {
        assert_eq!(q_unit(&[-1.0, 0.0, 1.0], false), vec![0.0, 0.5, 1.0]);
        // Rescaled: the worst step at 0, the best at 1, whatever the spread.
        let r = q_unit(&[-0.93, -0.9, -0.87], true);
        assert!(r[0].abs() < 1e-5 && (r[1] - 0.5).abs() < 1e-3 && (r[2] - 1.0).abs() < 1e-5);
        assert_eq!(q_unit(&[0.3, 0.3], true), vec![0.0, 0.0]);
    }
}
