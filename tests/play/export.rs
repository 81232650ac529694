//! Export of a checkpoint to TorchScript + model.json: the same outputs in Rust's net, in
//! the loaded module and in Python's torch; the export as an agent; `play` driven by a
//! scripted stdin to a finished game; the engine protocol driven by a script, bad commands
//! included.
use crate::common;
use common::{assert_clean_error, evaluate_batch, fresh_dir, run_with_input as run};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use checkers_zero::config::batching::Form;
use checkers_zero::config::net::NetConfig;
use checkers_zero::config::search::SearchConfig;
use checkers_zero::config::search::SearchKind;
use checkers_zero::config::search::SearchOverrides;
use checkers_zero::export::torchscript::{exported_agent, ExportedModel};
use checkers_zero::export::{export_checkpoint, ExportError, ExportMeta};
use checkers_zero::game::eximo::Eximo;
use checkers_zero::game::hexdame::HexDame;
use checkers_zero::game::rematch::Rematch;
use checkers_zero::game::turns::distinct_turns;
use checkers_zero::game::{GameKind, GameState, RulesConfig, StepList};
use checkers_zero::layout;
use checkers_zero::net::backend::Request;
use checkers_zero::net::encode::Encode;
use checkers_zero::net::inference::InferenceNet;
use checkers_zero::net::model::Model;
use checkers_zero::net::NetError;
use checkers_zero::search::agents::Agent;
use tch::{Device, Kind, Tensor};

/// Largest difference allowed between two fp32 runs of the same net (relative above 1): two
/// libtorch builds (Rust's and Python's) may pick other kernels and summation orders, which
/// measured up to 2e-5 here; a wrong export differs by whole units.
const TOLERANCE: f64 = 1e-4;

/// A model for `kind` with every variable random, batch-norm statistics included (a fresh
/// model's statistics are 0 and 1, which would hide a wrong export of them).
fn random_model<S: Encode>(kind: GameKind, seed: i64, net: NetConfig) -> Model {
    tch::manual_seed(seed);
    let model = Model::new(S::net_shape(kind), net, Device::Cpu).unwrap();
    tch::no_grad(|| {
        for (name, mut var) in model.var_store().variables() {
            let noise = Tensor::randn_like(&var) * 0.5;
            if name.ends_with("running_var") {
                var.copy_(&(noise.abs() + 0.5));
            } else {
                var.copy_(&noise);
            }
        }
    });
    model
}

/// The ply cap the checkpoints of these tests record as their training rules.
const TRAINED_CAP: u32 = 150;

/// A training checkpoint directory as the trainer writes it (model files + state.json), in
/// a run that records its config (the game alone: the default search).
fn write_checkpoint<S: Encode>(root: &Path, kind: GameKind, step: u64) -> PathBuf {
    write_checkpoint_of::<S>(root, kind, step, common::small_net())
}

