//! A metrics log (`learner/metrics.jsonl`, `evaluator/metrics.jsonl`): one
//! [`MetricsLine`] a line, each with its `type` and the training `step`.
//! Each line goes out in a single write, so a killed run leaves whole lines only; resuming
//! drops the lines of steps after the checkpoint, which are trained again.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::MetricsLine;

/// Appends metrics lines to a metrics log.
#[derive(Debug)]
pub struct MetricsLog {
    path: PathBuf,
}

impl MetricsLog {
    /// The log at `path`; on resume from `resume_step`, lines of later steps (and any torn
    /// last line) are dropped first, atomically.
    pub fn open(path: &Path, resume_step: Option<u64>) -> std::io::Result<MetricsLog> {
        if let (Some(step), Ok(text)) = (resume_step, std::fs::read_to_string(path)) {
            let kept: String = text
                .lines()
                .filter(|line| {
                    serde_json::from_str::<Value>(line)
                        .ok()
                        .and_then(|v| v.get("step").and_then(Value::as_u64))
                        .is_some_and(|s| s <= step)
                })
                .flat_map(|line| [line, "\n"])
                .collect();
            crate::util::write_atomic(path, kept.as_bytes())?;
        }
        Ok(MetricsLog {
            path: path.to_path_buf(),
        })
    }

    /// Appends one line.
    pub fn append(&self, record: &MetricsLine) -> std::io::Result<()> {
        let mut line = serde_json::to_string(record).expect("metrics serialise");
        line.push('\n');
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        file.write_all(line.as_bytes())
    }

    /// Every line of a metrics file (torn, foreign and unreadable lines skipped).
    pub fn read(path: &Path) -> std::io::Result<Vec<MetricsLine>> {
        Ok(std::fs::read_to_string(path)?
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect())
    }
}
