//! Deterministic Zobrist keys: the same table on every run and machine, made at compile time.

/// One step of the splitmix64 generator: a well-mixed 64-bit value for each input.
pub const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A table of `N` keys; different `salt`s give unrelated tables.
pub const fn table<const N: usize>(salt: u64) -> [u64; N] {
    let mut keys = [0u64; N];
    let mut i = 0;
    while i < N {
        keys[i] = splitmix64(splitmix64(salt).wrapping_add(i as u64));
        i += 1;
    }
    keys
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_are_distinct() {
        let keys: [u64; 512] = super::table(7);
        let mut sorted = keys.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), keys.len());
    }
}
