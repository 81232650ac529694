//! A self-play worker: one thread playing many games at once. Every round it searches all
//! its games together (their leaves go to the batched evaluator as one job), then plays one
//! step in each and starts new games in place of finished ones.
//!
//! Techniques (KataGo's): playout cap randomization (a share of steps get a full search and
//! become training samples, the rest a fast one), a temperature schedule on the step choice,
//! and resignation with a share of games played through to measure false resignations.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::config::{SearchKind, SelfPlayConfig};
use super::record::{GameRecord, StepRecord};
use crate::game::{Action, GameKind, GameState, RulesConfig, StepList};
use crate::net::encode::Encode;
use crate::net::evaluator::EvaluatorHandle;
use crate::net::net_eval::NetEvaluator;
use crate::search::gumbel::{GumbelConfig, GumbelRoot};
use crate::search::mcts::{Evaluate, Leaf, Mcts, MctsConfig};
use crate::util::game_seed;

/// Everything a worker needs besides its evaluator.
#[derive(Clone, Debug)]
pub struct WorkerSettings {
    /// The game.
    pub kind: GameKind,
    /// Rules of the games.
    pub rules: RulesConfig,
    /// Self-play settings.
    pub selfplay: SelfPlayConfig,
    /// The run's seed; game `n` is played with a seed derived from it and `n`.
    pub seed: u64,
}

/// State shared between the workers and the run that owns them.
#[derive(Debug, Default)]
pub struct SharedCounters {
    /// Set to stop the workers (unfinished games are dropped).
    pub stop: AtomicBool,
    /// Set to let the workers finish the games in flight, start no new ones, and exit.
    pub drain: AtomicBool,
    /// Index of the next game to start (a game's seed derives from it).
    pub next_game: AtomicU64,
    /// The training step of the weights self-play uses (recorded in each game).
    pub model_step: AtomicU64,
    /// Steps played (searched or forced) since the start of this process.
    pub steps_played: AtomicU64,
    /// Full searches finished (training samples made) since the start of this process.
    pub full_searches: AtomicU64,
    /// Searches finished (full and fast), i.e. steps played after a search.
    pub searched_steps: AtomicU64,
    /// Positions the searches sent to the net.
    pub net_calls: AtomicU64,
    /// Of those, positions with exactly one legal step (forced leaves).
    pub forced_net_calls: AtomicU64,
}

/// What the searches of self-play asked of the net, for the metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchCounts {
    /// Steps played after a search.
    pub searched_steps: u64,
    /// Positions sent to the net.
    pub net_calls: u64,
    /// Positions sent to the net that had exactly one legal step.
    pub forced_net_calls: u64,
}

impl SearchCounts {
    /// The counts of `counters`.
    pub fn read(counters: &SharedCounters) -> SearchCounts {
        SearchCounts {
            searched_steps: counters.searched_steps.load(Ordering::Relaxed),
            net_calls: counters.net_calls.load(Ordering::Relaxed),
            forced_net_calls: counters.forced_net_calls.load(Ordering::Relaxed),
        }
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &SearchCounts) {
        self.searched_steps += other.searched_steps;
        self.net_calls += other.net_calls;
        self.forced_net_calls += other.forced_net_calls;
    }

    /// The counts since `earlier` (a reading of the same counters).
    pub fn since(&self, earlier: &SearchCounts) -> SearchCounts {
        SearchCounts {
            searched_steps: self.searched_steps.saturating_sub(earlier.searched_steps),
            net_calls: self.net_calls.saturating_sub(earlier.net_calls),
            forced_net_calls: self.forced_net_calls.saturating_sub(earlier.forced_net_calls),
        }
    }

    /// Net calls per step played after a search.
    pub fn net_calls_per_searched_step(&self) -> f64 {
        self.net_calls as f64 / self.searched_steps.max(1) as f64
    }

