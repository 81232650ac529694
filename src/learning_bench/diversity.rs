//! Self-play's diversity over a run: the learner's `diversity` figures and its losses per
//! iteration, against the training step, as `RUN/bench/diversity.csv` and `diversity.png`
//! (written after training; `--replot` redraws the plot from the CSV).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::eval::plot::{render_png, Panel, Series};
use crate::eval::EvalError;
use crate::layout;
use crate::metrics::log::MetricsLog;
use crate::metrics::{MetricsLine, TrainLine};

/// The columns of `diversity.csv`: the step, then `diversity` keys, then the losses of the
/// `train` line of the same step.
pub const COLUMNS: [&str; 16] = [
    "step",
    "games",
    "openings_2",
    "openings_4",
    "openings_6",
    "openings_8",
    "opening_entropy_4",
    "duplicate_games",
    "repeated_samples",
    "draws",
    "outcome_entropy",
    "resigned",
    "false_resign",
    "value_loss",
    "policy_loss",
    "elapsed_s",
];

/// Index of the first loss column (the ones read from `train` lines).
const FIRST_LOSS: usize = 13;

/// One iteration: a value per [`COLUMNS`] (`None`: not recorded).
pub type DiversityRow = [Option<f64>; COLUMNS.len()];

/// The rows of a learner's metrics: one per `intake` line that has a `diversity` object,
/// with the losses of the `train` line of its step.
pub fn diversity_rows(metrics: &[MetricsLine]) -> Vec<DiversityRow> {
    let train: HashMap<u64, &TrainLine> = metrics
        .iter()
        .filter_map(|m| match m {
            MetricsLine::Train(t) => Some((t.step, t)),
            _ => None,
        })
        .rev()
        .collect();
    let loss = |step: u64, key: &str| {
        let t = train.get(&step)?;
        match key {
            "value_loss" => Some(t.value_loss),
            "policy_loss" => Some(t.policy_loss),
            _ => None,
        }
    };
    metrics
        .iter()
        .filter_map(|m| match m {
            MetricsLine::Intake(line) => Some((line, line.diversity.as_ref()?)),
            _ => None,
        })
        .map(|(line, diversity)| {
            let figures = serde_json::to_value(diversity).expect("reports serialise");
            let mut row: DiversityRow = [None; COLUMNS.len()];
            row[0] = Some(line.step as f64);
            for (i, &key) in COLUMNS.iter().enumerate().skip(1) {
                row[i] = if key == "elapsed_s" {
                    Some(line.elapsed_s)
                } else if i >= FIRST_LOSS {
                    loss(line.step, key)
                } else {
                    figures[key].as_f64()
                };
            }
            row
        })
        .collect()
}

/// The rows as CSV, a header first; an unrecorded value is an empty cell.
pub fn diversity_csv(rows: &[DiversityRow]) -> String {
    let mut text = COLUMNS.join(",") + "\n";
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|v| v.map_or(String::new(), |x| format!("{x}")))
            .collect();
        text += &(cells.join(",") + "\n");
    }
    text
}

/// Rows read back from [`diversity_csv`]'s text (columns found by their header).
pub fn rows_from_csv(text: &str) -> Result<Vec<DiversityRow>, String> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("an empty table")?.split(',').collect();
    let index: Vec<Option<usize>> = COLUMNS
        .iter()
        .map(|c| header.iter().position(|h| h == c))
        .collect();
    if index[0].is_none() {
        return Err("the header has no step column".into());
    }
    lines
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            let cells: Vec<&str> = line.split(',').collect();
            let mut row: DiversityRow = [None; COLUMNS.len()];
            for (slot, at) in row.iter_mut().zip(&index) {
                let Some(cell) = at.and_then(|i| cells.get(i)).filter(|c| !c.is_empty()) else {
                    continue;
                };
                *slot = Some(
                    cell.parse()
                        .map_err(|_| format!("line {}: {cell:?} is not a number", n + 2))?,
                );
            }
            Ok(row)
        })
        .collect()
}

fn series(rows: &[DiversityRow], column: &str, label: &str, scale: f64) -> Series {
    let i = COLUMNS.iter().position(|c| *c == column).expect("a column");
    Series {
        label: label.into(),
        points: rows
            .iter()
            .filter_map(|r| Some((r[0]?, r[i]? * scale)))
            .collect(),
        bars: Vec::new(),
    }
}

