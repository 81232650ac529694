//! The parts of training one by one: game records (write, read, replay, `games show`),
//! training samples and symmetric batches, the growing window, the temperature schedule,
//! and the optimizer's saved state.
#![allow(clippy::clone_on_copy)]

use crate::common;
use common::fresh_dir;
use std::process::Command;

use checkers_zero::config::net::NetConfig;
use checkers_zero::config::selfplay::SelfPlayConfig;
use checkers_zero::config::RunConfig;
use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use checkers_zero::net::batcher::BatcherConfig;
use checkers_zero::net::encode::Encode;
use checkers_zero::net::model::Model;
use checkers_zero::net::threads::ThreadPlan;
use checkers_zero::search::sample::sample_with_temperature;
use checkers_zero::selfplay::record::{
    read_records, records_to_gzip, write_records, GameRecord, StepRecord,
};
use checkers_zero::selfplay::samples::samples_of_game;
use checkers_zero::selfplay::worker::{temperature, WorkerSettings};
use checkers_zero::train::optimizer::AdamW;
use checkers_zero::train::trainer::{losses, train_step, Compute, LossWeights};
use checkers_zero::train::window::{value_target, ReplayWindow, Symmetries, ILLEGAL_LOGIT};
use checkers_zero::with_game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tch::Device;

/// The weights of the losses beside the policy's in these tests (the config's defaults).
const WEIGHTS: LossWeights = LossWeights {
    value: 1.0,
    moves_left: 0.5,
};

/// A random game recorded as self-play would: every other step carries a policy target.
fn random_game<S: GameState>(kind: GameKind, seed: u64) -> GameRecord {
    let mut rng = StdRng::seed_from_u64(seed);
    let rules = RulesConfig {
        ply_cap: 60,
        ..RulesConfig::default()
    };
    let mut state = S::start(kind, rules);
    let mut record = GameRecord::new(&state, rules, seed, 0);
    let mut steps = StepList::new();
    while state.outcome().is_none() {
        state.legal_steps(&mut steps);
        let action = steps[rng.gen_range(0..steps.len())];
        let target = if record.steps.len().is_multiple_of(2) {
            let p = 1.0 / steps.len() as f32;
            steps.iter().map(|&a| (a, p)).collect()
        } else {
            Vec::new()
        };
        record.steps.push(StepRecord {
            action,
            value: Some(0.0),
            target,
            surprise: None,
            proven: None,
        });
        state.apply_step(action);
    }
    let outcome = state.outcome().unwrap();
    record.finish(outcome.winner, outcome.reason);
    record
}

