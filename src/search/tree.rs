//! The search tree: PUCT selection over steps, expansion and backup, with values per
//! *side*. No drivers: the loop that runs simulations is [`super::run`], the schedules at
//! the root are [`super::root::RootSearch`]'s implementations.
//!
//! Several steps in a row may belong to one side (capture sequences, drops, the Team's two
//! seats), so the backup never flips signs by depth: each edge stores its value from the
//! view of the side that chose it. The tree is an arena of nodes; re-rooting after a step
//! keeps the chosen subtree (tree reuse) and compacts the arena.
//!
//! Evaluation is split from selection so that many trees (many games) can send their leaves
//! to the batcher together: [`Mcts::select_leaf`] returns a leaf to evaluate,
//! [`Mcts::expand_and_backup`] takes the evaluation back.
//!
//! **Forced steps.** A position with exactly one legal step (a capture continuation, a
//! single reply) is never sent to the net: selection walks on through such steps to the
//! next position with a choice (or the end of the game), and that position is evaluated.
//! Expansion then adds the chain of one-child nodes and backs the value up through it; each
//! node takes the value of the side that chose its step, so signs come out right whoever
//! moves along the chain.
//!
//! **Proofs (`solver`).** With the solver on, exact values climb the tree as in an
//! MCTS-solver (Winands et al. 2008; lc0's certainty propagation): a node is proven when a
//! child proves a win for its side to move, or when every child is proven (it takes the best
//! of them). Selection values a proven child by its exact value, stops at a proven node below
//! the root and backs its exact value up without a net call, the root's children report
//! exact values, and both roots play a proven win at the root whatever the visit counts.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Gamma};

use super::rollout::{playout_mean, terminal_values};
use crate::game::{Action, GameState, Side, StepList};
use crate::net::net_eval::LeafEval;

/// The tree's settings, built from the one set of search settings by
/// [`SearchConfig::mcts`](crate::config::search::SearchConfig::mcts) (they have no defaults of their own).
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this
    /// times the square root of the prior mass already visited (lc0's reduction).
    pub fpu_reduction: f32,
    /// Dirichlet noise concentration at the root (0 disables noise).
    pub dirichlet_alpha: f32,
    /// Share of the root prior replaced by noise.
    pub dirichlet_fraction: f32,
    /// Propagate proven values up the tree (MCTS-solver).
    pub solver: bool,
    /// Random playouts from each net-evaluated leaf, mixed into its value (0: none).
    pub rollouts: u32,
    /// The playouts' share of the leaf value.
    pub rollout_weight: f32,
    /// The root's priors are raised to 1/T at a search's start (1: unchanged).
    pub root_policy_temperature: f32,
}

const NO_CHILDREN: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Node {
    /// The step that leads here from the parent.
    action: Action,
    /// The parent's prior for that step.
    prior: f32,
    /// Completed simulations through this node.
    visits: u32,
    /// Sum of values, each from the view of the side that chose this node's step.
    value_sum: f32,
    /// Sum of the draw probabilities backed up with those values (the same for both sides):
    /// with `value_sum`, the node's win/draw/loss ([`Mcts::root_child_draws`]).
    draw_sum: f32,
    /// Index of the first child, or `NO_CHILDREN` while unexpanded.
    first_child: u32,
    /// Number of children.
    num_children: u32,
    /// The side that chose this node's step (the root: its own side to move). Values in
    /// `value_sum` are from this side's view.
    chooser: Side,
    /// The side to move in this node's position (set at expansion).
    side: Side,
    /// Exact values for both sides if the position is terminal.
    terminal: Option<[f32; 2]>,
    /// Exact values for both sides once proven from the children (solver only).
    proven: Option<[f32; 2]>,
    /// The leaf evaluation's value of this position for `side`: the net's, mixed with
    /// playouts under `rollouts` (set when a net evaluation expands it; NaN for terminal
    /// nodes and the single-step nodes walked through).
    net_value: f32,
}

impl Node {
    fn new(action: Action, prior: f32, chooser: Side) -> Node {
        Node {
            action,
            prior,
            chooser,
            visits: 0,
            value_sum: 0.0,
            draw_sum: 0.0,
            first_child: NO_CHILDREN,
            num_children: 0,
            side: Side(0),
            terminal: None,
            proven: None,
            net_value: f32::NAN,
        }
    }

