//! Net throughput on this CPU: the standalone net (fp32 vs bf16, by batch size) and the
//! batched evaluator fed by many producer threads, as a ratio of the standalone peak.
//! `cargo bench --bench inference [-- --quick]`
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use checkers_zero::net::evaluator::{evaluate_batch, Evaluator, EvaluatorConfig, Request};
use checkers_zero::net::model::{Model, NetConfig, NetShape};
use tch::{Device, Kind};

/// HexDame-sized input: a 9x9 grid holding the 61-cell hex board.
fn shape() -> NetShape {
    let side = 9i64;
    NetShape {
        game: "hexdame".into(),
        encoding_version: 0,
        planes: 24,
        height: side,
        width: side,
        num_actions: 2928,
        board_mask: (0..side * side)
            .map(|i| ((i % side) - (i / side)).abs() <= 4)
            .collect(),
        hex: true,
    }
}

fn requests(n: usize, shape: &NetShape) -> Vec<Request> {
    let cells = (shape.planes * shape.height * shape.width) as usize;
    (0..n)
        .map(|k| Request {
            input: (0..cells)
                .map(|i| ((i * 7 + k) % 5 == 0) as u8 as f32)
                .collect(),
            legal: (0..40)
                .map(|a| (a * 71 + k as u16) % shape.num_actions as u16)
                .collect(),
        })
        .collect()
}

/// Positions per second of back-to-back forward passes at `batch`.
fn standalone(model: &Model, batch: usize, seconds: f64) -> f64 {
    let shape = &model.meta().shape;
    let reqs = requests(batch, shape);
    let refs: Vec<&Request> = reqs.iter().collect();
    let _guard = tch::no_grad_guard();
    evaluate_batch(model, &refs).unwrap(); // warm-up
    let start = Instant::now();
    let mut positions = 0;
    while start.elapsed().as_secs_f64() < seconds {
        evaluate_batch(model, &refs).unwrap();
        positions += batch;
    }
    positions as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let seconds = if quick { 0.5 } else { 2.0 };
    tch::manual_seed(0);
    let config = NetConfig {
        blocks: 6,
        channels: 64,
        policy_channels: 32,
        value_hidden: 128,
    };
    println!(
        "net: {} blocks x {} channels, input {}x9x9 (hex-masked)",
        config.blocks,
        config.channels,
        shape().planes
    );
    let fp32 = Model::new(shape(), config.clone(), Device::Cpu).unwrap();
    let mut bf16 = Model::new(shape(), config.clone(), Device::Cpu).unwrap();
    bf16.var_store_mut().copy(fp32.var_store()).unwrap();
    bf16.set_kind(Kind::BFloat16);
    let mut peak = (0.0f64, 0usize, "");
    for threads in [1, 2] {
        tch::set_num_threads(threads);
        for batch in [1usize, 8, 32, 64, 128, 256] {
            let a = standalone(&fp32, batch, seconds);
            let b = standalone(&bf16, batch, seconds);
            println!(
                "standalone {threads} thread(s) batch {batch:>4}: fp32 {a:>7.0} pos/s  bf16 {b:>7.0} pos/s  bf16/fp32 {:.2}x",
                b / a
            );
            for (rate, kind) in [(a, "fp32"), (b, "bf16")] {
                if threads == 2 && rate > peak.0 {
                    peak = (rate, batch, kind);
                }
            }
        }
    }
    println!(
        "standalone peak (2 threads): {:.0} pos/s ({} at batch {})",
        peak.0, peak.2, peak.1
    );

    // The evaluator with 16 producers each sending jobs of 8 positions (as a self-play worker
    // with several games would), max batch 128, bf16 as the faster kind.
    let max_batch = 128;
    let model = Model::new(shape(), config, Device::Cpu).unwrap();
    let evaluator = Evaluator::spawn(
        model,
        EvaluatorConfig {
            max_batch,
            max_wait: Duration::from_millis(2),
            torch_threads: 2,
            bf16: true,
        },
    );
    let producers = 16;
    let run_for = Duration::from_secs_f64(seconds * 2.0);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..producers {
            let handle = evaluator.handle();
            scope.spawn(move || {
                let reqs = requests(8, &shape());
                while start.elapsed() < run_for {
                    handle.evaluate(reqs.clone()).unwrap();
                }
            });
        }
    });
    let elapsed = start.elapsed().as_secs_f64();
    let stats = evaluator.stats();
    let positions = stats.positions.load(Ordering::Relaxed) as f64;
    let batches = stats.batches.load(Ordering::Relaxed) as f64;
    let busy = stats.busy_nanos.load(Ordering::Relaxed) as f64 / 1e9;
    let rate = positions / elapsed;
    let reference = standalone(&bf16, max_batch, seconds);
    println!(
        "evaluator: {producers} producers x jobs of 8: {rate:.0} pos/s, mean batch {:.1}, net busy {:.0}% of wall time",
        positions / batches.max(1.0),
        100.0 * busy / elapsed
    );
    println!(
        "evaluator / standalone bf16 at batch {max_batch}: {:.2}",
        rate / reference
    );
}
