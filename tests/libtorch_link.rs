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
