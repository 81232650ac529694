//! The worker's checks on small games: Gumbel play, random openings, resignation and its
//! calibration, a failing net, groups in flight, policy surprise, Reanalyse and the ramp
//! of games in flight.

use super::*;
use crate::game::rematch::Rematch;

/// An evaluator whose net has failed.
struct Broken;

impl<S: GameState> Evaluate<S> for Broken {
    fn evaluate(&mut self, _: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        Err(NetError::Torch(tch::TchError::Torch(
            "out of memory".into(),
        )))
    }
}

#[test]
fn gumbel_play_winner_plays_the_searchs_pick_after_the_opening() {
    let mut settings = WorkerSettings::new(
        GameKind::Rematch,
        RulesConfig::default(),
        SelfPlayConfig::default(),
        SearchConfig::default(),
        1,
    );
    let counters = SharedCounters::default();
    let mut slot: Slot<Rematch> = new_slot(&settings, &counters);
    // The winner has no weight in the policy: sampling never plays it.
    let result = SearchResult {
        action: 7,
        policy: vec![(7, 0.0), (9, 1.0)],
        value: 0.0,
        visits: 8,
    };
    let opening = settings.selfplay.gumbel_sample_turns;
    for (play, turns, expected) in [
        (GumbelPlay::Sample, opening + 5, 9),
        (GumbelPlay::Winner, opening.saturating_sub(1), 9),
        (GumbelPlay::Winner, opening, 7),
        (GumbelPlay::Visits, opening, 7),
    ] {
        settings.selfplay.gumbel_play = play;
        slot.turns = turns;
        assert_eq!(
            played_step(&mut slot, &settings, &result),
            expected,
            "{play:?} {turns}"
        );
    }
}

#[test]
fn gumbel_play_visits_samples_the_opening_from_the_visit_counts() {
    use crate::net::net_eval::UniformEvaluator;
    use crate::search::run::{run_searches, start_search};
    let mut settings = WorkerSettings::new(
        GameKind::Rematch,
        RulesConfig::default(),
        SelfPlayConfig::default(),
        SearchConfig::default(),
        1,
    );
    settings.selfplay.gumbel_play = GumbelPlay::Visits;
    let counters = SharedCounters::default();
    let mut slot: Slot<Rematch> = new_slot(&settings, &counters);
    let mut roots = vec![start_search(&settings.search, &slot.tree, 32, true)];
    let mut rng = StdRng::seed_from_u64(2);
    run_searches(
        &mut [&mut slot.tree],
        &mut roots,
        &mut UniformEvaluator,
        &mut rng,
    )
    .unwrap();
    let visited: Vec<Action> = slot
        .tree
        .root_children()
        .iter()
        .filter(|c| c.visits > 0)
        .map(|c| c.action)
        .collect();
    // The target puts everything on a step that is not even legal: only the visit
    // counts can give what is played in the opening.
    let result = SearchResult {
        action: 9_999,
        policy: vec![(9_999, 1.0)],
        value: 0.0,
        visits: 32,
    };
    slot.turns = 0;
    let played: std::collections::BTreeSet<Action> = (0..200)
        .map(|_| played_step(&mut slot, &settings, &result))
        .collect();
    assert!(played.iter().all(|a| visited.contains(a)), "{played:?}");
    assert!(played.len() > 1, "sampled, not always one step: {played:?}");
    slot.turns = settings.selfplay.gumbel_sample_turns;
    assert_eq!(played_step(&mut slot, &settings, &result), 9_999);
}

/// `opening_random_turns`: a game opens with 0..=N random whole turns, recorded as
/// unsearched steps (no value, no target), and its search starts after them.
#[test]
fn games_open_with_a_random_number_of_random_turns() {
    let settings = |opening| {
        WorkerSettings::new(
            GameKind::Rematch,
            RulesConfig::default(),
            SelfPlayConfig {
                opening_random_turns: opening,
                ..SelfPlayConfig::default()
            },
            SearchConfig::default(),
            1,
        )
    };
    let counters = SharedCounters::default();
    let mut seen = [0; 4];
    for _ in 0..40 {
        let slot: Slot<Rematch> = new_slot(&settings(3), &counters);
        seen[slot.turns as usize] += 1;
        assert!(slot.record.steps.len() >= slot.turns as usize);
        assert!(slot
            .record
            .steps
            .iter()
            .all(|s| s.value.is_none() && s.target.is_empty()));
        // Steps that continue a turn (a capture chain) start none.
        let mut continuations = 0;
        let end: Rematch = slot
            .record
            .replay(|state: &Rematch, _| continuations += u32::from(state.turn_in_progress()))
            .unwrap();
        assert_eq!(end.to_notation(), slot.tree.root_state().to_notation());
        assert!(!end.turn_in_progress());
        let starts = slot.record.steps.len() as u32 - continuations;
        assert_eq!(starts, slot.turns, "whole turns played");
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "every count 0..=3 drawn: {seen:?}"
    );
    let plain: Slot<Rematch> = new_slot(&settings(0), &counters);
    assert!(plain.record.steps.is_empty() && plain.turns == 0);
}