/// Four panels against the training step: distinct openings, the 4-turn opening entropy,
/// shares of repeats and endings, and the value loss beside the outcome entropy.
pub fn diversity_panels(rows: &[DiversityRow], game: &str) -> Vec<Panel> {
    let panel = |title: &str, y_label: &str, series: Vec<Series>| Panel {
        title: format!("{game}: {title}"),
        x_label: "training step".into(),
        y_label: y_label.into(),
        series,
    };
    let openings = (2..=8)
        .step_by(2)
        .map(|k| series(rows, &format!("openings_{k}"), &format!("{k} turns"), 1.0))
        .collect();
    let shares = [
        ("duplicate_games", "duplicate games"),
        ("repeated_samples", "repeated samples"),
        ("draws", "draws"),
        ("resigned", "resigned"),
        ("false_resign", "false resignations"),
    ]
    .iter()
    .map(|(c, l)| series(rows, c, l, 100.0))
    .collect();
    vec![
        panel("distinct openings per 1,000 games", "openings", openings),
        panel(
            "4-turn openings' entropy",
            "effective openings (exp H)",
            vec![series(rows, "opening_entropy_4", "4 turns", 1.0)],
        ),
        panel("repeats and endings", "% of games or samples", shares),
        panel(
            "value loss and outcome entropy",
            "nats (loss) / bits (entropy)",
            vec![
                series(rows, "value_loss", "value loss", 1.0),
                series(rows, "outcome_entropy", "outcome entropy", 1.0),
            ],
        ),
    ]
}

/// Draws the rows' panels as PNG bytes.
pub fn diversity_png(rows: &[DiversityRow], game: &str) -> Result<Vec<u8>, EvalError> {
    render_png(&diversity_panels(rows, game), 2)
        .map_err(|e| EvalError::Settings(format!("diversity plot: {e}")))
}

/// Writes `diversity.csv` and `diversity.png` of `run_dir`'s learner metrics into
/// `bench_dir`; nothing (and no file) when no line has diversity figures.
pub fn write_diversity(
    run_dir: &Path,
    bench_dir: &Path,
    game: &str,
) -> Result<Vec<PathBuf>, EvalError> {
    let metrics = MetricsLog::read(&run_dir.join(layout::LEARNER_METRICS)).unwrap_or_default();
    let rows = diversity_rows(&metrics);
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let [csv, png] = layout::DIVERSITY_FILES;
    let save = |name: &str, bytes: &[u8]| super::save_in(bench_dir, name, bytes);
    Ok(vec![
        save(csv, diversity_csv(&rows).as_bytes())?,
        save(png, &diversity_png(&rows, game)?)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_come_from_intake_lines_with_their_steps_losses_and_survive_the_csv() {
        let metrics: Vec<MetricsLine> = [
            json!({"type": "train", "step": 100, "value_loss": 0.7, "policy_loss": 1.5}),
            json!({"type": "intake", "step": 100, "elapsed_s": 30.0, "diversity": {
                "games": 400, "openings_2": 17.5, "openings_4": 80.0, "openings_6": 200.0,
                "openings_8": 350.0, "opening_entropy_4": 21.0, "duplicate_games": 0.01,
                "repeated_samples": 0.04, "draws": 0.05, "outcome_entropy": 1.1,
                "resigned": 0.3, "false_resign": null}}),
            json!({"type": "intake", "step": 200, "diversity": null}),
            json!({"type": "selfplay", "step": 100}),
        ]
        .into_iter()
        .map(|line| serde_json::from_value(line).unwrap())
        .collect();
        let rows = diversity_rows(&metrics);
        assert_eq!(rows.len(), 1);
        let row = rows[0];
        assert_eq!(row[0], Some(100.0));
        assert_eq!(row[1], Some(400.0));
        assert_eq!(row[3], Some(80.0));
        assert_eq!(row[12], None, "no false resignation figure");
        assert_eq!(
            (row[13], row[14], row[15]),
            (Some(0.7), Some(1.5), Some(30.0))
        );
        let back = rows_from_csv(&diversity_csv(&rows)).unwrap();
        assert_eq!(back, rows);
        assert!(rows_from_csv("games\n1\n").is_err());
        assert!(rows_from_csv("step,games\n1,x\n").is_err());
        let panels = diversity_panels(&rows, "rematch");
        assert_eq!(panels.len(), 4);
        assert_eq!(panels[0].series[1].points, vec![(100.0, 80.0)]);
        let (step, duplicates) = panels[2].series[0].points[0];
        assert_eq!(step, 100.0);
        assert!(
            (duplicates - 1.0).abs() < 1e-9,
            "0.01 drawn as 1%: {duplicates}"
        );
        assert!(diversity_png(&rows, "rematch")
            .unwrap()
            .starts_with(b"\x89PNG"));
    }
}
