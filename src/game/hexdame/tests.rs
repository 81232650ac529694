//! The rules core's own checks: tables, actions, the start position.

use super::*;

#[test]
fn tables_match_hex_grid() {
    let grid = HexGrid::new(4);
    assert_eq!(grid.len(), CELLS);
    for c in 0..CELLS {
        assert_eq!(grid.cells[c], coord_of(c as u8));
        for d in 0..6 {
            assert_eq!(grid.neighbour[c][d], T.neigh[c][d]);
            let ray: Vec<u8> = grid.ray(c as u8, d).collect();
            assert_eq!(ray.len(), T.ray_len[c][d] as usize);
            assert_eq!(&ray[..], &T.ray[c][d][..ray.len()]);
        }
    }
    assert_eq!(T.promo[WHITE].count_ones(), 9);
    assert_eq!(T.promo[RED].count_ones(), 9);
}

#[test]
fn actions_round_trip() {
    for a in 0..NUM_ACTIONS as Action {
        let (f, d, k) = decode_action(a);
        assert_eq!(encode_action(f, d, k), a);
    }
}

#[test]
fn start_hash_and_notation() {
    let s = HexDame::start(GameKind::Hexdame, RulesConfig::default());
    assert_eq!(s.position_hash(), s.compute_hash());
    let t = HexDame::from_notation(GameKind::Hexdame, &s.to_notation(), s.rules).unwrap();
    assert_eq!(t.position_hash(), s.position_hash());
    assert_eq!(s.pieces[WHITE].count_ones(), 16);
    assert_eq!(s.pieces[RED].count_ones(), 16);
}
