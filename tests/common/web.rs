//! Helpers for the web server's tests: a tiny run directory, and a minimal HTTP/1.1 client
//! over a TCP stream (enough for JSON requests to a local server).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use checkers_zero::config::net::NetConfig;
use checkers_zero::game::rematch::Rematch;
use checkers_zero::game::turns::{distinct_turns, parse_turn, Turn};
use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use checkers_zero::layout;
use checkers_zero::net::encode::Encode;
use checkers_zero::net::model::Model;
use checkers_zero::selfplay::record::{write_records, GameRecord, StepRecord};
use checkers_zero::serve::ServeOptions;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tch::Device;

/// Starts a server for `options` on an ephemeral port of 127.0.0.1, on a thread of its own:
/// its address.
pub fn serve_in_background(options: ServeOptions) -> SocketAddr {
    let (bound, address) = std::sync::mpsc::channel();
    let failed = bound.clone();
    std::thread::spawn(move || {
        let any_port: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let served = checkers_zero::serve::serve(&options, any_port, |addr| {
            let _ = bound.send(Ok(addr));
        });
        if let Err(error) = served {
            let _ = failed.send(Err(error));
        }
    });
    let started: Result<SocketAddr, String> = address.recv().expect("the server thread ended");
    started.unwrap()
}

/// A checkpoint directory `checkpoints/step-N` under `run`, as the trainer writes it.
pub fn write_checkpoint(run: &Path, kind: GameKind, step: u64) -> PathBuf {
    let dir = run.join(layout::checkpoint_dir_key(step));
    std::fs::create_dir_all(&dir).unwrap();
    tch::manual_seed(step as i64);
    let model = checkers_zero::with_game!(kind, S => {
        Model::new(S::net_shape(kind), NetConfig::tiny(), Device::Cpu).unwrap()
    });
    model.save(&dir.join(layout::WEIGHTS_FILE)).unwrap();
    let state = format!(r#"{{"step": {step}, "elapsed_s": {step}.0, "seed": 1, "next_game": 9}}"#);
    std::fs::write(dir.join(layout::STATE_FILE), state).unwrap();
    std::fs::write(run.join(layout::LATEST), layout::checkpoint_name(step)).unwrap();
    dir
}

/// A random game of ReMATCH to its end, as self-play records it (values made up from
/// material, so that the value graph has something to draw).
fn random_game(seed: u64) -> GameRecord {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let rules = RulesConfig {
        ply_cap: 120,
        project_draws: true,
    };
    let mut state = Rematch::start(GameKind::Rematch, rules);
    let mut record = GameRecord::new(&state, rules, seed, 20);
    record.agents = vec!["net@20".into(), "net@20".into()];
    let mut steps = StepList::new();
    while state.outcome().is_none() {
        state.legal_steps(&mut steps);
        let action = steps[rng.gen_range(0..steps.len())];
        let value = (state.material(state.side_to_move()) / 8.0).clamp(-1.0, 1.0);
        record.steps.push(StepRecord {
            action,
            value: Some(value),
            target: Vec::new(),
            surprise: None,
            proven: None,
        });
        state.apply_step(action);
    }
    let outcome = state.outcome().unwrap();
    record.finish(outcome.winner, outcome.reason);
    record
}

/// The name of [`tiny_run`]'s games file, directly in its games folder.
pub const GAMES_FILE: &str = "00000001.jsonl";

/// A games file of one game that names no agents, which some web tests write beside
/// [`GAMES_FILE`].
pub const SOLO_FILE: &str = "solo.jsonl";

/// The key of games file `name` directly in a run's games folder (relative to the run), as
/// the page's Watch lists it.
pub fn games_file(name: &str) -> String {
    format!("{}/{name}", layout::GAMES)
}

/// A tiny ReMATCH run: two checkpoints, the precision choice and metrics of two iterations
/// (a constant learning rate), ratings, and a shard of two self-play games, in the formats
/// the trainer and `ratings` write.
pub fn tiny_run(run: &Path) {
    std::fs::create_dir_all(run.join(layout::GAMES)).unwrap();
    std::fs::write(run.join(layout::CONFIG), "game = \"rematch\"\n").unwrap();
    write_checkpoint(run, GameKind::Rematch, 10);
    write_checkpoint(run, GameKind::Rematch, 20);
    // The precision choice: a record without a step, as the trainer writes it first.
    let mut metrics = String::from(
        "{\"type\": \"precision\", \"choice\": \"f32\", \"reason\": \"bf16 was not faster\"}\n",
    );
    for (i, step) in [10u64, 20].into_iter().enumerate() {
        let f = i as f64;
        let train = json!({"type": "train", "step": step, "elapsed_s": 5.0 * (f + 1.0),
            "total_loss": 3.0 - f, "policy_loss": 2.2 - 0.5 * f, "value_loss": 0.8 - 0.3 * f,
            "policy_entropy": 2.0 - 0.2 * f, "samples_per_s": 900.0 + 50.0 * f,
            "learning_rate": 0.02});
        let selfplay = json!({"type": "selfplay", "step": step, "elapsed_s": 5.0 * (f + 1.0),
            "games": 12, "mean_game_steps": 60.0 + 5.0 * f, "wins_side0": 5 + i,
            "wins_side1": 6 - i, "draws": 1, "positions_per_s": 300.0 + 20.0 * f});
        let intake = json!({"type": "intake", "step": step, "elapsed_s": 5.0 * (f + 1.0),
            "diversity": {"games": 12 * (i + 1), "openings_2": 250.0, "openings_4": 500.0 - 50.0 * f,
                "openings_6": 750.0, "openings_8": 900.0, "opening_entropy_4": 6.0 - f,
                "duplicate_games": 0.0, "repeated_samples": 0.05, "draws": 0.08,
                "resigned": 0.3, "false_resign": null}});
        metrics.push_str(&format!("{train}\n{selfplay}\n{intake}\n"));
    }
    std::fs::write(run.join(layout::METRICS_FILE), metrics).unwrap();
    std::fs::write(
        run.join(layout::RATINGS_CSV),
        "player,step,hours,games,elo,elo_low,elo_high\n\
         step-00000010,10,0.0014,40,0,-60,60\n\
         step-00000020,20,0.0028,40,85,20,150\n\
         random,,,40,-120,-190,-50\n",
    )
    .unwrap();
    let games = run.join(games_file(GAMES_FILE));
    write_records(&games, &[random_game(1), random_game(2)]).unwrap();
}

/// Gives `run` a distributed run's learner log, empty: its folder is part of the run.
pub fn empty_learner_log(run: &Path) {
    let log = run.join(layout::LEARNER_METRICS);
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(log, "").unwrap();
}

/// The two games of [`tiny_run`] again, under a long path such as a distributed run's
/// workers write (Watch must still fit a phone's width): the path, relative to `run`.
pub fn long_named_games(run: &Path) -> String {
    let name = games_file("selfplay-worker-with-a-long-name-0001/games-2026-11-27T23-50-00.jsonl");
    let path = run.join(&name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    write_records(&path, &[random_game(1), random_game(2)]).unwrap();
    name
}

/// An HTTP answer: status and JSON body (`Value::Null` when the body is not JSON).
pub struct Answer {
    pub status: u16,
    pub json: Value,
    pub text: String,
}

/// Sends one request (`Connection: close`, a JSON body) and reads the whole answer.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Answer {
    request_typed(addr, method, path, body, "application/json")
}

/// [`request`] with the body's `content_type`.
pub fn request_typed(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    content_type: &str,
) -> Answer {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    // A server may answer (413) before reading a large body, then close: ignore write errors.
    let _ = stream.write_all(body.as_bytes());
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, text) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let text = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(text)
    } else {
        text.to_string()
    };
    Answer {
        status,
        json: serde_json::from_str(&text).unwrap_or(Value::Null),
        text,
    }
}

