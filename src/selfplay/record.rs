//! Game records: what self-play and matches write for every finished game, and what the
//! trainer and `games show` read back.
//!
//! A record file (`*.jsonl`) holds one game per line as a JSON object (format below);
//! self-play's shards are the same lines gzip-compressed (`*.jsonl.gz`), and every reader
//! takes either. Files are written whole and atomically, so a reader never sees half a
//! game. A game is stored as its start position and the steps played; positions are
//! rebuilt by replaying the steps through the rules core, so a record is small and cannot
//! disagree with the rules.
//!
//! ```text
//! { "format_version": 1, "game": "rematch", "start": "<position notation>",
//!   "ply_cap": 1000, "project_draws": true, "index": 42, "seed": 7, "model_step": 200,
//!   "agents": ["net@200", "net@200"],            // per seat (matches name them)
//!   "steps": [ { "action": 12, "value": 0.08, "target": [[12, 0.71], [40, 0.29]] },
//!              { "action": 40 } , ... ],          // value: search's root value for the
//!                                                 // side to move; target: the policy
//!                                                 // target (full searches only);
//!                                                 // "proven": 1 | 0 | -1 where the
//!                                                 // solver proved the position
//!   "winner": 0 | 1 | null, "reason": "NoPieces", "resigned": true,
//!   "played_through": false, "would_resign": [null, 31],
//!   "reanalysed": true }                           // only on reanalyses
//! ```
//! `would_resign[side]` is the first step at which `side` would have resigned in a game
//! played through with resignation off: a loss after it confirms the resignation, anything
//! else counts as a false resignation.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use rand::seq::SliceRandom;
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::game::{
    Action, EndReason, GameKind, GameState, NotationError, RulesConfig, Side, StepList,
};

/// Version of the record format; readers refuse other versions.
pub const RECORD_FORMAT_VERSION: u32 = 1;

/// One step of a recorded game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRecord {
    /// The game action played.
    pub action: Action,
    /// The search's value of the position for the side to move (absent for forced steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f32>,
    /// The policy target over legal steps, for positions searched in full (a training
    /// sample); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target: Vec<(Action, f32)>,
    /// How much the search's target differs from the net's prior there, KL(target || prior)
    /// in nats (positions searched in full; for `train.policy_surprise_weight`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surprise: Option<f32>,
    /// The exact solver's class of the position for the side to move (1 win, 0 draw, -1
    /// loss), when `selfplay.proven_nodes` proved it after the game: the sample's value
    /// target instead of the game's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proven: Option<i8>,
}

impl StepRecord {
    /// A step played without a search (forced, random or an agent's): no value, no target.
    pub fn unsearched(action: Action) -> StepRecord {
        StepRecord {
            action,
            value: None,
            target: Vec::new(),
            surprise: None,
            proven: None,
        }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRecord {
    /// [`RECORD_FORMAT_VERSION`].
    pub format_version: u32,
    /// The game's command-line name.
    pub game: String,
    /// The start position in the notation.
    pub start: String,
    /// The ply cap the game was played under.
    pub ply_cap: u32,
    /// Whether the project's extra draw rules applied.
    pub project_draws: bool,
    /// The game's number in its run (self-play) or match.
    #[serde(default)]
    pub index: u64,
    /// The seed the game was played with.
    pub seed: u64,
    /// The training step of the model that played (self-play), 0 when not a trained model.
    pub model_step: u64,
    /// Who played each seat.
    #[serde(default)]
    pub agents: Vec<String>,
    /// The steps played, in order.
    pub steps: Vec<StepRecord>,
    /// The winning side (`None`: a draw).
    pub winner: Option<u8>,
    /// Why the game ended (`Resigned` when a side resigned).
    pub reason: String,
    /// True when the loser resigned.
    pub resigned: bool,
    /// True when resignation was off for this game (to measure false resignations).
    pub played_through: bool,
    /// Per side, the first step at which it would have resigned (played-through games).
    #[serde(default)]
    pub would_resign: [Option<u32>; 2],
    /// Per side, the resign threshold it played under (`None`: it could not resign).
    #[serde(default)]
    pub resign_thresholds: [Option<f32>; 2],
    /// True for a reanalysis (`selfplay.reanalyse_share`): the steps and result of an
    /// earlier game with targets and values recomputed by the net of `model_step`. Counts
    /// as training data, not as a game played.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reanalysed: bool,
}

/// Errors reading or replaying game records.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line is not a game record.
    #[error("{path} line {line}: not a game record: {reason}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// The record does not replay under the rules.
    #[error("game record does not replay: {0}")]
    Replay(String),
}

impl From<NotationError> for RecordError {
    fn from(error: NotationError) -> Self {
        RecordError::Replay(error.to_string())
    }
}

impl GameRecord {
    /// An empty record for a game starting at `start`.
    pub fn new<S: GameState>(start: &S, rules: RulesConfig, seed: u64, model_step: u64) -> Self {
        GameRecord {
            index: 0,
            format_version: RECORD_FORMAT_VERSION,
            game: start.kind().name().to_string(),
            start: start.to_notation(),
            ply_cap: rules.ply_cap,
            project_draws: rules.project_draws,
            seed,
            model_step,
            agents: Vec::new(),
            steps: Vec::new(),
            winner: None,
            reason: String::new(),
            resigned: false,
            played_through: false,
            would_resign: [None, None],
            resign_thresholds: [None, None],
            reanalysed: false,
        }
    }

