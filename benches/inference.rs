//! Net throughput on this machine for each game's default net: positions/s and GFLOP/s at batch
//! 1, 8, 32, 128 and 512 in fp32 and bf16, standalone (back-to-back forward passes) and
//! through the batched evaluator fed by many producer threads, as a ratio of the standalone
//! figure at the same batch. `cargo bench --bench inference [-- --quick] [--crossover] [GAME...]`
//! (`--crossover`: standalone fp32 against bf16 at batch 1-16 only.)
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use checkers_zero::config::batching::Form;
use checkers_zero::config::net::NetConfig;
use checkers_zero::game::{GameKind, RulesConfig, StepList};
use checkers_zero::net::args::PROBE_BUDGET;
use checkers_zero::net::backend::Request;
use checkers_zero::net::batcher::{Batcher, BatcherConfig};
use checkers_zero::net::encode::Encode;
use checkers_zero::net::forward::{forward_raw, GpuStaging, Staging};
use checkers_zero::net::inference::InferenceNet;
use checkers_zero::net::model::Model;
use checkers_zero::net::precision::{choose, probe_batches, probe_model};
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
        let request = Request::for_state(&state, &mut steps);
        if steps.is_empty() {
            continue;
        }
        out.push(request);
    }
    out
}

/// Positions per second of back-to-back forward passes over `batch` positions, over at
/// least `seconds` and three passes.
fn standalone(model: &Model, reqs: &[Request], batch: usize, seconds: f64) -> f64 {
    // On a fresh thread with its own torch threads, as the evaluator runs.
    let model = model.try_clone().unwrap();
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                tch::set_num_threads(2);
                standalone_here(&model, reqs, batch, seconds)
            })
            .join()
            .unwrap()
    })
}

fn standalone_here(model: &Model, reqs: &[Request], batch: usize, seconds: f64) -> f64 {
    let input: Vec<f32> = reqs
        .iter()
        .cycle()
        .take(batch)
        .flat_map(|r| r.input.clone())
        .collect();
    let _guard = tch::no_grad_guard();
    let mut staging = Staging::new(GpuStaging::default(), model.var_store().device());
    let net = InferenceNet::build(model, model.kind(), Form::Folded).unwrap();
    let mut forward = || forward_raw(|_| &net, &input, batch, batch, &mut staging).unwrap();
    forward(); // warm-up: kernels and allocations
    let start = Instant::now();
    let mut positions = 0;
    while start.elapsed().as_secs_f64() < seconds || positions < 3 * batch {
        forward();
        positions += batch;
    }
    positions as f64 / start.elapsed().as_secs_f64()
}

