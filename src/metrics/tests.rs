//! The lines' checks: each writes the keys the files have always had, older lines read,
//! and every key the dashboard (`dashboard.js`) reads is a key of a line.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::*;

/// One line of each type, every optional field given (a failed evaluation besides).
fn one_of_each() -> Vec<MetricsLine> {
    let intake = IntakeLine {
        diversity: Some(DiversityReport::default()),
        ..IntakeLine::default()
    };
    let precision = PrecisionLine {
        step: Some(1),
        ..PrecisionLine::default()
    };
    vec![
        MetricsLine::Train(TrainLine::default()),
        MetricsLine::Intake(intake),
        MetricsLine::SelfPlay(SelfPlayLine::default()),
        MetricsLine::Resources(ResourcesLine::default()),
        MetricsLine::Window(WindowLine::default()),
        MetricsLine::Evaluation(EvaluationLine::Played(EvaluationResult::default())),
        MetricsLine::Evaluation(EvaluationLine::Failed(EvaluationFailure::default())),
        MetricsLine::Precision(precision),
    ]
}

/// The keys of each line type as written (`intake`'s `diversity` object's as
/// `diversity_KEY`, as the dashboard flattens them).
fn keys_by_type() -> BTreeMap<String, BTreeSet<String>> {
    let mut keys: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in one_of_each() {
        let Value::Object(object) = serde_json::to_value(&line).unwrap() else {
            panic!("{line:?} is not an object");
        };
        let kind = object["type"].as_str().unwrap().to_string();
        let set = keys.entry(kind).or_default();
        for (key, value) in &object {
            set.insert(key.clone());
            if let (true, Value::Object(inner)) = (key == "diversity", value) {
                set.extend(inner.keys().map(|k| format!("diversity_{k}")));
            }
        }
    }
    keys
}

#[test]
fn each_line_writes_the_keys_its_json_did() {
    let expected = [
        (
            "train",
            "cpu_s elapsed_s iteration learning_rate moves_left_loss policy_entropy \
            policy_loss samples_per_s samples_trained step total_loss type value_loss window",
        ),
        (
            "selfplay",
            "elapsed_s forced_leaf_share net_busy net_calls_per_searched_step \
            net_mean_batch net_positions_per_s positions_per_s reanalysed_searches step type",
        ),
        (
            "resources",
            "cpu_s elapsed_s games_deleted peak_rss_kib rss_kib run_disk_bytes step type",
        ),
        (
            "window",
            "refills_from_new_selfplay samples shards_missing shards_read step type",
        ),
        (
            "precision",
            "bf16_from choice reason source step timings type",
        ),
    ];
    let keys = keys_by_type();
    for (kind, names) in expected {
        let names: BTreeSet<String> = names.split_whitespace().map(String::from).collect();
        assert_eq!(keys[kind], names, "{kind}");
    }
    let intake: BTreeSet<String> = keys["intake"]
        .iter()
        .filter(|k| !k.starts_with("diversity_"))
        .cloned()
        .collect();
    let names = "diversity draws elapsed_s false_resign_rate false_resign_rate_side0 \
        false_resign_rate_side1 games games_per_s games_total mean_game_steps played_through \
        proven_samples reanalysed_games reanalysed_samples rejected_shards \
        resign_threshold_side0 resign_threshold_side1 resigned resigned_side0 resigned_side1 \
        samples samples_per_s samples_total sessions shards shards_per_s step type \
        wins_side0 wins_side1 would_resign_side0 would_resign_side1";
    let names: BTreeSet<String> = names.split_whitespace().map(String::from).collect();
    assert_eq!(intake, names);
    let failed = serde_json::to_value(&one_of_each()[6]).unwrap();
    assert_eq!(
        failed,
        json!({"type": "evaluation", "step": 0, "error": ""})
    );
}

#[test]
fn lines_read_back_and_older_lines_read_with_defaults() {
    for line in one_of_each() {
        let text = serde_json::to_string(&line).unwrap();
        assert_eq!(serde_json::from_str::<MetricsLine>(&text).unwrap(), line);
    }
    // A `train` line from before `moves_left_loss` and `cpu_s`; an `intake` line whose
    // diversity does not read as today's.
    let old: MetricsLine = serde_json::from_value(json!({"type": "train", "step": 5,
        "policy_loss": 2.0, "value_loss": 0.5, "total_loss": 2.5, "policy_entropy": 1.0,
        "learning_rate": 0.01, "samples_per_s": 9.0, "window": 64, "iteration": 1,
        "elapsed_s": 3.0, "samples_trained": 160}))
    .unwrap();
    let MetricsLine::Train(train) = old else {
        panic!("{old:?}");
    };
    assert_eq!(
        (train.step, train.cpu_s, train.moves_left_loss),
        (5, 0.0, 0.0)
    );
    let odd: MetricsLine = serde_json::from_value(json!({"type": "intake", "step": 7,
        "games_total": 40, "diversity": {"games": "many"}}))
    .unwrap();
    let MetricsLine::Intake(intake) = odd else {
        panic!("{odd:?}");
    };
    assert_eq!((intake.games_total, intake.diversity), (40, None));
    let evaluation: MetricsLine =
        serde_json::from_value(json!({"type": "evaluation", "step": 3, "error": "lost"})).unwrap();
    assert_eq!(evaluation.step(), Some(3));
}