    /// Plays `action` from `state`, recording it as a step without a search (no value, no
    /// target).
    pub fn play_unsearched<S: GameState>(&mut self, state: &mut S, action: Action) {
        self.steps.push(StepRecord::unsearched(action));
        state.apply_step(action);
    }

    /// Plays up to `turns` uniformly random whole turns from `state` (fewer if the game
    /// ends), recording each step without a search: no value and no target, so no training
    /// sample. Returns the whole turns played. Self-play's and matches' random openings.
    pub fn play_random_turns<S: GameState>(
        &mut self,
        state: &mut S,
        turns: u32,
        rng: &mut impl Rng,
    ) -> u32 {
        let mut legal = StepList::new();
        let mut played = 0;
        while played < turns && state.outcome().is_none() {
            state.legal_steps(&mut legal);
            let action = *legal
                .choose(rng)
                .expect("a position without outcome has a step");
            self.play_unsearched(state, action);
            if !state.turn_in_progress() {
                played += 1;
            }
        }
        played
    }

    /// The game's kind.
    pub fn kind(&self) -> Result<GameKind, RecordError> {
        Ok(self.game.parse()?)
    }

    /// The rules the game was played under.
    pub fn rules(&self) -> RulesConfig {
        RulesConfig {
            ply_cap: self.ply_cap,
            project_draws: self.project_draws,
        }
    }

    /// Sets the result from the rules' outcome.
    pub fn finish(&mut self, winner: Option<Side>, reason: EndReason) {
        self.winner = winner.map(|s| s.0);
        self.reason = format!("{reason:?}");
        self.resigned = false;
    }

    /// Sets the result of a resignation by `loser`.
    pub fn resign(&mut self, loser: Side) {
        self.winner = Some(loser.opponent().0);
        self.reason = "Resigned".into();
        self.resigned = true;
    }

    /// The score of `side`: 1 win, ½ draw, 0 loss.
    pub fn score(&self, side: Side) -> f32 {
        match self.winner {
            None => 0.5,
            Some(w) if w == side.0 => 1.0,
            Some(_) => 0.0,
        }
    }

    /// Replays the game, calling `visit(state, step)` with the position before each step.
    /// Fails if the start does not parse or a step is illegal there.
    pub fn replay<S: GameState>(
        &self,
        mut visit: impl FnMut(&S, &StepRecord),
    ) -> Result<S, RecordError> {
        let kind = self.kind()?;
        let mut state = S::from_notation(kind, &self.start, self.rules())?;
        for (i, step) in self.steps.iter().enumerate() {
            visit(&state, step);
            state
                .try_apply_step(step.action)
                .map_err(|e| RecordError::Replay(format!("step {}: {e}", i + 1)))?;
        }
        Ok(state)
    }
}

/// `games` as record-file text: one JSON object per line.
pub fn records_to_jsonl(games: &[GameRecord]) -> String {
    let mut text = String::new();
    for game in games {
        text.push_str(&serde_json::to_string(game).expect("records serialise"));
        text.push('\n');
    }
    text
}

/// The first bytes of a gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The most bytes compressed records may expand to (a bound on bad input).
pub const MAX_RECORD_TEXT_BYTES: u64 = 1 << 30;

/// Whether `path` names a record file: `*.jsonl`, or `*.jsonl.gz` compressed.
pub fn is_record_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".jsonl") || n.ends_with(".jsonl.gz"))
}

/// `games` as gzip-compressed record-file text (self-play's shards).
pub fn records_to_gzip(games: &[GameRecord]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder
        .write_all(records_to_jsonl(games).as_bytes())
        .and_then(|()| encoder.finish())
        .expect("compressing into memory does not fail")
}