#[test]
fn records_round_trip_replay_and_show_for_every_game() {
    let dir = fresh_dir("parts-records");
    for kind in GameKind::ALL {
        with_game!(kind, S => {
            let games: Vec<GameRecord> = (0..3).map(|s| random_game::<S>(kind, s)).collect();
            let path = dir.join(format!("{kind}.jsonl"));
            write_records(&path, &games).unwrap();
            let read = read_records(&path).unwrap();
            assert_eq!(read, games);
            // Replaying reaches the recorded result.
            let end: S = read[0].replay(|_, _| {}).unwrap();
            assert_eq!(end.outcome().map(|o| o.winner.map(|s| s.0)), Some(read[0].winner));
            // Self-play's shards are the same lines compressed; both read and show alike.
            let packed = dir.join(format!("{kind}.jsonl.gz"));
            std::fs::write(&packed, records_to_gzip(&games)).unwrap();
            assert_eq!(read_records(&packed).unwrap(), games);
            for file in [&path, &packed] {
                let out = Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
                    .args(["games", "show", "--index", "1"])
                    .arg(file)
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                let text = String::from_utf8(out.stdout).unwrap();
                assert!(text.starts_with(&format!("game: {kind}")), "{text}");
                assert!(text.contains("   1. seat "), "{text}");
                assert!(text.lines().last().unwrap().starts_with("result: "), "{text}");
            }
        });
    }
    // A damaged file and a missing game are one-line errors.
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"format_version\": 1, \"game\": \"rematch\"\n").unwrap();
    for args in [
        vec!["games", "show", bad.to_str().unwrap()],
        vec![
            "games",
            "show",
            "--index",
            "9",
            dir.join("eximo.jsonl").to_str().unwrap(),
        ],
        vec!["games", "show", dir.join("missing.jsonl").to_str().unwrap()],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.trim_end().lines().count() == 1,
            "{stderr}"
        );
    }
    // An illegal step in a record is refused when replayed.
    let mut broken = random_game::<checkers_zero::game::eximo::Eximo>(GameKind::Eximo, 9);
    broken.steps[0].action = 1087;
    assert!(samples_of_game::<checkers_zero::game::eximo::Eximo>(&broken).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Samples carry the targets mapped to policy indices; symmetric batches keep the target on
/// legal steps and agree with transforming the sample by hand.
fn check_samples_and_batches<S: Encode>(kind: GameKind) {
    let game = random_game::<S>(kind, 5);
    let samples = samples_of_game::<S>(&game).unwrap();
    let with_target = game.steps.iter().filter(|s| !s.target.is_empty()).count();
    assert_eq!(samples.len(), with_target);
    let actions = S::start(kind, RulesConfig::default()).num_actions();
    for sample in &samples {
        let total: f32 = sample.target.iter().map(|t| t.1).sum();
        assert!((total - 1.0).abs() < 1e-4);
        assert!(sample.target.iter().all(|t| sample.legal.contains(&t.0)));
        assert!(sample.result <= 2);
    }
    // A sample that no symmetry maps to itself, so the symmetry used can be told apart.
    let per = samples[0].planes.len();
    let distinct = |sample: &checkers_zero::train::window::Sample| {
        (1..S::SYMMETRIES).all(|k| {
            let mut out = vec![0.0; per];
            S::transform_planes(k, &sample.planes, &mut out);
            out[..] != sample.planes[..]
        })
    };
    let sample = samples
        .iter()
        .find(|s| distinct(s))
        .unwrap_or(&samples[0])
        .clone();
    let samples = [sample];
    let mut window = ReplayWindow::new(10_000);
    window.extend(samples.iter().cloned());
    let symmetries = Symmetries::of::<S>(true);
    let mut rng = StdRng::seed_from_u64(1);
    let batch = window.batch(64, actions, &symmetries, &mut rng);
    let planes = samples[0].planes.len();
    let mut seen = std::collections::HashSet::new();
    for b in 0..64 {
        let row = &batch.policy[b * actions..(b + 1) * actions];
        let mask = &batch.mask[b * actions..(b + 1) * actions];
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        for a in 0..actions {
            if row[a] > 0.0 {
                assert_eq!(mask[a], 0.0, "target on an illegal step");
            }
        }
        assert_eq!(
            mask.iter().filter(|&&m| m == 0.0).count(),
            samples[0].legal.len()
        );
        // Which symmetry was used: the one whose transform gives these planes.
        let input = &batch.inputs[b * planes..(b + 1) * planes];
        let sym = (0..S::SYMMETRIES)
            .find(|&k| {
                let mut out = vec![0.0; planes];
                if k == 0 {
                    out.copy_from_slice(&samples[0].planes);
                } else {
                    S::transform_planes(k, &samples[0].planes, &mut out);
                }
                out == input
            })
            .expect("the input is a symmetry of the sample");
        seen.insert(sym);
        for &index in samples[0].legal.iter() {
            let mapped = if sym == 0 {
                index as usize
            } else {
                S::transform_policy_index(sym, index as usize)
            };
            assert_eq!(mask[mapped], 0.0);
        }
        assert_eq!(batch.results[b], samples[0].result as i64);
        assert!(mask.iter().all(|&m| m == 0.0 || m == ILLEGAL_LOGIT));
    }
    if S::SYMMETRIES > 1 && distinct(&samples[0]) {
        assert!(seen.len() > 1, "random symmetries are used");
    }
}

#[test]
fn samples_and_symmetric_batches_for_every_game() {
    for kind in GameKind::ALL {
        with_game!(kind, S => check_samples_and_batches::<S>(kind));
    }
}

/// Each sample's value target is the final result for the seat to move there (win 0,
/// draw 1, loss 2), read from the rules' outcome of that seat: a Team seat of 3-player
/// ReMATCH shares the Team's result, and no sample is scored from the other side's view.
fn check_value_targets<S: Encode>(kind: GameKind) {
    let mut decisive = [0usize; 2];
    for seed in 0..40 {
        let record = random_game::<S>(kind, seed);
        let samples = samples_of_game::<S>(&record).unwrap();
        let mut seats = Vec::new();
        let end = record
            .replay::<S>(|state, step| {
                if !step.target.is_empty() {
                    seats.push(state.seat_to_move());
                }
            })
            .unwrap();
        let outcome = end.outcome().expect("the game is over");
        assert_eq!(samples.len(), seats.len());
        for (sample, seat) in samples.iter().zip(&seats) {
            let score = outcome.score(end.side_of(*seat));
            let expected = [2u8, 1, 0][(2.0 * score) as usize];
            assert_eq!(sample.result, expected, "{kind} seed {seed} seat {seat:?}");
        }
        if let Some(w) = outcome.winner {
            decisive[w.0 as usize] += 1;
        }
    }
    assert!(
        decisive[0] > 0 && decisive[1] > 0,
        "{kind}: both sides won some games"
    );
}

#[test]
fn value_targets_are_each_seats_own_result_in_every_game() {
    for kind in GameKind::ALL {
        with_game!(kind, S => check_value_targets::<S>(kind));
    }
}

#[test]
fn window_grows_with_the_run_and_keeps_the_newest() {
    let config = RunConfig::parse(
        "game = \"rematch\"\n[train]\nwindow_base = 1000\nwindow_max = 5000\nmin_window = 10\n",
        "t",
    )
    .unwrap();
    assert_eq!(config.window_size(0), 1000);
    assert_eq!(config.window_size(1000), 1000);
    let sizes: Vec<usize> = [2_000u64, 10_000, 100_000, 10_000_000]
        .iter()
        .map(|&n| config.window_size(n))
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] <= w[1]), "{sizes:?}");
    assert!(sizes[0] > 1000 && sizes[0] < 2000, "{sizes:?}");
    assert_eq!(sizes[3], 5000);
    let game = random_game::<checkers_zero::game::eximo::Eximo>(GameKind::Eximo, 2);
    let samples = samples_of_game::<checkers_zero::game::eximo::Eximo>(&game).unwrap();
    assert!(samples.len() > 4);
    let mut window = ReplayWindow::new(3);
    window.extend(samples.iter().cloned());
    assert_eq!(window.len(), 3);
}