    /// The exact values of a terminal or proven position.
    fn exact(&self) -> Option<[f32; 2]> {
        self.terminal.or(self.proven)
    }

    fn q(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }

    fn children(&self) -> std::ops::Range<usize> {
        if self.first_child == NO_CHILDREN {
            0..0
        } else {
            self.first_child as usize..(self.first_child + self.num_children) as usize
        }
    }
}

/// A leaf chosen by selection: the path from the root and the position to evaluate.
#[derive(Clone, Debug)]
pub struct Leaf<S> {
    path: Vec<u32>,
    /// Forced steps from the unexpanded node at the end of `path` to `state`, each with the
    /// side that plays it.
    forced: Vec<(Action, Side)>,
    /// The leaf's position (past any forced steps): never one with a single legal step.
    pub state: S,
    /// True when the value is known without the net (a terminal position, or one the
    /// solver proved): no evaluation is needed.
    pub terminal: bool,
}

/// The statistics of one root child after a search.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStats {
    /// The step.
    pub action: Action,
    /// Its prior (with any root noise).
    pub prior: f32,
    /// Its visit count.
    pub visits: u32,
    /// Its mean value for the side to move at the root.
    pub q: f32,
}

/// One search tree, rooted at a position.
#[derive(Clone, Debug)]
pub struct Mcts<S: GameState> {
    config: MctsConfig,
    nodes: Vec<Node>,
    root_state: S,
    scratch: StepList,
}

impl<S: GameState> Mcts<S> {
    /// A new tree at `state`.
    pub fn new(state: S, config: MctsConfig) -> Mcts<S> {
        Mcts {
            config,
            nodes: vec![Node::new(0, 1.0, state.side_to_move())],
            root_state: state,
            scratch: StepList::new(),
        }
    }

    /// The root position.
    pub fn root_state(&self) -> &S {
        &self.root_state
    }

    /// Simulations completed through the root.
    pub fn root_visits(&self) -> u32 {
        self.nodes[0].visits
    }

    /// True once the root has been evaluated and expanded.
    pub fn root_expanded(&self) -> bool {
        self.nodes[0].first_child != NO_CHILDREN || self.nodes[0].terminal.is_some()
    }

    /// The root's mean value for the side to move at the root.
    pub fn root_value(&self) -> f32 {
        let root = &self.nodes[0];
        if let Some(t) = root.exact() {
            return t[self.root_state.side_to_move().0 as usize];
        }
        self.value_for(0, self.root_state.side_to_move())
    }

    /// The net's own value of the root position for its side to move (the exact value of a
    /// terminal root; the mean value where the net never evaluated the root).
    pub fn root_net_value(&self) -> f32 {
        let root = &self.nodes[0];
        match root.terminal {
            Some(t) => t[self.root_state.side_to_move().0 as usize],
            None if !root.net_value.is_nan() => root.net_value,
            None => self.root_value(),
        }
    }

    /// Walks down by PUCT to a node that is unexpanded or terminal.
    pub fn select_leaf(&self) -> Leaf<S> {
        self.select_leaf_via(None)
    }

    /// Like [`Mcts::select_leaf`], but the first step goes through root child number
    /// `root_child` (an index into [`Mcts::root_children`]) when one is given and the root is
    /// expanded. This is how the Gumbel root directs its simulations.
    pub fn select_leaf_via(&self, root_child: Option<usize>) -> Leaf<S> {
        self.select_leaf_along(root_child.as_slice())
    }

    /// Like [`Mcts::select_leaf`], but the walk first follows `steps` from the root, each an
    /// index among its node's children ([`Mcts::children_along`]), as far as they lead
    /// through expanded nodes (not into a terminal or proven one below the root); PUCT
    /// beyond. This is how an analysis gives each line's turn, whole, its visits.
    pub fn select_leaf_along(&self, steps: &[usize]) -> Leaf<S> {
        let mut path = vec![0u32];
        let mut state = self.root_state.clone();
        let mut at = 0usize;
        for &k in steps {
            let node = &self.nodes[at];
            let stop = node.terminal.is_some() || (at != 0 && node.proven.is_some());
            if stop || node.first_child == NO_CHILDREN || k >= node.num_children as usize {
                break;
            }
            at = node.first_child as usize + k;
            state.apply_step(self.nodes[at].action);
            path.push(at as u32);
        }
        loop {
            let node = &self.nodes[at];
            // A proven node below the root is a leaf of known value; the root's children are
            // still searched, to choose among them.
            if node.terminal.is_some() || (at != 0 && node.proven.is_some()) {
                return Leaf {
                    path,
                    forced: Vec::new(),
                    state,
                    terminal: true,
                };
            }
            if node.first_child == NO_CHILDREN {
                let forced = walk_forced(&mut state);
                let terminal = state.outcome().is_some();
                return Leaf {
                    path,
                    forced,
                    state,
                    terminal,
                };
            }
            let child = self.best_child(at);
            state.apply_step(self.nodes[child].action);
            path.push(child as u32);
            at = child;
        }
    }

