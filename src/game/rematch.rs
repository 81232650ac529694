//! Placeholder: the Rematch rules core is being written.
use super::*;

/// Rematch position (placeholder).
#[derive(Clone, Debug)]
pub struct Rematch;

impl GameState for Rematch {
    fn start(_: GameKind, _: RulesConfig) -> Self {
        unimplemented!()
    }
    fn from_notation(_: GameKind, _: &str, _: RulesConfig) -> Result<Self, NotationError> {
        unimplemented!()
    }
    fn to_notation(&self) -> String {
        unimplemented!()
    }
    fn kind(&self) -> GameKind {
        unimplemented!()
    }
    fn num_actions(&self) -> usize {
        unimplemented!()
    }
    fn num_seats(&self) -> usize {
        unimplemented!()
    }
    fn seat_to_move(&self) -> Seat {
        unimplemented!()
    }
    fn side_of(&self, _: Seat) -> Side {
        unimplemented!()
    }
    fn legal_steps(&self, _: &mut StepList) {
        unimplemented!()
    }
    fn apply_step(&mut self, _: Action) {
        unimplemented!()
    }
    fn turn_in_progress(&self) -> bool {
        unimplemented!()
    }
    fn outcome(&self) -> Option<Outcome> {
        unimplemented!()
    }
    fn position_hash(&self) -> u64 {
        unimplemented!()
    }
    fn describe_step(&self, _: Action) -> StepDesc {
        unimplemented!()
    }
    fn render(&self) -> String {
        unimplemented!()
    }
}
