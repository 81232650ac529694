//! Embeds the rpaths to libtorch into the extension module, so that it loads the libtorch
//! that `scripts/setup` installed (one copy on the machine): `$ORIGIN/../torch/lib` (the
//! `torch` package beside `checkers_zero` in the same site-packages) first, then the
//! absolute path of `.libtorch` used for the build.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN/../torch/lib");
    if let Ok(libtorch) = std::env::var("LIBTORCH") {
        let dir = PathBuf::from(libtorch);
        let lib = dir.canonicalize().unwrap_or(dir).join("lib");
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    }
}