    fn best_child(&self, at: usize) -> usize {
        let node = &self.nodes[at];
        let sqrt_n = (node.visits.max(1) as f32).sqrt();
        let visited_mass: f32 = node
            .children()
            .filter(|&c| self.nodes[c].visits > 0)
            .map(|c| self.nodes[c].prior)
            .sum();
        let parent_q = if node.visits > 0 {
            // The parent's value from its own side to move's view.
            self.value_for(at, node.side)
        } else {
            0.0
        };
        let mut fpu = parent_q - self.config.fpu_reduction * visited_mass.sqrt();
        if self.config.solver {
            // Below a proven loss's -1, unvisited steps would wait behind proven losses.
            fpu = fpu.max(-1.0);
        }
        let mut best = node.first_child as usize;
        let mut best_score = f32::NEG_INFINITY;
        for c in node.children() {
            let child = &self.nodes[c];
            let q = match child.proven {
                Some(exact) => exact[child.chooser.0 as usize],
                None if child.visits > 0 => child.q(),
                None => fpu,
            };
            let u = self.config.c_puct * child.prior * sqrt_n / (1.0 + child.visits as f32);
            if q + u > best_score {
                best_score = q + u;
                best = c;
            }
        }
        best
    }

    /// Mean value of node `at` for `side` (two sides: one's gain is the other's loss).
    fn value_for(&self, at: usize, side: Side) -> f32 {
        let node = &self.nodes[at];
        if node.chooser == side {
            node.q()
        } else {
            -node.q()
        }
    }

    /// Expands the leaf with its evaluation (ignored for terminal leaves) and backs the value
    /// up the path.
    pub fn expand_and_backup(&mut self, mut leaf: Leaf<S>, eval: Option<&LeafEval>) {
        let mut at = *leaf.path.last().expect("non-empty path") as usize;
        for &(action, side) in &leaf.forced {
            if self.nodes[at].first_child == NO_CHILDREN {
                let child = self.nodes.len() as u32;
                self.nodes.push(Node::new(action, 1.0, side));
                let node = &mut self.nodes[at];
                node.first_child = child;
                node.num_children = 1;
                node.side = side;
            }
            at = self.nodes[at].first_child as usize;
            leaf.path.push(at as u32);
        }
        let (values, draw): ([f32; 2], f32) = if let Some(t) = terminal_values(&leaf.state) {
            self.nodes[at].terminal = Some(t);
            (t, exact_draw(t))
        } else if let Some(t) = self.nodes[at].exact() {
            (t, exact_draw(t))
        } else {
            let eval = eval.expect("a non-terminal leaf needs an evaluation");
            let side = leaf.state.side_to_move();
            let value = self.leaf_value(&leaf.state, eval.value);
            if self.nodes[at].first_child == NO_CHILDREN {
                self.expand(at, &leaf.state, &eval.priors);
                self.nodes[at].net_value = value;
            }
            let mut v = [0.0; 2];
            v[side.0 as usize] = value;
            v[side.opponent().0 as usize] = -value;
            // Playouts mixed into the value carry no draw probability of their own.
            let weight = if self.config.rollouts == 0 {
                0.0
            } else {
                self.config.rollout_weight
            };
            (v, (1.0 - weight) * eval.draw)
        };
        for &n in &leaf.path {
            let node = &mut self.nodes[n as usize];
            node.visits += 1;
            node.value_sum += values[node.chooser.0 as usize];
            node.draw_sum += draw;
        }
        if self.config.solver {
            self.propagate_proofs(&leaf.path);
        }
    }

