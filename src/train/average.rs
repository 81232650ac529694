//! Weight averaging (stochastic weight averaging over a run's last checkpoints): the mean of
//! several models' weights, and batch norm's running statistics re-estimated on positions
//! the caller gives (the `average` command: [`crate::export::average`]).

use anyhow::{bail, Context, Result};
use tch::{Kind, Tensor};

use crate::net::model::Model;

/// Sets every variable of `mean` (weights and batch-norm statistics) to its mean over
/// `models`.
pub fn average_into<'a>(mean: &Model, models: impl Iterator<Item = &'a Model>) -> Result<()> {
    let variables: Vec<_> = models.map(|m| m.var_store().variables()).collect();
    let _guard = tch::no_grad_guard();
    for (name, mut target) in mean.var_store().variables() {
        let mut sum = Tensor::zeros_like(&target).to_kind(Kind::Float);
        for vars in &variables {
            let var = vars
                .get(&name)
                .with_context(|| format!("a checkpoint lacks variable {name}"))?;
            sum += var.to_kind(Kind::Float);
        }
        target.copy_(&(sum / variables.len() as f64).to_kind(target.kind()));
    }
    Ok(())
}

/// Feeds `planes` (encoded positions, as many as fill whole batches of 256) through `model`
/// in training mode, so that batch norm's running statistics follow its weights; returns
/// the positions fed.
pub fn reestimate_norms(model: &Model, planes: &[f32]) -> Result<usize> {
    let shape = &model.meta().shape;
    let per = (shape.planes * shape.height * shape.width) as usize;
    let count = planes.len() / per;
    if count < 256 {
        bail!("{count} searched positions; 256 at least are needed");
    }
    let input = Tensor::from_slice(&planes[..count * per]).view([
        count as i64,
        shape.planes,
        shape.height,
        shape.width,
    ]);
    let _guard = tch::no_grad_guard();
    for start in (0..count - 255).step_by(256) {
        let batch = input.narrow(0, start as i64, 256).to_kind(model.kind());
        model.forward_outputs(&batch, true);
    }
    Ok(count)
}
