//! A self-play worker: one thread playing many games at once. Every round it searches all
//! its games together (their leaves go to the batcher as one job), then plays one
//! step in each and starts new games in place of finished ones.
//!
//! Techniques (KataGo's): playout cap randomization (a share of steps get a full search and
//! become training samples, the rest a fast one), a temperature schedule on the step choice,
//! and resignation with a share of games played through to measure false resignations.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::opening::OpeningDraw;
use super::proven::label_proven;
use super::reanalyse::{Reanalysis, RecentGames};
use super::record::{GameRecord, StepRecord};
use super::resign::{ResignCalibrator, ResignSettings, ResignStreak};
use crate::config::search::{SearchConfig, SearchKind};
use crate::config::selfplay::{GumbelPlay, SelfPlayConfig};
use crate::config::RunConfig;
use crate::game::{Action, GameKind, GameState, RulesConfig, Side, StepList};
use crate::net::net_eval::{Evaluate, LeafEval};
use crate::net::NetError;
use crate::search::root::{policy_surprise, RootSearch, SearchResult};
use crate::search::run::{pipeline, start_search, Lockstep};
use crate::search::sample::sample_with_temperature;
use crate::search::tree::{Leaf, Mcts};
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
    /// Search settings (`visits`: of a full search).
    pub search: SearchConfig,
    /// The run's seed; game `n` is played with a seed derived from it and `n`.
    pub seed: u64,
    /// The per-side resign thresholds, calibrated from the played-through games of every
    /// worker (shared by the clones of these settings).
    pub resign: Arc<Mutex<ResignCalibrator>>,
    /// The newest finished games, which reanalysis draws from (shared like `resign`).
    pub recent: Arc<Mutex<RecentGames>>,
    /// Whether the worker has an earlier checkpoint's net beside the current one
    /// (`selfplay.opponent_share` of the games then seat it); [`run_worker`] sets it from
    /// the evaluators it is given.
    pub opponent: bool,
    /// How games open, from `selfplay`'s opening keys (shared like `resign`).
    pub openings: Arc<OpeningDraw>,
}

impl WorkerSettings {
    /// The settings of a run's self-play workers.
    pub fn of(config: &RunConfig) -> WorkerSettings {
        WorkerSettings::new(
            config.kind(),
            config.rules(),
            config.selfplay.clone(),
            config.search.clone(),
            config.seed,
        )
    }

    /// The settings of a run's self-play as it runs once training has begun: every worker
    /// starts with all its `games_in_flight` (the step-0 start-up ramp off), what benchmarks
    /// measure.
    pub fn steady_state(config: &RunConfig) -> WorkerSettings {
        let mut settings = WorkerSettings::of(config);
        settings.selfplay.games_in_flight_start = 0;
        settings
    }

    /// Settings with a fresh resignation calibrator.
    pub fn new(
        kind: GameKind,
        rules: RulesConfig,
        selfplay: SelfPlayConfig,
        search: SearchConfig,
        seed: u64,
    ) -> WorkerSettings {
        let resign = Arc::new(Mutex::new(ResignCalibrator::new(ResignSettings::of(
            &selfplay,
        ))));
        let held = if selfplay.reanalyse_share > 0.0 {
            selfplay.reanalyse_games
        } else {
            0
        };
        let recent = Arc::new(Mutex::new(RecentGames::new(held)));
        let openings = Arc::new(OpeningDraw::new(
            kind,
            rules,
            selfplay.opening_random_turns,
            selfplay.balanced_openings,
        ));
        WorkerSettings {
            kind,
            rules,
            selfplay,
            search,
            seed,
            resign,
            recent,
            opponent: false,
            openings,
        }
    }

    /// Per side, the resign threshold a game starting now plays under.
    fn resign_thresholds(&self) -> [Option<f32>; 2] {
        let calibrator = self.resign.lock().unwrap_or_else(|e| e.into_inner());
        [calibrator.threshold(0), calibrator.threshold(1)]
    }

    /// A recent game to reanalyse instead of a new game, when the draw for the game
    /// numbered `index` says so and there is one.
    fn reanalysis(&self, index: u64) -> Option<Reanalysis> {
        let share = self.selfplay.reanalyse_share;
        if share <= 0.0 {
            return None;
        }
        // A stream of its own, so that the games' seeds are the same with reanalysis on.
        let mut rng = StdRng::seed_from_u64(game_seed(self.seed ^ REANALYSE_SALT, index));
        if rng.gen::<f32>() >= share {
            return None;
        }
        let recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        recent.pick(&mut rng).map(Reanalysis::new)
    }