/// Positions per second through the evaluator at `max_batch`, in steady state. Producers
/// model self-play workers, each sending one job of a quarter batch per round (all its
/// games' leaves) and waiting for the answer; there are eight of them (two at batch one), so
/// one batch runs while the next is queued. The rate is taken between the first and the
/// last batch that completes in a window of at least `seconds` and three batches, so
/// neither thread start-up nor the last round's stragglers count. `fp32_below` is the
/// [`BatcherConfig`] field.
fn through_evaluator(
    model: Model,
    reqs: &[Request],
    max_batch: usize,
    (bf16, fp32_below): (bool, usize),
    seconds: f64,
) -> f64 {
    let job = max_batch.div_ceil(4);
    let producers = 2 * max_batch.div_ceil(job);
    let config = BatcherConfig {
        max_batch,
        max_wait: Duration::from_millis(5),
        torch_threads: 2,
        bf16,
        fp32_below,
        device: tch::Device::Cpu,
        ..BatcherConfig::default()
    };
    let evaluator = Batcher::spawn(model, config);
    // Warm-up at the full batch size (kernels and allocations for that shape), not counted.
    evaluator
        .evaluate(reqs.iter().cycle().take(max_batch).cloned().collect())
        .unwrap();
    let stop = AtomicBool::new(false);
    let stats = evaluator.stats();
    let mut window = None;
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
            let stop = &stop;
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    handle.evaluate(mine.clone()).unwrap();
                }
            });
        }
        // Watch the counter (waking every half millisecond): note when batches complete.
        let mut seen = stats.batches.load(Ordering::Relaxed);
        let mut completions = 0;
        let mut first: Option<(u64, Instant)> = None;
        loop {
            std::thread::sleep(Duration::from_micros(500));
            let batches = stats.batches.load(Ordering::Relaxed);
            if batches == seen {
                continue;
            }
            seen = batches;
            completions += 1;
            let now = (stats.positions.load(Ordering::Relaxed), Instant::now());
            // Skip the first round, whose batches the producers' start-up may have delayed.
            if completions < 3 {
                continue;
            }
            let Some((p0, t0)) = first else {
                first = Some(now);
                continue;
            };
            if completions >= 6 && now.1.duration_since(t0).as_secs_f64() >= seconds {
                window = Some((now.0 - p0) as f64 / now.1.duration_since(t0).as_secs_f64());
                break;
            }
        }
        stop.store(true, Ordering::Relaxed);
    });
    window.expect("the window closed")
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
    let crossover = args.iter().any(|a| a == "--crossover");
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
            let copy_of = |kind: Kind| {
                let mut model = Model::new(shape.clone(), config.clone(), Device::Cpu).unwrap();
                model.var_store_mut().copy(fp32.var_store()).unwrap();
                model.set_kind(kind);
                model
            };
            if crossover {
                // Where bf16 overtakes fp32 (what the precision probe measures).
                let (f, b) = (copy_of(Kind::Float), copy_of(Kind::BFloat16));
                for batch in [1, 2, 4, 8, 16] {
                    let (mut fs, mut bs) = (Vec::new(), Vec::new());
                    for _ in 0..3 {
                        fs.push(standalone(&f, &reqs, batch, seconds / 3.0));
                        bs.push(standalone(&b, &reqs, batch, seconds / 3.0));
                    }
                    let (fs, bs) = (median(fs), median(bs));
                    println!("  batch {batch:>2}: fp32 {fs:>6.0} pos/s, bf16 {bs:>6.0} pos/s, bf16/fp32 {:.2}", bs / fs);
                }
                continue;
            }
            let mut best_alone = [0.0f64; BATCHES.len()];
            for (kind_name, bf16) in [("fp32", false), ("bf16", true)] {
                let model = copy_of(if bf16 { Kind::BFloat16 } else { Kind::Float });
                for (b, batch) in BATCHES.into_iter().enumerate() {
                    // Standalone and evaluator runs interleaved three times; medians, so that
                    // load from elsewhere hits both alike. The evaluator runs in the same
                    // precision at every batch here (no fp32 switch).
                    let mut alone = Vec::new();
                    let mut served = Vec::new();
                    for _ in 0..3 {
                        alone.push(standalone(&model, &reqs, batch, seconds / 3.0));
                        served.push(through_evaluator(copy_of(Kind::Float), &reqs, batch, (bf16, 0), seconds / 3.0));
                    }
                    let (alone, served) = (median(alone), median(served));
                    best_alone[b] = best_alone[b].max(alone);
                    println!(
                        "  {kind_name} batch {batch:>3}: standalone {alone:>7.0} pos/s {:>6.1} GFLOP/s | evaluator {served:>7.0} pos/s, ratio {:.2}",
                        alone * flops / 1e9,
                        served / alone
                    );
                }
            }
            // What `precision = "auto"` picks for this net (the probe, as the commands run
            // it), against the faster standalone.
            let timings =
                probe_model(&fp32, &[Form::Folded], &probe_batches(128), 2, PROBE_BUDGET).unwrap();
            let choice = choose(&timings);
            let rule = (choice.bf16_from.is_some(), choice.bf16_from.unwrap_or(0));
            for (b, batch) in BATCHES.into_iter().enumerate().take(2) {
                let served = median(
                    (0..3)
                        .map(|_| through_evaluator(copy_of(Kind::Float), &reqs, batch, rule, seconds / 3.0))
                        .collect(),
                );
                println!(
                    "  auto ({}) batch {batch:>3}: evaluator {served:>7.0} pos/s, ratio to the faster standalone {:.2}",
                    choice.label(),
                    served / best_alone[b]
                );
            }
        });
    }
}
