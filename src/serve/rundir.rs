//! What the page reads from run directories: runs, game files, games as replays, metrics,
//! checkpoints and ratings. Every path a request names is relative to the served
//! directory and checked to stay inside it (no `..`, no absolute paths, no symbolic link out).

use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::board::{pieces, Piece};
use super::words::result_words;
use crate::config::RunConfig;
use crate::game::turns::push_step_text;
use crate::game::{GameState, Side};
use crate::layout;
use crate::selfplay::record::{is_record_file, parse_record_bytes_within, GameRecord};
use crate::with_game;

/// Why a run-directory request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// No `--run-dir` was given.
    #[error("the server was started without --run-dir")]
    NoRunDir,
    /// The path is absolute, climbs out, or leads outside the served directory.
    #[error("path '{0}' is outside the run directory")]
    Outside(String),
    /// Nothing there.
    #[error("'{0}' not found in the run directory")]
    NotFound(String),
    /// Something there that cannot be read as asked.
    #[error("{0}")]
    Unreadable(String),
}

/// The served directory: one run, or a folder of runs.
#[derive(Clone, Debug)]
pub struct RunRoot {
    root: PathBuf,
}

/// Most bytes of a file read for one request.
const MAX_FILE_BYTES: u64 = 64 << 20;
/// How deep the game-file listing looks below a run.
const LIST_DEPTH: usize = 3;

impl RunRoot {
    /// The served directory (it must exist).
    pub fn new(dir: &Path) -> Result<RunRoot, String> {
        let root = dir
            .canonicalize()
            .map_err(|e| format!("--run-dir {}: {e}", dir.display()))?;
        if !root.is_dir() {
            return Err(format!("--run-dir {} is not a directory", dir.display()));
        }
        Ok(RunRoot { root })
    }

