//! Small data-parallel primitives shared by builders, parsers and algorithms.

use rayon::prelude::*;

/// A raw pointer that may be shared between threads, for scatters where the caller
/// guarantees that no two threads write the same index.
#[derive(Clone, Copy)]
pub(crate) struct SharedMut<T>(*mut T);

// SAFETY: users promise disjoint writes (see `write`); T itself must be Send.
unsafe impl<T: Send> Send for SharedMut<T> {}
unsafe impl<T: Send> Sync for SharedMut<T> {}

impl<T> SharedMut<T> {
    pub(crate) fn new(slice: &mut [T]) -> Self {
        SharedMut(slice.as_mut_ptr())
    }

    /// Writes `value` at `index`.
    ///
    /// # Safety
    /// `index` is in bounds of the slice this was made from, that slice outlives every use,
    /// and no other thread reads or writes `index` concurrently.
    #[inline]
    pub(crate) unsafe fn write(self, index: usize, value: T) {
        self.0.add(index).write(value)
    }

    /// A mutable sub-slice.
    ///
    /// # Safety
    /// As for `write`, for every index of `start..start + len`.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn slice(&self, start: usize, len: usize) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.0.add(start), len)
    }
}

/// Exclusive prefix sum: `out[i] = counts[0] + ... + counts[i-1]`, with `out.len() ==
/// counts.len() + 1` and the total last. Parallel over blocks.
pub fn exclusive_scan(counts: &[u64]) -> Vec<u64> {
    const BLOCK: usize = 1 << 16;
    let mut out = vec![0u64; counts.len() + 1];
    let sums: Vec<u64> = counts.par_chunks(BLOCK).map(|c| c.iter().sum()).collect();
    let mut starts = Vec::with_capacity(sums.len());
    let mut acc = 0u64;
    for s in &sums {
        starts.push(acc);
        acc += s;
    }
    out[1..]
        .par_chunks_mut(BLOCK)
        .zip(counts.par_chunks(BLOCK))
        .zip(starts.par_iter())
        .for_each(|((o, c), &start)| {
            let mut acc = start;
            for (o, &c) in o.iter_mut().zip(c) {
                acc += c;
                *o = acc;
            }
        });
    out
}

/// Asks the processor to start loading `s[i]` into cache, when `i` is in range: a hint for
/// loops that will soon read memory at an address they know now (the rows a queue of
/// vertices will expand, say); it never faults and changes no result.
///
/// ```
/// let v = vec![1u32, 2, 3];
/// warpgraph::par::prefetch(&v, 2);
/// warpgraph::par::prefetch(&v, 99); // out of range: nothing
/// ```
#[inline(always)]
pub fn prefetch<T>(s: &[T], i: usize) {
    if let Some(x) = s.get(i) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint: it reads nothing and does not fault.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                (x as *const T).cast::<i8>(),
                std::arch::x86_64::_MM_HINT_T0,
            )
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = x;
    }
}

/// A value alone on its cache lines (two, for the adjacent-line prefetcher), so that
/// counters a team of threads hammers share no line with each other or with what the
/// team only reads.
#[repr(align(128))]
#[derive(Default)]
pub(crate) struct Padded<T>(pub(crate) T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

/// `n` copies of `x`, written in parallel: the vector's pages are mapped when it returns
/// (a fresh allocation faults on first touch; for results of millions of entries that
/// costs the host more than copying them).
pub(crate) fn premapped<T: Copy + Send + Sync>(n: usize, x: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.par_extend(rayon::iter::repeat_n(x, n));
    v
}

/// Copies `src` into `dst` (as long) on every core, in chunks: a result of millions of
/// entries moved between host buffers in a fraction of one core's time.
pub(crate) fn copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    assert_eq!(dst.len(), src.len(), "a copy between slices of one length");
    const CHUNK: usize = 1 << 16;
    dst.par_chunks_mut(CHUNK)
        .zip(src.par_chunks(CHUNK))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// Keeps `v` when it has `n` entries (whatever they hold), else makes it [`premapped`]
/// copies of `x`: a result vector for a search to write all of, reused when it can be.
pub(crate) fn sized<T: Copy + Send + Sync>(v: &mut Vec<T>, n: usize, x: T) {
    if v.len() != n {
        *v = premapped(n, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_matches_serial() {
        for n in [0usize, 1, 5, (1 << 16) + 3, 3 << 16] {
            let c: Vec<u64> = (0..n as u64).map(|i| i % 7).collect();
            let s = exclusive_scan(&c);
            let mut acc = 0;
            assert_eq!(s[0], 0);
            for i in 0..n {
                acc += c[i];
                assert_eq!(s[i + 1], acc);
            }
        }
    }
}
