//! Placeholder: the HexDame encoding is being written.
use super::Encode;
use crate::game::hexdame::HexDame;
use crate::game::Action;

impl Encode for HexDame {
    const ENCODING_VERSION: u32 = 0;
    const PLANES: usize = 1;
    const HEIGHT: usize = 1;
    const WIDTH: usize = 1;
    const HEX: bool = false;
    const SYMMETRIES: usize = 1;
    fn board_mask() -> Vec<bool> {
        unimplemented!()
    }
    fn encode(&self, _: &mut [f32]) {
        unimplemented!()
    }
    fn policy_index(&self, _: Action) -> usize {
        unimplemented!()
    }
    fn action_of_index(&self, _: usize) -> Action {
        unimplemented!()
    }
    fn transform_planes(_: usize, _: &[f32], _: &mut [f32]) {
        unimplemented!()
    }
    fn transform_policy_index(_: usize, _: usize) -> usize {
        unimplemented!()
    }
    fn transform_state(&self, _: usize) -> Option<Self> {
        unimplemented!()
    }
}
