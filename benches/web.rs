//! The web path's cost: the analysis reply of `POST /api/analyse` (200 visits, ReMATCH, the
//! quick config's net exported to TorchScript) next to the same search through `engine`
//! (`go visits 200`), both on the start position, in one process, rounds alternating.
//! Prints medians and the web path's overhead.
//! `cargo bench --bench web [-- --model EXPORT_DIR] [-- --rounds N]` (default: a fresh
//! export of the quick config's net, untrained: the search costs the same).
use std::io::Cursor;
use std::path::PathBuf;
use std::time::Instant;

use checkers_zero::config::net::NetConfig;
use checkers_zero::export::engine::run_engine;
use checkers_zero::export::export_checkpoint;
use checkers_zero::game::GameKind;
use checkers_zero::net::encode::Encode;
use checkers_zero::net::model::Model;
use checkers_zero::serve::{ServeConfig, ServeOptions};
use tch::Device;

#[path = "../tests/common/web.rs"]
#[allow(dead_code)]
mod web;

/// The net of `configs/quick.toml`.
fn quick_net() -> NetConfig {
    NetConfig {
        blocks: 2,
        channels: 32,
        policy_channels: 16,
        value_hidden: 64,
        global_pool: false,
        moves_left: false,
        conv_policy: false,
    }
}

fn quick_export() -> PathBuf {
    let root = std::env::temp_dir().join(format!("cz-bench-web-{}", std::process::id()));
    let ckpt = root.join("checkpoints/step-00000001");
    std::fs::create_dir_all(&ckpt).unwrap();
    tch::manual_seed(1);
    let shape = checkers_zero::game::rematch::Rematch::net_shape(GameKind::Rematch);
    let model = Model::new(shape, quick_net(), Device::Cpu).unwrap();
    model.save(&ckpt.join("model.safetensors")).unwrap();
    export_checkpoint(&ckpt, &root.join("export")).unwrap();
    root.join("export")
}

/// An output that notes when each answer line is written.
#[derive(Default)]
struct Stamped {
    stamps: Vec<Instant>,
}

impl std::io::Write for Stamped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        assert!(!text.starts_with("error"), "{text}");
        if text.starts_with("bestturn") {
            self.stamps.push(Instant::now());
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    tch::set_num_threads(1);
    let model = arg("--model")
        .map(PathBuf::from)
        .unwrap_or_else(quick_export);
    let rounds: usize = arg("--rounds").and_then(|r| r.parse().ok()).unwrap_or(30);
    let visits = 200;

    let options = ServeOptions {
        models: vec![model.clone()],
        run_dir: None,
        config: ServeConfig::default(),
        shipped: false,
    };
    let addr = web::serve_in_background(options);
    let body = serde_json::json!({"game": "rematch", "visits": visits});

    // Rounds alternate between the two paths, so that a change in the machine's load
    // touches both alike. An engine round is the time between the answers to two `go` in a
    // row (the first warms the loaded module up); a web round is one whole request, as a
    // client sees it, on a server whose module is warm.
    let mut engine = Vec::new();
    let mut served = Vec::new();
    for _ in 0..rounds + 2 {
        let input = Cursor::new(format!("go visits {visits}\n").repeat(2));
        let mut out = Stamped::default();
        let net = checkers_zero::net::args::NetSettings::default();
        run_engine(&model, Some(visits), None, net, input, &mut out).unwrap();
        assert_eq!(out.stamps.len(), 2, "two answers");
        engine.push((out.stamps[1] - out.stamps[0]).as_secs_f64() * 1e3);

        let t = Instant::now();
        let answer = web::post(addr, "/api/analyse", &body);
        served.push(t.elapsed().as_secs_f64() * 1e3);
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.json["visits"], serde_json::json!(visits));
    }
    let engine_ms = median(engine[2..].to_vec());
    let web_ms = median(served[2..].to_vec());
    println!("model: {}", model.display());
    println!(
        "engine `go visits {visits}` (search only): median {engine_ms:.1} ms over {rounds} rounds"
    );
    println!("web POST /api/analyse visits {visits} (HTTP + search + JSON): median {web_ms:.1} ms");
    println!(
        "web path overhead: {:+.1}%",
        100.0 * (web_ms - engine_ms) / engine_ms
    );
}
