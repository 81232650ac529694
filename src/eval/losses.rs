//! The training losses' plot (`RUN/losses.png`, which `ratings` writes): policy, value and
//! total loss and policy entropy against the step, from the learner's metrics.

use std::path::{Path, PathBuf};

use super::plot::{Panel, Series};
use crate::layout;
use crate::metrics::MetricsLine;

/// The learner's metrics log (`train` and `learn` alike); `RUN/metrics.jsonl` in runs
/// written by `train` before it ran the roles.
pub fn learner_metrics(run: &Path) -> PathBuf {
    [layout::LEARNER_METRICS, layout::METRICS_FILE]
        .map(|key| run.join(key))
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| run.join(layout::LEARNER_METRICS))
}

/// Panels of policy loss, value loss, total loss and policy entropy against step, from the
/// `"type": "train"` lines of `metrics.jsonl`.
pub fn loss_panels(metrics: &Path) -> Result<Vec<Panel>, String> {
    let text =
        std::fs::read_to_string(metrics).map_err(|e| format!("{}: {e}", metrics.display()))?;
    let keys = ["policy_loss", "value_loss", "total_loss", "policy_entropy"];
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); keys.len()];
    for line in text.lines() {
        // A line being written, another tool's or another type's is passed over.
        let Ok(MetricsLine::Train(t)) = serde_json::from_str(line) else {
            continue;
        };
        let values = [t.policy_loss, t.value_loss, t.total_loss, t.policy_entropy];
        for (points, value) in series.iter_mut().zip(values) {
            points.push((t.step as f64, value));
        }
    }
    if series.iter().all(|s| s.is_empty()) {
        return Err(format!("{} has no train lines", metrics.display()));
    }
    Ok(keys
        .iter()
        .zip(series)
        .map(|(key, points)| Panel {
            title: key.replace('_', " "),
            x_label: "training step".into(),
            y_label: key.to_string(),
            series: vec![Series {
                label: key.to_string(),
                points,
                bars: Vec::new(),
            }],
        })
        .collect())
}
