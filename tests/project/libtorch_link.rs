//! Proves the libtorch link: a small tensor computation through tch.
use tch::{Device, Kind, Tensor};

#[test]
fn tensor_matmul_runs_on_cpu() {
    let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).reshape([2, 2]);
    let b = Tensor::eye(2, (Kind::Float, Device::Cpu)) * 2.0;
    let c = a.matmul(&b);
    let values: Vec<f32> = Vec::try_from(c.flatten(0, -1)).unwrap();
    assert_eq!(values, vec![2.0, 4.0, 6.0, 8.0]);
}

/// Nothing calls libtorch_cuda directly, so without build.rs's `--no-as-needed` the linker
/// drops it and libtorch never registers CUDA: `Cuda::is_available()` is false even on a
/// GPU machine (what the first run on an H100 found). Every binary, this test's included,
/// must load it whenever the libtorch built against has it.
#[test]
fn libtorch_cuda_is_loaded_where_the_libtorch_has_it() {
    let Some(libtorch) = option_env!("LIBTORCH") else {
        eprintln!("skipped: LIBTORCH was not set at build time");
        return;
    };
    let cuda = std::path::Path::new(libtorch).join("lib/libtorch_cuda.so");
    if !cuda.exists() {
        eprintln!("skipped: {libtorch} has no libtorch_cuda.so (a CPU build)");
        return;
    }
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    assert!(
        maps.contains("libtorch_cuda.so"),
        "libtorch_cuda.so is not loaded in this process"
    );
}