    /// The value of a net-evaluated leaf for its side to move: the net's `net` value, mixed
    /// with the mean of `rollouts` random playouts when they are on. The playouts' seed comes
    /// from the position and the tree's size, so a search is repeatable.
    fn leaf_value(&self, state: &S, net: f32) -> f32 {
        let (playouts, weight) = (self.config.rollouts, self.config.rollout_weight);
        if playouts == 0 {
            return net;
        }
        let seed = state.position_hash() ^ (self.nodes.len() as u64).rotate_left(32);
        let mean = playout_mean(state, playouts, &mut StdRng::seed_from_u64(seed));
        (1.0 - weight) * net + weight * mean
    }

    /// Proves what the leaf's value settles along `path`, from the leaf up, stopping at the
    /// first node that stays unproven (nothing above it changes).
    fn propagate_proofs(&mut self, path: &[u32]) {
        for &n in path.iter().rev() {
            let at = n as usize;
            if self.nodes[at].exact().is_some() {
                continue;
            }
            match self.proof_from_children(at) {
                Some(values) => self.nodes[at].proven = Some(values),
                None => return,
            }
        }
    }

    /// The exact values of node `at` if its children prove them: a child that wins for the
    /// side to move, or the best of its children when every one is proven.
    fn proof_from_children(&self, at: usize) -> Option<[f32; 2]> {
        let node = &self.nodes[at];
        let side = node.side.0 as usize;
        let (mut best, mut all_proven) = (None::<[f32; 2]>, true);
        for c in node.children() {
            match self.nodes[c].exact() {
                Some(exact) if exact[side] >= 1.0 => return Some(exact),
                Some(exact) if best.is_none_or(|b| exact[side] > b[side]) => best = Some(exact),
                Some(_) => {}
                None => all_proven = false,
            }
        }
        best.filter(|_| all_proven)
    }

    /// The root's exact values for both sides (by [`Side`] index) once the solver has
    /// proven it, or the game's result at a terminal root.
    pub fn root_proven(&self) -> Option<[f32; 2]> {
        self.nodes[0].exact()
    }

    /// With the solver on, a root child proven to win for the side to move (an index into
    /// [`Mcts::root_children`]): the step to play whatever the visit counts say, since a
    /// proof can come after another step gathered the visits.
    pub fn proven_win_child(&self) -> Option<usize> {
        if !self.config.solver {
            return None;
        }
        let root = &self.nodes[0];
        let side = self.root_state.side_to_move().0 as usize;
        root.children()
            .position(|c| self.nodes[c].exact().is_some_and(|v| v[side] >= 1.0))
    }

    fn expand(&mut self, at: usize, state: &S, priors: &[f32]) {
        let mut steps = std::mem::take(&mut self.scratch);
        state.legal_steps(&mut steps);
        debug_assert_eq!(steps.len(), priors.len(), "priors match legal steps");
        let first = self.nodes.len() as u32;
        let side = state.side_to_move();
        for (i, &a) in steps.iter().enumerate() {
            self.nodes
                .push(Node::new(a, priors.get(i).copied().unwrap_or(0.0), side));
        }
        let node = &mut self.nodes[at];
        node.first_child = first;
        node.num_children = steps.len() as u32;
        node.side = side;
        self.scratch = steps;
    }

    /// Mixes Dirichlet noise into the root's priors (call once the root is expanded).
    pub fn add_root_noise(&mut self, rng: &mut impl Rng) {
        let alpha = self.config.dirichlet_alpha;
        let frac = self.config.dirichlet_fraction;
        let range = self.nodes[0].children();
        if alpha <= 0.0 || frac <= 0.0 || range.len() < 2 {
            return;
        }
        let gamma = Gamma::new(alpha, 1.0).expect("positive alpha");
        let noise: Vec<f32> = range.clone().map(|_| gamma.sample(rng)).collect();
        let total: f32 = noise.iter().sum();
        if total <= 0.0 {
            return;
        }
        for (c, n) in range.zip(noise) {
            let prior = &mut self.nodes[c].prior;
            *prior = (1.0 - frac) * *prior + frac * n / total;
        }
    }