#[test]
fn temperature_schedule_and_sampling() {
    let config = SelfPlayConfig {
        temperature_start: 1.0,
        temperature_end: 0.2,
        temperature_halflife: 5.0,
        ..SelfPlayConfig::default()
    };
    assert!((temperature(&config, 0) - 1.0).abs() < 1e-6);
    assert!((temperature(&config, 5) - 0.6).abs() < 1e-6);
    assert!((temperature(&config, 1000) - 0.2).abs() < 1e-4);
    let mut rng = StdRng::seed_from_u64(4);
    let weights = [0.1, 0.6, 0.3];
    assert!((0..50).all(|_| sample_with_temperature(&weights, 0.0, &mut rng) == 1));
    let mut counts = [0; 3];
    for _ in 0..30_000 {
        counts[sample_with_temperature(&weights, 1.0, &mut rng)] += 1;
    }
    for (c, w) in counts.iter().zip(weights) {
        assert!((*c as f32 / 30_000.0 - w).abs() < 0.02, "{counts:?}");
    }
}

/// A one-block net of `channels` channels, for tests that train.
fn tiny_net(channels: i64) -> NetConfig {
    NetConfig {
        channels,
        policy_channels: channels / 2,
        value_hidden: channels,
        ..NetConfig::tiny()
    }
}