    /// `rel` inside the served directory; refused if it could lead outside.
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, RunError> {
        let outside = || RunError::Outside(rel.to_string());
        let path = Path::new(rel);
        if rel.contains('\0')
            || path
                .components()
                .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(outside());
        }
        let joined = self.root.join(path);
        let real = joined
            .canonicalize()
            .map_err(|_| RunError::NotFound(rel.to_string()))?;
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        Ok(real)
    }

    fn read_bytes(&self, rel: &str) -> Result<Vec<u8>, RunError> {
        let path = self.resolve(rel)?;
        let meta = std::fs::metadata(&path).map_err(|e| RunError::Unreadable(e.to_string()))?;
        if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
            return Err(RunError::Unreadable(format!(
                "'{rel}' is not a file of at most {MAX_FILE_BYTES} bytes"
            )));
        }
        std::fs::read(&path).map_err(|e| RunError::Unreadable(format!("'{rel}': {e}")))
    }

    fn read(&self, rel: &str) -> Result<String, RunError> {
        String::from_utf8(self.read_bytes(rel)?)
            .map_err(|_| RunError::Unreadable(format!("'{rel}' is not text (UTF-8)")))
    }

    fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }

    /// The runs: the served directory itself when it is a run, and its subdirectories that
    /// are (not the parts of a run, such as a distributed run's `learner`).
    pub fn runs(&self) -> Vec<String> {
        let mut runs = Vec::new();
        if is_run(&self.root) {
            runs.push(String::new());
        }
        if let Ok(entries) = std::fs::read_dir(&self.root) {
            let mut names: Vec<String> = entries
                .flatten()
                .filter(|e| !layout::RUN_PARTS.iter().any(|p| e.file_name() == *p))
                // Hidden folders (`.locks`, where the store keeps its locks) are no runs.
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter(|e| is_run(&e.path()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            runs.extend(names);
        }
        runs
    }

    /// Game record files (`*.jsonl` but metrics, and `*.jsonl.gz`) under `run`, newest first.
    pub fn game_files(&self, run: &str) -> Result<Vec<GameFile>, RunError> {
        let dir = self.resolve(run)?;
        let mut files = Vec::new();
        collect_records(&dir, LIST_DEPTH, &mut files);
        let mut out: Vec<GameFile> = files
            .into_iter()
            .filter(|(p, _)| p.file_name().is_some_and(|n| n != layout::METRICS_FILE))
            .map(|(p, modified)| GameFile {
                path: self.rel(&p),
                modified,
            })
            .collect();
        out.sort_by(|a, b| b.modified.cmp(&a.modified).then(b.path.cmp(&a.path)));
        Ok(out)
    }

    /// The games of a record file (relative to the served directory), without their steps.
    pub fn games_in(&self, file: &str) -> Result<Vec<GameSummary>, RunError> {
        Ok(self
            .records(file)?
            .iter()
            .enumerate()
            .map(|(i, g)| GameSummary {
                index: i,
                game: g.game.clone(),
                steps: g.steps.len(),
                turns: turn_count(g),
                winner: g.winner,
                result: g.kind().map_or_else(
                    |_| g.reason.clone(),
                    |kind| result_words(kind, g.winner.map(Side), &g.reason),
                ),
                reason: g.reason.clone(),
                agents: players(g),
            })
            .collect())
    }

    fn records(&self, file: &str) -> Result<Vec<GameRecord>, RunError> {
        if !is_record_file(Path::new(file)) {
            return Err(RunError::Unreadable(format!(
                "'{file}' is not a game record file (*.jsonl or *.jsonl.gz)"
            )));
        }
        let bytes = self.read_bytes(file)?;
        // Compressed games may expand to what a plain file may hold.
        parse_record_bytes_within(&bytes, Path::new(file), MAX_FILE_BYTES)
            .map_err(|e| RunError::Unreadable(e.to_string()))
    }

    /// Game `index` of `file` (the last one when `None`) as a replay.
    pub fn replay(&self, file: &str, index: Option<usize>) -> Result<Replay, RunError> {
        let records = self.records(file)?;
        let count = records.len();
        let index = index.unwrap_or(count.saturating_sub(1));
        let record = records.get(index).ok_or_else(|| {
            RunError::NotFound(format!("game {index} of '{file}' (it holds {count})"))
        })?;
        replay(record, index).map_err(RunError::Unreadable)
    }

    /// Every metrics line of `run` (`metrics.jsonl`, or the learner's and the evaluation
    /// role's in a distributed run), each with its `type`.
    pub fn metrics(&self, run: &str) -> Result<Vec<Value>, RunError> {
        let mut out = Vec::new();
        for name in layout::METRICS_LOGS {
            let rel = join(run, name);
            if let Ok(text) = self.read(&rel) {
                out.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
            }
        }
        Ok(out)
    }

    /// The game `run` trains (its `config.toml`'s `game`), when it says.
    pub fn game(&self, run: &str) -> Option<String> {
        let rel = join(run, layout::CONFIG);
        let text = self.read(&rel).ok()?;
        let game = RunConfig::game_in(&text, &rel).ok()?;
        Some(game.name().to_string())
    }

    /// The rows of `run`'s `ratings.csv` (none when it has no ratings yet).
    pub fn ratings(&self, run: &str) -> Result<Vec<Rating>, RunError> {
        self.resolve(run)?;
        let Ok(text) = self.read(&join(run, layout::RATINGS_CSV)) else {
            return Ok(Vec::new());
        };
        Ok(text.lines().skip(1).filter_map(parse_rating).collect())
    }

    /// `run`'s checkpoints, oldest first, with their ratings where rated.
    pub fn checkpoints(&self, run: &str) -> Result<Vec<CheckpointInfo>, RunError> {
        let run_dir = self.resolve(run)?;
        // The folder too must stay inside the served directory.
        match self.resolve(&join(run, layout::CHECKPOINTS)) {
            Err(RunError::NotFound(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e),
            Ok(_) => {}
        }
        let ratings = self.ratings(run)?;
        let mut out: Vec<CheckpointInfo> = layout::list_checkpoints(&run_dir)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|c| {
                let step = c.state().ok()?.step;
                let rating = ratings.iter().find(|r| r.step == Some(step)).cloned();
                Some(CheckpointInfo {
                    path: self.rel(&c.dir),
                    name: c.dir.file_name()?.to_string_lossy().into_owned(),
                    step,
                    rating,
                })
            })
            .collect();
        out.sort_by_key(|c| c.step);
        Ok(out)
    }
}

fn join(run: &str, name: &str) -> String {
    if run.is_empty() {
        name.to_string()
    } else {
        format!("{run}/{name}")
    }
}

fn is_run(dir: &Path) -> bool {
    [
        layout::CONFIG,
        layout::METRICS_FILE,
        layout::CHECKPOINTS,
        layout::GAMES,
        layout::LEARNER_METRICS,
    ]
    .iter()
    .any(|n| dir.join(n).exists())
}

fn collect_records(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, u64)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() && depth > 0 {
            collect_records(&path, depth - 1, out);
        } else if meta.is_file() && is_record_file(&path) {
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as u64);
            out.push((path, modified));
        }
    }
}

/// A game record file.
#[derive(Clone, Debug, Serialize)]
pub struct GameFile {
    /// Relative to the served directory.
    pub path: String,
    /// Last change, in milliseconds since 1970.
    pub modified: u64,
}

/// One game of a record file, in short.
#[derive(Clone, Debug, Serialize)]
pub struct GameSummary {
    /// Its index in the file.
    pub index: usize,
    /// The game name.
    pub game: String,
    /// Steps played.
    pub steps: usize,
    /// Whole turns played (a turn of several steps counts once; `None` when the game does
    /// not replay).
    pub turns: Option<usize>,
    /// The winning side.
    pub winner: Option<u8>,
    /// Why it ended (the record's word).
    pub reason: String,
    /// The result in words.
    pub result: String,
    /// Who played ([`players`]).
    pub agents: Vec<String>,
}

/// Who played a recorded game: its agents, or for a self-play game that names none, the
/// net that played itself.
fn players(record: &GameRecord) -> Vec<String> {
    if !record.agents.is_empty() {
        return record.agents.clone();
    }
    vec![match record.model_step {
        0 => "self-play: an untrained net against itself".to_string(),
        step => format!("self-play: the net of step {step} against itself"),
    }]
}

