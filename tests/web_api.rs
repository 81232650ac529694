//! The JSON API of `checkers-zero serve`: legal turns as `moves` lists them, playing and
//! entering turns, analysis (synchronous and polled), the run directory's files, a 4xx with a
//! JSON error for each kind of bad input, path traversal refused, 32 concurrent clients, and a
//! client that disconnects mid-analysis.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use checkers_zero::game::GameKind;
use checkers_zero::layout;
use checkers_zero::selfplay::record::{read_records, records_to_gzip};
use checkers_zero::serve::{ServeConfig, ServeOptions};
use common::web::{
    empty_learner_log, games_file, get, position_with_turn, post, request, request_typed,
    serve_in_background, tiny_run, GAMES_FILE, SOLO_FILE,
};
use serde_json::{json, Value};

fn server(name: &str, config: ServeConfig) -> (SocketAddr, std::path::PathBuf) {
    let run = common::fresh_dir(name);
    tiny_run(&run);
    let options = ServeOptions {
        models: Vec::new(),
        run_dir: Some(run.clone()),
        config,
        shipped: false,
    };
    (serve_in_background(options), run)
}

fn small() -> ServeConfig {
    ServeConfig {
        max_visits: 5000,
        max_seconds: 20.0,
        ..ServeConfig::default()
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn legal_turns_are_those_of_the_moves_command() {
    let (addr, _) = server("web-legal", small());
    let capture = position_with_turn(GameKind::Hexdame, |p| p.matches('x').count() >= 2).0;
    let drop = position_with_turn(GameKind::Eximo, |p| p.contains('*')).0;
    let stack = position_with_turn(GameKind::Rematch3, |p| p.contains('x')).0;
    let positions = [
        ("rematch", None),
        ("rematch3", None),
        ("hexdame", None),
        ("eximo", None),
        ("hexdame", Some(capture.as_str())),
        ("eximo", Some(drop.as_str())),
        ("rematch3", Some(stack.as_str())),
    ];
    for (game, position) in positions {
        let mut body = json!({ "game": game });
        if let Some(p) = position {
            body["position"] = json!(p);
        }
        let answer = post(addr, "/api/legal", &body);
        assert_eq!(answer.status, 200, "{}", answer.text);
        let kind: GameKind = game.parse().unwrap();
        let expected = checkers_zero::rules_commands::moves(kind, position).unwrap();
        assert_eq!(
            strings(&answer.json["turns"]),
            expected,
            "{game} {position:?}"
        );
        // The binary's `moves` prints the same list.
        let mut args = vec!["moves", "--game", game];
        if let Some(p) = position {
            args.extend(["--position", p]);
        }
        let out = common::run(&args);
        let printed: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(printed, expected);
    }
}

#[test]
fn a_game_is_played_through_the_api() {
    let (addr, _) = server("web-play", small());
    let new = post(addr, "/api/new", &json!({"game": "eximo"}));
    assert_eq!(new.status, 200);
    assert_eq!(new.json["board"]["cells"].as_array().unwrap().len(), 64);
    let mut position = new.json["position"].as_str().unwrap().to_string();
    for ply in 0..6 {
        let body = if ply % 2 == 0 {
            let turn = new_turns(addr, "eximo", &position)[0].clone();
            json!({"game": "eximo", "position": position, "turn": turn})
        } else {
            json!({"game": "eximo", "position": position, "visits": 20})
        };
        let answer = post(addr, "/api/play", &body);
        assert_eq!(answer.status, 200, "{}", answer.text);
        let turn = answer.json["turn"].as_str().unwrap().to_string();
        assert!(new_turns(addr, "eximo", &position).contains(&turn));
        position = answer.json["position"].as_str().unwrap().to_string();
    }
}

fn start_entry(addr: SocketAddr, position: &str) -> Value {
    post(
        addr,
        "/api/entry",
        &json!({"game": "hexdame", "position": position}),
    )
    .json
}

fn new_turns(addr: SocketAddr, game: &str, position: &str) -> Vec<String> {
    strings(
        &post(
            addr,
            "/api/legal",
            &json!({"game": game, "position": position}),
        )
        .json["turns"],
    )
}

#[test]
fn turn_entry_by_clicks_over_the_api() {
    let (addr, _) = server("web-entry", small());
    let (position, path) = position_with_turn(GameKind::Hexdame, |p| p.matches('x').count() >= 2);
    let origin = &path[..path.find('x').unwrap()];
    let start = post(
        addr,
        "/api/entry",
        &json!({"game": "hexdame", "position": position}),
    );
    assert_eq!(start.status, 200, "{}", start.text);
    let mut entry = start.json;
    assert!(strings(&entry["clickable"]).contains(&origin.to_string()));
    // Click along the capture's path: its origin, then each landing cell.
    let cells: Vec<&str> = path.split(['x', '-']).collect();
    for next in cells {
        if entry["selected"] == json!(next) {
            continue;
        }
        let body = json!({"game": "hexdame", "position": position, "steps": entry["steps"],
            "selected": entry["selected"], "click": next});
        let answer = post(addr, "/api/entry", &body);
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert!(answer.json["refused"].is_null());
        entry = answer.json;
    }
    assert_eq!(entry["turn"], json!(path));
    assert!(entry["after"]["position"].is_string());
    // A click on a cell that is neither an origin nor a target is refused, changing nothing.
    let clickable = strings(&start_entry(addr, &position)["clickable"]);
    let board = post(addr, "/api/new", &json!({"game": "hexdame"})).json;
    let other = board["board"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .find(|c| !clickable.contains(c))
        .unwrap();
    let body = json!({"game": "hexdame", "position": position, "click": other});
    let refused = post(addr, "/api/entry", &body).json;
    assert!(refused["refused"].as_str().unwrap().contains(&other));
    assert_eq!(refused["steps"], json!([]));
}

#[test]
fn analysis_answers_and_polls() {
    let (addr, _) = server("web-analysis", small());
    let answer = post(
        addr,
        "/api/analyse",
        &json!({"game": "rematch", "visits": 60}),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
    let snap = answer.json;
    assert_eq!(snap["visits"], json!(60));
    assert_eq!(snap["done"], json!(true));
    let legal = strings(&post(addr, "/api/legal", &json!({"game": "rematch"})).json["turns"]);
    for t in snap["turns"].as_array().unwrap() {
        assert!(
            legal.contains(&t["turn"].as_str().unwrap().to_string()),
            "{t}"
        );
    }
    // Engine lines: three when none are asked for, as many as asked up to the turns
    // visited, each starting with a legal turn, most visited first, with the net's W/D/L.
    let lines = snap["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3, "{lines:?}");
    let answer = post(
        addr,
        "/api/analyse",
        &json!({"game": "rematch", "visits": 200, "lines": 5}),
    );
    let lines = answer.json["lines"].as_array().unwrap().clone();
    assert_eq!(lines.len(), 5, "{lines:?}");
    let visits: Vec<u64> = lines
        .iter()
        .map(|l| l["visits"].as_u64().unwrap())
        .collect();
    assert!(visits.windows(2).all(|w| w[0] >= w[1]), "{visits:?}");
    let mut firsts = Vec::new();
    for line in &lines {
        let first = line["turns"][0].as_str().unwrap().to_string();
        assert!(legal.contains(&first), "{line}");
        assert!(
            !firsts.contains(&first),
            "one line per first turn: {lines:?}"
        );
        firsts.push(first);
        let wdl: Vec<f64> = line["wdl"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-3, "{line}");
    }
    assert_eq!(
        lines[0]["turns"], answer.json["pv"],
        "the first line is the PV"
    );
    // Polled: progress, then done; a stopped analysis ends early.
    let id = post(
        addr,
        "/api/analysis",
        &json!({"game": "hexdame", "visits": 5000}),
    )
    .json["id"]
        .as_u64()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let snap = get(addr, &format!("/api/analysis/{id}")).json;
        if snap["visits"].as_u64().unwrap_or(0) > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "no progress");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        request(addr, "DELETE", &format!("/api/analysis/{id}"), None).status,
        200
    );
    loop {
        let snap = get(addr, &format!("/api/analysis/{id}")).json;
        if snap["done"] == json!(true) {
            assert!(snap["visits"].as_u64().unwrap() < 5000, "stopped early");
            break;
        }
        assert!(Instant::now() < deadline, "did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(get(addr, "/api/analysis/999999").status, 404);
}

#[test]
fn run_directory_listings_and_replays() {
    let (addr, run) = server("web-run", small());
    // A distributed run's learner folder is a part of the run, not a second run.
    empty_learner_log(&run);
    assert_eq!(get(addr, "/api/runs").json["runs"], json!([""]));
    // Issue 61: a hidden folder (the store's `.locks`) is no run, whatever it holds.
    std::fs::create_dir_all(run.join(".locks").join(layout::GAMES)).unwrap();
    std::fs::create_dir_all(run.join("second").join(layout::GAMES)).unwrap();
    assert_eq!(get(addr, "/api/runs").json["runs"], json!(["", "second"]));
    let files = get(addr, "/api/games").json;
    let (shard, solo_file) = (games_file(GAMES_FILE), games_file(SOLO_FILE));
    assert_eq!(files["files"][0]["path"], json!(shard));
    let list = get(addr, &format!("/api/game?file={shard}&list=true")).json;
    assert_eq!(list["games"].as_array().unwrap().len(), 2);
    // Issue 61: whole turns counted (a capture of several steps counts once), and players named.
    let first = &list["games"][0];
    let replayed = get(addr, &format!("/api/game?file={shard}&index=0")).json;
    let turns = replayed["frames"].as_array().unwrap().len() as u64 - 1;
    assert_eq!(first["turns"].as_u64(), Some(turns), "{first}");
    assert!(first["steps"].as_u64().unwrap() >= turns);
    assert_eq!(first["agents"], json!(["net@20", "net@20"]));
    let mut solo = read_records(&run.join(&shard)).unwrap();
    solo.truncate(1);
    solo[0].agents.clear();
    checkers_zero::selfplay::record::write_records(&run.join(&solo_file), &solo).unwrap();
    let list = get(addr, &format!("/api/game?file={solo_file}&list=true")).json;
    assert_eq!(
        list["games"][0]["agents"],
        json!(["self-play: the net of step 20 against itself"])
    );
    let replay = get(addr, &format!("/api/game?file={shard}&index=0")).json;
    let result = replay["result"].as_str().unwrap();
    assert!(
        result.starts_with("Red wins: ")
            || result.starts_with("Team wins: ")
            || result.starts_with("Draw: "),
        "{result}"
    );
    assert!(
        !result.contains("NoPieces") && !result.contains("NoProgress"),
        "{result}"
    );
    let frames = replay["frames"].as_array().unwrap();
    assert!(frames.len() > 2);
    assert!(frames[0]["turn"].is_null() && frames[1]["turn"].is_string());
    assert!(frames[1]["value"].is_number());
    // A self-play shard, compressed, is listed and replays the same games.
    let games = read_records(&run.join(&shard)).unwrap();
    let packed = layout::shard_key("w-1", 0);
    std::fs::create_dir_all(run.join(&packed).parent().unwrap()).unwrap();
    std::fs::write(run.join(&packed), records_to_gzip(&games)).unwrap();
    let files = get(addr, "/api/games").json;
    let listed = files["files"].as_array().unwrap();
    assert!(listed.iter().any(|f| f["path"] == packed), "{files}");
    let packed = get(addr, &format!("/api/game?file={packed}&index=0")).json;
    assert_eq!(packed["frames"], replay["frames"]);
    let metrics = get(addr, "/api/metrics").json;
    assert_eq!(metrics["metrics"].as_array().unwrap().len(), 7);
    assert_eq!(metrics["ratings"].as_array().unwrap().len(), 3);
    assert_eq!(metrics["game"], json!("rematch"));
    let checkpoints = get(addr, "/api/checkpoints").json;
    let list = checkpoints["checkpoints"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["rating"]["elo"], json!(85.0));
    // The run's newest checkpoint is the model for its game.
    let info = get(addr, "/api/info").json;
    let model = info["models"]["rematch"].as_str().unwrap();
    assert!(
        model.starts_with("checkpoint step 20: libtorch on cpu, fp32"),
        "{model}"
    );
}

#[test]
fn bad_input_gets_a_clear_4xx() {
    let (addr, run) = server("web-bad", small());
    let cases: Vec<(&str, Value, u16, &str)> = vec![
        ("/api/legal", json!({"game": "chess"}), 400, "unknown game"),
        ("/api/new", json!({"game": "go"}), 400, "unknown game"),
        (
            "/api/legal",
            json!({"game": "rematch", "position": "purple a1:R"}),
            400,
            "bad position",
        ),
        (
            "/api/legal",
            json!({"game": "eximo", "position": "black z9:b"}),
            400,
            "bad position",
        ),
        (
            "/api/legal",
            json!({"game": "rematch", "colour": 1}),
            400,
            "unknown field",
        ),
        ("/api/legal", json!({"position": "x"}), 400, "missing field"),
        (
            "/api/play",
            json!({"game": "rematch", "turn": "a1-a9"}),
            422,
            "illegal move",
        ),
        (
            "/api/play",
            json!({"game": "rematch", "turn": "hello"}),
            422,
            "malformed move",
        ),
        (
            "/api/play",
            json!({"game": "rematch", "visits": 0}),
            400,
            "visits",
        ),
        (
            "/api/analyse",
            json!({"game": "rematch", "visits": 5001}),
            400,
            "at least 1 and at most 5,000; 5,001 were asked for",
        ),
        (
            "/api/play",
            json!({"game": "rematch", "seconds": 30}),
            400,
            "at most 20 seconds",
        ),
        (
            "/api/analyse",
            json!({"game": "rematch", "seconds": 1e9}),
            400,
            "seconds",
        ),
        (
            "/api/analysis",
            json!({"game": "rematch", "visits": -3}),
            400,
            "a whole number of visits",
        ),
        (
            "/api/analyse",
            json!({"game": "rematch", "lines": 11}),
            400,
            "a whole number of engine lines, at least 1 and at most 10; 11 were asked for",
        ),
        (
            "/api/analysis",
            json!({"game": "rematch", "lines": 0}),
            400,
            "engine lines",
        ),
        (
            "/api/entry",
            json!({"game": "rematch", "steps": [9999]}),
            422,
            "not legal",
        ),
        (
            "/api/entry",
            json!({"game": "rematch", "click": "??"}),
            400,
            "malformed cell",
        ),
    ];
    for (path, body, status, needle) in cases {
        let error = common::web::post_refused(addr, path, &body, status);
        assert!(
            error.contains(needle),
            "{path} {body}: '{error}' lacks '{needle}'"
        );
    }
    // Visits or seconds out of range, or not a whole number of visits, on every route that
    // searches: 400, in words that name the range, never the JSON parser's text.
    for path in ["/api/analysis", "/api/analyse", "/api/play"] {
        for (asked, said) in [
            (json!(-5), "-5"),
            (json!(1.5), "1.5"),
            (json!(0), "0"),
            (json!(1_000_000_000), "1,000,000,000"),
        ] {
            let body = json!({"game": "rematch", "visits": asked});
            let error = common::web::post_refused(addr, path, &body, 400);
            assert_eq!(
                error,
                format!(
                    "a search takes a whole number of visits, at least 1 and at most 5,000; \
                     {said} were asked for"
                ),
                "{path} {body}"
            );
        }
        for (asked, said) in [
            (json!(-5), "-5"),
            (json!(0), "0"),
            (json!(1_000_000_000), "1,000,000,000"),
            (json!("ten"), "\"ten\""),
        ] {
            let body = json!({"game": "rematch", "seconds": asked});
            let error = common::web::post_refused(addr, path, &body, 400);
            assert_eq!(
                error,
                format!("a search takes more than 0 and at most 20 seconds; {said} were asked for"),
                "{path} {body}"
            );
        }
    }
    // A finished game: nothing more to play or analyse.
    let (position, paths) = common::web::short_game(GameKind::Hexdame, 1);
    let body = json!({"game": "hexdame", "position": position, "turn": paths[0]});
    let over = post(addr, "/api/play", &body).json["position"].clone();
    for path in ["/api/play", "/api/analyse"] {
        let answer = post(addr, path, &json!({"game": "hexdame", "position": over}));
        assert_eq!(answer.status, 422, "{}", answer.text);
        assert!(answer.json["error"]
            .as_str()
            .unwrap()
            .contains("game is over"));
    }
    // The result in words, not the rules' enum names.
    let view = post(
        addr,
        "/api/position",
        &json!({"game": "hexdame", "position": over}),
    )
    .json;
    let outcome = view["outcome"].as_str().unwrap();
    assert!(
        outcome.contains(" wins: ") || outcome.starts_with("Draw: "),
        "{outcome}"
    );
    assert!(
        !outcome.contains('(') && !outcome.contains("NoPieces"),
        "{outcome}"
    );
    let answer = request(addr, "POST", "/api/legal", Some("{not json"));
    assert_eq!(answer.status, 400);
    assert!(answer.json["error"].is_string());
    let huge = format!(
        r#"{{"game": "rematch", "position": "{}"}}"#,
        "a".repeat(200_000)
    );
    let answer = request(addr, "POST", "/api/legal", Some(&huge));
    assert_eq!(answer.status, 413, "{}", answer.text);
    let words = answer.json["error"].as_str().unwrap_or_default();
    assert!(
        words.contains("larger than the limit of"),
        "{}",
        answer.text
    );
    // A body a page elsewhere could send across origins without asking is refused.
    let legal = r#"{"game": "rematch"}"#;
    let answer = request_typed(addr, "POST", "/api/legal", Some(legal), "text/plain");
    assert_eq!(answer.status, 415, "{}", answer.text);
    let words = answer.json["error"].as_str().unwrap_or_default();
    assert!(
        words.contains("content-type: application/json"),
        "{}",
        answer.text
    );
    assert_eq!(request(addr, "POST", "/api/legal", Some(legal)).status, 200);
    assert_eq!(get(addr, "/api/nothing").status, 404);
    let (none, shard) = (games_file("none.jsonl"), games_file(GAMES_FILE));
    assert_eq!(get(addr, &format!("/api/game?file={none}")).status, 404);
    assert_eq!(
        get(addr, &format!("/api/game?file={shard}&index=7")).status,
        404
    );
    assert_eq!(get(addr, "/api/game?index=1").status, 400);
    let broken = games_file("broken.jsonl");
    std::fs::write(run.join(&broken), "{not a record\n").unwrap();
    assert_eq!(get(addr, &format!("/api/game?file={broken}")).status, 422);
}

#[test]
fn every_error_is_json_with_a_message() {
    let (addr, _) = server("web-json-errors", small());
    let cases = [
        ("GET", "/api/play", 405, "takes POST"),
        ("GET", "/api/analyse", 405, "takes POST"),
        ("DELETE", "/api/info", 405, "takes GET"),
        ("PUT", "/api/analysis/1", 405, "not PUT"),
        (
            "GET",
            "/api/analysis/abc",
            404,
            "an analysis id is a number",
        ),
        (
            "DELETE",
            "/api/analysis/abc",
            404,
            "an analysis id is a number",
        ),
        ("GET", "/api/analysis/77", 404, "no analysis 77"),
        ("GET", "/assets/nothing.js", 404, "no asset"),
        ("GET", "/api/nothing", 404, "no such page"),
        ("GET", "/api/game?index=x", 400, "bad query"),
    ];
    for (method, path, status, needle) in cases {
        let answer = request(addr, method, path, None);
        assert_eq!(answer.status, status, "{method} {path}: {}", answer.text);
        let error = answer.json["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{method} {path}: not JSON: '{}'", answer.text));
        assert!(
            error.contains(needle),
            "{method} {path}: '{error}' lacks '{needle}'"
        );
    }
}

#[test]
fn no_path_outside_the_run_directory_is_served() {
    let (addr, run) = server("web-traversal", small());
    let secret = run
        .parent()
        .unwrap()
        .join(format!("cz-secret-{}.jsonl", std::process::id()));
    std::fs::write(&secret, "secret\n").unwrap();
    std::os::unix::fs::symlink(&secret, run.join(games_file("link.jsonl"))).unwrap();
    std::os::unix::fs::symlink(run.parent().unwrap(), run.join("up")).unwrap();
    let name = secret.file_name().unwrap().to_str().unwrap();
    let attempts = [
        format!("/api/game?file=../{name}"),
        format!("/api/game?file=games/../../{name}"),
        format!("/api/game?file=%2e%2e%2f{name}"),
        format!("/api/game?file={}", secret.display()),
        format!("/api/game?file={}", games_file("link.jsonl")),
        format!("/api/game?file=up/{name}"),
        "/api/games?run=..".to_string(),
        "/api/metrics?run=../..".to_string(),
        "/api/checkpoints?run=/etc".to_string(),
        "/api/games?run=up".to_string(),
    ];
    for path in &attempts {
        let answer = get(addr, path);
        assert_eq!(answer.status, 403, "{path}: {}", answer.text);
        assert!(answer.json["error"].as_str().unwrap().contains("outside"));
        assert!(!answer.text.contains("secret\\n"));
    }
    // Assets are served by name only.
    assert_eq!(get(addr, "/assets/..%2f..%2fCargo.toml").status, 404);
    assert_eq!(get(addr, "/assets/app.js").status, 200);
    std::fs::remove_file(&secret).unwrap();
}

#[test]
fn thirty_two_concurrent_clients_complete() {
    let (addr, _) = server("web-concurrent", small());
    let games = ["rematch", "rematch3", "hexdame", "eximo"];
    let handles: Vec<_> = (0..32)
        .map(|i| {
            std::thread::spawn(move || {
                let game = games[i % 4];
                let new = post(addr, "/api/new", &json!({"game": game}));
                assert_eq!(new.status, 200);
                let legal = post(addr, "/api/legal", &json!({"game": game}));
                assert_eq!(legal.status, 200);
                let turn = legal.json["turns"][i % 3].clone();
                let played = post(addr, "/api/play", &json!({"game": game, "turn": turn}));
                assert_eq!(played.status, 200, "{}", played.text);
                let analysed = post(addr, "/api/analyse", &json!({"game": game, "visits": 16}));
                assert_eq!(analysed.status, 200, "{}", analysed.text);
                assert_eq!(analysed.json["visits"], json!(16));
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// Writes `request` (left unfinished) to a fresh server on a raw connection and reads until
/// the server closes it: the server's address, the read's result, the answer and how long
/// the server took.
fn unfinished_request(
    name: &str,
    request: &str,
) -> (SocketAddr, std::io::Result<usize>, String, Duration) {
    let (addr, _) = server(name, ServeConfig::default());
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(40)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    let read = stream.read_to_end(&mut answer);
    let took = started.elapsed();
    (
        addr,
        read,
        String::from_utf8_lossy(&answer).into_owned(),
        took,
    )
}

#[test]
fn a_body_promised_but_never_sent_is_refused_in_time() {
    let (_, _, answer, took) = unfinished_request(
        "web-slow-body",
        "POST /api/legal HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{",
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("did not arrive within 10 seconds"),
        "{answer}"
    );
    assert!(took < Duration::from_secs(40), "{took:?}");
}

#[test]
fn headers_that_never_end_close_the_connection_in_time() {
    // The request line and one header, then nothing: the blank line never comes.
    let (addr, read, _, took) =
        unfinished_request("web-slow-headers", "GET /api/info HTTP/1.1\r\nHost: x\r\n");
    assert!(
        read.is_ok(),
        "the server held the connection: {read:?} after {took:?}"
    );
    let bound = Duration::from_secs(checkers_zero::serve::HEADER_SECONDS);
    assert!(
        took >= bound - Duration::from_secs(1) && took < bound * 2,
        "{took:?}"
    );
    // The server still answers.
    assert_eq!(get(addr, "/api/info").status, 200);
}

#[test]
fn a_client_that_leaves_mid_analysis_does_not_hurt_the_server() {
    // One search at a time: the next analysis can only run once the abandoned one stopped.
    let config = ServeConfig {
        max_searches: 1,
        max_visits: 10_000_000,
        max_seconds: 600.0,
        ..ServeConfig::default()
    };
    let (addr, _) = server("web-disconnect", config);
    let body = json!({"game": "hexdame", "visits": 10_000_000}).to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /api/analyse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(get(addr, "/api/info").json["searches_running"], json!(1));
    drop(stream);
    let left = Instant::now();
    // How long the server takes to notice and stop the abandoned search (printed: a
    // measurement, not a timed assertion; docs/web.md records it).
    while get(addr, "/api/info").json["searches_running"] != json!(0) {
        assert!(
            left.elapsed() < Duration::from_secs(60),
            "the abandoned search was stopped"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    eprintln!(
        "measured: the abandoned search stopped {:.1} ms after its client left",
        left.elapsed().as_secs_f64() * 1e3
    );
    let started = Instant::now();
    let answer = post(
        addr,
        "/api/analyse",
        &json!({"game": "rematch", "visits": 20}),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the abandoned search was stopped"
    );
    assert_eq!(get(addr, "/api/info").status, 200);
}

#[test]
fn a_model_move_of_100000_visits_ends_at_the_time_bound() {
    // The server's bound is 2 s here (60 s by default): the move answers within it plus
    // one evaluation, with a legal turn.
    let config = ServeConfig {
        max_visits: 100_000,
        max_seconds: 2.0,
        ..ServeConfig::default()
    };
    let (addr, _) = server("web-play-bound", config);
    let started = Instant::now();
    let answer = post(
        addr,
        "/api/play",
        &json!({"game": "hexdame", "visits": 100_000}),
    );
    let took = started.elapsed();
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(answer.json["turn"].is_string(), "{}", answer.text);
    eprintln!(
        "measured: a 100,000-visit model move under a 2 s bound answered in {:.2} s",
        took.as_secs_f64()
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn a_client_that_leaves_while_the_model_thinks_stops_its_search() {
    // One search at a time: the analysis can only run once the abandoned turn stopped.
    let config = ServeConfig {
        max_searches: 1,
        max_visits: 10_000_000,
        max_seconds: 600.0,
        ..ServeConfig::default()
    };
    let (addr, _) = server("web-disconnect-play", config);
    let body = json!({"game": "hexdame", "visits": 10_000_000}).to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST /api/play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(stream);
    let answer = post(
        addr,
        "/api/analyse",
        &json!({"game": "rematch", "visits": 20}),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
}

#[test]
fn the_command_serves_a_store_and_refuses_bad_arguments() {
    let out = common::run(&[
        "serve",
        "--model",
        "/nonexistent/model",
        "--addr",
        "127.0.0.1:0",
    ]);
    common::assert_clean_error(&out, "does not exist");
    let root = common::fresh_dir("web-cli");
    let config = root.join("serve.toml");
    std::fs::write(&config, "max_visits = 0\n").unwrap();
    let out = common::run(&["serve", "--config", config.to_str().unwrap()]);
    common::assert_clean_error(&out, "max_visits");

    // A distributed run's store (here a directory) is copied and served.
    let store = root.join("store");
    tiny_run(&store);
    empty_learner_log(&store);
    std::fs::rename(
        store.join(layout::METRICS_FILE),
        store.join(layout::LEARNER_METRICS),
    )
    .unwrap();
    let mirror = root.join("mirror");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_checkers-zero"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--log",
            "requests",
            "--store",
        ])
        .arg(&store)
        .arg("--run-dir")
        .arg(&mirror)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let addr: SocketAddr = line
        .trim()
        .trim_start_matches("serving on http://")
        .trim_end_matches('/')
        .parse()
        .unwrap_or_else(|_| panic!("{line}"));
    let metrics = get(addr, "/api/metrics").json;
    let checkpoints = get(addr, "/api/checkpoints").json;
    let info = get(addr, "/api/info").json;
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    // `--log requests`: one line per request.
    let log = String::from_utf8_lossy(&output.stderr);
    for line in [
        "GET /api/metrics 200 ",
        "GET /api/checkpoints 200 ",
        "GET /api/info 200 ",
    ] {
        assert!(log.contains(line), "{line:?} not in {log}");
    }
    assert_eq!(metrics["metrics"].as_array().unwrap().len(), 7);
    assert_eq!(checkpoints["checkpoints"].as_array().unwrap().len(), 2);
    assert!(info["models"]["rematch"].is_string());
    assert!(!mirror
        .join(layout::checkpoint_key(10, layout::OPTIMIZER_FILE))
        .exists());
}

/// A position of a random game of `kind` with exactly `count` legal turns.
fn position_with_turn_count(kind: GameKind, count: usize) -> String {
    checkers_zero::with_game!(kind, S => {
        for seed in 0..200 {
            let line = common::web::random_turns::<S>(kind, seed).unwrap_or_default();
            for (state, _) in line {
                if checkers_zero::game::turns::distinct_turns(&state).len() == count {
                    return checkers_zero::game::GameState::to_notation(&state);
                }
            }
        }
        panic!("no position of {kind} with {count} legal turns")
    })
}

/// Issue 61: a HexDame position with 17 legal turns, 10 lines asked: 10 lines, each with its
/// searched W/D/L and the seat of each turn, their visits most first and their shares of the
/// root's visits summing to at most 100%; the position's value is its first line's.
#[test]
fn ten_lines_of_seventeen_turns_with_their_searched_values() {
    let (addr, _) = server("web-lines", small());
    let position = position_with_turn_count(GameKind::Hexdame, 17);
    let legal = post(
        addr,
        "/api/legal",
        &json!({"game": "hexdame", "position": position}),
    );
    assert_eq!(legal.json["turns"].as_array().unwrap().len(), 17);
    let answer = post(
        addr,
        "/api/analyse",
        &json!({"game": "hexdame", "position": position, "visits": 400, "lines": 10}),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
    let snap = answer.json;
    let lines = snap["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 10, "{snap}");
    let visits: Vec<u64> = lines
        .iter()
        .map(|l| l["visits"].as_u64().unwrap())
        .collect();
    assert!(visits.windows(2).all(|w| w[0] >= w[1]), "{visits:?}");
    let root = snap["visits"].as_u64().unwrap();
    assert!(visits.iter().sum::<u64>() <= root, "{visits:?} of {root}");
    for line in lines {
        let wdl: Vec<f64> = strings_f64(&line["wdl"]);
        let q = line["q"].as_f64().unwrap();
        assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-3, "{line}");
        assert!(
            (wdl[0] - wdl[2] - q).abs() < 1e-3,
            "W - L is the line's Q: {line}"
        );
        assert_eq!(
            line["seats"].as_array().unwrap().len(),
            line["turns"].as_array().unwrap().len()
        );
    }
    assert_eq!(
        snap["wdl"], lines[0]["wdl"],
        "the position's value is its best line's"
    );
    assert_eq!(snap["value"], lines[0]["q"]);
    assert_eq!(snap["turns"][0]["q"], lines[0]["q"]);
    assert!(snap["stopped"].is_null(), "{snap}");
}

/// Issue 61: turns reached by several paths of steps (a HexDame king's captures in another
/// order, Eximo's drops in another order: paths of tree nodes below one root step) are one
/// turn, and one line: as many lines as asked up to the legal turns, each a turn of its
/// own. Before, a line was a path: at 200 visits these positions showed 4 lines of 1
/// distinct turn (of 4 legal), 5 of 2 (of 5), 6 of 5 and 3 of 2.
#[test]
fn turns_reached_by_several_paths_are_one_line_each() {
    let (addr, _) = server("web-shared-steps", small());
    for (game, position) in [
        (
            "hexdame",
            "red a2:w a3:w b1:w b2:w b3:w c2:w c4:w d1:w d2:w d4:w e2:w f2:W i5:R",
        ),
        (
            "hexdame",
            "red a2:w a5:R b2:w c1:w c5:w d3:w e3:w e5:w f2:w f3:w g4:w g7:r",
        ),
        (
            "eximo",
            "black b1:b b3:b b4:b b5:w b6:w b7:w b8:w c2:b c6:w c7:w c8:w d1:b d2:b d3:b d4:b \
             d5:w d7:w d8:w e1:b e2:b e7:w f2:b f3:b f7:w g2:b g3:b g5:w g8:w h4:w",
        ),
        (
            "eximo",
            "black a3:b a5:w a7:w b1:b b3:b b5:w b7:w c1:b c3:b c4:b c6:w c7:w c8:w d2:b d3:b \
             d6:w d8:w e1:b e2:b e7:w e8:w f1:b f2:b f3:b f6:w f7:w g1:b g2:b g5:w g7:w g8:w h4:b",
        ),
    ] {
        let legal = post(
            addr,
            "/api/legal",
            &json!({"game": game, "position": position}),
        );
        let asked = legal.json["turns"].as_array().unwrap().len().min(10);
        let request = json!({"game": game, "position": position, "visits": 200, "lines": asked});
        let answer = post(addr, "/api/analyse", &request);
        assert_eq!(answer.status, 200, "{}", answer.text);
        let mut ends: Vec<String> = answer.json["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let turn = &l["turns"][0];
                let after = post(
                    addr,
                    "/api/play",
                    &json!({"game": game, "position": position, "turn": turn}),
                );
                after.json["position"].as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(ends.len(), asked, "{request}: {}", answer.json["lines"]);
        ends.sort();
        ends.dedup();
        assert_eq!(
            ends.len(),
            asked,
            "{request}: each line a turn of its own: {}",
            answer.json["lines"]
        );
    }
}

fn strings_f64(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Issue 61: an analysis that ends before its visits are spent says why: the time limit, and
/// nobody polling it (it was reported done at 50 or 800 of 100,000 visits with nothing said).
#[test]
fn an_analysis_that_ends_early_says_why() {
    let config = ServeConfig {
        max_visits: 100_000,
        max_seconds: 60.0,
        ..ServeConfig::default()
    };
    let (addr, _) = server("web-ends", config);
    let poll_until_done = |id: u64| loop {
        let snap = get(addr, &format!("/api/analysis/{id}")).json;
        if snap["done"] == json!(true) {
            return snap;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let start = |body: Value| {
        post(addr, "/api/analysis", &body).json["id"]
            .as_u64()
            .unwrap()
    };
    let id = start(json!({"game": "eximo", "visits": 100_000, "seconds": 0.5}));
    let snap = poll_until_done(id);
    assert!(snap["visits"].as_u64().unwrap() < 100_000, "{snap}");
    let why = snap["stopped"].as_str().unwrap_or_default();
    assert!(
        why.contains("time limit") && why.contains("of 100,000 visits"),
        "{snap}"
    );
    let id = start(json!({"game": "eximo", "visits": 100_000}));
    std::thread::sleep(Duration::from_secs(7));
    let snap = poll_until_done(id);
    let why = snap["stopped"].as_str().unwrap_or_default();
    assert!(why.starts_with("nobody asked for it for 5 s"), "{snap}");
    let id = start(json!({"game": "eximo", "visits": 100_000}));
    request(addr, "DELETE", &format!("/api/analysis/{id}"), None);
    let snap = poll_until_done(id);
    let why = snap["stopped"].as_str().unwrap_or_default();
    assert!(why.starts_with("stopped by its client"), "{snap}");
    // Spent: nothing to say.
    let id = start(json!({"game": "eximo", "visits": 40}));
    assert!(poll_until_done(id)["stopped"].is_null());
}

/// Issue 61: the graph of a whole game in one request, every position searched together; a
/// position that does not read is named by its number; no positions or too many refused.
#[test]
fn the_graph_of_a_game_in_one_request() {
    let (addr, _) = server("web-graph", small());
    let line =
        common::web::random_turns::<checkers_zero::game::hexdame::HexDame>(GameKind::Hexdame, 3)
            .unwrap();
    let mut positions: Vec<String> = line
        .iter()
        .map(|(s, _)| checkers_zero::game::GameState::to_notation(s))
        .collect();
    let end = checkers_zero::game::GameState::to_notation(&line.last().unwrap().1.state);
    positions.push(end);
    let answer = post(
        addr,
        "/api/graph",
        &json!({"game": "hexdame", "positions": positions, "visits": 8}),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
    let values = answer.json["positions"].as_array().unwrap();
    assert_eq!(values.len(), positions.len());
    for v in &values[..values.len() - 1] {
        assert!(
            v["visits"].as_u64().unwrap() >= 8 || v["exact"] == json!(true),
            "{v}"
        );
        let wdl = strings_f64(&v["wdl"]);
        assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-3, "{v}");
    }
    assert_eq!(
        values.last().unwrap()["exact"],
        json!(true),
        "the game's end"
    );
    let refused = |body: Value, words: &str| {
        let answer = post(addr, "/api/graph", &body);
        assert_eq!(answer.status, 400, "{}", answer.text);
        let said = answer.json["error"].as_str().unwrap();
        assert!(said.contains(words), "{said}");
    };
    refused(
        json!({"game": "hexdame", "positions": []}),
        "from 1 to 1000 positions",
    );
    refused(
        json!({"game": "hexdame", "positions": vec!["x"; 1001]}),
        "1001 were sent",
    );
    refused(
        json!({"game": "hexdame", "positions": [positions[0], "not a position"]}),
        "position 2 of 2",
    );
    refused(
        json!({"game": "hexdame", "positions": [positions[0]], "visits": 0}),
        "visits",
    );
}
