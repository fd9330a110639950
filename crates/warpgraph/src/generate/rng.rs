//! A small, fast, seedable random number generator for the generators.
//!
//! [`Rng`] is xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number
//! generators", ACM TOMS 2021; <https://prng.di.unimi.it/>), seeded through SplitMix64
//! (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) so
//! that any 64-bit seed, 0 included, gives a well-mixed state.
//!
//! Parallel generators never share a stream: the edge index space is cut into fixed-size
//! blocks and each block gets its own generator from [`Rng::for_block`], a hash of
//! `(seed, stream, block)`. The output is then a function of the seed alone, whatever the
//! number of threads.
//!
//! ```
//! use warpgraph::generate::rng::Rng;
//! let mut a = Rng::for_block(42, 7, 3);
//! let mut b = Rng::for_block(42, 7, 3);
//! assert_eq!(a.next_u64(), b.next_u64());
//! let x = a.below(10);
//! assert!(x < 10);
//! let f = a.next_f64();
//! assert!((0.0..1.0).contains(&f));
//! ```

/// The SplitMix64 output function: a bijective 64-bit mixer with good avalanche.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The SplitMix64 increment (the golden-ratio "Weyl" constant).
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// Hashes `(seed, stream, block)` to one 64-bit value; distinct inputs give independent
/// looking outputs.
#[inline]
pub fn hash3(seed: u64, stream: u64, block: u64) -> u64 {
    let h = mix64(seed.wrapping_add(GOLDEN));
    let h = mix64(
        h ^ stream
            .wrapping_mul(GOLDEN)
            .wrapping_add(0x632b_e59b_d9b4_e019),
    );
    mix64(
        h ^ block
            .wrapping_mul(0xd1b5_4a32_d192_ed03)
            .wrapping_add(GOLDEN),
    )
}

/// xoshiro256**: 256 bits of state, period 2^256 - 1, passes BigCrush.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator seeded from `seed` through SplitMix64.
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(GOLDEN);
            mix64(x)
        };
        let mut s = [next(), next(), next(), next()];
        if s == [0; 4] {
            // The only state xoshiro cannot leave; SplitMix64 practically never yields it.
            s[0] = GOLDEN;
        }
        Rng { s }
    }

    /// The generator for one block of one stream: seeded from a hash of all three.
    pub fn for_block(seed: u64, stream: u64, block: u64) -> Rng {
        Rng::new(hash3(seed, stream, block))
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n`, without bias (Lemire, "Fast random integer generation
    /// in an interval", ACM TOMACS 2019). Returns 0 when `n` is 0.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        let mut low = m as u64;
        if low < n {
            // Reject the few values that would make some outcomes more likely.
            let threshold = n.wrapping_neg() % n.max(1);
            while low < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
                low = m as u64;
            }
        }
        (m >> 64) as u64
    }

    /// A uniform integer in `lo..=hi` (any `lo <= hi`, the full `i64` range included).
    /// Returns `lo` when `hi < lo`.
    #[inline]
    pub fn range_i64(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = hi.wrapping_sub(lo) as u64; // hi - lo, exact in u64
        let offset = if span == u64::MAX {
            self.next_u64()
        } else {
            self.below(span + 1)
        };
        lo.wrapping_add(offset as i64)
    }

    /// A uniform `f64` in `[0, 1)` with 53 random bits (every multiple of 2^-53).
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xoshiro_reference_values() {
        // Reference: the C implementation with state {1, 2, 3, 4}.
        let mut r = Rng { s: [1, 2, 3, 4] };
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(got, vec![11520, 0, 1509978240]);
    }

    #[test]
    fn splitmix_reference_value() {
        // SplitMix64 from seed 0: first output is mix64(GOLDEN).
        assert_eq!(mix64(GOLDEN), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = Rng::new(1);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[r.below(7) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
        for _ in 0..1000 {
            assert!(r.below(3) < 3);
            assert!(r.below(u64::MAX) < u64::MAX);
        }
    }

    #[test]
    fn ranges_and_floats() {
        let mut r = Rng::new(2);
        for _ in 0..10_000 {
            let x = r.range_i64(-5, 5);
            assert!((-5..=5).contains(&x));
            let f = r.next_f64();
            assert!((0.0..1.0).contains(&f));
        }
        assert_eq!(r.range_i64(3, 3), 3);
        // The full range works without overflow.
        let _ = r.range_i64(i64::MIN, i64::MAX);
        let seen_neg = (0..100).any(|_| r.range_i64(i64::MIN, i64::MAX) < 0);
        assert!(seen_neg);
    }

    #[test]
    fn blocks_differ() {
        let a = Rng::for_block(1, 2, 3).next_u64();
        assert_ne!(a, Rng::for_block(1, 2, 4).next_u64());
        assert_ne!(a, Rng::for_block(1, 3, 3).next_u64());
        assert_ne!(a, Rng::for_block(2, 2, 3).next_u64());
    }
}