/// The whole turns of a recorded game (`None` when its steps do not replay).
fn turn_count(record: &GameRecord) -> Option<usize> {
    let kind = record.kind().ok()?;
    with_game!(kind, S => {
        let mut state = S::from_notation(kind, &record.start, record.rules()).ok()?;
        let mut legal = crate::game::StepList::new();
        let mut turns = 0;
        for step in &record.steps {
            state.legal_steps(&mut legal);
            if !legal.contains(&step.action) {
                return None;
            }
            state.apply_step(step.action);
            if !state.turn_in_progress() || state.outcome().is_some() {
                turns += 1;
            }
        }
        Some(turns)
    })
}

/// One row of `ratings.csv`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Rating {
    /// The player (a checkpoint or an anchor).
    pub player: String,
    /// Its training step, for checkpoints.
    pub step: Option<u64>,
    /// Games it played.
    pub games: u64,
    /// Elo and its 95% interval.
    pub elo: Option<f64>,
    /// Lower end.
    pub elo_low: Option<f64>,
    /// Upper end.
    pub elo_high: Option<f64>,
}

fn parse_rating(line: &str) -> Option<Rating> {
    let f: Vec<&str> = line.split(',').collect();
    if f.len() < 7 {
        return None;
    }
    Some(Rating {
        player: f[0].to_string(),
        step: f[1].parse().ok(),
        games: f[3].parse().unwrap_or(0),
        elo: f[4].parse().ok(),
        elo_low: f[5].parse().ok(),
        elo_high: f[6].parse().ok(),
    })
}

/// A checkpoint of a run.
#[derive(Clone, Debug, Serialize)]
pub struct CheckpointInfo {
    /// Its directory, relative to the served directory.
    pub path: String,
    /// Its name (`step-00000200`).
    pub name: String,
    /// Its training step.
    pub step: u64,
    /// Its rating, once rated.
    pub rating: Option<Rating>,
}

/// A recorded game turn by turn.
#[derive(Clone, Debug, Serialize)]
pub struct Replay {
    /// The game name.
    pub game: String,
    /// Its index in the file.
    pub index: usize,
    /// Who played each seat.
    pub agents: Vec<String>,
    /// The result in words.
    pub result: String,
    /// The start, then the position after each turn.
    pub frames: Vec<Frame>,
}

/// One position of a replay.
#[derive(Clone, Debug, Serialize)]
pub struct Frame {
    /// The turn that led here (none for the start).
    pub turn: Option<String>,
    /// The position in the notation.
    pub position: String,
    /// Its pieces.
    pub pieces: Vec<Piece>,
    /// The search's value for side 0 when the turn that led here was chosen, if recorded.
    pub value: Option<f32>,
}

fn replay(record: &GameRecord, index: usize) -> Result<Replay, String> {
    let kind = record.kind().map_err(|e| e.to_string())?;
    with_game!(kind, S => {
        let mut state = S::from_notation(kind, &record.start, record.rules())
            .map_err(|e| e.to_string())?;
        let mut frames = vec![frame(&state, None, None)];
        let mut path = String::new();
        let mut value = None;
        for (i, step) in record.steps.iter().enumerate() {
            if path.is_empty() {
                let side = state.side_to_move();
                value = step
                    .value
                    .map(|v| if side == Side(0) { v } else { -v });
            }
            let mut legal = crate::game::StepList::new();
            state.legal_steps(&mut legal);
            if !legal.contains(&step.action) {
                return Err(format!("step {} does not replay", i + 1));
            }
            push_step_text(&state, step.action, path.is_empty(), &mut path);
            state.apply_step(step.action);
            if !state.turn_in_progress() || state.outcome().is_some() {
                frames.push(frame(&state, Some(std::mem::take(&mut path)), value.take()));
            }
        }
        let result = result_words(kind, record.winner.map(Side), &record.reason);
        Ok(Replay {
            game: record.game.clone(),
            index,
            agents: players(record),
            result,
            frames,
        })
    })
}

fn frame<S: GameState>(state: &S, turn: Option<String>, value: Option<f32>) -> Frame {
    Frame {
        turn,
        position: state.to_notation(),
        pieces: pieces(state),
        value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_of_a_run_are_not_listed_as_runs() {
        let root = std::env::temp_dir().join(format!("cz-rundir-{}", std::process::id()));
        let run = root.join("a-run");
        // A benchmark's run: its `bench` folder holds a config too.
        for dir in [layout::CHECKPOINTS, layout::BENCH, layout::LEARNER] {
            std::fs::create_dir_all(run.join(dir)).unwrap();
        }
        std::fs::write(run.join(layout::CONFIG), "").unwrap();
        std::fs::write(run.join(layout::BENCH).join(layout::CONFIG), "").unwrap();
        std::fs::create_dir_all(root.join("other").join(layout::GAMES)).unwrap();
        assert_eq!(RunRoot::new(&root).unwrap().runs(), ["a-run", "other"]);
        assert_eq!(RunRoot::new(&run).unwrap().runs(), [""]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