/// `train.value_q_mix`: a sample keeps the search's value; the W/D/L target is the result's
/// one-hot mixed with that value as a win/loss split, and at mix 0 the value loss is the
/// plain class cross-entropy.
#[test]
fn value_targets_mix_the_search_value_into_the_result() {
    type S = checkers_zero::game::rematch::Rematch;
    let kind = GameKind::Rematch;
    let mut game = random_game::<S>(kind, 3);
    for (i, step) in game.steps.iter_mut().enumerate() {
        step.value = Some((i % 5) as f32 / 2.0 - 1.0);
    }
    let samples = samples_of_game::<S>(&game).unwrap();
    let searched = game.steps.iter().filter(|s| !s.target.is_empty());
    let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    for (sample, step) in samples.iter().zip(searched) {
        let q = step.value.unwrap();
        assert_eq!(sample.q, q);
        let mut one_hot = [0.0; 3];
        one_hot[sample.result as usize] = 1.0;
        assert!(close(value_target(sample, 0.0), one_hot));
        let split = [(1.0 + q) / 2.0, 0.0, (1.0 - q) / 2.0];
        assert!(close(value_target(sample, 1.0), split));
        let half = [0, 1, 2].map(|i| (one_hot[i] + split[i]) / 2.0);
        assert!(close(value_target(sample, 0.5), half));
    }
    // Batches carry the mixed targets; at mix 0 the loss is the class cross-entropy.
    let shape = S::net_shape(kind);
    tch::manual_seed(3);
    let model = Model::new(shape.clone(), tiny_net(8), Device::Cpu).unwrap();
    let symmetries = Symmetries::of::<S>(true);
    let actions = shape.num_actions as usize;
    let batch_of = |mix: f32| {
        let mut window = ReplayWindow::new(1_000).with_q_mix(mix);
        window.extend(samples.iter().cloned());
        window.batch(32, actions, &symmetries, &mut StdRng::seed_from_u64(5))
    };
    let (plain, mixed) = (batch_of(0.0), batch_of(0.25));
    for b in 0..32 {
        let row = &mixed.value[b * 3..b * 3 + 3];
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(row[mixed.results[b] as usize] >= 0.75 - 1e-6);
    }
    let input = tch::Tensor::from_slice(&plain.inputs).reshape([
        32,
        shape.planes,
        shape.height,
        shape.width,
    ]);
    let results = tch::Tensor::from_slice(&plain.results);
    let expected = model
        .forward_t(&input, true)
        .1
        .cross_entropy_for_logits(&results)
        .double_value(&[]);
    let got = losses(&model, &plain, WEIGHTS).1.value_loss;
    assert!((got - expected).abs() < 1e-4, "{got} vs {expected}");
    assert_ne!(losses(&model, &mixed, WEIGHTS).1.value_loss, got);
}

/// `train.policy_surprise_weight`: batches draw samples in proportion to
/// `(1 - w) + w * surprise / mean surprise` (capped at 8x the mean); 0 draws uniformly.
#[test]
fn surprising_samples_are_drawn_more_often_by_their_weight() {
    type S = checkers_zero::game::rematch::Rematch;
    let kind = GameKind::Rematch;
    let base = samples_of_game::<S>(&random_game::<S>(kind, 1)).unwrap()[0].clone();
    // One surprising sample (told apart by its result) among nine dull ones.
    let with = |result: u8, surprise: f32| checkers_zero::train::window::Sample {
        result,
        surprise: Some(surprise),
        ..base.clone()
    };
    let samples: Vec<_> = std::iter::once(with(0, 1.0))
        .chain((0..9).map(|_| with(2, 0.1)))
        .collect();
    let share_of_surprising = |w: f32| {
        let mut window = ReplayWindow::new(100).with_surprise_weight(w);
        window.extend(samples.iter().cloned());
        let actions = S::start(kind, RulesConfig::default()).num_actions();
        let mut rng = StdRng::seed_from_u64(9);
        let drawn: usize = (0..10)
            .map(|_| window.batch(2_000, actions, &Symmetries::of::<S>(true), &mut rng))
            .map(|batch| batch.results.iter().filter(|&&r| r == 0).count())
            .sum();
        drawn as f64 / 20_000.0
    };
    // Mean surprise 0.19: weights 0.5 + 0.5 * 1.0 / 0.19 and 0.5 + 0.5 * 0.1 / 0.19.
    let (high, low) = (0.5 + 0.5 / 0.19, 0.5 + 0.05 / 0.19);
    let expected = high / (high + 9.0 * low);
    let got = share_of_surprising(0.5);
    assert!((got - expected).abs() < 0.015, "{got} vs {expected}");
    let uniform = share_of_surprising(0.0);
    assert!((uniform - 0.1).abs() < 0.01, "{uniform}");
}

