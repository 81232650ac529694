//! The learning benchmark (`checkers-zero bench-learning`): train a game's default config for
//! a wall-clock budget, then rate checkpoints spread over that budget against a fixed ladder
//! of agents, and write the results as a table (markdown and CSV) and a plot of Elo against
//! training time. This module holds the plan and the tables; [`command`] drives `train` and
//! `match` as child processes, so the benchmark measures exactly what a user runs;
//! [`diversity`] draws self-play's diversity over the run.
//!
//! ```text
//! RUN/bench/plan.json                     the settings of the benchmark (kept for --resume)
//! RUN/bench/matches/step-00000400/uct-1000/result.json   one match (written by `match`)
//! RUN/bench/ladder.md  ladder.csv  ladder.png             the table and the plot
//! RUN/bench/diversity.csv  diversity.png                  self-play's diversity by step
//! ```
//! A match counts as done once its `result.json` holds the games, agents, seed and ply cap
//! the plan asks for; anything else is played (again).

pub mod command;
pub mod diversity;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::eval::arena::{fmt_elo, seat_names, seat_points, seat_sides, MatchReport};
use crate::eval::elo::{head_to_head, EloEstimate, Wdl};
use crate::eval::plot::{render_png, Panel, Series};
use crate::eval::ratings::Checkpoint;
use crate::eval::EvalError;
use crate::game::GameKind;
use crate::layout;
use crate::roles::learner::Clock;
use crate::util::write_atomic;

/// The ladder every checkpoint is rated against, weakest first.
pub const DEFAULT_LADDER: [&str; 6] = [
    "random",
    "alphabeta:2",
    "alphabeta:4",
    "uct:300",
    "uct:1000",
    "uct:3000",
];

/// Version of `plan.json`; other versions are refused.
pub const PLAN_VERSION: u32 = 1;

/// Elo beyond this (a clean sweep is infinite) is drawn at the edge of the plot.
const PLOT_ELO_LIMIT: f64 = 800.0;

/// What a benchmark run does (`RUN/bench/plan.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchPlan {
    /// [`PLAN_VERSION`].
    pub version: u32,
    /// The game's command-line name.
    pub game: String,
    /// Training budget: minutes of training wall-clock, summed over invocations.
    pub minutes: f64,
    /// What `minutes` counts: wall minutes, or the run's CPU minutes (plans written before
    /// it: wall).
    #[serde(default)]
    pub clock: Clock,
    /// The rungs: `match` agent specs.
    pub ladder: Vec<String>,
    /// Games per checkpoint and rung, seats alternating.
    pub games: u64,
    /// Checkpoints rated, spread evenly over the training time.
    pub checkpoints: usize,
    /// Seed of the ladder matches (the same for every checkpoint, so that they meet the same
    /// openings); keep it apart from seeds used while tuning.
    pub seed: u64,
    /// Visits per step of the checkpoint's net + MCTS.
    pub visits: u32,
    /// Whole turns after which a ladder game is an adjudicated draw.
    pub ply_cap: u32,
    /// `KEY=VALUE` overrides put over the config (an A/B arm), as `--set` gave them.
    #[serde(default)]
    pub overrides: Vec<String>,
    /// The opening suite of the ladder matches, an absolute path (`None`: random openings;
    /// plans written before suites have none).
    #[serde(default)]
    pub openings: Option<PathBuf>,
    /// Random whole turns opening each ladder game without a suite.
    #[serde(default = "default_opening_turns")]
    pub opening_turns: u32,
}

fn default_opening_turns() -> u32 {
    2
}