    /// Takes in a finished game played through with resignation off.
    fn calibrate(&self, record: &GameRecord, streaks: &[ResignStreak; 2]) {
        if !record.played_through {
            return;
        }
        let mut calibrator = self.resign.lock().unwrap_or_else(|e| e.into_inner());
        for (side, streak) in streaks.iter().enumerate() {
            let lost = record.winner.is_some_and(|w| w as usize != side);
            calibrator.observe(side, streak.score(), lost);
        }
    }
}

/// Mixed into the run's seed for the reanalysis draws.
const REANALYSE_SALT: u64 = 0x7265_616e_616c_7973;

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
    /// The training step of the earlier checkpoint that plays a seat of some games.
    pub opponent_step: AtomicU64,
    /// Steps played (searched or forced) since the start of this process.
    pub steps_played: AtomicU64,
    /// Full searches finished (training samples made) since the start of this process.
    pub full_searches: AtomicU64,
    /// Of those, searches that reanalysed a recent game's position.
    pub reanalysed_searches: AtomicU64,
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
    /// Full searches that reanalysed a recent game's position (samples not from new games).
    pub reanalysed: u64,
}

impl SearchCounts {
    /// The counts of `counters`.
    pub fn read(counters: &SharedCounters) -> SearchCounts {
        SearchCounts {
            searched_steps: counters.searched_steps.load(Ordering::Relaxed),
            net_calls: counters.net_calls.load(Ordering::Relaxed),
            forced_net_calls: counters.forced_net_calls.load(Ordering::Relaxed),
            reanalysed: counters.reanalysed_searches.load(Ordering::Relaxed),
        }
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &SearchCounts) {
        self.searched_steps += other.searched_steps;
        self.net_calls += other.net_calls;
        self.forced_net_calls += other.forced_net_calls;
        self.reanalysed += other.reanalysed;
    }

    /// The counts since `earlier` (a reading of the same counters).
    pub fn since(&self, earlier: &SearchCounts) -> SearchCounts {
        SearchCounts {
            searched_steps: self.searched_steps.saturating_sub(earlier.searched_steps),
            net_calls: self.net_calls.saturating_sub(earlier.net_calls),
            forced_net_calls: self
                .forced_net_calls
                .saturating_sub(earlier.forced_net_calls),
            reanalysed: self.reanalysed.saturating_sub(earlier.reanalysed),
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
    /// Per side, the recent root values that count toward resignation.
    resign: [ResignStreak; 2],
    /// Whether this step's search is a full one.
    full: bool,
    /// The search of the current step, if one is running.
    search: Option<Box<dyn RootSearch<S>>>,
    /// The game this slot reanalyses, if it replays one rather than playing a new one.
    replay: Option<Reanalysis>,
    /// The side an earlier checkpoint plays (`selfplay.opponent_share`), if any.
    opponent: Option<Side>,
    /// The net of the current search and of the tree's statistics: 0 the current one, 1
    /// the earlier checkpoint.
    net: usize,
}

/// The temperature of the step choice at whole turn `turn` (0-based): decays from
/// `start` towards `end`, halving the distance every `halflife` turns.
pub fn temperature(config: &SelfPlayConfig, turn: u32) -> f32 {
    let decay = 0.5f32.powf(turn as f32 / config.temperature_halflife);
    config.temperature_end + (config.temperature_start - config.temperature_end) * decay
}

/// Plays games until `counters.stop` is set, sending each finished game to `finished`.
/// Returns when stopped or drained, or when `finished` has no receiver; an error when the
/// net fails (an evaluator gone after the stop is no error).
///
/// Every game runs its own search; each round takes one leaf from every game and sends them
/// to the net as one job. A game whose search is done plays its step and starts the next
/// search in the same round, so full and fast searches never leave the batch half empty.
pub fn run_worker<S: GameState, E: Evaluate<S>>(
    mut settings: WorkerSettings,
    net: E,
    opponent: Option<E>,
    counters: Arc<SharedCounters>,
    finished: Sender<GameRecord>,
) -> Result<(), NetError> {
    settings.opponent = opponent.is_some();
    // `selfplay.groups` groups share the games, each with a batch of its own in flight.
    let groups = settings.selfplay.groups.max(1);
    let first = settings
        .selfplay
        .first_games_in_flight(counters.model_step.load(Ordering::Relaxed));
    let mut games: Vec<Games<S>> = (0..groups)
        .map(|g| Games {
            settings: &settings,
            counters: &counters,
            finished: &finished,
            slots: Vec::new(),
            in_flight: share_of(first, groups, g),
            cap: share_of(settings.selfplay.games_in_flight, groups, g),
            legal: StepList::new(),
        })
        .collect();
    let mut nets: Vec<E> = std::iter::once(net).chain(opponent).collect();
    let mut nets: Vec<&mut E> = nets.iter_mut().collect();
    match pipeline(&mut games, &mut nets) {
        Err(NetError::BatcherGone) if counters.stop.load(Ordering::Relaxed) => Ok(()),
        result => result,
    }
}

/// A worker's games in flight: [`run_worker`]'s lockstep.
struct Games<'a, S: GameState> {
    settings: &'a WorkerSettings,
    counters: &'a SharedCounters,
    finished: &'a Sender<GameRecord>,
    slots: Vec<Slot<S>>,
    /// Games to keep in flight now (grows to `cap` as games finish).
    in_flight: usize,
    /// This group's share of `games_in_flight`.
    cap: usize,
    legal: StepList,
}

/// Group `g`'s share of `total` games split over `groups` groups (at least one each).
fn share_of(total: usize, groups: usize, g: usize) -> usize {
    (total / groups + usize::from(g < total % groups)).max(1)
}

impl<S: GameState> Games<'_, S> {
    /// Hands a finished game on; false when no one receives games any more.
    fn finish(&mut self, mut slot: Slot<S>) -> bool {
        self.in_flight = (self.in_flight + 1).min(self.cap);
        let nodes = self.settings.selfplay.proven_nodes;
        if nodes > 0 && slot.replay.is_none() {
            if let Err(e) = label_proven::<S>(&mut slot.record, nodes) {
                eprintln!("warning: proven targets of game {}: {e}", slot.record.index);
            }
        }
        self.settings.calibrate(&slot.record, &slot.resign);
        if self.settings.selfplay.reanalyse_share > 0.0 {
            let mut recent = self
                .settings
                .recent
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            recent.push(&slot.record);
        }
        self.finished.send(slot.record).is_ok()
    }
}

