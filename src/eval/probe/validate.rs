//! Validating a probe set against a ladder (`probe --ratings RUN/ratings.csv`): the rated
//! checkpoints of a run, and each probe measure's Spearman rank correlation with their Elo.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::score::SeatScore;
use super::{LabelKind, ProbeError};
use crate::eval::ratings::list_checkpoints;

/// The correlation the issue asks of a measure before it decides anything.
pub const GOAL: f64 = 0.8;

/// A checkpoint rated on the run's ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedCheckpoint {
    /// Its directory (`RUN/checkpoints/step-*`).
    pub dir: PathBuf,
    /// Its training step.
    pub step: u64,
    /// Its Elo in `ratings.csv`.
    pub elo: f64,
}

/// The checkpoints rated in `csv` (a `ratings.csv` as `ratings` writes it, with its columns
/// `player`, `step` and `elo` named in its header), found among the checkpoints of the run
/// directory the file lies in. Rows without a step (anchors) or an Elo are skipped.
pub fn rated_checkpoints(csv: &Path) -> Result<Vec<RatedCheckpoint>, ProbeError> {
    let file_error = |reason: String| ProbeError::File {
        path: csv.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(csv).map_err(|e| file_error(e.to_string()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let column = |name: &str| {
        header.iter().position(|h| h.trim() == name).ok_or_else(|| {
            file_error(format!(
                "no '{name}' column in the header (expected the ratings.csv of `ratings`)"
            ))
        })
    };
    let (step_col, elo_col) = (column("step")?, column("elo")?);
    let mut rated: Vec<(u64, f64)> = Vec::new();
    for (i, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let bad = |what: &str| file_error(format!("line {}: {what}", i + 2));
        if cells.len() != header.len() {
            return Err(bad(&format!(
                "{} cells, the header has {}",
                cells.len(),
                header.len()
            )));
        }
        let (step, elo) = (cells[step_col], cells[elo_col]);
        if step.is_empty() || elo.is_empty() {
            continue;
        }
        let step = step.parse().map_err(|_| bad("the step is not a number"))?;
        let elo = elo.parse().map_err(|_| bad("the Elo is not a number"))?;
        rated.push((step, elo));
    }
    let run = csv.parent().unwrap_or(Path::new("."));
    let checkpoints = list_checkpoints(run).map_err(|e| ProbeError::Settings(e.to_string()))?;
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (step, elo) in rated {
        if !seen.insert(step) {
            return Err(file_error(format!("step {step} is rated twice")));
        }
        let dir = checkpoints
            .iter()
            .find(|c| c.step == step)
            .map(|c| c.dir.clone())
            .ok_or_else(|| {
                file_error(format!(
                    "step {step} is rated but {} has no complete checkpoint of that step",
                    run.join(crate::layout::CHECKPOINTS).display()
                ))
            })?;
        out.push(RatedCheckpoint { dir, step, elo });
    }
    Ok(out)
}

/// The 1-based ranks of `xs`, ties given the average of the ranks they share.
pub fn average_ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && xs[order[end]] == xs[order[start]] {
            end += 1;
        }
        // Positions start..end (0-based) hold ranks start+1..=end: their mean.
        let rank = (start + end + 1) as f64 / 2.0;
        order[start..end].iter().for_each(|&i| ranks[i] = rank);
        start = end;
    }
    ranks
}

/// Spearman's rank correlation of `xs` and `ys` (the Pearson correlation of their average
/// ranks); `None` with fewer than two pairs or when either side is constant.
pub fn spearman(xs: &[f64], ys: &[f64]) -> Option<f64> {
    if xs.len() != ys.len() || xs.len() < 2 {
        return None;
    }
    let (rx, ry) = (average_ranks(xs), average_ranks(ys));
    let mean = (xs.len() + 1) as f64 / 2.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in rx.iter().zip(&ry) {
        sxy += (x - mean) * (y - mean);
        sxx += (x - mean) * (x - mean);
        syy += (y - mean) * (y - mean);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The probe measures compared with Elo, each oriented so that higher is better: their
/// names and their values from a checkpoint's `all` row (`None` where the set cannot give
/// it: losing mass needs solver labels, the log-loss proven values).
pub fn measures(all: &SeatScore, labels: LabelKind) -> [(&'static str, Option<f64>); 4] {
    let n = all.positions.max(1) as f64;
    [
        ("policy-optimal", Some(all.policy_optimal as f64 / n)),
        ("search-optimal", Some(all.search_optimal as f64 / n)),
        (
            "-losing-mass",
            (labels == LabelKind::Solver).then(|| -all.losing_mass / n),
        ),
        (
            "-value-logloss",
            (all.valued > 0).then(|| -all.value_loss / all.valued as f64),
        ),
    ]
}

/// The report: each measure's Spearman correlation with `elos` over the checkpoints whose
/// `all` rows are `rows` (in the same order), `n/a` where a measure or the correlation is
/// missing.
pub fn correlation_report(elos: &[f64], rows: &[SeatScore], labels: LabelKind) -> String {
    let mut text = format!(
        "Spearman rank correlation with Elo over {} checkpoints (goal >= {GOAL}):\n",
        elos.len()
    );
    let names = measures(&SeatScore::default(), labels).map(|(name, _)| name);
    for (k, name) in names.iter().enumerate() {
        let values: Option<Vec<f64>> = rows.iter().map(|r| measures(r, labels)[k].1).collect();
        let rho = values.and_then(|v| spearman(&v, elos));
        let cell = rho.map_or("n/a".to_string(), |r| format!("{r:+.3}"));
        text.push_str(&format!("{name:<16} {cell}\n"));
    }
    if elos.len() < 10 {
        text.push_str("(fewer than 10 checkpoints: too few to validate the set)\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_their_average_rank() {
        assert_eq!(
            average_ranks(&[30.0, 10.0, 20.0, 20.0]),
            vec![4.0, 1.0, 2.5, 2.5]
        );
        assert_eq!(average_ranks(&[5.0, 5.0, 5.0]), vec![2.0, 2.0, 2.0]);
    }

    #[test]
    fn spearman_on_hand_made_tables() {
        // d = (-1, 1, -1, 1, 0): 1 - 6 * 4 / (5 * 24) = 0.8.
        let rho = spearman(&[1.0, 2.0, 3.0, 4.0, 5.0], &[2.0, 1.0, 4.0, 3.0, 5.0]).unwrap();
        assert!((rho - 0.8).abs() < 1e-12);
        // Ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): 4.5 / sqrt(4.5 * 5) = sqrt(0.9).
        let rho = spearman(&[1.0, 2.0, 2.0, 3.0], &[10.0, 20.0, 30.0, 40.0]).unwrap();
        assert!((rho - 0.9f64.sqrt()).abs() < 1e-12);
        let rho = spearman(&[3.0, 2.0, 1.0], &[-5.0, 0.0, 7.0]).unwrap();
        assert!((rho + 1.0).abs() < 1e-12);
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0], &[1.0]), None);
    }

    fn row(positions: usize, policy: usize, losing: f64, valued: usize, loss: f64) -> SeatScore {
        SeatScore {
            seat: "all".into(),
            positions,
            policy_optimal: policy,
            search_optimal: positions - policy,
            losing_mass: losing,
            value_loss: loss,
            valued,
            ..SeatScore::default()
        }
    }

    #[test]
    fn the_report_orients_each_measure_and_marks_what_a_set_lacks() {
        let rows = [
            row(10, 5, 3.0, 10, 9.0),
            row(10, 7, 2.0, 10, 8.0),
            row(10, 6, 1.0, 10, 7.0),
        ];
        let elos = [0.0, 100.0, 200.0];
        assert_eq!(
            correlation_report(&elos, &rows, LabelKind::Solver),
            "Spearman rank correlation with Elo over 3 checkpoints (goal >= 0.8):\n\
             policy-optimal   +0.500\n\
             search-optimal   -0.500\n\
             -losing-mass     +1.000\n\
             -value-logloss   +1.000\n\
             (fewer than 10 checkpoints: too few to validate the set)\n"
        );
        let unvalued = rows.map(|r| SeatScore { valued: 0, ..r });
        let report = correlation_report(&elos, &unvalued, LabelKind::Search);
        assert!(report.contains("-losing-mass     n/a\n-value-logloss   n/a\n"));
    }

    #[test]
    fn rated_checkpoints_come_from_the_csv_and_the_run() {
        let root = std::env::temp_dir().join(format!("cz-validate-{}", std::process::id()));
        for step in [100u64, 200] {
            let ckpt = root.join(format!("checkpoints/step-{step:08}"));
            std::fs::create_dir_all(&ckpt).unwrap();
            std::fs::write(ckpt.join("model.safetensors"), b"").unwrap();
            let state = format!("{{\"step\": {step}, \"elapsed_s\": 1.0}}");
            std::fs::write(ckpt.join("state.json"), state).unwrap();
        }
        let csv = root.join("ratings.csv");
        let header = "player,step,hours,games,elo,elo_low,elo_high\n";
        let rows = "step-00000100@50,100,0.1,20,12.5,,\nrandom,,,40,0.0,,\n\
                    step-00000200@50,200,0.2,20,80.0,1,2\n";
        std::fs::write(&csv, format!("{header}{rows}")).unwrap();
        let rated = rated_checkpoints(&csv).unwrap();
        let steps: Vec<(u64, f64)> = rated.iter().map(|r| (r.step, r.elo)).collect();
        assert_eq!(steps, vec![(100, 12.5), (200, 80.0)]);
        assert_eq!(rated[1].dir, root.join("checkpoints/step-00000200"));
        std::fs::write(&csv, format!("{header}step-3,300,0.3,20,5.0,,\n")).unwrap();
        let error = rated_checkpoints(&csv).unwrap_err().to_string();
        assert!(
            error.contains("step 300 is rated but") && error.contains("no complete checkpoint"),
            "{error}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