    /// Share of the net calls made at positions with exactly one legal step.
    pub fn forced_leaf_share(&self) -> f64 {
        self.forced_net_calls as f64 / self.net_calls.max(1) as f64
    }
}

/// Counts `states` as net calls, and those with exactly one legal step as forced ones.
fn count_net_calls<S: GameState>(counters: &SharedCounters, states: &[&S], legal: &mut StepList) {
    let forced = states
        .iter()
        .filter(|s| {
            s.legal_steps(legal);
            legal.len() == 1
        })
        .count();
    counters
        .net_calls
        .fetch_add(states.len() as u64, Ordering::Relaxed);
    counters
        .forced_net_calls
        .fetch_add(forced as u64, Ordering::Relaxed);
}

/// One game in progress.
struct Slot<S: GameState> {
    tree: Mcts<S>,
    record: GameRecord,
    rng: StdRng,
    turns: u32,
    low_streak: [u32; 2],
    /// Whether this step's search is a full one.
    full: bool,
    /// The search of the current step, if one is running.
    search: Option<SlotSearch>,
}

/// The temperature of the step choice at whole turn `turn` (0-based): decays from
/// `start` towards `end`, halving the distance every `halflife` turns.
pub fn temperature(config: &SelfPlayConfig, turn: u32) -> f32 {
    let decay = 0.5f32.powf(turn as f32 / config.temperature_halflife);
    config.temperature_end + (config.temperature_start - config.temperature_end) * decay
}

/// Samples an index of `weights` with probability proportional to `weight^(1/temperature)`;
/// with a temperature near zero, the largest weight.
pub fn sample_with_temperature(weights: &[f32], temperature: f32, rng: &mut impl Rng) -> usize {
    let best = (0..weights.len())
        .max_by(|&a, &b| weights[a].total_cmp(&weights[b]))
        .unwrap_or(0);
    if temperature <= 0.01 || weights.len() < 2 {
        return best;
    }
    let max = weights[best].max(1e-30) as f64;
    let powered: Vec<f64> = weights
        .iter()
        .map(|&w| (w.max(0.0) as f64 / max).powf(1.0 / temperature as f64))
        .collect();
    let total: f64 = powered.iter().sum();
    if !(total > 0.0 && total.is_finite()) {
        return best;
    }
    let mut pick = rng.gen_range(0.0..total);
    for (i, w) in powered.iter().enumerate() {
        if pick < *w {
            return i;
        }
        pick -= w;
    }
    best
}

/// Plays games until `counters.stop` is set, sending each finished game to `finished`.
/// Returns when stopped, or when `finished` has no receiver or the evaluator is gone.
///
/// Every game runs its own search; each round takes one leaf from every game and sends them
/// to the net as one job. A game whose search is done plays its step and starts the next
/// search in the same round, so full and fast searches never leave the batch half empty.
pub fn run_worker<S: Encode>(
    settings: WorkerSettings,
    evaluator: EvaluatorHandle,
    counters: Arc<SharedCounters>,
    finished: Sender<GameRecord>,
) {
    let sp = &settings.selfplay;
    let mcts_config = MctsConfig {
        c_puct: sp.c_puct,
        fpu_reduction: sp.fpu_reduction,
        dirichlet_alpha: sp.dirichlet_alpha,
        dirichlet_fraction: sp.dirichlet_fraction,
    };
    let gumbel_config = GumbelConfig {
        considered: sp.gumbel_considered,
        ..GumbelConfig::default()
    };
    let mut net = NetEvaluator::new(evaluator);
    let mut slots: Vec<Slot<S>> = Vec::new();
    let mut legal = StepList::new();
    while !counters.stop.load(Ordering::Relaxed) {
        if !counters.drain.load(Ordering::Relaxed) {
            while slots.len() < sp.games_in_flight {
                slots.push(new_slot(&settings, &counters, &mcts_config));
            }
        } else if slots.is_empty() {
            return;
        }
        // One leaf from every game (finishing searches and games on the way).
        let mut leaves: Vec<(usize, Leaf<S>)> = Vec::with_capacity(slots.len());
        let mut i = 0;
        while i < slots.len() {
            match next_leaf(&mut slots[i], sp, &gumbel_config, &counters, &mut legal) {
                Some(leaf) => {
                    leaves.push((i, leaf));
                    i += 1;
                }
                None => {
                    let slot = slots.swap_remove(i);
                    if finished.send(slot.record).is_err() {
                        return;
                    }
                    // The slot moved into `i` has no leaf yet: it is visited next.
                }
            }
        }
        let states: Vec<&S> = leaves
            .iter()
            .filter(|(_, l)| !l.terminal)
            .map(|(_, l)| &l.state)
            .collect();
        count_net_calls(&counters, &states, &mut legal);
        let mut evals = Evaluate::<S>::evaluate(&mut net, &states).into_iter();
        if net.last_error.is_some() {
            return; // the evaluator is gone (shutting down)
        }
        for (i, leaf) in leaves {
            let eval = if leaf.terminal { None } else { evals.next() };
            let slot = &mut slots[i];
            slot.tree.expand_and_backup(leaf, eval.as_ref());
            if let Some(SlotSearch::Gumbel(root)) = &mut slot.search {
                root.record();
            }
        }
    }
}

