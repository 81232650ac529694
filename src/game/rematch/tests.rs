//! The rules core's own checks: tables, stacks, the state's size, the hash.

use super::*;

#[test]
#[allow(clippy::needless_range_loop)]
fn tables_match_hex_grid() {
    let grid = HexGrid::new(2);
    for c in 0..CELLS {
        assert_eq!(grid.cells[c], coord(c));
        for d in 0..6 {
            assert_eq!(grid.neighbour[c][d], RAY[c][d][0]);
            let ray: Vec<u8> = grid.ray(c as u8, d).collect();
            for k in 0..MAX_DIST {
                assert_eq!(ray.get(k).copied().unwrap_or(NONE), RAY[c][d][k]);
            }
        }
    }
}

#[test]
fn stack_packing() {
    let mut s = single(WHITE);
    s = push_bottom(s, RED);
    s = push_bottom(s, ORANGE);
    assert_eq!(height(s), 3);
    assert_eq!(top(s), WHITE);
    assert_eq!(piece_at(s, 0), ORANGE);
    s = pop_top(s);
    assert_eq!(top(s), RED);
    s = pop_top(s);
    s = pop_top(s);
    assert_eq!(s, 0);
    let mut tall = single(RED);
    for i in 0..11 {
        tall = push_bottom(tall, (i % 3) as u8);
    }
    assert_eq!(height(tall), 12);
    assert_eq!(top(tall), RED);
}

#[test]
fn cell_indices_grow_along_the_first_three_directions() {
    for (c, rays) in RAY.iter().enumerate() {
        for (d, ray) in rays.iter().enumerate() {
            for &x in ray.iter().filter(|&&x| x != NONE) {
                assert_eq!(x as usize > c, d < 3);
            }
        }
    }
}

#[test]
fn state_is_small() {
    assert!(std::mem::size_of::<Rematch>() <= 160);
}

#[test]
fn hash_recomputes() {
    let s = Rematch::start(GameKind::Rematch, RulesConfig::default());
    assert_eq!(s.piece_hash, s.recompute_piece_hash());
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "incremental hash")]
fn a_wrong_incremental_hash_is_caught_by_the_next_step() {
    let mut s = Rematch::start(GameKind::Rematch, RulesConfig::default());
    s.piece_hash ^= 1;
    let mut steps = StepList::new();
    s.legal_steps(&mut steps);
    s.apply_step(steps[0]);
}