impl<S: GameState> Lockstep<S> for Games<'_, S> {
    /// One leaf from every game (finishing searches and games on the way); `None` when
    /// stopped or drained, or when finished games have no receiver.
    fn leaves(&mut self) -> Option<Vec<(usize, Leaf<S>)>> {
        if self.counters.stop.load(Ordering::Relaxed) {
            return None;
        }
        if !self.counters.drain.load(Ordering::Relaxed) {
            while self.slots.len() < self.in_flight {
                self.slots.push(new_slot(self.settings, self.counters));
            }
        } else if self.slots.is_empty() {
            return None;
        }
        let mut leaves: Vec<(usize, Leaf<S>)> = Vec::with_capacity(self.slots.len());
        let mut i = 0;
        while i < self.slots.len() {
            let slot = &mut self.slots[i];
            match next_leaf(slot, self.settings, self.counters, &mut self.legal) {
                Some(leaf) => {
                    leaves.push((i, leaf));
                    i += 1;
                }
                None => {
                    let slot = self.slots.swap_remove(i);
                    if !self.finish(slot) {
                        return None;
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
        count_net_calls(self.counters, &states, &mut self.legal);
        Some(leaves)
    }

    fn backup(&mut self, i: usize, leaf: Leaf<S>, eval: Option<&LeafEval>) {
        let slot = &mut self.slots[i];
        slot.tree.expand_and_backup(leaf, eval);
        if let Some(search) = &mut slot.search {
            search.count_simulation();
        }
    }

    fn net(&self, i: usize) -> usize {
        self.slots[i].net
    }
}

/// Plays the forced steps at the start of the game's next step; false when the game has
/// ended by the rules.
fn play_forced<S: GameState>(
    slot: &mut Slot<S>,
    counters: &SharedCounters,
    legal: &mut StepList,
) -> bool {
    loop {
        if let Some(outcome) = slot.tree.root_state().outcome() {
            slot.record.finish(outcome.winner, outcome.reason);
            return false;
        }
        slot.tree.root_state().legal_steps(legal);
        if legal.len() != 1 {
            return true;
        }
        let action = legal[0];
        slot.record.steps.push(StepRecord::unsearched(action));
        play(slot, action, counters);
    }
}

/// The next leaf game `slot` needs evaluated. Plays steps whose search is done (and forced
/// steps) first; `None` when the game has ended (by the rules or by resignation).
fn next_leaf<S: GameState>(
    slot: &mut Slot<S>,
    settings: &WorkerSettings,
    counters: &SharedCounters,
    legal: &mut StepList,
) -> Option<Leaf<S>> {
    if slot.replay.is_some() {
        return next_reanalysed_leaf(slot, settings, counters);
    }
    let sp = &settings.selfplay;
    loop {
        if slot.search.is_none() {
            // A new step: forced steps are played without search.
            if !play_forced(slot, counters, legal) {
                return None;
            }
            slot.full = slot.rng.gen::<f32>() < sp.full_search_share;
            use_net_of_side(slot, settings);
            let budget = if slot.full {
                settings.search.visits
            } else {
                sp.fast_visits
            };
            slot.search = Some(start_search(
                &settings.search,
                &slot.tree,
                budget,
                slot.full,
            ));
        }
        let result = match advance_search(slot, counters) {
            Ok(leaf) => return Some(leaf),
            Err(result) => result,
        };
        // The search is done: play its step (or resign).
        let action = played_step(slot, settings, &result);
        let side = slot.tree.root_state().side_to_move();
        let value = result.value;
        let step = searched_step_record(slot, action, result);
        slot.record.steps.push(step);
        if update_resignation(slot, sp, side.0 as usize, value) {
            slot.record.resign(side);
            return None;
        }
        play(slot, action, counters);
    }
}

/// The record of `action` played (or replayed) after the slot's search gave `result`: its
/// value, and after a full search the policy target and its surprise.
fn searched_step_record<S: GameState>(
    slot: &Slot<S>,
    action: Action,
    result: SearchResult,
) -> StepRecord {
    // The earlier checkpoint's searches make no training samples.
    let full = slot.full && slot.net == 0;
    StepRecord {
        action,
        value: Some(result.value),
        surprise: full.then(|| policy_surprise(&result.policy, &slot.tree.root_children())),
        target: if full { result.policy } else { Vec::new() },
        proven: None,
    }
}

/// Runs the slot's search: its next leaf, or its result once it is done (counted).
fn advance_search<S: GameState>(
    slot: &mut Slot<S>,
    counters: &SharedCounters,
) -> Result<Leaf<S>, SearchResult> {
    let search = slot.search.as_mut().expect("a search");
    if let Some(via) = search.next(&mut slot.tree, &mut slot.rng) {
        return Ok(slot.tree.select_leaf_via(via));
    }
    let result = search
        .finish(&slot.tree)
        .expect("a non-terminal root has children");
    slot.search = None;
    counters.searched_steps.fetch_add(1, Ordering::Relaxed);
    if slot.full {
        counters.full_searches.fetch_add(1, Ordering::Relaxed);
    }
    Err(result)
}

/// The next leaf of a slot that reanalyses a game: a full search at each position the
/// source searched in full, its steps replayed in between; `None` when the source is done.
fn next_reanalysed_leaf<S: GameState>(
    slot: &mut Slot<S>,
    settings: &WorkerSettings,
    counters: &SharedCounters,
) -> Option<Leaf<S>> {
    let replay = slot.replay.clone().expect("a reanalysis");
    loop {
        if slot.search.is_none() {
            if replay
                .next_searched(&mut slot.tree, &mut slot.record)
                .is_none()
            {
                replay.finish(&mut slot.record);
                return None;
            }
            let visits = settings.search.visits;
            slot.search = Some(start_search(&settings.search, &slot.tree, visits, true));
        }
        let result = match advance_search(slot, counters) {
            Ok(leaf) => return Some(leaf),
            Err(result) => result,
        };
        counters.reanalysed_searches.fetch_add(1, Ordering::Relaxed);
        let action = replay
            .next_searched(&mut slot.tree, &mut slot.record)
            .expect("the step just searched");
        let step = searched_step_record(slot, action, result);
        slot.record.steps.push(step);
        slot.tree.advance(action);
    }
}

/// The step self-play plays after a search: sampled from the policy target under the
/// temperature schedule, or the search's own pick (at temperature 0, or a Gumbel search
/// with `gumbel_play = "winner"` or `"visits"` past the opening turns); with `"visits"`,
/// the opening turns sample from the root's visit counts instead of the target.
fn played_step<S: GameState>(
    slot: &mut Slot<S>,
    settings: &WorkerSettings,
    result: &SearchResult,
) -> Action {
    let sp = &settings.selfplay;
    let t = temperature(sp, slot.turns);
    let gumbel = settings.search.kind == SearchKind::Gumbel;
    let opening = slot.turns < sp.gumbel_sample_turns;
    let play = if gumbel {
        sp.gumbel_play
    } else {
        GumbelPlay::Sample
    };
    if t <= 0.01 || (play != GumbelPlay::Sample && !opening) {
        return result.action;
    }
    let (actions, weights): (Vec<Action>, Vec<f32>) = if play == GumbelPlay::Visits {
        let children = slot.tree.root_children();
        children.iter().map(|c| (c.action, c.visits as f32)).unzip()
    } else {
        result.policy.iter().copied().unzip()
    };
    if weights.iter().all(|&w| w <= 0.0) {
        return result.action;
    }
    actions[sample_with_temperature(&weights, t, &mut slot.rng)]
}

fn new_slot<S: GameState>(settings: &WorkerSettings, counters: &SharedCounters) -> Slot<S> {
    let index = counters.next_game.fetch_add(1, Ordering::Relaxed);
    let seed = game_seed(settings.seed, index);
    let mut rng = StdRng::seed_from_u64(seed);
    if let Some(slot) = settings
        .reanalysis(index)
        .and_then(|replay| reanalysis_slot(settings, counters, replay, rng.clone()))
    {
        return slot;
    }
    let mut state = S::start(settings.kind, settings.rules);
    let mut record = GameRecord::new(
        &state,
        settings.rules,
        seed,
        counters.model_step.load(Ordering::Relaxed),
    );
    record.index = index;
    let turns = settings.openings.open(&mut state, &mut record, &mut rng);
    record.played_through = settings.selfplay.resign_consecutive > 0
        && rng.gen::<f32>() < settings.selfplay.resign_playthrough;
    record.resign_thresholds = settings.resign_thresholds();
    let opponent = opponent_side(settings, &mut rng);
    if opponent.is_some() {
        let step = |s: u8| {
            let counter = if Some(Side(s)) == opponent {
                &counters.opponent_step
            } else {
                &counters.model_step
            };
            format!("net@{}", counter.load(Ordering::Relaxed))
        };
        record.agents = vec![step(0), step(1)];
    }
    let streak = ResignStreak::new(settings.selfplay.resign_consecutive);
    Slot {
        tree: Mcts::new(state, settings.search.mcts(true)),
        record,
        rng,
        turns,
        resign: [streak.clone(), streak],
        full: false,
        search: None,
        replay: None,
        opponent,
        net: 0,
    }
}

/// The side an earlier checkpoint plays in a new game: drawn with probability
/// `opponent_share` when the workers have that net (no draw otherwise, so that games
/// without opponents are played exactly as before), then a side uniformly.
fn opponent_side(settings: &WorkerSettings, rng: &mut StdRng) -> Option<Side> {
    let share = settings.selfplay.opponent_share;
    if !settings.opponent || share <= 0.0 || rng.gen::<f32>() >= share {
        return None;
    }
    Some(Side(rng.gen_range(0..2)))
}

/// Points the slot's next search at the net of the side to move, starting a fresh tree
/// when that is another net than the tree's statistics came from.
fn use_net_of_side<S: GameState>(slot: &mut Slot<S>, settings: &WorkerSettings) {
    let net = usize::from(slot.opponent == Some(slot.tree.root_state().side_to_move()));
    if net != slot.net {
        let state = slot.tree.root_state().clone();
        slot.tree = Mcts::new(state, settings.search.mcts(true));
        slot.net = net;
    }
}

/// A slot that reanalyses `replay`'s game; `None` if its start does not parse (a record of
/// another game).
fn reanalysis_slot<S: GameState>(
    settings: &WorkerSettings,
    counters: &SharedCounters,
    replay: Reanalysis,
    rng: StdRng,
) -> Option<Slot<S>> {
    let state: S = replay.start().ok()?;
    let streak = ResignStreak::new(0);
    Some(Slot {
        tree: Mcts::new(state, settings.search.mcts(true)),
        record: replay.record(counters.model_step.load(Ordering::Relaxed)),
        rng,
        turns: 0,
        resign: [streak.clone(), streak],
        full: true,
        search: None,
        replay: Some(replay),
        opponent: None,
        net: 0,
    })
}

fn play<S: GameState>(slot: &mut Slot<S>, action: Action, counters: &SharedCounters) {
    slot.tree.advance(action);
    counters.steps_played.fetch_add(1, Ordering::Relaxed);
    if !slot.tree.root_state().turn_in_progress() {
        slot.turns += 1;
    }
}

/// Takes `side`'s root value into its resign streak; true when the side resigns now (its
/// last values lie below its threshold). Played-through games only note the step at which it
/// would have. With calibration only full searches count; without, every search does.
fn update_resignation<S: GameState>(
    slot: &mut Slot<S>,
    sp: &SelfPlayConfig,
    side: usize,
    value: f32,
) -> bool {
    if sp.resign_calibrate && !slot.full {
        return false;
    }
    let (Some(max), Some(threshold)) = (
        slot.resign[side].push(value),
        slot.record.resign_thresholds[side],
    ) else {
        return false;
    };
    if max >= threshold {
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

#[cfg(test)]
mod tests;