impl BenchPlan {
    /// Checks the ranges, naming the setting.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.minutes.is_finite() && self.minutes > 0.0) {
            return Err(format!("MINUTES must be above 0 (got {})", self.minutes));
        }
        if self.ladder.is_empty() {
            return Err("--ladder needs at least one agent".into());
        }
        if self.games == 0 {
            return Err("--games must be at least 1".into());
        }
        if !(1..=50).contains(&self.checkpoints) {
            return Err(format!(
                "--checkpoints must be 1 to 50 (got {})",
                self.checkpoints
            ));
        }
        if self.visits == 0 {
            return Err("--visits must be at least 1".into());
        }
        let seats = seat_sides(self.kind()?).len() as u64;
        if self.openings.is_some() && !self.games.is_multiple_of(seats) {
            return Err(format!(
                "--games must be a multiple of {seats} on an opening suite (one game per seat \
                 and opening; got {})",
                self.games
            ));
        }
        Ok(())
    }

    /// The game's kind.
    pub fn kind(&self) -> Result<GameKind, String> {
        self.game.parse().map_err(|e| format!("{e}"))
    }

    /// The `match` agents of a checkpoint against a rung: the checkpoint first, then the
    /// rung once per other seat (two copies in 3-player ReMATCH).
    pub fn agents(&self, checkpoint: &Path, rung: &str) -> Result<Vec<String>, String> {
        let seats = seat_sides(self.kind()?).len();
        let mut agents = vec![format!("net:{}:{}", checkpoint.display(), self.visits)];
        agents.extend(std::iter::repeat_n(rung.to_string(), seats - 1));
        Ok(agents)
    }

    /// Whether `report` is the match this plan wants for these agents.
    pub fn is_done(&self, report: &MatchReport, agents: &[String]) -> bool {
        let suite = report.suite.as_ref().map(|s| PathBuf::from(&s.file));
        report.agents == agents
            && report.seed == self.seed
            && report.ply_cap == self.ply_cap
            && report.games.len() as u64 == self.games
            && suite == self.openings
    }
}

/// The folder of the match of `checkpoint` against `rung` (named after the checkpoint's
/// folder and the rung with its punctuation as `-`).
pub fn match_dir(bench_dir: &Path, checkpoint: &Checkpoint, rung: &str) -> PathBuf {
    let rung: String = rung
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    bench_dir
        .join(layout::MATCHES)
        .join(checkpoint.dir.file_name().unwrap_or_default())
        .join(rung)
}

/// A checkpoint's training time on `clock`, in seconds.
pub fn time_on(checkpoint: &Checkpoint, clock: Clock) -> f64 {
    match clock {
        Clock::Wall => checkpoint.elapsed_s,
        Clock::Cpu => checkpoint.cpu_s,
    }
}

/// Up to `count` checkpoints spread evenly over the training time on `clock`: for each
/// target `k/count` of the newest checkpoint's time (k = 1..=count), the nearest
/// checkpoint (the newest always), without repeats, in step order.
pub fn select_checkpoints(all: &[Checkpoint], count: usize, clock: Clock) -> Vec<Checkpoint> {
    let Some(last) = all.last() else {
        return Vec::new();
    };
    let mut chosen: Vec<Checkpoint> = Vec::new();
    for k in 1..=count {
        let target = time_on(last, clock) * k as f64 / count as f64;
        let nearest = all.iter().min_by(|a, b| {
            let da = (time_on(a, clock) - target).abs();
            let db = (time_on(b, clock) - target).abs();
            da.total_cmp(&db).then(b.step.cmp(&a.step))
        });
        if let Some(c) = nearest {
            if !chosen.iter().any(|x| x.step == c.step) {
                chosen.push(c.clone());
            }
        }
    }
    chosen.sort_by_key(|c| c.step);
    chosen
}