/// The search a game is running for its current step.
enum SlotSearch {
    /// Gumbel root schedule.
    Gumbel(GumbelRoot),
    /// PUCT until the root has `target` visits; `noised` once root noise is in.
    Puct { target: u32, noised: bool },
}

/// The next leaf game `slot` needs evaluated. Plays steps whose search is done (and forced
/// steps) first; `None` when the game has ended (by the rules or by resignation).
fn next_leaf<S: Encode>(
    slot: &mut Slot<S>,
    sp: &SelfPlayConfig,
    gumbel: &GumbelConfig,
    counters: &SharedCounters,
    legal: &mut StepList,
) -> Option<Leaf<S>> {
    loop {
        if slot.search.is_none() {
            // A new step: forced steps are played without search.
            loop {
                if let Some(outcome) = slot.tree.root_state().outcome() {
                    slot.record.finish(outcome.winner, outcome.reason);
                    return None;
                }
                slot.tree.root_state().legal_steps(legal);
                if legal.len() != 1 {
                    break;
                }
                let action = legal[0];
                slot.record.steps.push(StepRecord {
                    action,
                    value: None,
                    target: Vec::new(),
                });
                play(slot, action, counters);
            }
            slot.full = slot.rng.gen::<f32>() < sp.full_search_share;
            let budget = if slot.full {
                sp.full_visits
            } else {
                sp.fast_visits
            };
            slot.search = Some(match sp.search {
                SearchKind::Gumbel => SlotSearch::Gumbel(GumbelRoot::new(gumbel.clone(), budget)),
                SearchKind::Puct => SlotSearch::Puct {
                    target: slot.tree.root_visits() + budget,
                    noised: !slot.full,
                },
            });
        }
        let via = match slot.search.as_mut().expect("a search") {
            SlotSearch::Gumbel(root) => root.next(&slot.tree, &mut slot.rng),
            SlotSearch::Puct { target, noised } => {
                if slot.tree.root_expanded() && !*noised {
                    slot.tree.add_root_noise(&mut slot.rng);
                    *noised = true;
                }
                (slot.tree.root_visits() < *target).then_some(None)
            }
        };
        if let Some(via) = via {
            return Some(slot.tree.select_leaf_via(via));
        }
        // The search is done: play its step (or resign).
        let searched = finish_search(slot, sp);
        slot.search = None;
        counters.searched_steps.fetch_add(1, Ordering::Relaxed);
        if slot.full {
            counters.full_searches.fetch_add(1, Ordering::Relaxed);
        }
        let side = slot.tree.root_state().side_to_move();
        slot.record.steps.push(StepRecord {
            action: searched.action,
            value: Some(searched.value),
            target: if slot.full {
                searched.target
            } else {
                Vec::new()
            },
        });
        if update_resignation(slot, sp, side.0 as usize, searched.value) {
            slot.record.resign(side);
            return None;
        }
        play(slot, searched.action, counters);
    }
}

