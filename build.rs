//! Embeds an rpath to libtorch (found through `LIBTORCH`, set by `.cargo/config.toml` to the
//! link made by `scripts/setup`) so binaries, tests and benches run without LD_LIBRARY_PATH,
//! records libtorch's version, and compiles `src/net/cuda_shim.cpp` (CUDA streams and graphs,
//! which tch does not wrap) when this libtorch has CUDA and the CUDA headers are found.
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(cuda_shim)");
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
    cuda_shim(&root, &lib);
}

/// Compiles the CUDA shim and sets `cfg(cuda_shim)`, when libtorch at `root` has CUDA and
/// the CUDA runtime's headers are found: `CHECKERS_ZERO_CUDA_INCLUDE`, the `nvidia` or
/// `triton` packages beside a Python torch, or `/usr/local/cuda` (`CHECKERS_ZERO_NO_CUDA_SHIM`:
/// never). Otherwise the build goes on without it (the
/// GPU then runs eagerly on the default stream) and says why.
fn cuda_shim(root: &Path, lib: &Path) {
    println!("cargo:rerun-if-changed=src/net/cuda_shim.cpp");
    println!("cargo:rerun-if-env-changed=CHECKERS_ZERO_CUDA_INCLUDE");
    println!("cargo:rerun-if-env-changed=CHECKERS_ZERO_NO_CUDA_SHIM");
    if std::env::var_os("CHECKERS_ZERO_NO_CUDA_SHIM").is_some() {
        return;
    }
    let include = root.join("include");
    if !lib.join("libc10_cuda.so").exists() || !include.join("ATen/cuda/CUDAGraph.h").exists() {
        return;
    }
    let site = root.parent().map(Path::to_path_buf).unwrap_or_default();
    let candidates = std::env::var("CHECKERS_ZERO_CUDA_INCLUDE")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            [
                "nvidia/cu13/include",
                "nvidia/cuda_runtime/include",
                "triton/backends/nvidia/include",
            ]
            .map(|d| site.join(d)),
        )
        .chain([PathBuf::from("/usr/local/cuda/include")]);
    // The runtime's headers and the compiler's `crt/` that they include, in one place.
    let whole =
        |d: &PathBuf| d.join("cuda_runtime_api.h").exists() && d.join("crt/host_config.h").exists();
    let Some(cuda) = candidates.into_iter().find(whole) else {
        println!("cargo:warning=CUDA headers not found: built without CUDA graphs and streams");
        return;
    };
    let abi = std::env::var("LIBTORCH_CXX11_ABI").unwrap_or_else(|_| "1".into());
    let built = cc::Build::new()
        .cpp(true)
        .file("src/net/cuda_shim.cpp")
        .include(&include)
        .include(&cuda)
        .flag("-std=c++17")
        .flag(format!("-D_GLIBCXX_USE_CXX11_ABI={abi}"))
        .warnings(false)
        .try_compile("checkers_zero_cuda_shim");
    match built {
        Ok(()) => {
            println!("cargo:rustc-link-search=native={}", lib.display());
            println!("cargo:rustc-link-lib=dylib=c10_cuda");
            println!("cargo:rustc-link-lib=dylib=c10");
            println!("cargo:rustc-cfg=cuda_shim");
        }
        Err(e) => println!("cargo:warning=the CUDA shim did not compile ({e}): built without CUDA graphs and streams"),
    }
}
