use checkers_zero::game::turns::distinct_turns;
use checkers_zero::game::*;
use checkers_zero::with_game;
use rand::{Rng, SeedableRng};

fn wins_in<S: GameState>(s: &S, me: Side, turns: u32) -> bool {
    if let Some(o) = s.outcome() {
        return o.winner == Some(me);
    }
    if turns == 0 {
        return false;
    }
    let ts = distinct_turns(s);
    if s.side_to_move() == me {
        ts.iter().any(|t| wins_in(&t.state, me, turns - 1))
    } else {
        ts.iter().all(|t| wins_in(&t.state, me, turns - 1))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind: GameKind = args[1].parse().unwrap();
    let cells: Vec<&str> = args[2].split(',').collect();
    let contents: Vec<&str> = args[3].split(',').collect();
    let seats: Vec<&str> = args[4].split(',').collect();
    let depth: u32 = args[5].parse().unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let mut found = 0;
    for _ in 0..200000 {
        let n = rng.gen_range(2..=contents.len());
        let mut used = std::collections::HashSet::new();
        let mut text = seats[rng.gen_range(0..seats.len())].to_string();
        for i in 0..n {
            let c = cells[rng.gen_range(0..cells.len())];
            if !used.insert(c) {
                continue;
            }
            text.push_str(&format!(" {}:{}", c, contents[i]));
        }
        with_game!(kind, S => {
            let Ok(s) = S::from_notation(kind, &text, RulesConfig::default()) else { continue };
            if s.outcome().is_some() { continue; }
            let ts = distinct_turns(&s);
            if ts.len() < 4 { continue; }
            let me = s.side_to_move();
            let winning: Vec<_> = ts.iter().filter(|t| wins_in(&t.state, me, depth * 2 - 2)).map(|t| t.path.clone()).collect();
            let quick: Vec<_> = ts.iter().filter(|t| wins_in(&t.state, me, depth * 2 - 4)).collect();
            if !winning.is_empty() && winning.len() * 3 <= ts.len() && quick.is_empty() && depth >= 2 || (depth == 1 && !winning.is_empty() && winning.len() * 3 <= ts.len()) {
                println!("{text} | {} of {} win: {:?}", winning.len(), ts.len(), winning);
                found += 1; if found > 4 { return; }
            }
        });
    }
}