/// One line of the table: a checkpoint against a rung.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Training wall-clock of the checkpoint, minutes.
    pub minutes: f64,
    /// Training CPU time of the checkpoint, minutes (0 where the run did not record it).
    pub cpu_minutes: f64,
    /// Its training step.
    pub step: u64,
    /// Self-play games finished when it was written.
    pub selfplay_games: u64,
    /// The rung.
    pub rung: String,
    /// Ladder games played.
    pub games: u64,
    /// The checkpoint's points (ReMATCH scoring: a Team win gives each member ½).
    pub points: f64,
    /// The most points it could have won (1 a game per seat alone on its side, ½ shared).
    pub possible: f64,
    /// Results of its side over all games.
    pub total: Wdl,
    /// Elo against the rung (from `total`) with its 95% interval.
    pub elo: EloEstimate,
    /// Per side it played (names from [`side_names`]): its results there.
    pub by_side: Vec<Wdl>,
}

impl Row {
    /// Points won as a share of the points it could win.
    pub fn score(&self) -> f64 {
        if self.possible > 0.0 {
            self.points / self.possible
        } else {
            0.0
        }
    }
}

/// Names of the sides, as the per-seat columns show them (3-player ReMATCH's White and
/// Orange share the Team column).
pub fn side_names(kind: GameKind) -> Vec<String> {
    match kind {
        GameKind::Rematch3 => seat_names(GameKind::Rematch),
        other => seat_names(other),
    }
}

/// The checkpoint's row from a match report (agent 0 is the checkpoint).
pub fn row_from_report(
    report: &MatchReport,
    checkpoint: &Checkpoint,
    selfplay_games: u64,
    rung: &str,
) -> Result<Row, EvalError> {
    let sides = seat_sides(report.kind()?);
    let best = seat_points(&sides, Some(sides[0].0))
        .into_iter()
        .zip(seat_points(&sides, sides.get(1).map(|s| s.0)))
        .map(|(a, b)| a.max(b))
        .collect::<Vec<f64>>();
    let side_count = sides.iter().map(|s| s.0 as usize + 1).max().unwrap_or(0);
    let mut row = Row {
        minutes: checkpoint.elapsed_s / 60.0,
        cpu_minutes: checkpoint.cpu_s / 60.0,
        step: checkpoint.step,
        selfplay_games,
        rung: rung.to_string(),
        games: 0,
        points: 0.0,
        possible: 0.0,
        total: Wdl::default(),
        elo: head_to_head(&Wdl::default()),
        by_side: vec![Wdl::default(); side_count],
    };
    for game in &report.games {
        let Some(seat) = game.seats.iter().position(|&a| a == 0) else {
            continue;
        };
        let side = sides[seat];
        let score = match game.winner {
            None => 0.5,
            Some(w) if w == side.0 => 1.0,
            Some(_) => 0.0,
        };
        row.games += 1;
        row.points += seat_points(&sides, game.winner)[seat];
        row.possible += best[seat];
        row.total.add(score);
        row.by_side[side.0 as usize].add(score);
    }
    row.elo = head_to_head(&row.total);
    Ok(row)
}

fn wdl_cell(wdl: &Wdl) -> String {
    if wdl.games() == 0.0 {
        return "-".into();
    }
    format!(
        "{:.0}% ({}-{}-{})",
        100.0 * wdl.score(),
        wdl.wins,
        wdl.draws,
        wdl.losses
    )
}

/// The table as markdown: one line per checkpoint and rung.
pub fn markdown_table(rows: &[Row], sides: &[String]) -> String {
    let mut out = String::from(
        "| wall minutes | CPU minutes | step | self-play games | rung | games | score | Elo (95%)",
    );
    for side in sides {
        let _ = write!(out, " | as {side} W-D-L");
    }
    out.push_str(" |\n|---:|---:|---:|---:|---|---:|---:|---");
    out.push_str(&"|---".repeat(sides.len()));
    out.push_str("|\n");
    for r in rows {
        let cpu = if r.cpu_minutes > 0.0 {
            format!("{:.0}", r.cpu_minutes)
        } else {
            "-".to_string()
        };
        let _ = write!(
            out,
            "| {:.1} | {cpu} | {} | {} | {} | {} | {:.1}% | {} [{}, {}]",
            r.minutes,
            r.step,
            r.selfplay_games,
            r.rung,
            r.games,
            100.0 * r.score(),
            fmt_elo(r.elo.elo),
            fmt_elo(r.elo.low),
            fmt_elo(r.elo.high)
        );
        for wdl in &r.by_side {
            let _ = write!(out, " | {}", wdl_cell(wdl));
        }
        out.push_str(" |\n");
    }
    out
}

