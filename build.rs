//! Embeds an rpath to libtorch (found through `LIBTORCH`, set by `.cargo/config.toml` to the
//! link made by `scripts/setup`) so binaries, tests and benches run without LD_LIBRARY_PATH,
//! and records libtorch's version.
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
    // Nothing in the binary calls libtorch_cuda directly, so the linker's --as-needed drops
    // it and libtorch never registers its CUDA backend: `Cuda::is_available()` says false
    // on a GPU machine. Keep it as a dependency whenever this libtorch has it.
    if lib.join("libtorch_cuda.so").exists() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed,-ltorch_cuda,--as-needed");
    }
    // The libtorch version, for the precision probe's cache key: `build-version` of a
    // libtorch download, or `version.py` of a Python torch package.
    let root = lib.parent().unwrap_or(&lib).to_path_buf();
    let from_python = || {
        let text = std::fs::read_to_string(root.join("version.py")).ok()?;
        let line = text.lines().find(|l| l.starts_with("__version__"))?;
        Some(line.split('\'').nth(1)?.to_string())
    };
    let version = std::fs::read_to_string(root.join("build-version"))
        .ok()
        .map(|v| v.trim().to_string())
        .or_else(from_python);
    if let Some(version) = version {
        println!("cargo:rustc-env=CHECKERS_ZERO_TORCH_VERSION={version}");
    }
    println!("cargo:rerun-if-changed={}", lib.display());
}
