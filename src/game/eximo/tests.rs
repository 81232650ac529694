//! The rules core's own checks: the start position, the state's size, the target table.

use super::*;

#[test]
fn start_position_notation() {
    let s = Eximo::start(GameKind::Eximo, RulesConfig::default());
    let text = s.to_notation();
    assert!(text.starts_with("black b1:b b2:b b3:b b6:w b7:w b8:w c1:b"));
    let back = Eximo::from_notation(GameKind::Eximo, &text, RulesConfig::default()).unwrap();
    assert_eq!(back.to_notation(), text);
    assert_eq!(back.position_hash(), s.position_hash());
    assert_eq!(s.compute_hash(), s.position_hash());
}

#[test]
fn state_is_small_and_copy() {
    fn is_copy<T: Copy>() {}
    is_copy::<Eximo>();
    assert!(std::mem::size_of::<Eximo>() <= 48);
}

#[test]
fn target_table_edges() {
    assert_eq!(TARGET[0][0], [8, 16]);
    assert_eq!(TARGET[7][1], [NONE, NONE]);
    assert_eq!(TARGET[6][1][1], NONE);
    assert_eq!(TARGET[63][4], [55, 47]);
}
