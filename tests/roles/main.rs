//! The roles as processes over a store: a distributed run, its faults, and S3.
//! One test binary (one link of libtorch), a module per part.

#[path = "../common/mod.rs"]
mod common;

mod chaos;
mod distributed;
mod store_s3;