/// Parses a record file's bytes, plain or gzip-compressed (told by its first bytes);
/// `source` names it in errors.
pub fn parse_record_bytes(bytes: &[u8], source: &Path) -> Result<Vec<GameRecord>, RecordError> {
    parse_record_bytes_within(bytes, source, MAX_RECORD_TEXT_BYTES)
}

/// [`parse_record_bytes`] with compressed text bounded to `limit` bytes.
pub fn parse_record_bytes_within(
    bytes: &[u8],
    source: &Path,
    limit: u64,
) -> Result<Vec<GameRecord>, RecordError> {
    if !bytes.starts_with(&GZIP_MAGIC) {
        return parse_records(&String::from_utf8_lossy(bytes), source);
    }
    let io = |source_error: std::io::Error| RecordError::Io {
        path: source.to_path_buf(),
        source: source_error,
    };
    let mut text = Vec::new();
    MultiGzDecoder::new(bytes)
        .take(limit + 1)
        .read_to_end(&mut text)
        .map_err(io)?;
    if text.len() as u64 > limit {
        return Err(io(std::io::Error::other(format!(
            "the compressed games expand to more than {limit} bytes"
        ))));
    }
    parse_records(&String::from_utf8_lossy(&text), source)
}

/// Writes `games` as one record file, atomically.
pub fn write_records(path: &Path, games: &[GameRecord]) -> Result<(), RecordError> {
    let text = records_to_jsonl(games);
    crate::util::write_atomic(path, text.as_bytes()).map_err(|source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads every game of a record file, plain or gzip-compressed.
pub fn read_records(path: &Path) -> Result<Vec<GameRecord>, RecordError> {
    let bytes = std::fs::read(path).map_err(|source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_record_bytes(&bytes, path)
}

/// Parses record-file text; `source` names it in errors.
pub fn parse_records(text: &str, source: &Path) -> Result<Vec<GameRecord>, RecordError> {
    let mut games = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let malformed = |reason: String| RecordError::Malformed {
            path: source.to_path_buf(),
            line: i + 1,
            reason,
        };
        let game: GameRecord = serde_json::from_str(line).map_err(|e| malformed(e.to_string()))?;
        if game.format_version != RECORD_FORMAT_VERSION {
            return Err(malformed(format!(
                "format version {} (this build reads {RECORD_FORMAT_VERSION})",
                game.format_version
            )));
        }
        games.push(game);
    }
    Ok(games)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::rematch::Rematch;

    fn two_games() -> Vec<GameRecord> {
        let rules = RulesConfig::default();
        let start = Rematch::start(GameKind::Rematch, rules);
        let mut steps = StepList::new();
        start.legal_steps(&mut steps);
        (0..2u64)
            .map(|seed| {
                let mut game = GameRecord::new(&start, rules, seed, 7);
                game.steps
                    .push(StepRecord::unsearched(steps[seed as usize]));
                game
            })
            .collect()
    }

    #[test]
    fn compressed_and_plain_records_read_back_the_same_games() {
        let games = two_games();
        let source = Path::new("games/s/00000000.jsonl.gz");
        let packed = records_to_gzip(&games);
        assert!(packed.starts_with(&GZIP_MAGIC));
        assert_eq!(parse_record_bytes(&packed, source).unwrap(), games);
        let plain = records_to_jsonl(&games);
        assert_eq!(parse_record_bytes(plain.as_bytes(), source).unwrap(), games);
        assert!(is_record_file(source) && is_record_file(Path::new("a/b.jsonl")));
        assert!(!is_record_file(Path::new("a/b.json")) && !is_record_file(Path::new("b.gz")));
    }

    #[test]
    fn damaged_or_oversized_compressed_records_are_errors_in_words() {
        let games = two_games();
        let source = Path::new("games/s/00000001.jsonl.gz");
        let packed = records_to_gzip(&games);
        let cut = parse_record_bytes(&packed[..packed.len() / 2], source).unwrap_err();
        assert!(
            cut.to_string().starts_with("games/s/00000001.jsonl.gz: "),
            "{cut}"
        );
        let text_len = records_to_jsonl(&games).len() as u64;
        let big = parse_record_bytes_within(&packed, source, text_len - 1).unwrap_err();
        assert!(big.to_string().contains("expand to more than"), "{big}");
        assert_eq!(
            parse_record_bytes_within(&packed, source, text_len).unwrap(),
            games
        );
    }
}