/// The quoted words of `text`.
fn quoted(text: &str) -> Vec<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect()
}

/// The text of `dashboard.js` from `start` to the first `end` after it.
fn block<'a>(js: &'a str, start: &str, end: &str) -> &'a str {
    let from = js
        .find(start)
        .unwrap_or_else(|| panic!("dashboard.js has no {start}"));
    let rest = &js[from + start.len()..];
    &rest[..rest
        .find(end)
        .unwrap_or_else(|| panic!("no {end} after {start}"))]
}

/// The metric keys `dashboard.js` names: the key lists of its `TOPICS` (the arrays after a
/// chart title), its `WORDS` and its `SKIP`.
fn dashboard_keys(js: &str) -> Vec<String> {
    let topics = block(js, "const TOPICS = [", "\n];");
    let mut keys = Vec::new();
    // `["Title", ["key", ...], "unit"]`: the quoted words right after a chart's title (a
    // topic's title is followed by its charts, `[[`).
    for (at, after) in topics.match_indices("\", [") {
        let rest = &topics[at + after.len()..];
        if rest.starts_with('"') {
            keys.extend(quoted(&rest[..rest.find(']').unwrap()]));
        }
    }
    let words = block(js, "const WORDS = {", "};");
    keys.extend(words.split(',').filter_map(|pair| {
        let (key, _) = pair.split_once(':')?;
        Some(key.trim().to_string())
    }));
    keys.extend(quoted(block(js, "const SKIP = new Set([", "]);")));
    keys
}

/// (type, field) of each `for (const p of metrics.filter(m => m.type === "T")) ... p.F`.
fn dashboard_typed_fields(js: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in js.lines() {
        let Some((_, rest)) = line.split_once("for (const ") else {
            continue;
        };
        let Some((var, rest)) = rest.split_once(" of metrics.filter(m => m.type === \"") else {
            continue;
        };
        let (kind, body) = rest.split_once('"').unwrap();
        for field in body.split(&format!("{var}.")).skip(1) {
            let name: String = field
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push((kind.to_string(), name));
        }
    }
    out
}

#[test]
fn every_key_the_dashboard_reads_is_a_key_of_a_metrics_line() {
    let js = include_str!("../serve/assets/dashboard.js");
    let by_type = keys_by_type();
    let all: BTreeSet<&String> = by_type.values().flatten().collect();
    let keys = dashboard_keys(js);
    assert!(keys.len() >= 30, "the scan found too few keys: {keys:?}");
    let unknown: Vec<&String> = keys.iter().filter(|k| !all.contains(k)).collect();
    assert!(
        unknown.is_empty(),
        "dashboard.js reads keys no line has: {unknown:?}"
    );
    let types: Vec<&str> = js
        .split("m.type === \"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    assert!(types.len() >= 2, "{types:?}");
    for kind in types {
        assert!(
            by_type.contains_key(kind),
            "dashboard.js reads lines of type {kind}"
        );
    }
    let typed = dashboard_typed_fields(js);
    assert!(!typed.is_empty(), "the scan found no field of a typed line");
    for (kind, field) in typed {
        assert!(
            by_type[&kind].contains(&field),
            "{kind} lines have no {field}"
        );
    }
}

#[test]
fn the_scan_finds_keys_that_no_line_has() {
    let js = r#"const SKIP = new Set(["type", "stepz"]);
const TOPICS = [
  ["Losses", [["Losses", ["total_loss", "lost_loss"], "nats"]]],
];
const WORDS = { cpu_s: "CPU", gone_s: "gone" };
  for (const p of metrics.filter(m => m.type === "precision")) out.push(p.choise);
"#;
    let keys = dashboard_keys(js);
    assert_eq!(
        keys,
        [
            "total_loss",
            "lost_loss",
            "cpu_s",
            "gone_s",
            "type",
            "stepz"
        ]
    );
    assert_eq!(
        dashboard_typed_fields(js),
        [("precision".to_string(), "choise".to_string())]
    );
}
