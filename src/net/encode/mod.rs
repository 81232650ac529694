//! Input encodings and policy indexing per game, and the board symmetries the rules allow.
//!
//! A position is encoded as planes on the game's board grid (hex boards embedded in axial
//! coordinates with a validity mask), *from the view of the side to move*: the board is
//! turned so that the mover always plays "up" where the rules have a direction (HexDame,
//! Eximo), and planes say "own" and "opponent" rather than colours where that is meaningful.
//! The policy uses the same frame: [`Encode::policy_index`] maps a game action to the net's
//! policy output and back. Symmetries act on planes and policy indices together.
//!
//! One module per game: [`rematch`] (both ReMATCH variants), [`hexdame`], [`eximo`]; here,
//! the [`Encode`] trait and what the encodings share.

pub mod eximo;
pub mod hexdame;
pub mod rematch;

use super::model::NetShape;
use crate::game::{Action, GameKind, GameState, RulesConfig};

/// How many turns before the ply cap's adjudicated draw the turns-left plane starts to fall.
/// Further from the cap the plane reads 1 whatever the cap, so a net trained under one cap
/// sees the same inputs under another while both are more than this many turns away.
pub const TURN_HORIZON: u32 = 32;

/// The value of every encoding's turns-left plane: the turns left before the adjudicated
/// draw, clipped to [`TURN_HORIZON`], over [`TURN_HORIZON`]. 1 until the last
/// `TURN_HORIZON` turns, then falling by `1 / TURN_HORIZON` a turn to 0 at the cap; 1 when
/// the cap is off.
pub fn turns_left_value(turns_played: u32, rules: RulesConfig) -> f32 {
    if rules.ply_cap == 0 {
        return 1.0;
    }
    let left = rules.ply_cap.saturating_sub(turns_played).min(TURN_HORIZON);
    left as f32 / TURN_HORIZON as f32
}

/// A game's encoding: input planes, policy indexing, and symmetries.
pub trait Encode: GameState {
    /// Version of this game's encoding; bump it whenever planes or their meaning change.
    const ENCODING_VERSION: u32;
    /// Input planes.
    const PLANES: usize;
    /// Grid height (ranks).
    const HEIGHT: usize;
    /// Grid width (files).
    const WIDTH: usize;
    /// True on hex boards (the net masks the two non-neighbour 3x3 kernel taps).
    const HEX: bool;
    /// Number of symmetries, the identity (index 0) included.
    const SYMMETRIES: usize;
    /// The first this many symmetries move the board alone; those after them also
    /// exchange colours (ReMATCH's White and Orange), which training uses only when
    /// `train.colour_symmetry` is on.
    const BOARD_SYMMETRIES: usize = Self::SYMMETRIES;

    /// Board cells of the grid, row-major (`HEIGHT * WIDTH`; index `rank * WIDTH + file`).
    fn board_mask() -> Vec<bool>;

    /// Writes the planes (`PLANES * HEIGHT * WIDTH` values, plane-major, then rank, then
    /// file) for this position, from the side to move's view. `out` is overwritten entirely.
    /// The same position always gives the same values.
    fn encode(&self, out: &mut [f32]);

    /// Logits per grid square of the convolutional policy head (`net.conv_policy`).
    const POLICY_PER_SQUARE: usize;

    /// Where policy index `index` sits in the convolutional policy head's output: its
    /// channel (`< POLICY_PER_SQUARE`) and grid square, the square its step starts from (a
    /// drop's: where it lands), in the frame the planes are encoded in. Distinct indices
    /// sit at distinct places.
    fn policy_square(index: usize) -> (usize, usize);

    /// The net's policy index of the legal step `action` in this position (side to move's
    /// frame). A bijection of `0..num_actions()` for a given side to move.
    fn policy_index(&self, action: Action) -> usize;

    /// The game action for a policy index in this position (inverse of `policy_index`).
    fn action_of_index(&self, index: usize) -> Action;

    /// Applies symmetry `sym` (0..SYMMETRIES) to encoded planes: `out` gets `planes`
    /// transformed. Must agree with [`Encode::transform_state`]:
    /// `encode(transform_state(s, k)) == transform_planes(k, encode(s))`.
    fn transform_planes(sym: usize, planes: &[f32], out: &mut [f32]);

    /// Applies symmetry `sym` to a policy index (the same map for every position).
    fn transform_policy_index(sym: usize, index: usize) -> usize;

    /// The position transformed by symmetry `sym` (pieces moved, everything else equal).
    /// Used by tests to prove equivariance; `None` if the symmetry does not apply here.
    fn transform_state(&self, sym: usize) -> Option<Self>;

    /// The net's input/output shape for this game (`kind` gives the name: `rematch` and
    /// `rematch3` share an encoding but not a model file).
    fn net_shape(kind: GameKind) -> NetShape
    where
        Self: Sized,
    {
        NetShape {
            game: kind.name().to_string(),
            encoding_version: Self::ENCODING_VERSION,
            planes: Self::PLANES as i64,
            height: Self::HEIGHT as i64,
            width: Self::WIDTH as i64,
            num_actions: Self::start(kind, Default::default()).num_actions() as i64,
            board_mask: Self::board_mask(),
            hex: Self::HEX,
            policy_map: Self::policy_map(kind),
            policy_per_square: Self::POLICY_PER_SQUARE as i64,
        }
    }

    /// The convolutional policy head's map: for each policy index, its place
    /// `channel * HEIGHT * WIDTH + square` in the head's flattened output.
    fn policy_map(kind: GameKind) -> Vec<i64>
    where
        Self: Sized,
    {
        let actions = Self::start(kind, Default::default()).num_actions();
        (0..actions)
            .map(|index| {
                let (channel, square) = Self::policy_square(index);
                (channel * Self::HEIGHT * Self::WIDTH + square) as i64
            })
            .collect()
    }
}

/// Transforms planes by a permutation of grid squares: `square_map[i]` is where square `i`
/// goes (squares off the board map to themselves). Every plane moves the same way.
pub fn permute_planes(square_map: &[usize], planes: &[f32], out: &mut [f32]) {
    let squares = square_map.len();
    debug_assert_eq!(planes.len() % squares, 0);
    for (plane_in, plane_out) in planes.chunks(squares).zip(out.chunks_mut(squares)) {
        for (i, &value) in plane_in.iter().enumerate() {
            plane_out[square_map[i]] = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{eximo::Eximo, hexdame::HexDame, rematch::Rematch};

    /// The map of `kind` is one to one, each index on a board square and a channel of its own.
    fn check_policy_map<S: Encode>(kind: GameKind) {
        let shape = S::net_shape(kind);
        let squares = (shape.height * shape.width) as usize;
        assert_eq!(shape.policy_map.len() as i64, shape.num_actions, "{kind:?}");
        let mut seen = std::collections::HashSet::new();
        for (index, &place) in shape.policy_map.iter().enumerate() {
            let (channel, square) = (place as usize / squares, place as usize % squares);
            assert!(channel < S::POLICY_PER_SQUARE, "{kind:?} index {index}");
            let on_board = shape.board_mask.is_empty() || shape.board_mask[square];
            assert!(on_board, "{kind:?} index {index} at square {square}");
            assert!(seen.insert(place), "{kind:?} index {index} shares {place}");
        }
    }

    #[test]
    fn policy_maps_are_one_to_one_onto_board_squares() {
        check_policy_map::<Rematch>(GameKind::Rematch);
        check_policy_map::<Rematch>(GameKind::Rematch3);
        check_policy_map::<HexDame>(GameKind::Hexdame);
        check_policy_map::<Eximo>(GameKind::Eximo);
    }
}