fn dechunk(mut text: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        text = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// POST `body` (JSON) to `path`.
pub fn post(addr: SocketAddr, path: &str, body: &Value) -> Answer {
    request(addr, "POST", path, Some(&body.to_string()))
}

/// POST `body` to `path`, expecting an error with `status`: the error's words.
pub fn post_refused(addr: SocketAddr, path: &str, body: &Value, status: u16) -> String {
    let answer = post(addr, path, body);
    assert_eq!(answer.status, status, "{path} {body}: {}", answer.text);
    answer.json["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{path} {body}: {}", answer.text))
        .to_string()
}

/// GET `path`.
pub fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, "GET", path, None)
}

/// A game of uniformly random whole turns from the start (seeded) that ends by the rules
/// within 400 turns: each position with the turn played there. `None` past that.
pub fn random_turns<S: GameState>(kind: GameKind, seed: u64) -> Option<Vec<(S, Turn<S>)>> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut state = S::start(kind, RulesConfig::default());
    let mut line = Vec::new();
    while state.outcome().is_none() {
        if line.len() >= 400 {
            return None;
        }
        let mut turns = distinct_turns(&state);
        let turn = turns.swap_remove(rng.gen_range(0..turns.len()));
        let next = turn.state.clone();
        line.push((state, turn));
        state = next;
    }
    Some(line)
}

/// A short game of `kind`: a position `turns` whole turns before the end of a random game,
/// and the paths that end it (checked: from the position's notation they end the game).
pub fn short_game(kind: GameKind, turns: usize) -> (String, Vec<String>) {
    checkers_zero::with_game!(kind, S => {
        for seed in 0..100 {
            let Some(line) = random_turns::<S>(kind, seed) else { continue };
            if line.len() < turns {
                continue;
            }
            let tail = &line[line.len() - turns..];
            let position = tail[0].0.to_notation();
            let paths: Vec<String> = tail.iter().map(|(_, t)| t.path.clone()).collect();
            let mut state = S::from_notation(kind, &position, RulesConfig::default()).unwrap();
            for path in &paths {
                state = parse_turn(&state, path).unwrap().state;
            }
            if state.outcome().is_some() {
                return (position, paths);
            }
        }
        panic!("no short game of {kind} found")
    })
}

/// A position of a random game of `kind` with a legal turn whose path `wanted` accepts:
/// the position and that path.
pub fn position_with_turn(kind: GameKind, wanted: impl Fn(&str) -> bool) -> (String, String) {
    checkers_zero::with_game!(kind, S => {
        for seed in 0..100 {
            for (state, _) in random_turns::<S>(kind, seed).unwrap_or_default() {
                if let Some(t) = distinct_turns(&state).into_iter().find(|t| wanted(&t.path)) {
                    return (state.to_notation(), t.path);
                }
            }
        }
        panic!("no such turn found in random games of {kind}")
    })
}
