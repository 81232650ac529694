//! The rules cores, their perft counts, encodings and the conformance suite every game passes.
//! One test binary (one link of libtorch), a module per part.

#[path = "../common/mod.rs"]
mod common;

mod conformance;
mod encode_eximo;
mod encode_hexdame;
mod encode_rematch;
mod eximo_perft;
mod eximo_rules;
mod hexdame_perft;
mod hexdame_rules;
mod rematch_perft;
mod rematch_rules;