/// The table as CSV: one line per checkpoint and rung.
pub fn csv_table(rows: &[Row], sides: &[String]) -> String {
    let mut out = String::from(
        "minutes,step,selfplay_games,rung,games,points,possible,score,elo,elo_low,elo_high",
    );
    for side in sides {
        let s = side.to_lowercase();
        let _ = write!(out, ",{s}_wins,{s}_draws,{s}_losses,{s}_score");
    }
    out.push_str(",cpu_minutes\n");
    for r in rows {
        let _ = write!(
            out,
            "{:.3},{},{},{},{},{},{},{:.4},{:.1},{:.1},{:.1}",
            r.minutes,
            r.step,
            r.selfplay_games,
            r.rung,
            r.games,
            r.points,
            r.possible,
            r.score(),
            r.elo.elo,
            r.elo.low,
            r.elo.high
        );
        for wdl in &r.by_side {
            let score = if wdl.games() > 0.0 {
                wdl.score()
            } else {
                f64::NAN
            };
            let _ = write!(out, ",{},{},{},{score:.4}", wdl.wins, wdl.draws, wdl.losses);
        }
        let _ = writeln!(out, ",{:.3}", r.cpu_minutes);
    }
    out
}

/// The columns of a `ladder.csv` with `sides` sides, before the CPU column (tables written
/// before it end there).
fn columns_without_cpu(sides: usize) -> usize {
    11 + 4 * sides
}

/// The rows of a `ladder.csv` written by [`csv_table`] (with `sides` sides), so that a
/// table kept in the docs can be drawn again (`bench-learning --replot`); tables written
/// before the CPU column read with CPU minutes 0.
pub fn rows_from_csv(text: &str, sides: usize) -> Result<Vec<Row>, String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("an empty ladder table")?;
    let width = header.split(',').count();
    let without_cpu = columns_without_cpu(sides);
    if width != without_cpu && width != without_cpu + 1 {
        return Err(format!(
            "the header has neither {without_cpu} nor {} columns for {sides} sides",
            without_cpu + 1
        ));
    }
    lines
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            row_from_csv_line(line, sides, width).map_err(|e| format!("line {}: {e}", i + 2))
        })
        .collect()
}

/// One row of the table: `width` cells, `4 * sides` of them per side from the 12th, then
/// the CPU minutes if `width` has room for them.
fn row_from_csv_line(line: &str, sides: usize, width: usize) -> Result<Row, String> {
    let cells: Vec<&str> = line.split(',').collect();
    if cells.len() != width {
        return Err(format!("{} cells, expected {width}", cells.len()));
    }
    let num = |i: usize| -> Result<f64, String> {
        cells[i]
            .parse::<f64>()
            .map_err(|_| format!("cell {} ({:?}) is not a number", i + 1, cells[i]))
    };
    let by_side: Vec<Wdl> = (0..sides)
        .map(|s| {
            Ok(Wdl {
                wins: num(11 + 4 * s)?,
                draws: num(12 + 4 * s)?,
                losses: num(13 + 4 * s)?,
            })
        })
        .collect::<Result<_, String>>()?;
    let mut total = Wdl::default();
    for wdl in &by_side {
        total.wins += wdl.wins;
        total.draws += wdl.draws;
        total.losses += wdl.losses;
    }
    let cpu_minutes = if width > columns_without_cpu(sides) {
        num(width - 1)?
    } else {
        0.0
    };
    Ok(Row {
        minutes: num(0)?,
        cpu_minutes,
        step: num(1)? as u64,
        selfplay_games: num(2)? as u64,
        rung: cells[3].to_string(),
        games: num(4)? as u64,
        points: num(5)?,
        possible: num(6)?,
        total,
        elo: EloEstimate {
            elo: num(8)?,
            low: num(9)?,
            high: num(10)?,
        },
        by_side,
    })
}

