//! Embeds an rpath to libtorch (found through `LIBTORCH`, set by `.cargo/config.toml` to the
//! link made by `scripts/setup`) so binaries, tests and benches run without LD_LIBRARY_PATH.
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    println!("cargo:rerun-if-changed=build.rs");
    let Ok(libtorch) = std::env::var("LIBTORCH") else {
        return;
    };
    let dir = PathBuf::from(libtorch);
    let lib = dir.canonicalize().unwrap_or(dir).join("lib");
    if !lib.join("libtorch_cpu.so").exists() {
        println!(
            "cargo:warning=libtorch not found at {} — run scripts/setup first",
            lib.display()
        );
    }
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
    println!("cargo:rerun-if-changed={}", lib.display());
}