#[test]
fn training_lowers_the_loss_and_the_optimizer_state_resumes_exactly() {
    type S = checkers_zero::game::rematch::Rematch;
    let kind = GameKind::Rematch;
    let mut window = ReplayWindow::new(100_000);
    for seed in 0..6 {
        window.extend(samples_of_game::<S>(&random_game::<S>(kind, seed)).unwrap());
    }
    let shape = S::net_shape(kind);
    let config = tiny_net(16);
    tch::manual_seed(1);
    let model = Model::new(shape.clone(), config.clone(), Device::Cpu).unwrap();
    let mut optimizer = AdamW::new(model.var_store(), 3e-3, 1e-4);
    let symmetries = Symmetries::of::<S>(true);
    let actions = shape.num_actions as usize;
    let mut rng = StdRng::seed_from_u64(2);
    let fixed = window.batch(64, actions, &symmetries, &mut rng);
    let before = losses(&model, &fixed, WEIGHTS).1.total_loss;
    for _ in 0..30 {
        train_step(&model, &mut optimizer, &fixed, WEIGHTS, Compute::FP32);
    }
    let after = losses(&model, &fixed, WEIGHTS).1.total_loss;
    assert!(after < before - 0.1, "{before} -> {after}");

    // Save model + optimizer; the copy and the original take identical further steps.
    let dir = fresh_dir("parts-optimizer");
    model.save(&dir.join("m.safetensors")).unwrap();
    optimizer.save(&dir.join("o.safetensors")).unwrap();
    let copy = Model::load(&dir.join("m.safetensors"), &shape, Device::Cpu).unwrap();
    let mut copy_optimizer = AdamW::new(copy.var_store(), 3e-3, 1e-4);
    copy_optimizer.load(&dir.join("o.safetensors")).unwrap();
    assert_eq!(copy_optimizer.steps(), optimizer.steps());
    let next = window.batch(64, actions, &symmetries, &mut rng);
    let a = train_step(&model, &mut optimizer, &next, WEIGHTS, Compute::FP32);
    let b = train_step(&copy, &mut copy_optimizer, &next, WEIGHTS, Compute::FP32);
    assert_eq!(a, b, "same losses after restoring");
    let again = window.batch(64, actions, &symmetries, &mut rng);
    assert_eq!(
        losses(&model, &again, WEIGHTS).1,
        losses(&copy, &again, WEIGHTS).1
    );

    // A state file of another shape or a damaged one is an error, not a panic.
    let other = Model::new(
        shape.clone(),
        NetConfig {
            channels: 8,
            ..config
        },
        Device::Cpu,
    )
    .unwrap();
    let mut other_optimizer = AdamW::new(other.var_store(), 1e-3, 0.0);
    let error = other_optimizer
        .load(&dir.join("o.safetensors"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("shape"), "{error}");
    std::fs::write(dir.join("bad.safetensors"), b"not a tensor file").unwrap();
    assert!(other_optimizer.load(&dir.join("bad.safetensors")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A rolling pool of two workers with 6 games each on a 1x8 ReMATCH net, with the
/// `[selfplay]` keys `extra` added, and a maker of fresh models of that net.
fn tiny_rolling_pool(
    extra: &str,
) -> (
    checkers_zero::selfplay::pool::RollingPool,
    impl Fn() -> Model,
) {
    use checkers_zero::game::rematch::Rematch;
    let text = format!(
        "game = \"rematch\"\nseed = 9\n[net]\nblocks = 1\nchannels = 8\npolicy_channels = 4\n\
         value_hidden = 8\n[search]\nvisits = 4\n[selfplay]\nworkers = 2\ngames_in_flight = 6\n\
         fast_visits = 2\nply_cap = 30\n{extra}[batching]\ninstances = 1\n"
    );
    let config = RunConfig::parse(&text, "rolling").unwrap();
    let (shape, net) = (Rematch::net_shape(config.kind()), config.net_config());
    let model = move || Model::new(shape.clone(), net.clone(), Device::Cpu).unwrap();
    let pool = checkers_zero::selfplay::pool::RollingPool::start::<Rematch>(
        WorkerSettings::of(&config),
        2,
        model(),
        BatcherConfig::of(&config.batching, &ThreadPlan::of(&config).unwrap()),
        1,
        0,
        0,
    )
    .unwrap();
    (pool, model)
}

/// `selfplay.opponent_share` (Polygames' tournament mode): games seat a checkpoint
/// `opponent_lag` switches older on one side, whose steps make no training samples.
#[test]
fn an_earlier_checkpoint_plays_one_side_and_makes_no_samples() {
    use checkers_zero::game::rematch::Rematch;
    use checkers_zero::game::Side;
    use std::time::{Duration, Instant};

    let (mut pool, model) =
        tiny_rolling_pool("full_search_share = 1.0\nopponent_share = 0.9\nopponent_lag = 1\n");
    // Lag 1: after the switch to step 7 the opponent is the step-0 net.
    pool.switch(model(), 7).unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut games = Vec::new();
    while games
        .iter()
        .filter(|g: &&GameRecord| g.model_step == 7)
        .count()
        < 12
    {
        assert!(Instant::now() < deadline, "self-play too slow");
        games.extend(pool.finished_games().unwrap());
        std::thread::sleep(Duration::from_millis(5));
    }
    games.extend(pool.stop());
    let newer: Vec<&GameRecord> = games.iter().filter(|g| g.model_step == 7).collect();
    let seated: Vec<&&GameRecord> = newer.iter().filter(|g| !g.agents.is_empty()).collect();
    assert!(
        seated.len() >= 6,
        "most games seat the opponent: {}",
        seated.len()
    );
    for game in seated {
        let old = game
            .agents
            .iter()
            .position(|a| a == "net@0")
            .expect("the step-0 net");
        assert_eq!(game.agents[1 - old], "net@7", "{:?}", game.agents);
        let mut samples = 0;
        game.replay::<Rematch>(|state, step| {
            if !step.target.is_empty() {
                samples += 1;
                assert_ne!(state.side_to_move(), Side(old as u8), "the opponent's step");
            }
        })
        .unwrap();
        assert!(samples > 0 || game.steps.len() < 3);
    }
}

#[test]
fn rolling_pool_switches_weights_between_games() {
    use checkers_zero::selfplay::pool::RollingPool;
    use std::collections::BTreeSet;
    use std::time::{Duration, Instant};

    let (mut pool, model) = tiny_rolling_pool("");
    let mut games = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let wait_for = |games: &mut Vec<GameRecord>,
                    pool: &mut RollingPool,
                    done: &dyn Fn(&[GameRecord], &RollingPool) -> bool| {
        while !done(games, pool) {
            assert!(Instant::now() < deadline, "self-play too slow");
            games.extend(pool.finished_games().unwrap());
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    wait_for(&mut games, &mut pool, &|g, _| g.len() >= 4);
    let before_switch = games.len();
    pool.switch(model(), 7).unwrap();
    assert_eq!((pool.draining(), pool.model_step()), (1, 7));
    // A newer checkpoint while the old pool drains waits for the drain.
    pool.switch(model(), 8).unwrap();
    assert_eq!((pool.draining(), pool.model_step()), (1, 7));
    // The old pools play their games out, then stop; new games use the newest weights.
    wait_for(&mut games, &mut pool, &|_, p| {
        p.draining() == 0 && p.model_step() == 8
    });
    let drained = games.len();
    wait_for(&mut games, &mut pool, &|g, _| g.len() >= drained + 6);
    games.extend(pool.stop());
    let old_after_switch = games[before_switch..]
        .iter()
        .filter(|g| g.model_step == 0)
        .count();
    assert!(
        old_after_switch >= 1,
        "games in flight finish on their weights"
    );
    assert!(games[drained..].iter().all(|g| g.model_step == 8));
    assert!(games.iter().all(|g| [0, 7, 8].contains(&g.model_step)));
    let indices: BTreeSet<u64> = games.iter().map(|g| g.index).collect();
    assert_eq!(indices.len(), games.len(), "game numbers are unique");
}

/// `net.moves_left`: a sample's target is the steps left in its game (its own included),
/// batches carry it in the head's unit, and training lowers the head's Huber loss, which
/// counts in the total with its weight; a net without the head reports 0.
#[test]
fn the_moves_left_target_counts_the_steps_to_the_end_and_trains_the_head() {
    use checkers_zero::net::model::MOVES_LEFT_UNIT;
    type S = checkers_zero::game::rematch::Rematch;
    let kind = GameKind::Rematch;
    let record = random_game::<S>(kind, 4);
    let n = record.steps.len();
    // Steps 0, 2, 4, ... carry a target.
    let expected: Vec<u16> = (0..n).step_by(2).map(|i| (n - i) as u16).collect();
    let samples = samples_of_game::<S>(&record).unwrap();
    assert_eq!(
        samples.iter().map(|s| s.moves_left).collect::<Vec<_>>(),
        expected
    );

    let mut window = ReplayWindow::new(100_000);
    for seed in 0..6 {
        window.extend(samples_of_game::<S>(&random_game::<S>(kind, seed)).unwrap());
    }
    let shape = S::net_shape(kind);
    let mut rng = StdRng::seed_from_u64(3);
    let batch = window.batch(
        64,
        shape.num_actions as usize,
        &Symmetries::of::<S>(true),
        &mut rng,
    );
    assert_eq!(batch.moves_left.len(), 64);
    for m in &batch.moves_left {
        let steps = m * MOVES_LEFT_UNIT;
        assert!(
            steps >= 1.0 && (steps - steps.round()).abs() < 1e-3,
            "{steps}"
        );
    }

    tch::manual_seed(2);
    let config = NetConfig {
        moves_left: true,
        ..tiny_net(16)
    };
    let head = Model::new(shape.clone(), config, Device::Cpu).unwrap();
    let mut optimizer = AdamW::new(head.var_store(), 3e-3, 1e-4);
    let before = losses(&head, &batch, WEIGHTS).1;
    for _ in 0..60 {
        train_step(&head, &mut optimizer, &batch, WEIGHTS, Compute::FP32);
    }
    let after = losses(&head, &batch, WEIGHTS).1;
    assert!(
        after.moves_left_loss < 0.7 * before.moves_left_loss,
        "{before:?} -> {after:?}"
    );
    let total = after.policy_loss + after.value_loss + 0.5 * after.moves_left_loss;
    assert!((after.total_loss - total).abs() < 1e-4, "{after:?}");
    let plain = Model::new(shape, tiny_net(16), Device::Cpu).unwrap();
    assert_eq!(losses(&plain, &batch, WEIGHTS).1.moves_left_loss, 0.0);
}

/// `net.conv_policy`: the convolutional policy head trains (its policy loss falls on a
/// fixed batch, in each game), holds a small fraction of the standard head's weights, and
/// a saved model loads back with the game's map and answers alike.
#[test]
fn the_convolutional_policy_head_trains_and_loads_back() {
    let dir = fresh_dir("conv-policy");
    for kind in [GameKind::Rematch, GameKind::Hexdame, GameKind::Eximo] {
        with_game!(kind, S => {
            let mut window = ReplayWindow::new(100_000);
            for seed in 0..4 {
                window.extend(samples_of_game::<S>(&random_game::<S>(kind, seed)).unwrap());
            }
            let shape = S::net_shape(kind);
            let actions = shape.num_actions as usize;
            let mut rng = StdRng::seed_from_u64(5);
            let batch = window.batch(64, actions, &Symmetries::of::<S>(false), &mut rng);
            tch::manual_seed(4);
            let config = NetConfig { conv_policy: true, ..tiny_net(16) };
            let model = Model::new(shape.clone(), config, Device::Cpu).unwrap();
            let mut optimizer = AdamW::new(model.var_store(), 3e-3, 1e-4);
            let head = || model.var_store().variables()["policy_out.weight"].copy();
            let (before, head_before) = (losses(&model, &batch, WEIGHTS).1, head());
            for _ in 0..60 {
                train_step(&model, &mut optimizer, &batch, WEIGHTS, Compute::FP32);
            }
            // Random games' targets are near their floor (the targets' entropy) from the
            // start: the loss falls by a few hundredths of a nat, and the head's weights move.
            let after = losses(&model, &batch, WEIGHTS).1;
            let fell = before.policy_loss - after.policy_loss;
            assert!(fell > 0.03, "{kind:?}: {before:?} -> {after:?}");
            let moved = (head() - head_before).abs().max().double_value(&[]);
            assert!(moved > 1e-3, "{kind:?}: the head's weights moved {moved}");
            let count = |m: &Model| m.var_store().trainable_variables().iter().map(|t| t.numel()).sum::<usize>();
            let standard = Model::new(shape.clone(), tiny_net(16), Device::Cpu).unwrap();
            assert!(count(&model) < count(&standard), "{kind:?}");
            let path = dir.join(format!("{}.safetensors", kind.name()));
            model.save(&path).unwrap();
            let loaded = Model::load(&path, &shape, Device::Cpu).unwrap();
            let again = losses(&loaded, &batch, WEIGHTS).1;
            assert!((again.policy_loss - after.policy_loss).abs() < 1e-5, "{kind:?}");
        });
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
