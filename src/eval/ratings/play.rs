//! Playing the games a rating's schedule still lacks, and writing them to `RUN/matches/`.

use std::path::Path;

use super::schedule::{check_openings_left, due_games};
use super::{file_error, read_reports, Checkpoint, RatingsOptions};
use crate::config::RunConfig;
use crate::eval::arena::{play_match, seat_sides, write_report, MatchReport, MatchSettings};
use crate::eval::openings::OpeningRange;
use crate::eval::spec::AgentSpec;
use crate::eval::EvalError;
use crate::game::GameKind;
use crate::layout;
use crate::selfplay::record::write_records;
use crate::util::game_seed;

/// Plays the games each scheduled pair still lacks (`games_per_pair` minus those on
/// record), writing them to `RUN/matches/`. Returns the games played.
pub fn play_missing(
    options: &RatingsOptions,
    kind: GameKind,
    checkpoints: &[Checkpoint],
    names: &[String],
    specs: &[AgentSpec],
) -> Result<u64, EvalError> {
    let run = &options.run_dir;
    let matches_dir = run.join(layout::MATCHES);
    let reports: Vec<MatchReport> = read_reports(run, kind)?.into_iter().map(|r| r.1).collect();
    std::fs::create_dir_all(&matches_dir).map_err(|e| file_error(&matches_dir, e))?;
    let seats = seat_sides(kind).len() as u64;
    let mut serial = reports.len() as u64;
    let mut played = 0;
    let schedule = (checkpoints.len(), options.anchors.len());
    for due in due_games(&reports, names, schedule, options.games_per_pair, seats) {
        let (a, b) = (due.a, due.b);
        let pair = [(&names[a], &specs[a]), (&names[b], &specs[b])];
        check_openings_left(options, pair, due.games / seats, due.offset)?;
        played += play_pair(
            options,
            kind,
            pair,
            due.games,
            due.offset,
            &matches_dir,
            &mut serial,
        )?;
    }
    Ok(played)
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
        record.agents = crate::eval::arena::seat_agents(seats, record.index)
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
