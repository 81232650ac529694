//! The model and the batcher: shapes, save/load with metadata checks, clear
//! errors on bad files, batching under many producers, bf16 against fp32, the fp32 copy
//! for small batches (and what the batcher says it runs), dispatch without waiting,
//! replacing the weights, global pooling.
use crate::common;
use common::{evaluate_batch, fresh_dir};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use checkers_zero::config::net::NetConfig;
use checkers_zero::layout;
use checkers_zero::net::backend::{Answer, Backend, Request};
use checkers_zero::net::batcher::{Batcher, BatcherConfig};
use checkers_zero::net::model::{Model, NetShape};
use checkers_zero::net::NetError;
use tch::Device;

fn hex_shape() -> NetShape {
    let side = 5i64;
    let board_mask = (0..side * side)
        .map(|i| ((i % side) - (i / side)).abs() <= 2)
        .collect();
    NetShape {
        game: "rematch".into(),
        encoding_version: 1,
        planes: 6,
        height: side,
        width: side,
        num_actions: 456,
        board_mask,
        hex: true,
        policy_map: Vec::new(),
        policy_per_square: 0,
    }
}

fn request(seed: u64, shape: &NetShape) -> Request {
    let n = (shape.planes * shape.height * shape.width) as usize;
    let input = (0..n)
        .map(|i| (i as u64 * 2654435761 + seed * 97).is_multiple_of(7) as u8 as f32)
        .collect();
    let legal = (0..shape.num_actions as u16)
        .filter(|a| (*a as u64 + seed).is_multiple_of(5))
        .collect();
    Request { input, legal }
}

