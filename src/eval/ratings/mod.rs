//! Ratings of a training run: its checkpoints (and any anchor agents) rated by maximum
//! likelihood from the match results on record under `RUN/matches/`, after playing the
//! games still needed.
//!
//! **Players.** Every checkpoint `RUN/checkpoints/step-*` with a `model.safetensors`, as net
//! and MCTS with a fixed number of visits, named `step-00000200@100`; anchors by their spec
//! (`random`, `alphabeta:2`, ...).
//!
//! **Schedule.** Each checkpoint against the one before it, and each anchor against the
//! first and the last checkpoint (and the anchors against each other), until every such
//! pair has `games_per_pair` games on record (rounded up to whole seat rotations). In
//! 3-player ReMATCH a pair plays as `[a, b, b]`: `b` fills both of the other seats.
//!
//! **Records.** Each match is written as `RUN/matches/<a>_vs_<b>-<n>.json` (a
//! [`MatchReport`] whose `agents` are the player names above) and its games as
//! `<a>_vs_<b>-<n>.games.jsonl`, both atomically, the report last, as soon as the match
//! ends: an interrupted rating loses at most the match in progress.
//!
//! **Rating.** Every pair of seats on opposite sides of a game between two different players
//! is one result (the seat's side score). Maximum-likelihood Elo ([`solve`]) anchored at 0
//! on the first anchor (or the first checkpoint), with one virtual draw per pair that met
//! (keeps sweeps, common against weak anchors, finite). Output: `RUN/ratings.csv`,
//! `RUN/ratings.png` (Elo against training step, training hours and, where the run records
//! them, training CPU hours; 95% intervals as shaded bands) and `RUN/losses.png` (the
//! `"type": "train"` lines of the learner's `RUN/learner/metrics.jsonl`;
//! `RUN/metrics.jsonl` in runs of older versions).
//!
//! The parts: [`schedule`] (the pairs and the games each still lacks), [`play`] (playing
//! them and writing the records), [`outputs`] (the CSV, the Elo plot, the printed table);
//! here, the rating itself. The training losses' plot is [`super::losses`]'s.

pub mod outputs;
pub mod play;
pub mod schedule;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::arena::{read_report, seat_sides, MatchReport};
use super::elo::{solve, EloEstimate, PairGames};
use super::openings::OpeningSuite;
use super::spec::AgentSpec;
use super::EvalError;
use crate::config::search::SearchOverrides;
use crate::config::RunConfig;
use crate::game::{GameKind, RulesConfig};
use crate::layout;

/// What `ratings` does.
#[derive(Clone, Debug)]
pub struct RatingsOptions {
    /// The run directory.
    pub run_dir: PathBuf,
    /// Agents rated alongside the checkpoints; the first is the Elo anchor (0).
    pub anchors: Vec<AgentSpec>,
    /// Visits per step of the checkpoints' searches.
    pub visits: u32,
    /// Games each scheduled pair should have on record.
    pub games_per_pair: u64,
    /// Games in flight at once.
    pub parallel: usize,
    /// Seed of the scheduled matches.
    pub seed: u64,
    /// Random whole turns opening each game (without a suite).
    pub opening_turns: u32,
    /// The opening suite of the matches (`None`: random openings); a pair with games on
    /// record continues with the openings after those its games used.
    pub openings: Option<Arc<OpeningSuite>>,
    /// Rules of the games.
    pub rules: RulesConfig,
    /// Play the games still needed (false: rate what is on record).
    pub play: bool,
    /// Rate every this many checkpoints (in step order, the newest always included).
    pub every: usize,
    /// Progress bars.
    pub progress: bool,
    /// Precision and device of the nets.
    pub net: crate::net::args::NetSettings,
}

/// A rated player.
#[derive(Clone, Debug, PartialEq)]
pub struct Rated {
    /// Its name in the match records.
    pub name: String,
    /// Training step (checkpoints).
    pub step: Option<u64>,
    /// Training hours (checkpoints).
    pub hours: Option<f64>,
    /// Training CPU hours (checkpoints of runs that record `cpu_s`).
    pub cpu_hours: Option<f64>,
    /// Results counted for it.
    pub games: f64,
    /// Elo relative to the anchor, with its 95% interval.
    pub elo: EloEstimate,
}

/// What a rating produced.
#[derive(Clone, Debug)]
pub struct RatingsSummary {
    /// Players in order: checkpoints by step, then anchors, then other names on record.
    pub players: Vec<Rated>,
    /// The anchor's name.
    pub anchor: String,
    /// Games played by this call.
    pub games_played: u64,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// Things not done (e.g. no metrics for the loss plot).
    pub notes: Vec<String>,
}