/// The step a finished search plays, chosen with the temperature schedule, its root value
/// and policy target.
fn finish_search<S: Encode>(slot: &mut Slot<S>, sp: &SelfPlayConfig) -> Searched {
    let t = temperature(sp, slot.turns);
    let value = slot.tree.root_value();
    match slot.search.as_ref().expect("a search") {
        SlotSearch::Gumbel(root) => {
            let outcome = root
                .finish(&slot.tree)
                .expect("a non-terminal root has children");
            let action = if t <= 0.01 {
                outcome.action
            } else {
                let weights: Vec<f32> = outcome.policy.iter().map(|p| p.1).collect();
                outcome.policy[sample_with_temperature(&weights, t, &mut slot.rng)].0
            };
            Searched {
                action,
                value,
                target: outcome.policy,
            }
        }
        SlotSearch::Puct { .. } => {
            let children = slot.tree.root_children();
            let total: f32 = children
                .iter()
                .map(|c| c.visits as f32)
                .sum::<f32>()
                .max(1.0);
            let weights: Vec<f32> = children.iter().map(|c| c.visits as f32).collect();
            let pick = sample_with_temperature(&weights, t, &mut slot.rng);
            Searched {
                action: children[pick].action,
                value,
                target: children
                    .iter()
                    .map(|c| (c.action, c.visits as f32 / total))
                    .collect(),
            }
        }
    }
}

/// What one search gave for one game.
struct Searched {
    action: Action,
    /// The root value for the side to move.
    value: f32,
    /// The policy target over the legal steps.
    target: Vec<(Action, f32)>,
}

fn new_slot<S: GameState>(
    settings: &WorkerSettings,
    counters: &SharedCounters,
    mcts_config: &MctsConfig,
) -> Slot<S> {
    let index = counters.next_game.fetch_add(1, Ordering::Relaxed);
    let seed = game_seed(settings.seed, index);
    let mut rng = StdRng::seed_from_u64(seed);
    let state = S::start(settings.kind, settings.rules);
    let mut record = GameRecord::new(
        &state,
        settings.rules,
        seed,
        counters.model_step.load(Ordering::Relaxed),
    );
    record.index = index;
    record.played_through = settings.selfplay.resign_consecutive > 0
        && rng.gen::<f32>() < settings.selfplay.resign_playthrough;
    Slot {
        tree: Mcts::new(state, mcts_config.clone()),
        record,
        rng,
        turns: 0,
        low_streak: [0; 2],
        full: false,
        search: None,
    }
}

fn play<S: GameState>(slot: &mut Slot<S>, action: Action, counters: &SharedCounters) {
    slot.tree.advance(action);
    counters.steps_played.fetch_add(1, Ordering::Relaxed);
    if !slot.tree.root_state().turn_in_progress() {
        slot.turns += 1;
    }
}

/// Tracks `side`'s run of low values; true when it resigns now. Played-through games only
/// note the step at which the side would have resigned.
fn update_resignation<S: GameState>(
    slot: &mut Slot<S>,
    sp: &SelfPlayConfig,
    side: usize,
    value: f32,
) -> bool {
    if sp.resign_consecutive == 0 {
        return false;
    }
    if value < sp.resign_threshold {
        slot.low_streak[side] += 1;
    } else {
        slot.low_streak[side] = 0;
    }
    if slot.low_streak[side] < sp.resign_consecutive {
        return false;
    }
    if slot.record.played_through {
        let step = slot.record.steps.len() as u32 - 1;
        slot.record.would_resign[side].get_or_insert(step);
        false
    } else {
        true
    }
}