#[test]
fn forward_shapes_and_masked_policy() {
    tch::manual_seed(1);
    let shape = hex_shape();
    let model = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let r = request(3, &shape);
    let out = evaluate_batch(&model, &[&r]).unwrap();
    assert_eq!(out[0].policy.len(), r.legal.len());
    assert!((out[0].policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    assert!((out[0].wdl.iter().sum::<f32>() - 1.0).abs() < 1e-5);
}

#[test]
fn outputs_do_not_depend_on_batch_company() {
    tch::manual_seed(2);
    let shape = hex_shape();
    let model = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let requests: Vec<Request> = (0..9).map(|s| request(s, &shape)).collect();
    let alone = evaluate_batch(&model, &[&requests[4]]).unwrap();
    let all: Vec<&Request> = requests.iter().collect();
    let together = evaluate_batch(&model, &all).unwrap();
    for (a, b) in alone[0].policy.iter().zip(&together[4].policy) {
        assert!((a - b).abs() < 1e-5);
    }
}

#[test]
fn save_and_load_round_trip() {
    tch::manual_seed(3);
    let dir = fresh_dir("net-roundtrip");
    let shape = hex_shape();
    let model = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let path = dir.join(layout::WEIGHTS_FILE);
    model.save(&path).unwrap();
    assert!(path.with_extension("json").exists());
    let loaded = Model::load(&path, &shape, Device::Cpu).unwrap();
    assert_eq!(loaded.meta(), model.meta());
    let r = request(5, &shape);
    assert_eq!(
        evaluate_batch(&model, &[&r]).unwrap(),
        evaluate_batch(&loaded, &[&r]).unwrap()
    );
    // No temp files left behind.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn loading_a_model_of_another_game_or_shape_fails_clearly() {
    let dir = fresh_dir("net-mismatch");
    let shape = hex_shape();
    let path = dir.join(layout::WEIGHTS_FILE);
    Model::new(shape.clone(), common::small_net(), Device::Cpu)
        .unwrap()
        .save(&path)
        .unwrap();

    let mut other_game = shape.clone();
    other_game.game = "hexdame".into();
    let err = Model::load(&path, &other_game, Device::Cpu).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model mismatch: game is rematch, expected hexdame"
    );

    let mut other_encoding = shape.clone();
    other_encoding.encoding_version = 2;
    let err = Model::load(&path, &other_encoding, Device::Cpu).unwrap_err();
    assert!(
        err.to_string()
            .contains("encoding version is 1, expected 2"),
        "{err}"
    );

    let mut other_planes = shape.clone();
    other_planes.planes = 7;
    assert!(matches!(
        Model::load(&path, &other_planes, Device::Cpu),
        Err(NetError::Mismatch {
            what: "input planes",
            ..
        })
    ));
    // A bare weights file without its metadata: both files named.
    std::fs::remove_file(dir.join(layout::MODEL_META_FILE)).unwrap();
    let err = Model::load(&path, &shape, Device::Cpu)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(layout::MODEL_META_FILE)
            && err.contains(layout::WEIGHTS_FILE)
            && err.contains("missing"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_or_corrupted_files_are_errors_not_panics() {
    let dir = fresh_dir("net-corrupt");
    let shape = hex_shape();
    let path = dir.join(layout::WEIGHTS_FILE);
    assert!(matches!(
        Model::load(&path, &shape, Device::Cpu),
        Err(NetError::Metadata { .. })
    ));

    Model::new(shape.clone(), common::small_net(), Device::Cpu)
        .unwrap()
        .save(&path)
        .unwrap();
    // Truncated weights.
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(matches!(
        Model::load(&path, &shape, Device::Cpu),
        Err(NetError::Weights { .. })
    ));
    // Garbage metadata.
    std::fs::write(path.with_extension("json"), "{not json").unwrap();
    assert!(matches!(
        Model::load(&path, &shape, Device::Cpu),
        Err(NetError::Metadata { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn evaluator_serves_many_producers_without_deadlock() {
    tch::manual_seed(4);
    let shape = hex_shape();
    let model = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let expected: Vec<_> = (0..8u64)
        .map(|s| {
            evaluate_batch(&model, &[&request(s, &shape)])
                .unwrap()
                .remove(0)
        })
        .collect();
    let config = BatcherConfig {
        max_batch: 16,
        max_wait: Duration::from_millis(1),
        torch_threads: 1,
        bf16: false,
        ..BatcherConfig::default()
    };
    let evaluator = Batcher::spawn(model, config);
    let expected = Arc::new(expected);
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let handle = evaluator.handle();
            let shape = shape.clone();
            let expected = Arc::clone(&expected);
            std::thread::spawn(move || {
                for round in 0..40u64 {
                    // Jobs of one to three positions.
                    let seeds: Vec<u64> = (0..=(round % 3)).map(|k| (t + round + k) % 8).collect();
                    let requests = seeds.iter().map(|&s| request(s, &shape)).collect();
                    let answers = handle.evaluate(requests).unwrap();
                    for (s, a) in seeds.iter().zip(answers) {
                        let e = &expected[*s as usize];
                        for (x, y) in a.policy.iter().zip(&e.policy) {
                            assert!((x - y).abs() < 1e-4);
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let stats = evaluator.stats();
    let positions = stats.positions.load(std::sync::atomic::Ordering::Relaxed);
    let batches = stats.batches.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(positions, 8 * (14 + 13 * 2 + 13 * 3));
    assert!(
        batches < positions,
        "requests were batched: {batches} batches"
    );
    evaluator.shutdown();
}

/// A small fp32 net (seeded by the caller), four requests and its answers to them.
fn fp32_answers() -> (Model, Vec<Request>, Vec<Answer>) {
    let shape = hex_shape();
    let fp32 = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let requests: Vec<Request> = (0..4).map(|s| request(s, &shape)).collect();
    let refs: Vec<&Request> = requests.iter().collect();
    let expected = evaluate_batch(&fp32, &refs).unwrap();
    (fp32, requests, expected)
}

#[test]
fn bf16_agrees_with_fp32() {
    tch::manual_seed(5);
    let (fp32, requests, expected) = fp32_answers();
    let refs: Vec<&Request> = requests.iter().collect();
    let mut bf16 = fp32;
    bf16.set_kind(tch::Kind::BFloat16);
    let got = evaluate_batch(&bf16, &refs).unwrap();
    for (e, g) in expected.iter().zip(&got) {
        for (x, y) in e.policy.iter().zip(&g.policy) {
            assert!((x - y).abs() < 0.02, "{x} vs {y}");
        }
        for (x, y) in e.wdl.iter().zip(&g.wdl) {
            assert!((x - y).abs() < 0.03, "{x} vs {y}");
        }
    }
}

/// Largest difference between two sets of answers (policies and W/D/L).
fn max_difference(a: &[Answer], b: &[Answer]) -> f32 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| {
            let policy = x.policy.iter().zip(&y.policy).map(|(p, q)| (p - q).abs());
            let wdl = x.wdl.iter().zip(&y.wdl).map(|(p, q)| (p - q).abs());
            policy.chain(wdl).collect::<Vec<_>>()
        })
        .fold(0.0, f32::max)
}

#[test]
fn bf16_evaluator_runs_small_batches_in_fp32() {
    tch::manual_seed(7);
    let (fp32, requests, expected) = fp32_answers();
    let served = |fp32_below: usize| {
        let config = BatcherConfig {
            max_batch: 8,
            torch_threads: 1,
            bf16: true,
            fp32_below,
            ..BatcherConfig::default()
        };
        let evaluator = Batcher::spawn(fp32.try_clone().unwrap(), config);
        // The batcher says what it runs, as serve shows it.
        assert_eq!(
            evaluator.info().to_string(),
            format!("libtorch on cpu, bf16 (fp32 below {fp32_below}), batches of up to 8")
        );
        let answers = evaluator.evaluate(requests.clone()).unwrap();
        evaluator.shutdown();
        answers
    };
    // A batch of 4 below the threshold: the fp32 copy, same answers as fp32.
    let small = max_difference(&served(5), &expected);
    assert!(small < 1e-5, "fp32 copy differs by {small}");
    // At the threshold: bf16, close to fp32 but not equal.
    let bf16 = max_difference(&served(4), &expected);
    assert!(bf16 > 1e-5 && bf16 < 0.03, "bf16 differs by {bf16}");
}

#[test]
fn checking_the_precision_in_place_serves_both_then_settles_on_one() {
    tch::manual_seed(9);
    let (fp32, requests, expected) = fp32_answers();
    let config = BatcherConfig {
        max_batch: 4,
        torch_threads: 1,
        check_in_place: true,
        ..BatcherConfig::default()
    };
    let evaluator = Batcher::spawn(fp32.try_clone().unwrap(), config);
    // Batches of 4 alternate between fp32 (exact) and bf16 (close) until the band of 2-4 is
    // decided (a warm-up and 6 timed batches each at most), then keep one precision.
    let differences: Vec<f32> = (0..40)
        .map(|_| max_difference(&evaluator.evaluate(requests.clone()).unwrap(), &expected))
        .collect();
    evaluator.shutdown();
    let exact = |d: &f32| *d < 1e-5;
    assert!(differences.iter().all(|d| *d < 0.03), "{differences:?}");
    assert!(
        differences[..14].iter().any(exact) && !differences[..14].iter().all(exact),
        "both precisions served during the check: {differences:?}"
    );
    let settled = &differences[14..];
    assert!(
        settled.iter().all(exact) || !settled.iter().any(exact),
        "one precision after the check: {differences:?}"
    );
}

#[test]
fn a_lone_producer_is_not_kept_waiting_for_a_full_batch() {
    tch::manual_seed(8);
    let shape = hex_shape();
    let model = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let config = BatcherConfig {
        max_batch: 64,
        max_wait: Duration::from_secs(60),
        torch_threads: 1,
        bf16: false,
        ..BatcherConfig::default()
    };
    let evaluator = Batcher::spawn(model, config);
    let started = Instant::now();
    // Only handle alive: its job runs at once, as do the evaluator's own requests.
    let handle = evaluator.handle();
    for s in 0..3 {
        handle.evaluate(vec![request(s, &shape)]).unwrap();
    }
    drop(handle);
    evaluator.evaluate(vec![request(3, &shape)]).unwrap();
    // Two handles, both with a job queued: one batch, at once.
    let before = evaluator.stats().batches.load(Ordering::Relaxed);
    let handles = [evaluator.handle(), evaluator.handle()];
    std::thread::scope(|scope| {
        for (s, handle) in handles.into_iter().enumerate() {
            let shape = &shape;
            scope.spawn(move || handle.evaluate(vec![request(s as u64, shape)]).unwrap());
        }
    });
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "waited out max_wait: {:?}",
        started.elapsed()
    );
    assert_eq!(
        evaluator.stats().batches.load(Ordering::Relaxed),
        before + 1
    );
    evaluator.shutdown();
}

#[test]
fn replaced_weights_serve_the_next_batches() {
    tch::manual_seed(9);
    let shape = hex_shape();
    let old = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let new = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let requests: Vec<Request> = (0..3).map(|s| request(s, &shape)).collect();
    let refs: Vec<&Request> = requests.iter().collect();
    let (from_old, from_new) = (
        evaluate_batch(&old, &refs).unwrap(),
        evaluate_batch(&new, &refs).unwrap(),
    );
    assert!(
        max_difference(&from_old, &from_new) > 1e-3,
        "two different nets"
    );
    let config = BatcherConfig {
        torch_threads: 1,
        bf16: false,
        ..BatcherConfig::default()
    };
    let evaluator = Batcher::spawn(old, config);
    assert!(max_difference(&evaluator.evaluate(requests.clone()).unwrap(), &from_old) < 1e-5);
    evaluator.replace_model(new).unwrap();
    assert!(max_difference(&evaluator.evaluate(requests.clone()).unwrap(), &from_new) < 1e-5);
    evaluator.shutdown();
}

#[test]
fn hex_kernels_have_zero_non_neighbour_taps() {
    // Inference uses the stored 3x3 weights as they are, so the two taps that are not hex
    // neighbours must be zero in every 3x3 kernel, from creation on.
    tch::manual_seed(6);
    let model = Model::new(hex_shape(), common::small_net(), Device::Cpu).unwrap();
    let kernels: Vec<tch::Tensor> = model
        .var_store()
        .variables()
        .into_values()
        .filter(|t| t.size().len() == 4 && t.size()[2] == 3)
        .collect();
    assert_eq!(kernels.len(), 1 + 2 * common::small_net().blocks);
    for t in kernels {
        let corners = t.select(2, 0).select(2, 2).abs().sum(tch::Kind::Double)
            + t.select(2, 2).select(2, 0).abs().sum(tch::Kind::Double);
        assert_eq!(f64::try_from(corners).unwrap(), 0.0);
        let others = f64::try_from(t.abs().sum(tch::Kind::Double)).unwrap();
        assert!(others > 0.0, "the other taps are initialised");
    }
}

/// The variables of `other` that `plain` does not have.
fn added_variables(plain: &Model, other: &Model) -> Vec<String> {
    let plain_vars = plain.var_store().variables();
    other
        .var_store()
        .variables()
        .into_keys()
        .filter(|name| !plain_vars.contains_key(name))
        .collect()
}

/// `net.global_pool`: each block gets a `pool_fc` layer that adds a per-channel bias to its
/// first convolution's output; with that layer at zero the net is exactly the plain one,
/// otherwise it changes the outputs and gets gradients. Saved and loaded like the rest, and
/// a plain model's metadata does not mention it (older models load unchanged).
#[test]
fn global_pooling_adds_a_learned_bias_to_each_block() {
    tch::manual_seed(7);
    let shape = hex_shape();
    let plain = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let pooled_config = NetConfig {
        global_pool: true,
        ..common::small_net()
    };
    let mut pooled = Model::new(shape.clone(), pooled_config.clone(), Device::Cpu).unwrap();
    let plain_vars = plain.var_store().variables();
    let pool_vars = added_variables(&plain, &pooled);
    assert_eq!(
        pool_vars.len(),
        2 * common::small_net().blocks,
        "{pool_vars:?}"
    );
    assert!(pool_vars.iter().all(|n| n.contains("pool_fc")));
    assert!(pooled.flops_per_position() > plain.flops_per_position());

    // Plain weights, zero pooling layers: the plain net's answers.
    tch::no_grad(|| {
        for (name, mut t) in pooled.var_store_mut().variables() {
            match plain_vars.get(&name) {
                Some(p) => t.copy_(p),
                None => t.copy_(&t.zeros_like()),
            };
        }
    });
    let r = request(4, &shape);
    let same = |a: &[Answer], b: &[Answer]| max_difference(a, b) < 1e-6;
    let plain_out = evaluate_batch(&plain, &[&r]).unwrap();
    assert!(same(&plain_out, &evaluate_batch(&pooled, &[&r]).unwrap()));
    tch::no_grad(|| {
        let mut bias = pooled.var_store().variables()["block0.pool_fc.bias"].shallow_clone();
        bias.copy_(&bias.ones_like());
    });
    let pooled_out = evaluate_batch(&pooled, &[&r]).unwrap();
    assert!(!same(&plain_out, &pooled_out));

    // Gradients reach the pooling layers.
    let input =
        tch::Tensor::from_slice(&r.input).reshape([1, shape.planes, shape.height, shape.width]);
    let (policy, value) = pooled.forward_t(&input, true);
    (policy.sum(tch::Kind::Float) + value.sum(tch::Kind::Float)).backward();
    let grad = pooled.var_store().variables()["block1.pool_fc.weight"].grad();
    assert!(f64::try_from(grad.abs().sum(tch::Kind::Double)).unwrap() > 0.0);

    // Round trip; a plain model's metadata has no `global_pool` key.
    let dir = fresh_dir("net-global-pool");
    let path = dir.join(layout::WEIGHTS_FILE);
    pooled.save(&path).unwrap();
    let loaded = Model::load(&path, &shape, Device::Cpu).unwrap();
    assert_eq!(loaded.meta().config, pooled_config);
    // (The train-mode pass above moved the batch-norm statistics: compare answers now.)
    let now = evaluate_batch(&pooled, &[&r]).unwrap();
    assert!(same(&now, &evaluate_batch(&loaded, &[&r]).unwrap()));
    plain.save(&path).unwrap();
    let json = std::fs::read_to_string(path.with_extension("json")).unwrap();
    assert!(!json.contains("global_pool"), "{json}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `net.moves_left`: one more linear unit on the value head's hidden layer, whose output
/// (one number per position) is a training target only; the policy and value answers are
/// the plain net's with the same weights. Saved and loaded like the rest; a plain model's
/// metadata does not mention it.
#[test]
fn the_moves_left_head_adds_one_output_and_leaves_the_others_alone() {
    tch::manual_seed(8);
    let shape = hex_shape();
    let plain = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let config = NetConfig {
        moves_left: true,
        ..common::small_net()
    };
    let mut with_head = Model::new(shape.clone(), config.clone(), Device::Cpu).unwrap();
    let plain_vars = plain.var_store().variables();
    let extra = added_variables(&plain, &with_head);
    assert_eq!(extra.len(), 2, "{extra:?}");
    assert!(extra.iter().all(|n| n.starts_with("moves_left_fc")));
    assert!(with_head.flops_per_position() > plain.flops_per_position());
    tch::no_grad(|| {
        for (name, mut t) in with_head.var_store_mut().variables() {
            if let Some(p) = plain_vars.get(&name) {
                t.copy_(p);
            }
        }
    });
    let requests: Vec<Request> = (3..6).map(|seed| request(seed, &shape)).collect();
    let r = &requests[0];
    let plain_out = evaluate_batch(&plain, &[r]).unwrap();
    assert!(max_difference(&plain_out, &evaluate_batch(&with_head, &[r]).unwrap()) < 1e-6);

    let flat: Vec<f32> = requests.iter().flat_map(|r| r.input.clone()).collect();
    let input =
        tch::Tensor::from_slice(&flat).reshape([3, shape.planes, shape.height, shape.width]);
    let out = with_head.forward_outputs(&input, true);
    let moves_left = out.moves_left.expect("the head's output");
    assert_eq!(moves_left.size(), vec![3]);
    assert!(plain.forward_outputs(&input, true).moves_left.is_none());
    moves_left.sum(tch::Kind::Float).backward();
    let grad = with_head.var_store().variables()["value_fc1.weight"].grad();
    assert!(f64::try_from(grad.abs().sum(tch::Kind::Double)).unwrap() > 0.0);

    let dir = fresh_dir("net-moves-left");
    let path = dir.join(layout::WEIGHTS_FILE);
    with_head.save(&path).unwrap();
    assert_eq!(
        Model::load(&path, &shape, Device::Cpu)
            .unwrap()
            .meta()
            .config,
        config
    );
    plain.save(&path).unwrap();
    let json = std::fs::read_to_string(path.with_extension("json")).unwrap();
    assert!(!json.contains("moves_left"), "{json}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The latency backend (`bench --latency-ms`): every answer is a uniform policy over exactly
/// the position's legal steps and an even W/D/L, and each forward pass of up to `max_batch`
/// positions waits the latency.
#[test]
fn the_latency_backend_answers_every_legal_step_evenly_after_its_wait() {
    use checkers_zero::game::rematch::Rematch;
    use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
    use checkers_zero::net::encode::Encode;
    use checkers_zero::net::net_eval::NetEvaluator;
    let kind = GameKind::Rematch;
    let model = Model::new(Rematch::net_shape(kind), common::small_net(), Device::Cpu).unwrap();
    let latency = Duration::from_millis(20);
    let config = BatcherConfig {
        max_batch: 4,
        torch_threads: 1,
        latency: Some(latency),
        ..BatcherConfig::default()
    };
    let evaluator = Batcher::spawn(model, config);
    // Positions along a game, with different numbers of legal steps.
    let mut states = Vec::new();
    let mut state = Rematch::start(kind, RulesConfig::default());
    let mut steps = StepList::new();
    while states.len() < 8 && state.outcome().is_none() {
        states.push(state);
        state.legal_steps(&mut steps);
        state.apply_step(steps[states.len() % steps.len()]);
    }
    assert_eq!(states.len(), 8);
    let net = NetEvaluator::new(evaluator.handle());
    assert_eq!(net.info().runtime, "latency");
    let refs: Vec<&Rematch> = states.iter().collect();
    let started = Instant::now();
    let answers = net.evaluate_states(&refs).unwrap();
    assert!(
        started.elapsed() >= latency * 2,
        "8 positions at a max batch of 4: two waits, not {:?}",
        started.elapsed()
    );
    for (state, answer) in states.iter().zip(&answers) {
        state.legal_steps(&mut steps);
        assert_eq!(answer.steps, steps);
        let even = 1.0 / steps.len() as f32;
        assert!(
            answer.priors.iter().all(|&p| (p - even).abs() < 1e-6),
            "{answer:?}"
        );
        assert!(answer.wdl.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-6));
    }
}

/// Several batches in flight (`search::run::pipeline` over a real batcher): each group of
/// searches gets its own positions' answers back, whichever order the batches run in. The
/// groups have different sizes, so a swapped reply would also leave a leaf unanswered.
#[test]
fn pipelined_groups_get_their_own_positions_answers() {
    use checkers_zero::config::search::SearchConfig;
    use checkers_zero::game::rematch::Rematch;
    use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
    use checkers_zero::net::encode::Encode;
    use checkers_zero::net::net_eval::NetEvaluator;
    use checkers_zero::net::net_eval::{Evaluate, LeafEval};
    use checkers_zero::search::run::{pipeline, Lockstep};
    use checkers_zero::search::tree::{Leaf, Mcts};
    use std::collections::HashMap;

    struct Group {
        states: Vec<Rematch>,
        rounds: usize,
        expected: Arc<HashMap<u64, f32>>,
        checked: usize,
    }

    impl Lockstep<Rematch> for Group {
        fn leaves(&mut self) -> Option<Vec<(usize, Leaf<Rematch>)>> {
            if self.rounds == 0 {
                return None;
            }
            self.rounds -= 1;
            let config = SearchConfig::default().mcts(false);
            let leaf = |s: &Rematch| Mcts::new(*s, config.clone()).select_leaf();
            Some(self.states.iter().map(leaf).enumerate().collect())
        }

        fn backup(&mut self, i: usize, leaf: Leaf<Rematch>, eval: Option<&LeafEval>) {
            let got = eval.expect("every leaf answered").value;
            let want = self.expected[&leaf.state.position_hash()];
            assert!((got - want).abs() < 1e-3, "leaf {i}: {got} for {want}");
            self.checked += 1;
        }
    }

    let kind = GameKind::Rematch;
    tch::manual_seed(11);
    let model = Model::new(Rematch::net_shape(kind), common::small_net(), Device::Cpu).unwrap();
    // Positions along a game, each group a different stretch of it.
    let mut states = Vec::new();
    let mut state = Rematch::start(kind, RulesConfig::default());
    let mut steps = StepList::new();
    while states.len() < 8 && state.outcome().is_none() {
        state.legal_steps(&mut steps);
        state.apply_step(steps[(states.len() * 7) % steps.len()]);
        if !state.turn_in_progress() && state.outcome().is_none() {
            states.push(state);
        }
    }
    assert_eq!(states.len(), 8);
    let config = BatcherConfig {
        max_batch: 16,
        torch_threads: 1,
        ..BatcherConfig::default()
    };
    let evaluator = Batcher::spawn(model, config);
    let mut net = NetEvaluator::new(evaluator.handle());
    let mut expected = HashMap::new();
    for s in &states {
        let leaf = Mcts::new(*s, SearchConfig::default().mcts(false)).select_leaf();
        let value = net.evaluate(&[&leaf.state]).unwrap()[0].value;
        expected.insert(leaf.state.position_hash(), value);
    }
    let expected = Arc::new(expected);
    let group = |range: std::ops::Range<usize>| Group {
        states: states[range].to_vec(),
        rounds: 5,
        expected: Arc::clone(&expected),
        checked: 0,
    };
    let mut groups = vec![group(0..3), group(3..8)];
    pipeline(&mut groups, &mut [&mut net]).unwrap();
    assert_eq!((groups[0].checked, groups[1].checked), (15, 25));
}

/// Several forward passes in flight (`streams`): every job of many producers is answered
/// with its own positions' outputs, and new weights sent while batches are in flight lose
/// no job: each is answered by the old weights or the new, and every job sent after the
/// swap by the new.
#[test]
fn several_streams_answer_every_job_and_take_up_new_weights() {
    use checkers_zero::net::backend::{read_answers, submit};
    let shape = hex_shape();
    tch::manual_seed(21);
    let old = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    tch::manual_seed(22);
    let new = Model::new(shape.clone(), common::small_net(), Device::Cpu).unwrap();
    let requests: Vec<Request> = (0..24).map(|i| request(i, &shape)).collect();
    let refs: Vec<&Request> = requests.iter().collect();
    let (want_old, want_new) = (
        evaluate_batch(&old, &refs).unwrap(),
        evaluate_batch(&new, &refs).unwrap(),
    );
    let config = BatcherConfig {
        max_batch: 4,
        max_wait: Duration::ZERO,
        torch_threads: 1,
        streams: 3,
        ..BatcherConfig::default()
    };
    let batcher = Batcher::spawn(old.try_clone().unwrap(), config);
    let num_actions = shape.num_actions as usize;
    // Producers on their own threads, two positions a job, all in flight together.
    std::thread::scope(|scope| {
        for pair in requests.chunks(2).enumerate() {
            let (i, jobs) = pair;
            let handle = batcher.handle();
            let want = &want_old[2 * i..2 * i + 2];
            scope.spawn(move || {
                let got = handle.evaluate(jobs.to_vec()).unwrap();
                assert!(max_difference(&got, want) < 1e-5, "job {i}");
            });
        }
    });
    // A swap while jobs are in flight: each is answered, by the old weights or the new.
    let handle = batcher.handle();
    let in_flight: Vec<_> = requests
        .chunks(2)
        .map(|jobs| submit(&handle, jobs).unwrap())
        .collect();
    batcher.replace_model(new.try_clone().unwrap()).unwrap();
    for (i, receipt) in in_flight.into_iter().enumerate() {
        let got = read_answers(
            &receipt.wait().unwrap(),
            &requests[2 * i..2 * i + 2],
            num_actions,
        );
        let (o, n) = (&want_old[2 * i..2 * i + 2], &want_new[2 * i..2 * i + 2]);
        assert!(
            max_difference(&got, o) < 1e-5 || max_difference(&got, n) < 1e-5,
            "job {i} answered by neither net"
        );
    }
    // Every job sent after the swap has reached every stream gets the new weights.
    let after: Vec<_> = requests
        .chunks(2)
        .map(|jobs| submit(&handle, jobs).unwrap())
        .collect();
    let mut answered = Vec::new();
    for (i, receipt) in after.into_iter().enumerate() {
        answered.extend(read_answers(
            &receipt.wait().unwrap(),
            &requests[2 * i..2 * i + 2],
            num_actions,
        ));
    }
    assert!(max_difference(&answered, &want_new) < 1e-5);
    drop(handle);
    batcher.shutdown();
}
