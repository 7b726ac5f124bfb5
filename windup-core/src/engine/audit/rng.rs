//! The audit's random choices: SplitMix64 (Steele, Lea and Flood, 2014), written out so that a
//! seed means the same walk on every platform and in every version of Windup — a property a
//! general-purpose generator crate does not promise across its releases.

#[derive(Debug, Clone)]
pub(super) struct Rng(u64);

impl Rng {
    #[cfg(test)]
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// A generator for one part of the audit, independent of how much the others drew.
    pub(super) fn fork(seed: u64, part: u64) -> Self {
        let mut rng = Rng(seed ^ part.wrapping_mul(0xA24B_AED4_963E_E407));
        rng.next();
        rng
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `[0, 1)`: 53 random bits.
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// An index below `n` (which is not zero).
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }

    /// An index chosen with a chance proportional to its weight; `None` when no weight is above
    /// zero.
    pub(super) fn weighted(&mut self, weights: &[f64]) -> Option<usize> {
        let total: f64 = weights.iter().filter(|w| **w > 0.0).sum();
        if total <= 0.0 {
            return None;
        }
        // 53 random bits, as a fraction of the total.
        let mut at = (self.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut last = None;
        for (index, weight) in weights.iter().enumerate().filter(|(_, w)| **w > 0.0) {
            if at < *weight {
                return Some(index);
            }
            at -= weight;
            last = Some(index);
        }
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_makes_the_same_sequence() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next()
            })
            .collect();
        let b: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next()
            })
            .collect();
        assert_eq!(a, b);
        // The published first output of SplitMix64 seeded with 0.
        assert_eq!(Rng::new(0).next(), 0xE220_A839_7B1D_CDAF);
        assert_ne!(Rng::fork(7, 1).next(), Rng::fork(7, 2).next());
    }

    #[test]
    fn a_weighted_choice_follows_the_weights_and_skips_what_weighs_nothing() {
        let mut rng = Rng::new(3);
        let mut counts = [0usize; 3];
        for _ in 0..10_000 {
            let n = rng.weighted(&[1.0, 0.0, 3.0]).expect("a choice");
            counts[n] += 1;
        }
        assert_eq!(counts[1], 0);
        let ratio = counts[2] as f64 / counts[0] as f64;
        assert!((2.7..3.3).contains(&ratio), "{counts:?}");
        assert_eq!(rng.weighted(&[0.0, -1.0]), None);
        assert_eq!(rng.weighted(&[]), None);
    }
}
