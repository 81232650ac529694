//! Training: the learner's runs, its parts, precision and the learning benchmark.
//! One test binary (one link of libtorch), a module per part.

#[path = "../common/mod.rs"]
mod common;

mod bench_learning;
mod precision;
mod train;
mod train_parts;
