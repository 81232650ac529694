//! What a rating writes and prints: `ratings.csv`, `ratings.png` (and `losses.png`, drawn
//! by [`crate::eval::losses`]) and the table `ratings` prints.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{file_error, Rated, RatingsSummary};
use crate::eval::losses::{learner_metrics, loss_panels};
use crate::eval::plot::{render_png, Panel, Series};
use crate::eval::EvalError;
use crate::layout;
use crate::util::write_atomic;

/// Writes `ratings.csv`, `ratings.png` and (from the learner's metrics) `losses.png` into
/// the run directory. Returns the files written and notes on what was not.
pub fn write_outputs(
    run: &Path,
    players: &[Rated],
    anchor: &str,
) -> Result<(Vec<PathBuf>, Vec<String>), EvalError> {
    let mut files = Vec::new();
    let mut notes = Vec::new();
    let csv_path = run.join(layout::RATINGS_CSV);
    write_atomic(&csv_path, ratings_csv(players).as_bytes())
        .map_err(|e| file_error(&csv_path, e))?;
    files.push(csv_path);
    let plot_path = run.join(layout::RATINGS_PLOT);
    let png = render_png(&elo_panels(players, anchor), 2).map_err(|e| file_error(&plot_path, e))?;
    write_atomic(&plot_path, &png).map_err(|e| file_error(&plot_path, e))?;
    files.push(plot_path);
    let loss_path = run.join(layout::LOSSES_PLOT);
    match loss_panels(&learner_metrics(run)) {
        Ok(panels) => {
            let png = render_png(&panels, 2).map_err(|e| file_error(&loss_path, e))?;
            write_atomic(&loss_path, &png).map_err(|e| file_error(&loss_path, e))?;
            files.push(loss_path);
        }
        Err(reason) => notes.push(format!("no loss plot: {reason}")),
    }
    Ok((files, notes))
}

fn csv_number(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        String::new()
    }
}

/// `ratings.csv`: `player,step,hours,games,elo,elo_low,elo_high,cpu_hours` (empty cells
/// where a value does not apply; `cpu_hours` last, so readers of the older seven columns
/// read it unchanged).
pub fn ratings_csv(players: &[Rated]) -> String {
    let mut out = String::from("player,step,hours,games,elo,elo_low,elo_high,cpu_hours\n");
    let hours = |h: Option<f64>| h.map_or(String::new(), |h| format!("{h:.4}"));
    for p in players {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            p.name,
            p.step.map_or(String::new(), |s| s.to_string()),
            hours(p.hours),
            p.games,
            csv_number(p.elo.elo),
            csv_number(p.elo.low),
            csv_number(p.elo.high),
            hours(p.cpu_hours)
        );
    }
    out
}

/// Elo against step, hours and (where the run recorded it) CPU hours, the measure of
/// strength per CPU-hour that compares machines: the checkpoints as one line with their
/// intervals as a shaded band, each anchor as a flat line.
fn elo_panels(players: &[Rated], anchor: &str) -> Vec<Panel> {
    let axis = |x: &dyn Fn(&Rated) -> Option<f64>, x_label: &str| {
        let ckpts: Vec<&Rated> = players.iter().filter(|p| x(p).is_some()).collect();
        let mut series = vec![Series {
            label: "checkpoints".into(),
            points: ckpts
                .iter()
                .map(|p| (x(p).unwrap_or(0.0), p.elo.elo))
                .collect(),
            bars: ckpts.iter().map(|p| (p.elo.low, p.elo.high)).collect(),
        }];
        let span = ckpts
            .iter()
            .filter_map(|p| x(p))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        if span.0 <= span.1 {
            for p in players.iter().filter(|p| p.step.is_none()) {
                series.push(Series {
                    label: p.name.clone(),
                    points: vec![(span.0, p.elo.elo), (span.1, p.elo.elo)],
                    bars: Vec::new(),
                });
            }
        }
        Panel {
            title: format!("Elo by {x_label}"),
            x_label: x_label.into(),
            y_label: format!("Elo ({anchor} = 0)"),
            series,
        }
    };
    let mut panels = vec![
        axis(&|p: &Rated| p.step.map(|s| s as f64), "training step"),
        axis(&|p: &Rated| p.hours, "training hours"),
    ];
    if players.iter().any(|p| p.cpu_hours.is_some()) {
        panels.push(axis(&|p: &Rated| p.cpu_hours, "training CPU hours"));
    }
    panels
}

/// The table printed by `ratings`.
pub fn ratings_table(summary: &RatingsSummary) -> String {
    let width = summary
        .players
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = format!(
        "{:<width$}  {:>9}  {:>7}  {:>7}  {:>6}  {:>20}\n",
        "player", "step", "hours", "CPU h", "games", "Elo (95%)"
    );
    let hours = |h: Option<f64>| h.map_or("-".into(), |h| format!("{h:.2}"));
    for p in &summary.players {
        let _ = writeln!(
            out,
            "{:<width$}  {:>9}  {:>7}  {:>7}  {:>6}  {:>20}",
            p.name,
            p.step.map_or("-".into(), |s| s.to_string()),
            hours(p.hours),
            hours(p.cpu_hours),
            p.games,
            format!("{:+.0} [{:+.0}, {:+.0}]", p.elo.elo, p.elo.low, p.elo.high)
        );
    }
    out
}