/// A checkpoint of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Its directory.
    pub dir: PathBuf,
    /// Training step.
    pub step: u64,
    /// Training wall time, seconds.
    pub elapsed_s: f64,
    /// Training CPU time, seconds (0 where the run did not record it).
    pub cpu_s: f64,
}

fn file_error(path: &Path, reason: impl ToString) -> EvalError {
    EvalError::File {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

/// The run's complete checkpoints, by step.
pub fn list_checkpoints(run_dir: &Path) -> Result<Vec<Checkpoint>, EvalError> {
    let folder = run_dir.join(layout::CHECKPOINTS);
    let listed = layout::list_checkpoints(run_dir).map_err(|e| file_error(&folder, e))?;
    let mut found = Vec::new();
    for checkpoint in listed {
        let state = checkpoint.state()?;
        found.push(Checkpoint {
            dir: checkpoint.dir,
            step: state.step,
            elapsed_s: state.elapsed_s,
            cpu_s: state.cpu_s,
        });
    }
    found.sort_by_key(|c| c.step);
    Ok(found)
}

/// One result per pair of opposite-side seats held by different players, by player name.
fn pair_results(
    reports: &[MatchReport],
) -> Result<BTreeMap<(String, String), PairGames>, EvalError> {
    let mut out: BTreeMap<(String, String), PairGames> = BTreeMap::new();
    for report in reports {
        let sides = seat_sides(report.kind()?);
        for game in &report.games {
            for (i, &a) in game.seats.iter().enumerate() {
                for (j, &b) in game.seats.iter().enumerate().skip(i + 1) {
                    let (Some(na), Some(nb)) = (report.agents.get(a), report.agents.get(b)) else {
                        continue;
                    };
                    if sides[i] == sides[j] || na == nb {
                        continue;
                    }
                    let score_a = match game.winner {
                        None => 0.5,
                        Some(w) if w == sides[i].0 => 1.0,
                        Some(_) => 0.0,
                    };
                    let (key, score) = if na < nb {
                        ((na.clone(), nb.clone()), score_a)
                    } else {
                        ((nb.clone(), na.clone()), 1.0 - score_a)
                    };
                    let entry = out.entry(key).or_insert(PairGames {
                        a: 0,
                        b: 0,
                        games: 0.0,
                        score: 0.0,
                    });
                    entry.games += 1.0;
                    entry.score += score;
                }
            }
        }
    }
    Ok(out)
}

/// The match reports under `RUN/matches/` for `kind`.
pub fn read_reports(
    run_dir: &Path,
    kind: GameKind,
) -> Result<Vec<(PathBuf, MatchReport)>, EvalError> {
    let dir = run_dir.join(layout::MATCHES);
    let mut reports = Vec::new();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(reports),
        Err(e) => return Err(file_error(&dir, e)),
    };
    for entry in entries {
        let path = entry.map_err(|e| file_error(&dir, e))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.ends_with(".json") || name.starts_with('.') {
            continue;
        }
        let report = read_report(&path)?;
        if report.kind()? == kind {
            reports.push((path, report));
        }
    }
    reports.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(reports)
}

/// Plays the missing games, rates every player, writes the CSV and the plots.
pub fn rate_run(options: &RatingsOptions) -> Result<RatingsSummary, EvalError> {
    let run = &options.run_dir;
    let kind = RunConfig::game_of_run(run)?;
    let checkpoints = chosen_checkpoints(run, options.every)?;
    let (mut names, specs) = players_of(&checkpoints, options);
    if names.is_empty() {
        return Err(EvalError::Settings(format!(
            "{} has no checkpoints and no anchors were given",
            run.display()
        )));
    }
    let games_played = if options.play {
        play::play_missing(options, kind, &checkpoints, &names, &specs)?
    } else {
        0
    };
    let reports: Vec<MatchReport> = read_reports(run, kind)?.into_iter().map(|r| r.1).collect();
    let results = pair_results(&reports)?;
    // Names on record but not in this call's list still take part (they may connect others).
    for (a, b) in results.keys() {
        for name in [a, b] {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    let anchor = if options.anchors.is_empty() {
        0
    } else {
        checkpoints.len()
    };
    let players = rate_players(&names, &checkpoints, &results, anchor)?;
    let (files, notes) = outputs::write_outputs(run, &players, &names[anchor])?;
    Ok(RatingsSummary {
        players,
        anchor: names[anchor].clone(),
        games_played,
        files,
        notes,
    })
}

/// The run's checkpoints, every `every`-th and the last.
fn chosen_checkpoints(run: &Path, every: usize) -> Result<Vec<Checkpoint>, EvalError> {
    let checkpoints = list_checkpoints(run)?;
    let last = checkpoints.len().saturating_sub(1);
    let every = every.max(1);
    Ok(checkpoints
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % every == 0 || *i == last)
        .map(|(_, c)| c)
        .collect())
}

/// The players' names and agents: the checkpoints (at `options.visits`), then the anchors.
fn players_of(
    checkpoints: &[Checkpoint],
    options: &RatingsOptions,
) -> (Vec<String>, Vec<AgentSpec>) {
    let mut names: Vec<String> = checkpoints
        .iter()
        .map(|c| format!("{}@{}", layout::checkpoint_name(c.step), options.visits))
        .collect();
    let mut specs: Vec<AgentSpec> = checkpoints
        .iter()
        .map(|c| AgentSpec::Net {
            path: c.dir.clone(),
            search: SearchOverrides::visits(options.visits),
        })
        .collect();
    for anchor in &options.anchors {
        names.push(anchor.to_string());
        specs.push(anchor.clone());
    }
    (names, specs)
}

/// Rates the players joined to `anchor` (an index into `names`) by a chain of games in
/// `results`; the others (no games, or matches of another visit count on record) are left
/// out of the solve.
fn rate_players(
    names: &[String],
    checkpoints: &[Checkpoint],
    results: &BTreeMap<(String, String), PairGames>,
    anchor: usize,
) -> Result<Vec<Rated>, EvalError> {
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let pairs: Vec<PairGames> = results
        .iter()
        .map(|((a, b), g)| PairGames {
            a: index[a.as_str()],
            b: index[b.as_str()],
            ..*g
        })
        .collect();
    let mut games = vec![0.0; names.len()];
    for p in &pairs {
        games[p.a] += p.games;
        games[p.b] += p.games;
    }
    let reached = connected(names.len(), &pairs, anchor);
    let active: Vec<usize> = (0..names.len()).filter(|&i| reached[i]).collect();
    let position: HashMap<usize, usize> = active.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let solved_pairs: Vec<PairGames> = pairs
        .iter()
        .filter(|p| reached[p.a] && reached[p.b])
        .map(|p| PairGames {
            a: position[&p.a],
            b: position[&p.b],
            ..*p
        })
        .collect();
    let ratings = solve(active.len(), &solved_pairs, position[&anchor], 1.0)
        .map_err(|e| EvalError::Settings(format!("no ratings: {e}")))?;
    Ok(active
        .iter()
        .map(|&i| Rated {
            name: names[i].clone(),
            step: checkpoints.get(i).map(|c| c.step),
            hours: checkpoints.get(i).map(|c| c.elapsed_s / 3600.0),
            cpu_hours: checkpoints
                .get(i)
                .filter(|c| c.cpu_s > 0.0)
                .map(|c| c.cpu_s / 3600.0),
            games: games[i],
            elo: ratings.players[position[&i]],
        })
        .collect())
}

/// Which of `players` a chain of pairs with games joins to `from`.
fn connected(players: usize, pairs: &[PairGames], from: usize) -> Vec<bool> {
    let mut reached = vec![false; players];
    reached[from] = true;
    let mut frontier = vec![from];
    while let Some(at) = frontier.pop() {
        for p in pairs.iter().filter(|p| p.games > 0.0) {
            for (a, b) in [(p.a, p.b), (p.b, p.a)] {
                if a == at && !reached[b] {
                    reached[b] = true;
                    frontier.push(b);
                }
            }
        }
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_player_pairs_count_opposite_seats_of_different_players() {
        // x against y playing both other seats: [x, y, y], roles rotating.
        let winners = [Some(0), Some(1), None];
        let agents = vec!["y".into(), "x".into(), "y".into()];
        let report = MatchReport::of_winners(GameKind::Rematch3, agents, &winners);
        // Game 0: seats (y, x, y), Red wins: y beats x once (Red against White); y-y skipped.
        // Game 1: seats (y, y, x), Team wins: x beats y once (Orange against Red).
        // Game 2: seats (x, y, y), draw: x draws y twice (Red against both).
        let results = pair_results(&[report]).unwrap();
        assert_eq!(results.len(), 1);
        let g = results[&("x".to_string(), "y".to_string())];
        assert_eq!((g.games, g.score), (4.0, 2.0));
    }
}