fn resign_settings(calibrate: bool) -> WorkerSettings {
    WorkerSettings::new(
        GameKind::Rematch,
        RulesConfig::default(),
        SelfPlayConfig {
            resign_consecutive: 2,
            resign_threshold: -0.5,
            resign_calibrate: calibrate,
            resign_playthrough: 0.0,
            resign_min_samples: 3,
            ..SelfPlayConfig::default()
        },
        SearchConfig::default(),
        1,
    )
}

#[test]
fn calibrated_resignation_counts_full_searches_only() {
    let settings = resign_settings(true);
    let counters = SharedCounters::default();
    let mut slot: Slot<Rematch> = new_slot(&settings, &counters);
    slot.record.steps.push(StepRecord {
        action: 0,
        value: None,
        target: Vec::new(),
        surprise: None,
        proven: None,
    });
    slot.full = false;
    for _ in 0..5 {
        assert!(!update_resignation(&mut slot, &settings.selfplay, 1, -0.9));
    }
    slot.full = true;
    assert!(!update_resignation(&mut slot, &settings.selfplay, 1, -0.9));
    assert!(update_resignation(&mut slot, &settings.selfplay, 1, -0.9));
    assert!(!update_resignation(&mut slot, &settings.selfplay, 0, -0.9));
}

#[test]
fn fixed_resignation_counts_every_search() {
    let settings = resign_settings(false);
    let counters = SharedCounters::default();
    let mut slot: Slot<Rematch> = new_slot(&settings, &counters);
    slot.full = false;
    assert!(!update_resignation(&mut slot, &settings.selfplay, 0, -0.9));
    assert!(!update_resignation(&mut slot, &settings.selfplay, 0, -0.4));
    assert!(!update_resignation(&mut slot, &settings.selfplay, 0, -0.9));
    assert!(update_resignation(&mut slot, &settings.selfplay, 0, -0.9));
}

#[test]
fn played_through_games_calibrate_each_side_for_later_games() {
    let settings = resign_settings(true);
    let counters = SharedCounters::default();
    // Side 1 fell to -0.99 and still won three times: its resignations would be false.
    for _ in 0..3 {
        let mut slot: Slot<Rematch> = new_slot(&settings, &counters);
        slot.record.played_through = true;
        slot.record.winner = Some(1);
        slot.full = true;
        for side in 0..2 {
            slot.resign[side].push(-0.99);
            slot.resign[side].push(-0.99);
        }
        settings.calibrate(&slot.record, &slot.resign);
    }
    let next: Slot<Rematch> = new_slot(&settings, &counters);
    assert_eq!(next.record.resign_thresholds, [Some(-0.5), None]);
    // A game not played through teaches nothing.
    let mut other: Slot<Rematch> = new_slot(&settings, &counters);
    other.resign[0].push(-1.0);
    other.resign[0].push(-1.0);
    settings.calibrate(&other.record, &other.resign);
    let side = settings.resign.lock().unwrap().side(0);
    assert_eq!(side.samples, 3);
}

#[test]
fn a_failing_net_stops_the_worker_with_its_error() {
    let settings = WorkerSettings::new(
        GameKind::Rematch,
        RulesConfig::default(),
        SelfPlayConfig {
            games_in_flight: 2,
            ..SelfPlayConfig::default()
        },
        SearchConfig::default(),
        1,
    );
    let (sender, games) = std::sync::mpsc::channel();
    let counters = Arc::new(SharedCounters::default());
    let error = run_worker::<Rematch, _>(settings, Broken, None, counters, sender).unwrap_err();
    assert!(matches!(error, NetError::Torch(_)), "{error}");
    assert!(games.try_recv().is_err(), "no game was finished");
}