/// [`write_checkpoint`] of a net of size `net`.
fn write_checkpoint_of<S: Encode>(
    root: &Path,
    kind: GameKind,
    step: u64,
    net: NetConfig,
) -> PathBuf {
    let dir = root.join(layout::checkpoint_dir_key(step));
    std::fs::create_dir_all(&dir).unwrap();
    if !root.join(layout::CONFIG).is_file() {
        std::fs::write(
            root.join(layout::CONFIG),
            format!("game = \"{}\"\n", kind.name()),
        )
        .unwrap();
    }
    let mut model = random_model::<S>(kind, step as i64, net);
    model.set_rules(RulesConfig {
        ply_cap: TRAINED_CAP,
        ..RulesConfig::default()
    });
    model.save(&dir.join(layout::WEIGHTS_FILE)).unwrap();
    std::fs::write(dir.join(layout::OPTIMIZER_FILE), b"not read by export").unwrap();
    let state = format!(r#"{{"step": {step}, "elapsed_s": 1.5, "seed": 1, "next_game": 9}}"#);
    std::fs::write(dir.join(layout::STATE_FILE), state).unwrap();
    dir
}

/// Positions from random playouts (mid-turn ones included), encoded, as `[n, planes, h, w]`.
fn random_positions<S: Encode>(kind: GameKind, n: usize, seed: u64) -> Vec<S> {
    let keep = common::positions::Keep::Any(0.3);
    common::positions::random_positions(kind, RulesConfig::default(), n, seed, keep)
}

fn encode_batch<S: Encode>(states: &[S]) -> Tensor {
    let per = S::PLANES * S::HEIGHT * S::WIDTH;
    let mut input = vec![0.0f32; per * states.len()];
    for (state, chunk) in states.iter().zip(input.chunks_mut(per)) {
        state.encode(chunk);
    }
    Tensor::from_slice(&input).reshape([
        states.len() as i64,
        S::PLANES as i64,
        S::HEIGHT as i64,
        S::WIDTH as i64,
    ])
}

fn max_diff(a: &Tensor, b: &Tensor) -> f64 {
    assert_eq!(a.size(), b.size());
    // Relative above 1: the random weights give logits in the hundreds, where one fp32 step
    // (2^-16) is more than the tolerance, and another thread count sums in another order.
    ((a - b).abs() / a.abs().clamp_min(1.0))
        .max()
        .double_value(&[])
}

/// The Rust net's output on `input`, laid out as the module's: policy then W/D/L logits.
/// Rust's answers to `input` from the weights: the inference form `export` traces (fp32,
/// batch norm folded), after checking it against the training form's pass (folding changes
/// the logits only within fp32 rounding).
fn rust_output(weights: &Path, shape_of: &ExportMeta, input: &Tensor) -> Tensor {
    let model = Model::load(weights, &shape_of.shape, Device::Cpu).unwrap();
    let (policy, value) = tch::no_grad(|| model.forward_t(input, false));
    let training = Tensor::cat(&[policy, value], 1);
    let net = InferenceNet::build(&model, Kind::Float, Form::Folded).unwrap();
    let folded = tch::no_grad(|| net.answers(input)).unwrap();
    let scale = training.abs().max().double_value(&[]).max(1.0);
    assert!(
        max_diff(&training, &folded) <= 1e-5 * scale,
        "the folded form differs from the training form by {}",
        max_diff(&training, &folded)
    );
    folded
}

fn exported_output(dir: &Path, input: &Tensor) -> Tensor {
    let exported = ExportedModel::load(dir).unwrap();
    let (policy, value) = exported.forward(input).unwrap();
    Tensor::cat(&[policy, value], 1)
}

fn text(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Exports a fresh checkpoint of `kind` through the command line; returns the export dir.
fn export_via_cli<S: Encode>(root: &Path, kind: GameKind, step: u64) -> PathBuf {
    let checkpoint = write_checkpoint::<S>(root, kind, step);
    let out_dir = root.join("export");
    let out = run(
        &[
            "export",
            "--checkpoint",
            checkpoint.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ],
        "",
    );
    let said = text(&out);
    assert!(said.contains(&format!("training step {step}")), "{said}");
    out_dir
}

/// `match` of `agent` against `random`, two games, results into `out`.
fn match_against_random(game: &str, agent: &str, out: &Path) -> Output {
    let out = out.to_str().unwrap();
    let args = [
        "match", "--game", game, "--agent", agent, "--agent", "random", "--games", "2", "--quiet",
        "--out", out,
    ];
    run(&args, "")
}

/// The project's Python with torch (`.venv`), which loads the export in Python; `None`
/// where it is missing (a failure under `CI=true`).
fn python() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if python.exists() {
        return Some(python);
    }
    let reason = format!("no {}", python.display());
    common::missing_tool("Python (the project's environment with torch)", &reason);
    None
}

/// Python's torch runs the export on `input` and gives the same outputs as `expected`.
fn python_agrees(dir: &Path, input: &Tensor, expected: &Tensor, root: &Path) {
    let Some(python) = python() else {
        return;
    };
    let input_path = root.join("input.npy");
    let output_path = root.join("output.npy");
    input.write_npy(&input_path).unwrap();
    let status = Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check_torchscript.py"))
        .args([dir, &input_path, &output_path])
        .output()
        .expect("python runs");
    assert!(
        status.status.success(),
        "python failed: {}{}",
        String::from_utf8_lossy(&status.stdout),
        String::from_utf8_lossy(&status.stderr)
    );
    let in_python = Tensor::read_npy(&output_path).unwrap().to_kind(Kind::Float);
    assert!(
        max_diff(expected, &in_python) <= TOLERANCE,
        "python's torch differs by {}",
        max_diff(expected, &in_python)
    );
}

#[test]
fn export_round_trip_is_identical_in_rust_and_python() {
    let root = fresh_dir("export-python");
    let kind = GameKind::Rematch;
    let dir = export_via_cli::<Rematch>(&root, kind, 200);
    let meta = ExportMeta::read(&dir).unwrap();
    assert_eq!(meta.game, "rematch");
    assert_eq!(meta.training_step, Some(200));
    assert_eq!(meta.input_shape, [-1, 51, 5, 5]);
    assert_eq!(meta.action_space.size, 456);
    assert_eq!(meta.encoding_version, Rematch::ENCODING_VERSION);

    // Five positions: traced with a batch of two, the module must take any batch.
    let states = random_positions::<Rematch>(kind, 5, 3);
    let input = encode_batch(&states);
    let weights = root.join(layout::checkpoint_key(200, layout::WEIGHTS_FILE));
    let expected = rust_output(&weights, &meta, &input);
    let in_rust = exported_output(&dir, &input);
    assert!(
        max_diff(&expected, &in_rust) <= TOLERANCE,
        "libtorch module differs"
    );
    // Not trivially equal: the outputs vary across positions.
    assert!(max_diff(&expected.get(0), &expected.get(1)) > 1e-3);

    python_agrees(&dir, &input, &expected, &root);

    // The search's view: priors over legal steps and W/D/L match the trainer's evaluator.
    let model = Model::load(&weights, &meta.shape, Device::Cpu).unwrap();
    let requests: Vec<Request> = states
        .iter()
        .map(|s| Request::for_state(s, &mut StepList::new()))
        .collect();
    let reference = evaluate_batch(&model, &requests.iter().collect::<Vec<_>>()).unwrap();
    let exported = Arc::new(ExportedModel::load(&dir).unwrap());
    let answers = exported
        .evaluator()
        .evaluate_states(&states.iter().collect::<Vec<_>>())
        .unwrap();
    for (a, r) in answers.iter().zip(&reference) {
        assert_eq!(a.priors.len(), r.policy.len());
        for (p, q) in a.priors.iter().zip(&r.policy) {
            assert!((p - q).abs() < 1e-5, "prior {p} vs {q}");
        }
        for (p, q) in a.wdl.iter().zip(&r.wdl) {
            assert!((p - q).abs() < 1e-5, "wdl {p} vs {q}");
        }
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn export_takes_a_model_file_or_a_run_directory() {
    let root = fresh_dir("export-sources");
    let kind = GameKind::Eximo;
    let checkpoint = write_checkpoint::<Eximo>(&root, kind, 300);
    let weights = checkpoint.join(layout::WEIGHTS_FILE);

    // A model file in its checkpoint directory: the step from the state.json beside it.
    let from_file = export_checkpoint(&weights, &root.join("from-file")).unwrap();
    assert_eq!(from_file.meta.training_step, Some(300));
    assert_eq!(from_file.meta.game, "eximo");
    let states = random_positions::<Eximo>(kind, 4, 5);
    let input = encode_batch(&states);
    let expected = rust_output(&weights, &from_file.meta, &input);
    assert!(max_diff(&expected, &exported_output(&from_file.dir, &input)) <= TOLERANCE);

    // A bare model file (weights and metadata only): the training step is unknown.
    let bare = root.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    for file in layout::MODEL_FILES {
        std::fs::copy(checkpoint.join(file), bare.join(file)).unwrap();
    }
    let bare_weights = bare.join(layout::WEIGHTS_FILE);
    let from_bare = export_checkpoint(&bare_weights, &root.join("b")).unwrap();
    assert_eq!(from_bare.meta.training_step, None);

    // A run directory: the checkpoint `latest` names.
    write_checkpoint::<Eximo>(&root, kind, 400);
    std::fs::write(root.join(layout::LATEST), layout::checkpoint_name(400)).unwrap();
    let from_run = export_checkpoint(&root, &root.join("from-run")).unwrap();
    assert_eq!(from_run.meta.training_step, Some(400));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn export_errors_are_clear() {
    let root = fresh_dir("export-errors");
    let missing = root.join("nothing-here");
    let out = run(
        &[
            "export",
            "--checkpoint",
            missing.to_str().unwrap(),
            "--out",
            root.join("x").to_str().unwrap(),
        ],
        "",
    );
    assert_clean_error(&out, "not a checkpoint");
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let err = export_checkpoint(&empty, &root.join("x")).unwrap_err();
    assert!(matches!(err, ExportError::NotACheckpoint { .. }), "{err}");
    let out = run(&["play", "--model", empty.to_str().unwrap()], "");
    assert_clean_error(&out, layout::META_FILE);
    let out = run(&["engine", "--model", empty.to_str().unwrap()], "");
    assert_clean_error(&out, layout::META_FILE);

    // An export loads only for its own game.
    let checkpoint = write_checkpoint::<Rematch>(&root, GameKind::Rematch, 10);
    let dir = export_checkpoint(&checkpoint, &root.join("rematch"))
        .unwrap()
        .dir;
    let model = ExportedModel::load(&dir).unwrap();
    assert!(model.check_game::<Rematch>().is_ok());
    let err = model.check_game::<HexDame>().unwrap_err();
    assert!(
        matches!(err, ExportError::Net(NetError::Mismatch { .. })),
        "{err}"
    );
    let out = run(
        &["play", "--model", dir.to_str().unwrap(), "--seat", "blue"],
        "",
    );
    assert_clean_error(&out, "unknown seat 'blue'");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn an_export_is_an_agent() {
    let root = fresh_dir("export-agent");
    let kind = GameKind::Eximo;
    let checkpoint = write_checkpoint::<Eximo>(&root, kind, 20);
    let dir = export_checkpoint(&checkpoint, &root.join("export"))
        .unwrap()
        .dir;
    let model = Arc::new(ExportedModel::load(&dir).unwrap());
    let search = SearchConfig {
        visits: 8,
        ..model.meta().search.clone()
    };
    let mut agent = exported_agent::<Eximo>(Arc::clone(&model), search, 1).unwrap();
    assert!(Agent::<Eximo>::name(&agent).contains("visits=8"));
    let mut state = Eximo::start(kind, RulesConfig::default());
    let mut steps = StepList::new();
    for _ in 0..6 {
        state.legal_steps(&mut steps);
        if steps.is_empty() {
            break;
        }
        let step = agent.choose(&state).unwrap();
        assert!(steps.contains(&step));
        state.apply_step(step);
    }
    let evaluator = model.evaluator();
    assert_eq!(
        evaluator.info().to_string(),
        "TorchScript on cpu, fp32, any batch"
    );
    let (value, wdl) = evaluator.evaluate_one(&state).unwrap();
    assert!((wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    assert!((value - (wdl[0] - wdl[2])).abs() < 1e-6);

    // The `match` command takes an export directory as an agent, and refuses it for
    // another game.
    let dir_text = dir.to_str().unwrap();
    for spec in [format!("{dir_text}@4"), format!("export:{dir_text}:4")] {
        let out = match_against_random("eximo", &spec, &root.join("m"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = text(&out);
        assert!(
            said.contains("export:") && said.contains("random"),
            "{said}"
        );
    }
    let out = run(
        &[
            "match",
            "--game",
            "hexdame",
            "--agent",
            &format!("export:{dir_text}"),
            "--agent",
            "random",
            "--games",
            "2",
            "--quiet",
        ],
        "",
    );
    assert_clean_error(&out, "mismatch");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn engine_protocol_answers_every_command_and_survives_bad_ones() {
    let root = fresh_dir("export-engine");
    let kind = GameKind::Rematch;
    let dir = export_via_cli::<Rematch>(&root, kind, 200);
    let start = Rematch::start(kind, RulesConfig::default());
    let legal: Vec<String> = distinct_turns(&start).into_iter().map(|t| t.path).collect();
    let after = distinct_turns(&start).swap_remove(2);
    let script = [
        "isready".to_string(),
        "id".into(),
        "frobnicate now".into(),
        "".into(),
        "moves".into(),
        "go visits 16".into(),
        "go visits lots".into(),
        "go sideways".into(),
        "position hexdame startpos".into(),
        "position purple a1:R".into(),
        format!("position startpos moves {} z9-z9", legal[0]),
        "show".into(),
        format!("play {}", legal[2]),
        "show".into(),
        "eval".into(),
        "go movetime 50".into(),
        "set visits 8".into(),
        "newgame".into(),
        "go".into(),
        "set speed 3".into(),
        "quit".into(),
        "isready".into(),
    ]
    .join("\n");
    let out = run(&["engine", "--model", dir.to_str().unwrap()], &script);
    let said = text(&out);
    let lines: Vec<&str> = said.lines().collect();
    let mut at = 0;
    let mut next = || {
        let line = lines.get(at).copied().unwrap_or("<missing>");
        at += 1;
        line
    };
    assert_eq!(next(), "readyok");
    let id = next();
    assert!(
        id.starts_with("id name checkers-zero ")
            && id.contains(" game rematch encoding ")
            && id.contains(" step 200 "),
        "{id}"
    );
    assert!(next().starts_with("error unknown command 'frobnicate'"));
    assert_eq!(next(), format!("moves {}", legal.join(" ")));
    let best = next();
    let words: Vec<&str> = best.split_whitespace().collect();
    assert_eq!(words[0], "bestturn", "{best}");
    assert!(legal.contains(&words[1].to_string()), "{best}");
    assert_eq!(words[2], "value");
    assert!(words[3].parse::<f32>().unwrap().abs() <= 1.0);
    assert_eq!(&words[4..6], ["visits", "16"], "{best}");
    assert_eq!(words[6], "pv");
    assert_eq!(words[7], words[1], "the pv starts with the best turn");
    assert!(next().starts_with("error go visits needs a number"));
    assert!(next().starts_with("error usage: go"));
    assert_eq!(next(), "error the model plays rematch, not hexdame");
    assert!(next().starts_with("error bad seat 'purple'"));
    assert!(next().starts_with("error turn 2 'z9-z9'"));
    // The failed position command left the start position in place.
    let mut show = Vec::new();
    loop {
        let line = next();
        show.push(line);
        if line.starts_with("position ") || line == "<missing>" {
            break;
        }
    }
    assert!(show.len() > 2, "a board is drawn: {show:?}");
    assert_eq!(
        show.last().unwrap(),
        &format!("position {}", start.to_notation())
    );
    loop {
        let line = next();
        if line.starts_with("position ") || line == "<missing>" {
            assert_eq!(line, format!("position {}", after.state.to_notation()));
            break;
        }
    }
    let eval = next();
    let words: Vec<&str> = eval.split_whitespace().collect();
    assert_eq!(
        (words[0], words[1], words[3]),
        ("eval", "value", "wdl"),
        "{eval}"
    );
    let wdl: f32 = words[4..7].iter().map(|w| w.parse::<f32>().unwrap()).sum();
    assert!((wdl - 1.0).abs() < 0.01, "{eval}");
    let timed = next();
    assert!(timed.starts_with("bestturn "), "{timed}");
    let default_budget = next();
    assert!(default_budget.contains(" visits 8 pv "), "{default_budget}");
    assert!(next().starts_with("error usage: set visits"));
    assert_eq!(next(), "<missing>", "nothing after quit");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn play_scripted_to_a_finished_game_with_undo_and_bad_input() {
    let root = fresh_dir("export-play");
    let kind = GameKind::Hexdame;
    let checkpoint = write_checkpoint::<HexDame>(&root, kind, 50);
    let dir = export_checkpoint(&checkpoint, &root.join("export"))
        .unwrap()
        .dir;
    // White (a person) to move; whatever Red's lone man does next, White's only turn is
    // a capture that takes Red's last piece.
    let position = "white a1:w c3:w c5:w e3:w e5:r";
    let start = HexDame::from_notation(kind, position, RulesConfig::default()).unwrap();
    let second = distinct_turns(&start).swap_remove(1).path;
    assert!(second.starts_with("a1-"), "{second}");
    let script = "hello\na1-a3\nundo\n99\na1-a2\nundo\n2\n1\nquit\n";
    let out = run(
        &[
            "play",
            "--model",
            dir.to_str().unwrap(),
            "--position",
            position,
            "--seat",
            "white",
            "--visits",
            "8",
        ],
        script,
    );
    let said = text(&out);
    let has = |needle: &str| assert!(said.contains(needle), "'{needle}' not in:\n{said}");
    has("people play: white");
    has(&format!(
        "ply cap {TRAINED_CAP} (the model's training rules)"
    ));
    has("not played: malformed move 'hello'");
    has("not played: illegal move 'a1-a3' (legal: a1-a2 a1-b1");
    has("legal turns:\n    1. a1-a2\n    2. a1-b1");
    has("nothing to undo");
    has("not played: there is no turn number 99");
    has("white plays a1-a2");
    has("undone: 2 turn(s)");
    has(&format!("white plays {second}"));
    assert_eq!(said.matches("red (model) plays e5-").count(), 2, "{said}");
    has("game over: white wins (NoPieces)");
    assert!(
        !said.contains("game abandoned"),
        "the game ended before 'quit'"
    );
    // The board is drawn at the start and after every turn (5 turns, one undo).
    assert_eq!(said.matches("position: ").count(), 1 + 5 + 1, "{said}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn play_three_player_rematch_with_people_and_a_model() {
    let root = fresh_dir("export-play3");
    let kind = GameKind::Rematch3;
    let checkpoint = write_checkpoint::<Rematch>(&root, kind, 70);
    let dir = export_checkpoint(&checkpoint, &root.join("export"))
        .unwrap()
        .dir;
    // People at Red and Orange always take the first listed turn; the model plays White.
    let script = "1\n".repeat(2000);
    let out = run(
        &[
            "play",
            "--model",
            dir.to_str().unwrap(),
            "--seat",
            "red,orange",
            "--visits",
            "4",
        ],
        &script,
    );
    let said = text(&out);
    assert!(said.contains("people play: red, orange"), "{said}");
    assert!(said.contains("game over: "), "the game finished: {said}");
    assert!(said.contains("white (model) plays "));
    assert!(said.contains("red plays ") && said.contains("orange plays "));
    assert!(!said.contains("red (model)") && !said.contains("orange (model)"));
    assert!(!said.contains("white plays "), "White is the model's seat");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn an_export_records_its_runs_search_and_agents_use_it() {
    let root = fresh_dir("export-search");
    let kind = GameKind::Rematch;
    let checkpoint = write_checkpoint::<Rematch>(&root, kind, 40);
    std::fs::write(
        root.join(layout::CONFIG),
        "game = \"rematch\"\n[search]\nkind = \"puct\"\nvisits = 7\nc_scale = 0.5\n",
    )
    .unwrap();
    let dir = export_checkpoint(&checkpoint, &root.join("export"))
        .unwrap()
        .dir;
    let meta = ExportMeta::read(&dir).unwrap();
    assert_eq!(meta.search.kind, SearchKind::Puct);
    assert_eq!((meta.search.visits, meta.search.c_scale), (7, 0.5));
    let json = std::fs::read_to_string(dir.join(layout::META_FILE)).unwrap();
    assert!(
        json.contains("\"c_visit\"") && json.contains("\"considered\""),
        "{json}"
    );
    // The engine plays with the recorded visits unless told otherwise.
    let out = run(&["engine", "--model", dir.to_str().unwrap()], "id\nquit\n");
    let said = text(&out);
    assert!(said.contains("visits 7"), "{said}");
    // A match agent takes the recorded search, overridden by name.
    let model = Arc::new(ExportedModel::load(&dir).unwrap());
    let search = meta
        .search
        .with(&SearchOverrides::parse("search=gumbel,visits=5").unwrap())
        .unwrap();
    let agent = exported_agent::<Rematch>(model, search, 1).unwrap();
    assert!(Agent::<Rematch>::name(&agent).ends_with("visits=5"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_failing_model_stops_the_match_with_one_error_line() {
    let root = fresh_dir("export-broken");
    let kind = GameKind::Rematch;
    let dir = export_via_cli::<Rematch>(&root, kind, 30);
    // A module that loads but answers with the wrong shape: every forward pass fails.
    let example = Tensor::zeros([2, 4], (Kind::Float, Device::Cpu));
    let mut forward = |inputs: &[Tensor]| vec![inputs[0].flatten(1, -1).narrow(1, 0, 2)];
    let module =
        tch::CModule::create_by_tracing("Broken", "forward", &[example], &mut forward).unwrap();
    module.save(dir.join(layout::TORCHSCRIPT_FILE)).unwrap();
    for spec in [
        format!("export:{}:visits=4", dir.display()),
        format!("export:{}:visits=4,kind=puct", dir.display()),
    ] {
        let out = match_against_random("rematch", &spec, &root.join("m"));
        assert_clean_error(&out, "the module returned shape");
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// `engine` plays under the cap the model was trained with unless `--ply-cap` says
/// otherwise, and its `eval` of a mid-game position is the same under caps 150 and 1000
/// (the inputs do not depend on a cap that far away). A model of an older encoding version
/// is refused with one clear line.
#[test]
fn engine_eval_does_not_depend_on_a_distant_ply_cap() {
    let root = fresh_dir("export-ply-cap");
    let kind = GameKind::Hexdame;
    let dir = export_via_cli::<HexDame>(&root, kind, 30);
    let rules = ExportMeta::read(&dir).unwrap().rules;
    assert_eq!(rules.map(|r| r.ply_cap), Some(TRAINED_CAP));
    // A mid-game position: six turns into the game.
    let mut state = HexDame::start(kind, RulesConfig::default());
    let mut moves = Vec::new();
    for i in 0..6 {
        let mut turns = distinct_turns(&state);
        let turn = turns.swap_remove(i % turns.len());
        moves.push(turn.path);
        state = turn.state;
    }
    let script = format!("position startpos moves {}\nid\neval\n", moves.join(" "));
    let engine = |cap: Option<&str>| {
        let mut args = vec!["engine", "--model", dir.to_str().unwrap()];
        args.extend(cap.map(|c| ["--ply-cap", c]).into_iter().flatten());
        let said = text(&run(&args, &script));
        let lines: Vec<String> = said.lines().map(str::to_string).collect();
        assert_eq!(lines.len(), 2, "{said}");
        assert!(lines[1].starts_with("eval value "), "{said}");
        (lines[0].clone(), lines[1].clone())
    };
    let (id_150, eval_150) = engine(Some("150"));
    let (id_1000, eval_1000) = engine(Some("1000"));
    let (id_default, eval_default) = engine(None);
    assert!(id_150.ends_with(" plycap 150"), "{id_150}");
    assert!(id_1000.ends_with(" plycap 1000"), "{id_1000}");
    assert!(
        id_default.ends_with(" plycap 150"),
        "the trained cap: {id_default}"
    );
    assert_eq!(eval_150, eval_1000);
    assert_eq!(eval_default, eval_150);

    // An export of an older encoding is refused, naming the versions.
    let json = std::fs::read_to_string(dir.join(layout::META_FILE)).unwrap();
    let version = format!("\"encoding_version\": {}", HexDame::ENCODING_VERSION);
    assert!(json.contains(&version), "{json}");
    let old = json.replace(&version, "\"encoding_version\": 1");
    std::fs::write(dir.join(layout::META_FILE), old).unwrap();
    let out = run(&["engine", "--model", dir.to_str().unwrap()], "eval\n");
    assert_clean_error(
        &out,
        &format!(
            "encoding version is 1, expected {}",
            HexDame::ENCODING_VERSION
        ),
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_convolutional_policy_head_exports_and_answers_alike() {
    // The export traces the policy map's lookup with the net: the module answers as the
    // model loaded with the game's shape, on positions of every kind.
    let root = fresh_dir("export-conv-policy");
    let kind = GameKind::Hexdame;
    let net = NetConfig {
        conv_policy: true,
        ..common::small_net()
    };
    let checkpoint = write_checkpoint_of::<HexDame>(&root, kind, 30, net);
    let out = root.join("export");
    export_checkpoint(&checkpoint, &out).unwrap();
    let input = encode_batch(&random_positions::<HexDame>(kind, 6, 5));
    let model = Model::load(
        &checkpoint.join(layout::WEIGHTS_FILE),
        &HexDame::net_shape(kind),
        Device::Cpu,
    )
    .unwrap();
    let (policy, value) = tch::no_grad(|| model.forward_t(&input, false));
    let expected = Tensor::cat(&[policy, value], 1);
    assert!(max_diff(&expected, &exported_output(&out, &input)) <= TOLERANCE);
    assert!(max_diff(&expected.get(0), &expected.get(1)) > 1e-3);
    std::fs::remove_dir_all(&root).unwrap();
}
