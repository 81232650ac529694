//! Self-play and training throughput for a run config (default `configs/rematch.toml`):
//! self-play positions/s, the net's throughput inside self-play as a ratio of the same net's
//! standalone throughput at the same batch size and thread count, and training samples/s.
//! `cargo bench --bench selfplay [-- CONFIG] [--seconds N] [--latency-ms L]`; with
//! `--latency-ms` the net is replaced by the latency backend (each forward pass sleeps L ms
//! and answers a uniform policy), which measures self-play's pipeline alone.
use std::path::PathBuf;
use std::time::{Duration, Instant};

use checkers_zero::config::batching::Form;
use checkers_zero::config::RunConfig;
use checkers_zero::net::args::settle_selfplay;
use checkers_zero::net::backend::Request;
use checkers_zero::net::encode::Encode;
use checkers_zero::net::forward::{forward_raw, GpuStaging, Staging};
use checkers_zero::net::inference::InferenceNet;
use checkers_zero::net::model::Model;
use checkers_zero::selfplay::pool::SelfPlayPool;
use checkers_zero::selfplay::record::GameRecord;
use checkers_zero::selfplay::samples::samples_of_game;
use checkers_zero::selfplay::worker::WorkerSettings;
use checkers_zero::train::optimizer::AdamW;
use checkers_zero::train::trainer::{train_step, Compute, LossWeights};
use checkers_zero::train::window::{ReplayWindow, Symmetries};
use checkers_zero::with_game;
use rand::rngs::StdRng;
use rand::SeedableRng;
use tch::{Device, Kind};

/// Encoded positions of recorded games, as evaluator requests.
fn requests_from<S: Encode>(games: &[GameRecord], count: usize) -> Vec<Request> {
    let mut out = Vec::new();
    let mut steps = Vec::new();
    for game in games {
        let _ = game.replay::<S>(|state, _| {
            if out.len() < count {
                out.push(Request::for_state(state, &mut steps));
            }
        });
    }
    out
}

/// Positions per second of back-to-back forward passes of `batch` positions.
fn standalone(model: &Model, requests: &[Request], batch: usize, seconds: f64) -> f64 {
    let input: Vec<f32> = requests
        .iter()
        .cycle()
        .take(batch)
        .flat_map(|r| r.input.clone())
        .collect();
    let _guard = tch::no_grad_guard();
    let mut staging = Staging::new(GpuStaging::default(), model.var_store().device());
    let net = InferenceNet::build(model, model.kind(), Form::Folded).unwrap();
    let mut forward = || forward_raw(|_| &net, &input, batch, batch, &mut staging).unwrap();
    forward();
    let start = Instant::now();
    let mut positions = 0;
    while start.elapsed().as_secs_f64() < seconds {
        forward();
        positions += batch;
    }
    positions as f64 / start.elapsed().as_secs_f64()
}