/// A net that values each position by its hash (so answers tell positions apart) and
/// lets the worker drain after `rounds` calls.
struct Hashed {
    rounds: usize,
    counters: Arc<SharedCounters>,
}

impl<S: GameState> Evaluate<S> for Hashed {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        self.rounds = self.rounds.saturating_sub(1);
        if self.rounds == 0 {
            self.counters.drain.store(true, Ordering::Relaxed);
        }
        let mut evals = crate::net::net_eval::UniformEvaluator.evaluate(states)?;
        for (eval, state) in evals.iter_mut().zip(states) {
            eval.value = (state.position_hash() % 2001) as f32 / 1000.0 - 1.0;
        }
        Ok(evals)
    }
}

/// `selfplay.groups`: splitting a worker's games into groups with a batch each in
/// flight changes the order of the net's work, never a game.
#[test]
fn groups_in_flight_play_the_same_games_step_for_step() {
    let play = |groups: usize| -> std::collections::BTreeMap<u64, GameRecord> {
        let selfplay = SelfPlayConfig {
            games_in_flight: 6,
            games_in_flight_start: 0,
            groups,
            fast_visits: 4,
            full_search_share: 0.5,
            ..SelfPlayConfig::default()
        };
        let rules = RulesConfig {
            ply_cap: 16,
            ..RulesConfig::default()
        };
        let search = SearchConfig {
            visits: 8,
            ..SearchConfig::default()
        };
        let settings = WorkerSettings::new(GameKind::Rematch, rules, selfplay, search, 3);
        let counters = Arc::new(SharedCounters::default());
        let net = Hashed {
            rounds: 150,
            counters: Arc::clone(&counters),
        };
        let (sender, games) = std::sync::mpsc::channel();
        run_worker::<Rematch, _>(settings, net, None, counters, sender).unwrap();
        games.try_iter().map(|g| (g.index, g)).collect()
    };
    let (one, three) = (play(1), play(3));
    let common: Vec<u64> = one
        .keys()
        .filter(|k| three.contains_key(k))
        .copied()
        .collect();
    assert!(common.len() >= 6, "{} games in common", common.len());
    for index in common {
        assert_eq!(one[&index], three[&index], "game {index}");
    }
}

/// A uniform net that records its batch sizes and stops the worker after `rounds`.
struct Recording {
    sizes: Arc<Mutex<Vec<usize>>>,
    rounds: usize,
    counters: Arc<SharedCounters>,
}

impl<S: GameState> Evaluate<S> for Recording {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        let mut sizes = self.sizes.lock().unwrap();
        sizes.push(states.len());
        if sizes.len() >= self.rounds {
            self.counters.stop.store(true, Ordering::Relaxed);
        }
        crate::net::net_eval::UniformEvaluator.evaluate(states)
    }
}

/// Runs a ReMATCH worker on the uniform net at `model_step` for `rounds` net calls:
/// its batch sizes and the games it finished.
fn run_uniform(
    selfplay: SelfPlayConfig,
    rules: RulesConfig,
    search: SearchConfig,
    model_step: u64,
    rounds: usize,
) -> (Vec<usize>, Vec<GameRecord>) {
    let settings = WorkerSettings::new(GameKind::Rematch, rules, selfplay, search, 1);
    let counters = Arc::new(SharedCounters::default());
    counters.model_step.store(model_step, Ordering::Relaxed);
    let sizes = Arc::new(Mutex::new(Vec::new()));
    let net = Recording {
        sizes: Arc::clone(&sizes),
        rounds,
        counters: Arc::clone(&counters),
    };
    let (sender, games) = std::sync::mpsc::channel();
    run_worker::<Rematch, _>(settings, net, None, counters, sender).unwrap();
    let sizes = sizes.lock().unwrap().clone();
    (sizes, games.try_iter().collect())
}

