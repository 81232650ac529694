//! Search cost per simulation with a free evaluator (uniform priors, value 0): simulations
//! per second on one core, the overhead the search adds to every net evaluation.
//! Also random playouts per second (the `uct:N` agent's leaf value; `search.rollouts` runs
//! that many per net-evaluated leaf). With `--net`, also net+MCTS throughput through the
//! batched evaluator (bf16).
//! `cargo bench --bench search [-- --net]`
use std::time::Instant;

use std::sync::atomic::Ordering;
use std::time::Duration;

use checkers_zero::config::net::NetConfig;
use checkers_zero::config::search::SearchConfig;
use checkers_zero::config::search::SearchKind;
use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use checkers_zero::net::batcher::{Batcher, BatcherConfig};
use checkers_zero::net::encode::Encode;
use checkers_zero::net::model::Model;
use checkers_zero::net::net_eval::Evaluate;
use checkers_zero::net::net_eval::NetEvaluator;
use checkers_zero::net::net_eval::UniformEvaluator;
use checkers_zero::net::precision::{cpu_identity, relevant_flags};
use checkers_zero::search::rollout::random_playout;
use checkers_zero::search::run::{run_searches, start_search};
use checkers_zero::search::tree::Mcts;
use checkers_zero::with_game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tch::Device;

/// `count` positions 0..40 plies into random games.
fn positions<S: GameState>(kind: GameKind, count: usize, seed: u64) -> Vec<S> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut steps = StepList::new();
    (0..count)
        .map(|_| {
            let mut s = S::start(kind, RulesConfig::default());
            for _ in 0..rng.gen_range(0..40) {
                s.legal_steps(&mut steps);
                if steps.is_empty() {
                    break;
                }
                s.apply_step(steps[rng.gen_range(0..steps.len())]);
            }
            if s.outcome().is_some() {
                s = S::start(kind, RulesConfig::default());
            }
            s
        })
        .collect()
}

/// A fresh tree at each of [`positions`].
fn trees<S: GameState>(kind: GameKind, count: usize, seed: u64) -> Vec<Mcts<S>> {
    positions(kind, count, seed)
        .into_iter()
        .map(|s| Mcts::new(s, SearchConfig::default().mcts(false)))
        .collect()
}

/// PUCT on all `trees` in lockstep until each root has `simulations` more visits.
fn run_simulations<S: GameState, E: Evaluate<S>>(
    trees: &mut [&mut Mcts<S>],
    evaluator: &mut E,
    simulations: u32,
) {
    let config = SearchConfig {
        kind: SearchKind::Puct,
        ..SearchConfig::default()
    };
    let mut roots: Vec<_> = trees
        .iter()
        .map(|tree| start_search(&config, tree, simulations, false))
        .collect();
    let mut rng = StdRng::seed_from_u64(0);
    run_searches(trees, &mut roots, evaluator, &mut rng).unwrap();
}

/// Random playouts on one core from [`positions`]: what one `search.rollouts` playout adds
/// to a net-evaluated leaf.
fn playouts<S: GameState>(kind: GameKind) {
    let roots: Vec<S> = positions(kind, 64, 2);
    let (per_root, mut rng) = (16, StdRng::seed_from_u64(3));
    let start = Instant::now();
    for root in &roots {
        for _ in 0..per_root {
            std::hint::black_box(random_playout(root, &mut rng));
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    let total = (roots.len() * per_root) as f64;
    println!(
        "playout {:<8} {} positions x {per_root}: {:>9.0} random playouts/s on one core ({:.1} us each)",
        kind.name(),
        roots.len(),
        total / seconds,
        1e6 * seconds / total
    );
}

/// Net+MCTS: `workers` threads each searching `per_worker` trees in lockstep, their leaves
/// batched by the evaluator (bf16, max batch = all trees).
fn net_mcts<S: Encode>(kind: GameKind, workers: usize, per_worker: usize, simulations: u32) {
    tch::manual_seed(0);
    let model = Model::new(
        S::net_shape(kind),
        NetConfig::default_for(kind),
        Device::Cpu,
    )
    .unwrap();
    let max_batch = workers * per_worker;
    let evaluator = Batcher::spawn(
        model,
        BatcherConfig {
            max_batch,
            max_wait: Duration::from_millis(5),
            torch_threads: 2,
            bf16: true,
            ..BatcherConfig::default()
        },
    );
    let start = Instant::now();
    std::thread::scope(|scope| {
        for w in 0..workers {
            let mut net = NetEvaluator::new(evaluator.handle());
            scope.spawn(move || {
                let mut forest: Vec<Mcts<S>> = trees(kind, per_worker, w as u64);
                let mut refs: Vec<&mut Mcts<S>> = forest.iter_mut().collect();
                run_simulations(&mut refs, &mut net, simulations);
            });
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    let stats = evaluator.stats();
    let positions = stats.positions.load(Ordering::Relaxed) as f64;
    let batches = stats.batches.load(Ordering::Relaxed).max(1) as f64;
    let busy = stats.busy_nanos.load(Ordering::Relaxed) as f64 / 1e9;
    println!(
        "net+mcts {:<8} {workers} worker(s) x {per_worker} trees x {simulations} sims: {:>6.0} simulations/s, {:>6.0} net evals/s, mean batch {:.1}, net busy {:.0}%",
        kind.name(),
        (workers * per_worker) as f64 * simulations as f64 / seconds,
        positions / seconds,
        positions / batches,
        100.0 * busy / seconds
    );
}

fn main() {
    checkers_zero::net::init_torch_runtime();
    let with_net = std::env::args().any(|a| a == "--net");
    let (cpu, flags) = cpu_identity();
    println!("cpu: {cpu}; flags: {}", relevant_flags(&flags));
    let simulations = 800;
    for kind in GameKind::ALL {
        with_game!(kind, S => {
            // 64 trees searched together (as a self-play worker runs them), from positions
            // 0..40 plies into random games.
            let mut forest: Vec<Mcts<S>> = trees(kind, 64, 1);
            let start = Instant::now();
            let mut refs: Vec<&mut Mcts<S>> = forest.iter_mut().collect();
            run_simulations(&mut refs, &mut UniformEvaluator, simulations);
            let seconds = start.elapsed().as_secs_f64();
            let total = (simulations as usize * forest.len()) as f64;
            println!(
                "search {:<8} {} trees x {simulations} simulations: {:>9.0} simulations/s on one core ({:.2} us each)",
                kind.name(),
                forest.len(),
                total / seconds,
                1e6 * seconds / total
            );
            playouts::<S>(kind);
        });
    }
    if !with_net {
        return;
    }
    tch::set_num_threads(2);
    for kind in [GameKind::Rematch, GameKind::Hexdame, GameKind::Eximo] {
        with_game!(kind, S => {
            net_mcts::<S>(kind, 1, 128, 32);
            net_mcts::<S>(kind, 2, 64, 32);
        });
    }
}
