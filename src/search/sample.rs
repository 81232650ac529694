//! The one temperature sampler: picks an index with probability proportional to its
//! weight raised to `1/temperature` (self-play samples its played step from the policy
//! target with it).

use rand::Rng;

/// Samples an index of `weights` with probability proportional to `weight^(1/temperature)`;
/// with a temperature near zero (or fewer than two weights), the largest weight.
pub fn sample_with_temperature(weights: &[f32], temperature: f32, rng: &mut impl Rng) -> usize {
    let best = (0..weights.len())
        .max_by(|&a, &b| weights[a].total_cmp(&weights[b]))
        .unwrap_or(0);
    if temperature <= 0.01 || weights.len() < 2 {
        return best;
    }
    let max = weights[best].max(1e-30) as f64;
    // Normalised by the largest weight before the power, so high powers do not overflow.
    let powered: Vec<f64> = weights
        .iter()
        .map(|&w| (w.max(0.0) as f64 / max).powf(1.0 / temperature as f64))
        .collect();
    let total: f64 = powered.iter().sum();
    if !(total > 0.0 && total.is_finite()) {
        return best;
    }
    let mut pick = rng.gen_range(0.0..total);
    for (i, w) in powered.iter().enumerate() {
        if pick < *w {
            return i;
        }
        pick -= w;
    }
    best
}