    /// Raises the root's priors to 1/T (`root_policy_temperature`) and normalises them; call
    /// once per search, when the root is expanded. Nothing at T = 1.
    pub fn temper_root_priors(&mut self) {
        let t = self.config.root_policy_temperature;
        let range = self.nodes[0].children();
        if t == 1.0 || range.len() < 2 {
            return;
        }
        let tempered: Vec<f32> = range
            .clone()
            .map(|c| self.nodes[c].prior.max(1e-12).powf(1.0 / t))
            .collect();
        let total: f32 = tempered.iter().sum();
        for (c, p) in range.zip(tempered) {
            self.nodes[c].prior = p / total;
        }
    }

    /// Visit counts and values of the root's children.
    pub fn root_children(&self) -> Vec<ChildStats> {
        self.children_of(0)
    }

    /// Visit counts and values of the children of the node that `steps` reach from the root
    /// (each an index among its node's children), each value for the side that chose its
    /// step; none while that node is unexpanded, or when `steps` leave the tree.
    pub fn children_along(&self, steps: &[usize]) -> Vec<ChildStats> {
        let mut at = 0usize;
        for &k in steps {
            let children = self.nodes[at].children();
            if k >= children.len() {
                return Vec::new();
            }
            at = children.start + k;
        }
        self.children_of(at)
    }

    fn children_of(&self, at: usize) -> Vec<ChildStats> {
        self.nodes[at]
            .children()
            .map(|c| {
                let n = &self.nodes[c];
                ChildStats {
                    action: n.action,
                    prior: n.prior,
                    visits: n.visits,
                    // A proven step reports its exact value, whatever its mean says.
                    q: n.proven.map_or(n.q(), |exact| exact[n.chooser.0 as usize]),
                }
            })
            .collect()
    }

    /// The draw probability of each root child (aligned with [`Mcts::root_children`]): the
    /// mean of those backed up through it, or 1 for a proven draw and 0 for a proven win or loss (0 unvisited). With a
    /// child's `q` it makes the child's win/draw/loss: ((1 + q − d) / 2, d, (1 − q − d) / 2).
    pub fn root_child_draws(&self) -> Vec<f32> {
        self.nodes[0].children().map(|c| self.draw_of(c)).collect()
    }

    /// The root's draw probability, as [`Mcts::root_child_draws`] has it for a child.
    pub fn root_draw(&self) -> f32 {
        self.draw_of(0)
    }

    fn draw_of(&self, at: usize) -> f32 {
        let node = &self.nodes[at];
        match node.exact() {
            Some(exact) => exact_draw(exact),
            None if node.visits > 0 => node.draw_sum / node.visits as f32,
            None => 0.0,
        }
    }

    /// Moves the root to the child reached by `action`, keeping its subtree (tree reuse).
    /// An action that is not a root child starts a fresh tree.
    pub fn advance(&mut self, action: Action) {
        let mut next_state = self.root_state.clone();
        next_state.apply_step(action);
        let child = self.nodes[0]
            .children()
            .find(|&c| self.nodes[c].action == action);
        let mut nodes = vec![Node::new(0, 1.0, self.root_state.side_to_move())];
        if let Some(child) = child {
            // Copy the subtree breadth-first so children stay contiguous.
            nodes[0] = self.nodes[child].clone();
            let mut queue = vec![(child, 0usize)];
            while let Some((old, new)) = queue.pop() {
                let range = self.nodes[old].children();
                if range.is_empty() {
                    continue;
                }
                let first = nodes.len();
                for c in range.clone() {
                    nodes.push(self.nodes[c].clone());
                }
                nodes[new].first_child = first as u32;
                for (k, c) in range.enumerate() {
                    queue.push((c, first + k));
                }
            }
        }
        self.nodes = nodes;
        self.root_state = next_state;
    }

    /// Nodes in the arena (tests of tree reuse).
    #[cfg(test)]
    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }
}

/// The draw probability of exact values: 1 for a draw, 0 for a win or a loss (a result
/// scored in between, the rest of the way to its value).
fn exact_draw(exact: [f32; 2]) -> f32 {
    1.0 - exact[0].abs().min(1.0)
}

/// Plays the steps of `state` while it has exactly one legal step and the game goes on;
/// returns them, each with the side that played it.
fn walk_forced<S: GameState>(state: &mut S) -> Vec<(Action, Side)> {
    let mut forced = Vec::new();
    let mut steps = StepList::new();
    while state.outcome().is_none() {
        state.legal_steps(&mut steps);
        if steps.len() != 1 {
            break;
        }
        forced.push((steps[0], state.side_to_move()));
        state.apply_step(steps[0]);
    }
    forced
}
