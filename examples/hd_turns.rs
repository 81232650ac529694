use checkers_zero::game::hexdame::HexDame;
use checkers_zero::game::turns::distinct_turns;
use checkers_zero::game::{GameKind, GameState, RulesConfig};
fn main() {
    for text in std::env::args().skip(1) {
        let s = HexDame::from_notation(GameKind::Hexdame, &text, RulesConfig::default()).unwrap();
        let t: Vec<String> = distinct_turns(&s)
            .into_iter()
            .map(|t| format!("{} => {}", t.path, t.state.to_notation()))
            .collect();
        println!("{text} [{:?}]\n  {}", s.outcome(), t.join("\n  "));
    }
}