/// Positions per second of `instances` threads, each with its own copy of `model` and
/// `threads` libtorch threads, running forward passes of `batch` positions side by side:
/// the evaluator instances' layout without self-play around them.
fn standalone_instances(
    model: &Model,
    requests: &[Request],
    batch: usize,
    instances: usize,
    threads: i32,
    seconds: f64,
) -> f64 {
    let copies: Vec<Model> = (0..instances).map(|_| model.try_clone().unwrap()).collect();
    let rates: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = copies
            .into_iter()
            .map(|copy| {
                scope.spawn(move || {
                    tch::set_num_threads(threads);
                    standalone(&copy, requests, batch, seconds)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    rates.iter().sum()
}

/// The evaluator settings as settled for this machine.
struct Settled {
    max_batch: usize,
    instances: usize,
    torch_threads: i32,
    bf16: bool,
}

fn run<S: Encode>(config: &RunConfig, seconds: f64, latency: Option<Duration>) {
    let kind = config.kind();
    let shape = S::net_shape(kind);
    tch::manual_seed(config.seed as i64);
    let model = Model::new(shape.clone(), config.net_config(), Device::Cpu).unwrap();
    let flops = model.flops_per_position();
    let (layout, mut evaluator, _) = settle_selfplay(config, &model).unwrap();
    evaluator.latency = latency;
    let e = Settled {
        max_batch: evaluator.max_batch,
        instances: layout.instances,
        torch_threads: layout.torch_threads as i32,
        bf16: evaluator.bf16,
    };
    println!(
        "{kind}: net {} blocks x {} channels ({:.1} MFLOP/position); {} workers x {} games, {} search {}/{} visits ({}% full); evaluator max batch {}, {} instance(s) x {} torch thread(s), {}",
        config.net_config().blocks, config.net_config().channels, flops / 1e6,
        layout.workers, config.selfplay.games_in_flight,
        config.search.kind,
        config.search.visits, config.selfplay.fast_visits,
        (100.0 * config.selfplay.full_search_share).round(),
        e.max_batch, e.instances, e.torch_threads, if e.bf16 { "bf16" } else { "fp32" }
    );
    let mut pool = SelfPlayPool::start::<S>(
        WorkerSettings::steady_state(config),
        layout.workers,
        model.try_clone().unwrap(),
        evaluator,
        e.instances,
        0,
        0,
        None,
    )
    .unwrap();
    std::thread::sleep(Duration::from_secs(2)); // warm-up
    let mark = |p: &SelfPlayPool| {
        let s = p.batcher_totals();
        (
            s.positions,
            s.batches,
            (s.busy_nanos, s.instance_nanos),
            p.steps_played(),
            p.samples_made(),
        )
    };
    let mut games = pool.finished_games().expect("self-play runs");
    let before = mark(&pool);
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs_f64(seconds));
    let after = mark(&pool);
    let wall = start.elapsed().as_secs_f64();
    let counted = pool.finished_games().expect("self-play runs");
    assert!(pool.alive(), "self-play stopped");
    let samples = after.4 - before.4;
    games.extend(counted.iter().cloned());
    games.extend(pool.stop());
    let net_positions = (after.0 - before.0) as f64;
    let mean_batch = net_positions / (after.1 - before.1).max(1) as f64;
    let net_rate = net_positions / wall;
    let busy = (after.2 .0 - before.2 .0) as f64 / (after.2 .1 - before.2 .1).max(1) as f64;
    let steps_rate = (after.3 - before.3) as f64 / wall;
    println!(
        "  self-play: {steps_rate:.0} positions/s (steps played), {:.0} training samples/s, {:.1} games/s",
        samples as f64 / wall,
        counted.len() as f64 / wall
    );
    println!(
        "  net inside self-play: {net_rate:.0} positions/s, mean batch {mean_batch:.1}, busy {:.0}% of the time",
        100.0 * busy
    );
    if let Some(latency) = latency {
        println!(
            "  self-play: {steps_rate:.0} positions/s (latency {} ms)",
            latency.as_secs_f64() * 1000.0
        );
        return;
    }

    // The same net alone, same precision, at the same batch size, with as many threads as
    // all the evaluator instances together (the cores they have).
    let threads = e.torch_threads.max(1) * e.instances as i32;
    tch::set_num_threads(threads);
    let mut alone_model = model.try_clone().unwrap();
    if e.bf16 {
        alone_model.set_kind(Kind::BFloat16);
    }
    let requests = requests_from::<S>(&games, 1024);
    let batch = mean_batch.round().max(1.0) as usize;
    let alone = standalone_instances(
        &alone_model,
        &requests,
        batch,
        e.instances,
        e.torch_threads.max(1),
        3.0,
    );
    println!(
        "  standalone net at batch {batch}, {} instance(s) x {} torch thread(s) side by side: {alone:.0} positions/s -> self-play/standalone ratio {:.2}",
        e.instances,
        e.torch_threads.max(1),
        net_rate / alone,
    );
    let one = standalone(&alone_model, &requests, batch, 3.0);
    println!(
        "  standalone net at batch {batch}, one forward pass at a time with {threads} torch thread(s): {one:.0} positions/s -> ratio {:.2}",
        net_rate / one
    );

    // Training on the games just played.
    let t = &config.train;
    if t.torch_threads > 0 {
        tch::set_num_threads(t.torch_threads);
    }
    let mut window = ReplayWindow::new(usize::MAX / 2);
    for game in &games {
        window.extend(samples_of_game::<S>(game).unwrap());
    }
    let mut optimizer = AdamW::new(model.var_store(), t.learning_rate, t.weight_decay);
    let symmetries = Symmetries::of::<S>(false);
    let actions = shape.num_actions as usize;
    let mut rng = StdRng::seed_from_u64(1);
    let mut step = || {
        let batch = window.batch(t.batch_size, actions, &symmetries, &mut rng);
        let weights = LossWeights::of(t);
        train_step(&model, &mut optimizer, &batch, weights, Compute::FP32);
    };
    for _ in 0..3 {
        step();
    }
    let start = Instant::now();
    let mut steps = 0;
    while start.elapsed().as_secs_f64() < seconds / 2.0 {
        step();
        steps += 1;
    }
    let rate = (steps * t.batch_size) as f64 / start.elapsed().as_secs_f64();
    println!(
        "  training: {rate:.0} samples/s (batch {}, {} torch thread(s), window of {} samples incl. batch building)",
        t.batch_size,
        t.torch_threads,
        window.len()
    );
}

fn main() {
    checkers_zero::net::init_torch_runtime();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut seconds = 20.0;
    let mut latency = None;
    let mut path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/rematch.toml"));
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--seconds" => {
                seconds = args[i + 1].parse().expect("--seconds N");
                i += 1;
            }
            "--latency-ms" => {
                let ms: f64 = args[i + 1].parse().expect("--latency-ms L");
                latency = Some(Duration::from_secs_f64(ms / 1000.0));
                i += 1;
            }
            "--bench" => {}
            other => path = PathBuf::from(other),
        }
        i += 1;
    }
    let config = RunConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
    with_game!(config.kind(), S => run::<S>(&config, seconds, latency));
}
