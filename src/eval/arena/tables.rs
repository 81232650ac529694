//! The tables a match prints: the summary (points, per-seat results, Elo, sets, SPRT) and
//! the pentanomial line.

use std::fmt::Write as _;

use super::report::{MatchReport, Summary};
use super::seats::seat_names;
use crate::eval::pairs::{Grouped, Pentanomial, Rotations};
use crate::eval::EvalError;

/// An Elo difference as a table shows it: `+85`, `-3`, `+inf`.
pub fn fmt_elo(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.0}")
    } else if x > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

/// The summary table printed at the end of a match: per agent score, per-seat results,
/// Elo with its 95% interval, sets, and the SPRT decision.
pub fn summary_table(report: &MatchReport, first_to: Option<f64>) -> Result<String, EvalError> {
    let kind = report.kind()?;
    let summary = report.summary()?;
    let seat_names = seat_names(kind);
    let mut out = String::new();
    let name_width = report
        .agents
        .iter()
        .map(|a| a.len())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = write!(
        out,
        "{:<name_width$}  {:>6}  {:>6}",
        "agent", "games", "points"
    );
    for name in &seat_names {
        let _ = write!(out, "  {:>13}", format!("as {name} W-D-L"));
    }
    let _ = writeln!(out, "  {:>22}", "Elo (95%)");
    for (a, label) in report.agents.iter().enumerate() {
        let _ = write!(
            out,
            "{label:<name_width$}  {:>6}  {:>6.1}",
            summary.games[a], summary.points[a]
        );
        for wdl in &summary.by_seat[a] {
            let _ = write!(
                out,
                "  {:>13}",
                format!("{}-{}-{}", wdl.wins, wdl.draws, wdl.losses)
            );
        }
        let elo = match &summary.elo {
            Some(_) if a + 1 == report.agents.len() => "0 (anchor)".to_string(),
            Some(e) => format!(
                "{} [{}, {}]",
                fmt_elo(e[a].elo),
                fmt_elo(e[a].low),
                fmt_elo(e[a].high)
            ),
            None => "n/a".into(),
        };
        let _ = writeln!(out, "  {elo:>22}");
    }
    if let Some(first_to) = first_to {
        let (won, complete, current) = report.sets(first_to)?;
        let _ = write!(
            out,
            "sets (first to {first_to} points): {complete} complete;"
        );
        for (label, w) in report.agents.iter().zip(&won) {
            let _ = write!(out, " {label} {w}");
        }
        if current.iter().any(|&p| p > 0.0) {
            let _ = write!(out, "; unfinished set at {current:?}");
        }
        out.push('\n');
    }
    groups_and_sprt(report, &summary, &mut out);
    Ok(out)
}

/// The candidate's pairs or rotations and the SPRT's line, for the summary.
fn groups_and_sprt(report: &MatchReport, summary: &Summary, out: &mut String) {
    if let Some(pairs) = summary.pentanomial {
        let _ = writeln!(out, "{}", pentanomial_line(&pairs));
    }
    if let Some(rotations) = summary.rotations {
        let _ = writeln!(out, "{}", rotations_line(&rotations));
    }
    if let (Some(sprt), Some(decision), Some(llr)) = (report.sprt, report.sprt_decision, report.llr)
    {
        let (low, high) = sprt.bounds();
        let on = match (summary.pentanomial, summary.rotations) {
            (Some(_), _) => "pairs",
            (None, Some(_)) => "rotations",
            (None, None) => "games",
        };
        let _ = writeln!(
            out,
            "SPRT on {on} elo0={} elo1={} alpha={} beta={}: LLR {llr:.2} in ({low:.2}, {high:.2}): {decision}",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        );
    }
}

/// `pairs 0/½/1/1½/2 points: 1 3 10 4 2 (20 pairs); pair Elo +17 [-30, +64]`: the first
/// agent's pairs (one opening, seats swapped) by its points, and the Elo they give.
pub fn pentanomial_line(pairs: &Pentanomial) -> String {
    group_line("pairs 0/½/1/1½/2 points", "pairs", "pair", pairs)
}

/// `rotations 0/¼/.../2 points: ... (N rotations); rotation Elo ...`: the first agent's
/// rotations of a 3-seat game (one opening, each seat once) by its points.
pub fn rotations_line(rotations: &Rotations) -> String {
    group_line(
        "rotations 0/¼/½/¾/1/1¼/1½/1¾/2 points",
        "rotations",
        "rotation",
        rotations,
    )
}

/// `HEAD: counts (N PLURAL); ONE Elo e [low, high]`.
fn group_line(head: &str, plural: &str, one: &str, groups: &impl Grouped) -> String {
    let counts: Vec<String> = groups.counts().iter().map(u64::to_string).collect();
    let elo = match groups.elo() {
        Some(e) => format!(
            "{one} Elo {} [{}, {}]",
            fmt_elo(e.elo),
            fmt_elo(e.low),
            fmt_elo(e.high)
        ),
        None => format!("no complete {one}"),
    };
    format!(
        "{head}: {} ({} {plural}); {elo}",
        counts.join(" "),
        groups.groups()
    )
}
