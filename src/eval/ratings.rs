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
//! `RUN/ratings.png` (Elo against training step and against training hours, 95% intervals
//! as bars) and `RUN/losses.png` (the `"type": "train"` lines of the learner's
//! `RUN/learner/metrics.jsonl`; `RUN/metrics.jsonl` in runs of older versions).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::arena::{play_match, read_report, seat_sides, write_report, MatchReport, MatchSettings};
use super::elo::{solve, EloEstimate, PairGames};
use super::openings::{OpeningRange, OpeningSuite};
use super::plot::{render_png, Panel, Series};
use super::spec::AgentSpec;
use super::EvalError;
use crate::config::search::SearchOverrides;
use crate::config::RunConfig;
use crate::game::{GameKind, RulesConfig};
use crate::layout;
use crate::selfplay::record::write_records;
use crate::util::game_seed;
use crate::util::write_atomic;

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

/// The pairs (indices into the player list) the schedule wants on record: consecutive
/// checkpoints, each anchor against the first and last checkpoint, anchors against each
/// other. Checkpoints are players `0..checkpoints`, anchors follow.
pub fn scheduled_pairs(checkpoints: usize, anchors: usize) -> Vec<(usize, usize)> {
    let mut pairs: Vec<(usize, usize)> = (1..checkpoints).map(|i| (i, i - 1)).collect();
    for a in checkpoints..checkpoints + anchors {
        if checkpoints > 0 {
            pairs.push((checkpoints - 1, a));
            if checkpoints > 1 {
                pairs.push((0, a));
            }
        }
        for b in a + 1..checkpoints + anchors {
            pairs.push((a, b));
        }
    }
    pairs
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

fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
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
        play_missing(options, kind, &checkpoints, &names, &specs)?
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
    let (files, notes) = write_outputs(run, &players, &names[anchor])?;
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

/// Plays the games each scheduled pair still lacks (`games_per_pair` minus those on
/// record), writing them to `RUN/matches/`. Returns the games played.
fn play_missing(
    options: &RatingsOptions,
    kind: GameKind,
    checkpoints: &[Checkpoint],
    names: &[String],
    specs: &[AgentSpec],
) -> Result<u64, EvalError> {
    let run = &options.run_dir;
    let matches_dir = run.join(layout::MATCHES);
    let reports: Vec<MatchReport> = read_reports(run, kind)?.into_iter().map(|r| r.1).collect();
    let mut on_record: HashMap<(String, String), u64> = HashMap::new();
    for report in &reports {
        let mut distinct = report.agents.clone();
        distinct.sort();
        distinct.dedup();
        if let [a, b] = distinct.as_slice() {
            *on_record.entry((a.clone(), b.clone())).or_default() += report.games.len() as u64;
        }
    }
    std::fs::create_dir_all(&matches_dir).map_err(|e| file_error(&matches_dir, e))?;
    let seats = seat_sides(kind).len() as u64;
    let mut serial = reports.len() as u64;
    let mut played = 0;
    for (a, b) in scheduled_pairs(checkpoints.len(), options.anchors.len()) {
        let key = if names[a] < names[b] {
            (names[a].clone(), names[b].clone())
        } else {
            (names[b].clone(), names[a].clone())
        };
        let have = on_record.get(&key).copied().unwrap_or(0);
        let missing = options.games_per_pair.saturating_sub(have);
        if missing == 0 {
            continue;
        }
        let games = missing.div_ceil(seats) * seats;
        let pair = [(&names[a], &specs[a]), (&names[b], &specs[b])];
        // The openings after those the games on record used.
        let offset = (have / seats) as usize;
        check_openings_left(options, pair, games / seats, offset)?;
        played += play_pair(
            options,
            kind,
            pair,
            games,
            offset,
            &matches_dir,
            &mut serial,
        )?;
    }
    Ok(played)
}

/// Checks that the suite (if any) has `rotations` openings from `offset` on for `pair`.
fn check_openings_left(
    options: &RatingsOptions,
    pair: [(&String, &AgentSpec); 2],
    rotations: u64,
    offset: usize,
) -> Result<(), EvalError> {
    let Some(suite) = &options.openings else {
        return Ok(());
    };
    let left = suite.len().saturating_sub(offset) as u64;
    if rotations > left {
        return Err(EvalError::Settings(format!(
            "{} vs {} needs {rotations} more openings, but {} has {left} left after the {offset} \
             its games on record used; pass a larger suite with --openings or lower \
             --games-per-pair",
            pair[0].0,
            pair[1].0,
            suite.path.display()
        )));
    }
    Ok(())
}

/// Plays `games` between the two named agents of `pair` (the second filling the extra
/// seats) from opening `offset` of the suite on, and writes the match to `matches_dir`.
/// Returns the games played.
fn play_pair(
    options: &RatingsOptions,
    kind: GameKind,
    pair: [(&String, &AgentSpec); 2],
    games: u64,
    offset: usize,
    matches_dir: &Path,
    serial: &mut u64,
) -> Result<u64, EvalError> {
    let seats = seat_sides(kind).len();
    let [(name_a, spec_a), (name_b, spec_b)] = pair;
    let mut specs = vec![spec_a.clone(), spec_b.clone()];
    let mut names = vec![name_a.clone(), name_b.clone()];
    while specs.len() < seats {
        specs.push(spec_b.clone());
        names.push(name_b.clone());
    }
    if options.progress {
        eprintln!("{name_a} vs {name_b}: {games} games");
    }
    let settings = MatchSettings {
        kind,
        rules: options.rules,
        games,
        parallel: options.parallel,
        seed: game_seed(options.seed, *serial),
        opening_turns: options.opening_turns,
        openings: options
            .openings
            .clone()
            .map(|suite| OpeningRange { suite, offset }),
        sprt: None,
        search: RunConfig::of_run(&options.run_dir)
            .map_err(|e| EvalError::Settings(e.to_string()))?
            .search,
        progress: options.progress,
        net: options.net,
    };
    let (mut report, mut records) = play_match(&specs, &settings)?;
    report.agents = names.clone();
    for record in &mut records {
        record.agents = super::arena::seat_agents(seats, record.index)
            .into_iter()
            .map(|i| names[i].clone())
            .collect();
    }
    let stem = loop {
        let stem = format!("{}_vs_{}-{serial}", file_stem(name_a), file_stem(name_b));
        *serial += 1;
        if !matches_dir.join(format!("{stem}.json")).exists() {
            break stem;
        }
    };
    let games_path = matches_dir.join(format!("{stem}.games.jsonl"));
    write_records(&games_path, &records).map_err(|e| file_error(&games_path, e))?;
    write_report(&matches_dir.join(format!("{stem}.json")), &report)?;
    Ok(report.games.len() as u64)
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

/// Writes `ratings.csv`, `ratings.png` and (from the learner's metrics) `losses.png` into
/// the run directory. Returns the files written and notes on what was not.
fn write_outputs(
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
    // The learner's metrics (`train` and `learn` alike); RUN/metrics.jsonl in runs written
    // by `train` before it ran the roles.
    let metrics = [layout::LEARNER_METRICS, layout::METRICS_FILE]
        .map(|key| run.join(key))
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| run.join(layout::LEARNER_METRICS));
    match loss_panels(&metrics) {
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
/// strength per CPU-hour that compares machines: the checkpoints as one line with interval
/// bars, each anchor as a flat line.
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

/// Panels of policy loss, value loss, total loss and policy entropy against step, from the
/// `"type": "train"` lines of `metrics.jsonl`.
pub fn loss_panels(metrics: &Path) -> Result<Vec<Panel>, String> {
    let text =
        std::fs::read_to_string(metrics).map_err(|e| format!("{}: {e}", metrics.display()))?;
    let keys = ["policy_loss", "value_loss", "total_loss", "policy_entropy"];
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); keys.len()];
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            continue; // a line being written, or another tool's
        };
        if value.get("type").and_then(|t| t.as_str()) != Some("train") {
            continue;
        }
        let Some(step) = value.get("step").and_then(|s| s.as_f64()) else {
            continue;
        };
        for (k, key) in keys.iter().enumerate() {
            if let Some(v) = value.get(*key).and_then(|v| v.as_f64()) {
                series[k].push((step, v));
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_chains_checkpoints_and_ties_anchors_to_both_ends() {
        assert_eq!(scheduled_pairs(3, 0), vec![(1, 0), (2, 1)]);
        assert_eq!(
            scheduled_pairs(3, 2),
            vec![(1, 0), (2, 1), (2, 3), (0, 3), (3, 4), (2, 4), (0, 4)]
        );
        assert_eq!(scheduled_pairs(1, 1), vec![(0, 1)]);
        assert_eq!(scheduled_pairs(0, 2), vec![(0, 1)]);
    }

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