/// The batch sizes of a worker at `model_step` that plays 2 games at first, 6 at most.
fn ramp_batches(model_step: u64, rounds: usize) -> (Vec<usize>, usize) {
    let selfplay = SelfPlayConfig {
        games_in_flight: 6,
        games_in_flight_start: 2,
        fast_visits: 2,
        full_search_share: 0.0,
        ..SelfPlayConfig::default()
    };
    let rules = RulesConfig {
        ply_cap: 12,
        ..RulesConfig::default()
    };
    let search = SearchConfig::default();
    let (sizes, games) = run_uniform(selfplay, rules, search, model_step, rounds);
    (sizes, games.len())
}

/// Full searches record their policy surprise; fast searches and forced steps none.
#[test]
fn full_searches_record_their_policy_surprise() {
    let selfplay = SelfPlayConfig {
        games_in_flight: 3,
        fast_visits: 2,
        full_search_share: 0.5,
        ..SelfPlayConfig::default()
    };
    let rules = RulesConfig {
        ply_cap: 10,
        ..RulesConfig::default()
    };
    let search = SearchConfig {
        visits: 8,
        ..SearchConfig::default()
    };
    let (_, games) = run_uniform(selfplay, rules, search, 100, 300);
    let steps: Vec<StepRecord> = games.into_iter().flat_map(|g| g.steps).collect();
    assert!(steps.iter().any(|s| s.target.is_empty()));
    assert!(steps.iter().any(|s| !s.target.is_empty()));
    for step in steps {
        match step.surprise {
            Some(k) => assert!(!step.target.is_empty() && k >= 0.0, "{step:?}"),
            None => assert!(step.target.is_empty(), "{step:?}"),
        }
    }
}

/// Reanalysis replays a finished game's steps and result, with fresh targets exactly
/// where the game had them.
#[test]
fn reanalysed_games_keep_the_steps_and_result_and_renew_the_targets() {
    let selfplay = SelfPlayConfig {
        games_in_flight: 2,
        fast_visits: 2,
        full_search_share: 0.5,
        reanalyse_share: 0.5,
        reanalyse_games: 4,
        ..SelfPlayConfig::default()
    };
    let rules = RulesConfig {
        ply_cap: 12,
        ..RulesConfig::default()
    };
    let search = SearchConfig {
        visits: 8,
        ..SearchConfig::default()
    };
    let (_, games) = run_uniform(selfplay, rules, search, 100, 1500);
    let (again, played): (Vec<_>, Vec<_>) = games.into_iter().partition(|g| g.reanalysed);
    assert!(
        again.len() >= 2 && played.len() >= 2,
        "{} {}",
        again.len(),
        played.len()
    );
    for record in &again {
        let source = played
            .iter()
            .find(|g| g.index == record.index)
            .expect("its source");
        assert_eq!(
            (record.winner, &record.reason),
            (source.winner, &source.reason)
        );
        assert_eq!(record.steps.len(), source.steps.len());
        for (new, old) in record.steps.iter().zip(&source.steps) {
            assert_eq!(new.action, old.action);
            assert_eq!(new.target.is_empty(), old.target.is_empty());
            assert_eq!(
                new.value.is_some(),
                old.value.is_some() || !old.target.is_empty()
            );
        }
        let end: Rematch = record.replay(|_, _| {}).unwrap();
        assert_eq!(
            end.to_notation(),
            source.replay::<Rematch>(|_, _| {}).unwrap().to_notation()
        );
    }
}

#[test]
fn steady_state_settings_start_the_step_0_net_with_every_game() {
    let config = RunConfig::parse("game = \"rematch\"", "test").unwrap();
    assert!(config.selfplay.first_games_in_flight(0) < config.selfplay.games_in_flight);
    let steady = WorkerSettings::steady_state(&config);
    assert_eq!(
        steady.selfplay.first_games_in_flight(0),
        config.selfplay.games_in_flight
    );
    let (sizes, _) = run_uniform(steady.selfplay, config.rules(), config.search, 0, 2);
    assert_eq!(sizes[0], config.selfplay.games_in_flight, "{sizes:?}");
}

#[test]
fn the_step_0_net_starts_with_few_games_and_adds_one_per_finished_game() {
    let (sizes, finished) = ramp_batches(0, 400);
    assert_eq!(sizes[0], 2, "{sizes:?}");
    assert!(finished >= 4, "{finished} games finished");
    assert_eq!(*sizes.iter().max().unwrap(), 6, "{sizes:?}");
    let (later, _) = ramp_batches(100, 3);
    assert_eq!(later[0], 6, "a later net starts with every game: {later:?}");
}