/// Two panels against training minutes on the budget's `clock`, one line per rung: Elo
/// against the rung (with its interval, a clean sweep drawn at ±[`PLOT_ELO_LIMIT`]) and
/// the score.
pub fn ladder_panels(rows: &[Row], ladder: &[String], game: &str, clock: Clock) -> Vec<Panel> {
    let clip = |x: f64| x.clamp(-PLOT_ELO_LIMIT, PLOT_ELO_LIMIT);
    let x = |r: &Row| match clock {
        Clock::Wall => r.minutes,
        Clock::Cpu => r.cpu_minutes,
    };
    let x_label = format!("training {}", clock.minutes_word());
    fn per_rung<'a>(rows: &'a [Row], rung: &'a str) -> impl Iterator<Item = &'a Row> {
        rows.iter().filter(move |r| r.rung == rung)
    }
    let elo = ladder
        .iter()
        .map(|rung| Series {
            label: rung.clone(),
            points: per_rung(rows, rung)
                .map(|r| (x(r), clip(r.elo.elo)))
                .collect(),
            bars: per_rung(rows, rung)
                .map(|r| (clip(r.elo.low), clip(r.elo.high)))
                .collect(),
        })
        .collect();
    let score = ladder
        .iter()
        .map(|rung| Series {
            label: rung.clone(),
            points: per_rung(rows, rung)
                .map(|r| (x(r), 100.0 * r.score()))
                .collect(),
            bars: Vec::new(),
        })
        .collect();
    vec![
        Panel {
            title: format!("{game}: Elo against each rung"),
            x_label: x_label.clone(),
            y_label: "Elo vs rung (95%)".into(),
            series: elo,
        },
        Panel {
            title: format!("{game}: score against each rung"),
            x_label,
            y_label: "% of points".into(),
            series: score,
        },
    ]
}

/// Writes `bytes` to `dir/name` atomically; returns the path.
pub fn save_in(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, EvalError> {
    let path = dir.join(name);
    write_atomic(&path, bytes).map_err(|e| EvalError::File {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    Ok(path)
}

/// Writes `ladder.md`, `ladder.csv` and (once a row exists) `ladder.png` into `bench_dir`,
/// each atomically. Returns the files written.
pub fn write_tables(
    bench_dir: &Path,
    plan: &BenchPlan,
    rows: &[Row],
) -> Result<Vec<PathBuf>, EvalError> {
    let kind = plan.kind().map_err(EvalError::Settings)?;
    let sides = side_names(kind);
    let save = |name: &str, bytes: &[u8]| save_in(bench_dir, name, bytes);
    let arm = if plan.overrides.is_empty() {
        String::new()
    } else {
        format!(", with {}", plan.overrides.join(" "))
    };
    let heading = format!(
        "# {} for {} {} of training{arm}: {} games per rung, {} visits per step, seed {}\n\n",
        plan.game,
        plan.minutes,
        plan.clock.minutes_word(),
        plan.games,
        plan.visits,
        plan.seed
    );
    let [md, csv, plot] = layout::LADDER_FILES;
    let mut files = vec![
        save(md, (heading + &markdown_table(rows, &sides)).as_bytes())?,
        save(csv, csv_table(rows, &sides).as_bytes())?,
    ];
    if !rows.is_empty() {
        let png = render_png(
            &ladder_panels(rows, &plan.ladder, &plan.game, plan.clock),
            2,
        )
        .map_err(|e| EvalError::Settings(format!("ladder plot: {e}")))?;
        files.push(save(plot, &png)?);
    }
    Ok(files)
}

#[cfg(test)]
mod tests;
