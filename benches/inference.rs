//! Net throughput on this CPU for each game's default net: positions/s and GFLOP/s at batch
//! 1, 8, 32, 128 and 512 in fp32 and bf16, standalone (back-to-back forward passes) and
//! through the batched evaluator fed by many producer threads, as a ratio of the standalone
//! figure at the same batch. `cargo bench --bench inference [-- --quick] [GAME...]`
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use checkers_zero::game::{GameKind, RulesConfig, StepList};
use checkers_zero::net::encode::Encode;
use checkers_zero::net::evaluator::{evaluate_batch, Evaluator, EvaluatorConfig, Request};
use checkers_zero::net::model::{Model, NetConfig};
use checkers_zero::with_game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tch::{Device, Kind};

const BATCHES: [usize; 5] = [1, 8, 32, 128, 512];

/// Encoded positions from random games, with their legal policy indices.
fn requests<S: Encode>(kind: GameKind, count: usize) -> Vec<Request> {
    let mut rng = StdRng::seed_from_u64(3);
    let mut steps = StepList::new();
    let mut out = Vec::new();
    while out.len() < count {
        let mut state = S::start(kind, RulesConfig::default());
        for _ in 0..rng.gen_range(0..60) {
            state.legal_steps(&mut steps);
            if steps.is_empty() {
                break;
            }
            state.apply_step(steps[rng.gen_range(0..steps.len())]);
        }
        state.legal_steps(&mut steps);
        if steps.is_empty() {
            continue;
        }
        let mut input = vec![0.0; S::PLANES * S::HEIGHT * S::WIDTH];
        state.encode(&mut input);
        let legal = steps
            .iter()
            .map(|&a| state.policy_index(a) as u16)
            .collect();
        out.push(Request { input, legal });
    }
    out
}

/// Positions per second of back-to-back forward passes over `batch` positions.
fn standalone(model: &Model, reqs: &[Request], batch: usize, seconds: f64) -> f64 {
    let refs: Vec<&Request> = reqs.iter().cycle().take(batch).collect();
    let _guard = tch::no_grad_guard();
    evaluate_batch(model, &refs).unwrap(); // warm-up: kernels and allocations
    let start = Instant::now();
    let mut positions = 0;
    while start.elapsed().as_secs_f64() < seconds {
        evaluate_batch(model, &refs).unwrap();
        positions += batch;
    }
    positions as f64 / start.elapsed().as_secs_f64()
}

/// Positions per second through the evaluator at `max_batch`, with enough producers (each
/// sending jobs of 8 positions, as a worker with several games would) to fill two batches.
fn through_evaluator(
    model: Model,
    reqs: &[Request],
    max_batch: usize,
    bf16: bool,
    seconds: f64,
) -> f64 {
    let job = max_batch.min(8);
    let producers = (2 * max_batch / job).max(2);
    let config = EvaluatorConfig {
        max_batch,
        max_wait: Duration::from_millis(5),
        torch_threads: 2,
        bf16,
    };
    let evaluator = Evaluator::spawn(model, config);
    // Warm-up batch, not counted.
    evaluator
        .evaluate(reqs.iter().take(job).cloned().collect())
        .unwrap();
    let counted_from = evaluator.stats().positions.load(Ordering::Relaxed);
    let run_for = Duration::from_secs_f64(seconds);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for p in 0..producers {
            let handle = evaluator.handle();
            let mine: Vec<Request> = reqs
                .iter()
                .cycle()
                .skip(p * job)
                .take(job)
                .cloned()
                .collect();
            scope.spawn(move || {
                while start.elapsed() < run_for {
                    handle.evaluate(mine.clone()).unwrap();
                }
            });
        }
    });
    let positions = evaluator.stats().positions.load(Ordering::Relaxed) - counted_from;
    positions as f64 / start.elapsed().as_secs_f64()
}

/// The middle value.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    checkers_zero::net::init_torch_runtime();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let filter: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let seconds = if quick { 0.6 } else { 1.5 };
    tch::set_num_threads(2);
    // rematch3 shares rematch's encoding and net shape.
    for kind in [GameKind::Rematch, GameKind::Hexdame, GameKind::Eximo] {
        if !filter.is_empty() && !filter.iter().any(|f| *f == kind.name()) {
            continue;
        }
        with_game!(kind, S => {
            let shape = S::net_shape(kind);
            let config = NetConfig::default_for(kind);
            tch::manual_seed(0);
            let fp32 = Model::new(shape.clone(), config.clone(), Device::Cpu).unwrap();
            let flops = fp32.flops_per_position();
            println!(
                "{kind}: {} blocks x {} channels, input {}x{}x{}, {} actions, {:.1} MFLOP/position, 2 torch threads",
                config.blocks, config.channels, shape.planes, shape.height, shape.width,
                shape.num_actions, flops / 1e6
            );
            let reqs = requests::<S>(kind, 512);
            for (kind_name, bf16) in [("fp32", false), ("bf16", true)] {
                let mut model = Model::new(shape.clone(), config.clone(), Device::Cpu).unwrap();
                model.var_store_mut().copy(fp32.var_store()).unwrap();
                if bf16 {
                    model.set_kind(Kind::BFloat16);
                }
                for batch in BATCHES {
                    // Standalone and evaluator runs interleaved three times; medians, so that
                    // load from elsewhere hits both alike.
                    let mut alone = Vec::new();
                    let mut served = Vec::new();
                    for _ in 0..3 {
                        alone.push(standalone(&model, &reqs, batch, seconds / 3.0));
                        let mut fresh = Model::new(shape.clone(), config.clone(), Device::Cpu).unwrap();
                        fresh.var_store_mut().copy(fp32.var_store()).unwrap();
                        served.push(through_evaluator(fresh, &reqs, batch, bf16, seconds / 3.0));
                    }
                    let (alone, served) = (median(alone), median(served));
                    println!(
                        "  {kind_name} batch {batch:>3}: standalone {alone:>7.0} pos/s {:>6.1} GFLOP/s | evaluator {served:>7.0} pos/s, ratio {:.2}",
                        alone * flops / 1e9,
                        served / alone
                    );
                }
            }
        });
    }
}
