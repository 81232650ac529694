//! Matches: agents play each other, games in parallel, seats rotating, with an optional SPRT
//! stop; results as a [`MatchReport`] (saved as JSON) and every game as a
//! [`GameRecord`](crate::selfplay::record::GameRecord).
//!
//! **Seats.** 2 seats: game `g` gives seat `s` to agent `(s + g) mod 2` (sides swap every
//! game). 3 seats (3-player ReMATCH; seats Red, White, Orange): the roles rotate
//! counter-clockwise around the table Red → White → Orange → Red: the player who was Red plays
//! White in the next game, White plays Orange, Orange plays Red; game `g` gives seat `s` to
//! agent `(s - g) mod 3`, so every agent plays every role once in 3 games.
//!
//! **Points** (ReMATCH's recommended scoring, applied to every game): a side scores 1 for a
//! win, ½ for a draw, 0 for a loss, shared equally by the seats of that side: a lone Red win
//! gives Red's player 1, a Team win ½ to each member; \[project\] a 3-player draw gives Red's
//! player ½ and each Team member ¼. **Sets** (`first_to`): the games in order are cut into
//! sets that end when an agent reaches `first_to` points (3 in ReMATCH's format); playing
//! the games in parallel is the same as playing the sets one after another, since agents
//! do not learn between games.
//!
//! **Openings.** \[project\] Searches with a fixed budget are deterministic, so each game may
//! begin with `opening_turns` uniformly random whole turns; the games of one rotation (2 or 3
//! games, every agent in every seat) share the same opening. With an opening suite
//! ([`super::openings`]) game `g` starts from opening `offset + g / seats` instead
//! (the record's start position is the opening), so with 2 seats games `2i` and `2i + 1`
//! play one opening with the seats swapped: a *pair*, scored by the pentanomial
//! ([`super::pairs`]), and the SPRT runs on pairs, deciding only at completed pairs.
//!
//! **Elo.** Every pair of seats on opposite sides is a head-to-head result (the seat's side
//! score). Ratings are relative to the last agent (the anchor): two agents, the head-to-head
//! Elo of agent 0 (the candidate) against agent 1 with a 95% interval; three,
//! maximum-likelihood Elo ([`super::elo::solve`]).
//!
//! **Report file** (`result.json`, written atomically; `matches/*.json` in a run directory):
//! ```text
//! { "format_version": 2, "game": "rematch", "agents": ["net:runs/a:100", "random"],
//!   "seed": 1, "opening_turns": 2, "ply_cap": 200,
//!   "ply_cap_from": "the model's training rules of net:runs/a:100", "project_draws": true,
//!   "games": [ { "index": 0, "seats": [0, 1], "winner": 0 | 1 | null,
//!                "reason": "NoPieces", "steps": 57 }, ... ],
//!   "sprt": { "elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05 } | null,
//!   "sprt_decision": "AcceptH1" | "AcceptH0" | "Continue" | null, "llr": 3.1 | null,
//!   "searches": [ { "kind": "gumbel", "visits": 100, ... } | null, ... ],
//!   "suite": { "file": "openings/rematch.txt", "offset": 0, "openings": 600,
//!              "pentanomial": { "counts": [2, 5, 30, 9, 4] } | null,
//!              "rotations": { "counts": [0, 1, 3, 8, 20, 9, 4, 2, 1] },  (3 seats only)
//!              "pair_elo": { "elo": 35.2, "low": 1.5, "high": 69.8 } | null } }
//! ```
//! `seats[s]` is the index (into `agents`) of the agent that played seat `s`; `searches[a]`
//! the search settings agent `a` played with (its model's own, see below; `null` without a
//! net). `suite` is left out without an opening suite; `pentanomial` counts the completed
//! pairs of a 2-seat game (null with 3 seats), `rotations` the completed rotations of a
//! 3-seat game (the SPRT's groups there, [`crate::eval::pairs::Rotations`]). Version 1 reports (before suites) are still
//! read.
//!
//! **Search of net agents.** A `net:` agent searches with the `[search]` its checkpoint's
//! run trained with (the match's settings only for a model outside a run), an `export:`
//! agent with its `model.json`'s, both as [`crate::config::search::SearchConfig::for_play`] makes them (no root
//! noise: play is deterministic given the opening), then the spec's overrides.

//!
//! The parts: [`seats`] (seats and points), [`players`] (model loading and the agents),
//! [`runner`] (the games on threads, the SPRT), [`report`] (results, summaries and the report
//! file), [`tables`] (what a match prints), [`settings`].

mod players;
mod report;
mod runner;
mod seats;
mod settings;
mod tables;

pub use players::spawn_batcher;
pub use report::{
    pair_results, read_report, write_match, write_report, GameResult, MatchReport, SuiteReport,
    Summary, REPORT_FORMAT_VERSION,
};
pub use runner::play_match;
pub use seats::{seat_agent, seat_agents, seat_names, seat_points, seat_sides};
pub use settings::MatchSettings;
pub use tables::{fmt_elo, pentanomial_line, summary_table};
