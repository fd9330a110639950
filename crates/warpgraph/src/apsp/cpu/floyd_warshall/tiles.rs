//! One round of the blocked schedule (Venkataraman, Sahni and Mukhopadhyaya) over the
//! 64 x 64 tiles of the working matrix, and its tile kernels: phase 1 on the diagonal
//! tile, phase 2 on the tiles of its row and column, phase 3 on every other tile, rayon
//! over independent tiles and row blocks. The kernels of phases 2 and 3 are compiled for
//! the baseline, AVX2 and AVX-512 (`multiversion`) and picked by [`Isa`].

use rayon::prelude::*;

use super::cell::{Cell, T};

/// An instruction set the Floyd-Warshall tile kernels are compiled for: a run uses the
/// best one the processor has ([`Isa::best`]), or a lower one given to
/// [`floyd_warshall_with_isa`](super::floyd_warshall_with_isa) (every choice computes the same result; the choice exists
/// so that each compilation can be run and compared on one machine).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Base,
    /// AVX2 and FMA (x86-64).
    Avx2,
    /// AVX-512 F, BW, VL and DQ, with AVX2 and FMA (x86-64).
    Avx512,
}

impl Isa {
    /// Every instruction set, from the lowest.
    pub const ALL: [Isa; 3] = [Isa::Base, Isa::Avx2, Isa::Avx512];

    /// The best instruction set this processor has.
    ///
    /// ```
    /// use warpgraph::apsp::cpu::Isa;
    /// assert!(Isa::best() >= Isa::Base);
    /// assert!(Isa::best().available());
    /// ```
    pub fn best() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma");
            if avx2
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512dq")
            {
                return Isa::Avx512;
            }
            if avx2 {
                return Isa::Avx2;
            }
        }
        Isa::Base
    }

    /// Whether this processor can run the kernels compiled for `self` (every set below
    /// [`Isa::best`] is included in it).
    pub fn available(self) -> bool {
        self <= Isa::best()
    }
}

impl Default for Isa {
    /// [`Isa::best`].
    fn default() -> Isa {
        Isa::best()
    }
}

/// A 64 x 64 tile, row-major, as fixed-size rows.
type Tile<C> = Vec<[C; T]>;

fn tile_from<C: Copy>(d: &[C], stride: usize, row: usize, col: usize, zero: C) -> Vec<[C; T]> {
    (0..T)
        .map(|i| {
            let mut r = [zero; T];
            let start = (row + i) * stride + col;
            r.copy_from_slice(&d[start..start + T]);
            r
        })
        .collect()
}

fn tile_to<C: Copy>(t: &[[C; T]], d: &mut [C], stride: usize, row: usize, col: usize) {
    for (i, r) in t.iter().enumerate() {
        let start = (row + i) * stride + col;
        d[start..start + T].copy_from_slice(r);
    }
}

/// One round of the blocked schedule for diagonal tile `kb`. Returns a vertex with a
/// negative distance to itself if phase 1 finds one.
pub(super) fn round<C: Cell>(
    isa: Isa,
    kb: usize,
    big: usize,
    thr: C,
    d: &mut [C],
    mut p: Option<&mut [u32]>,
) -> Option<usize> {
    let base = kb * T;
    // Phase 1: the diagonal tile, serially.
    let mut dt = tile_from(d, big, base, base, C::ZERO);
    let mut pdt = p.as_deref().map(|p| tile_from(p, big, base, base, 0));
    if let Some(i) = phase1(&mut dt, pdt.as_deref_mut(), thr) {
        return Some(base + i);
    }
    tile_to(&dt, d, big, base, base);
    if let (Some(p), Some(pdt)) = (p.as_deref_mut(), &pdt) {
        tile_to(pdt, p, big, base, base);
    }

    // Phase 2a: the row tiles (K, J), in parallel over J.
    let rounds = big / T;
    let krows = base * big..(base + T) * big;
    {
        let mut tiles: Vec<Vec<&mut [C]>> = (0..rounds).map(|_| Vec::with_capacity(T)).collect();
        for row in d[krows.clone()].chunks_exact_mut(big) {
            for (j, seg) in row.chunks_exact_mut(T).enumerate() {
                tiles[j].push(seg);
            }
        }
        let mut ptiles: Vec<Vec<&mut [u32]>> = (0..rounds).map(|_| Vec::new()).collect();
        if let Some(p) = p.as_deref_mut() {
            for row in p[krows.clone()].chunks_exact_mut(big) {
                for (j, seg) in row.chunks_exact_mut(T).enumerate() {
                    ptiles[j].push(seg);
                }
            }
        }
        let dt = &dt;
        let has_pred = pdt.is_some();
        tiles
            .into_par_iter()
            .zip(ptiles)
            .enumerate()
            .filter(|(j, _)| *j != kb)
            .for_each(|(_, (rows, prows))| {
                let mut tile: Tile<C> = rows
                    .iter()
                    .map(|r| {
                        let mut a = [C::ZERO; T];
                        a.copy_from_slice(r);
                        a
                    })
                    .collect();
                let mut ptile: Option<Tile<u32>> = has_pred.then(|| {
                    prows
                        .iter()
                        .map(|r| {
                            let mut a = [0; T];
                            a.copy_from_slice(r);
                            a
                        })
                        .collect()
                });
                phase2_row(isa, &mut tile, ptile.as_deref_mut(), dt, thr);
                for (r, t) in rows.into_iter().zip(&tile) {
                    r.copy_from_slice(t);
                }
                if let Some(ptile) = &ptile {
                    for (r, t) in prows.into_iter().zip(ptile) {
                        r.copy_from_slice(t);
                    }
                }
            });
    }

    // The row block K, tiled J-major, shared read-only by phase 3.
    let ktiles: Tile<C> = (0..rounds)
        .flat_map(|j| tile_from(d, big, base, j * T, C::ZERO))
        .collect();
    let pktiles: Option<Tile<u32>> = p.as_deref().map(|p| {
        (0..rounds)
            .flat_map(|j| tile_from(p, big, base, j * T, 0))
            .collect()
    });

    // Phases 2b and 3: every other row block, in parallel.
    let stride = T * big;
    let (before, rest) = d.split_at_mut(base * big);
    let after = rest.get_mut(stride..).unwrap_or_default();
    let mut tasks: Vec<(&mut [C], Option<&mut [u32]>)> = before
        .chunks_exact_mut(stride)
        .chain(after.chunks_exact_mut(stride))
        .map(|c| (c, None))
        .collect();
    if let Some(p) = p {
        let (pb, prest) = p.split_at_mut(base * big);
        let pa = prest.get_mut(stride..).unwrap_or_default();
        for (task, pc) in tasks.iter_mut().zip(
            pb.chunks_exact_mut(stride)
                .chain(pa.chunks_exact_mut(stride)),
        ) {
            task.1 = Some(pc);
        }
    }
    let args = Phase3 {
        kb,
        big,
        thr,
        dt: &dt,
        pdt: pdt.as_deref(),
        ktiles: &ktiles,
        pktiles: pktiles.as_deref(),
    };
    tasks.into_par_iter().for_each(|(block, pblock)| {
        phase3(isa, &args, block, pblock);
    });
    None
}

/// Plain Floyd-Warshall on the diagonal tile; returns `i` as soon as `dt[i][i] < 0`.
fn phase1<C: Cell>(dt: &mut [[C; T]], mut pdt: Option<&mut [[u32; T]]>, thr: C) -> Option<usize> {
    for k in 0..T {
        let rowk = dt[k];
        let prowk = pdt.as_deref().map(|p| p[k]);
        for i in 0..T {
            let a = dt[i][k];
            if i == k || a >= thr {
                continue;
            }
            match (pdt.as_deref_mut(), &prowk) {
                (Some(p), Some(pk)) => C::relax_pred(&mut dt[i], &mut p[i], a, &rowk, pk),
                _ => C::relax(&mut dt[i], a, &rowk),
            }
        }
        if let Some(i) = (0..T).find(|&i| dt[i][i] < C::ZERO) {
            return Some(i);
        }
    }
    None
}

/// Phase 2, row tile `(K, J)`: `tile[k'] = min(tile[k'], dt[k'][k] + tile[k])` over pivots k.
#[inline(always)]
fn phase2_row_body<C: Cell>(
    tile: &mut [[C; T]],
    mut ptile: Option<&mut [[u32; T]]>,
    dt: &[[C; T]],
    thr: C,
) {
    for k in 0..T {
        let rowk = tile[k];
        let prowk = ptile.as_deref().map(|p| p[k]);
        for (i, drow) in dt.iter().enumerate() {
            let a = drow[k];
            if i == k || a >= thr {
                continue;
            }
            match (ptile.as_deref_mut(), &prowk) {
                (Some(p), Some(pk)) => C::relax_pred(&mut tile[i], &mut p[i], a, &rowk, pk),
                _ => C::relax(&mut tile[i], a, &rowk),
            }
        }
    }
}

/// Read-only inputs of phase 3.
struct Phase3<'a, C> {
    kb: usize,
    big: usize,
    thr: C,
    dt: &'a [[C; T]],
    pdt: Option<&'a [[u32; T]]>,
    ktiles: &'a [[C; T]],
    pktiles: Option<&'a [[u32; T]]>,
}

/// Phase 2 for the column tile `(I, K)` of one row block, then phase 3 for its other tiles.
#[inline(always)]
fn phase3_body<C: Cell>(args: &Phase3<'_, C>, block: &mut [C], mut pblock: Option<&mut [u32]>) {
    let (big, base, thr) = (args.big, args.kb * T, args.thr);
    // Phase 2b: row i of the column tile, pivots k of the diagonal tile.
    let mut at: Tile<C> = Vec::with_capacity(T);
    for (i, row) in block.chunks_exact_mut(big).enumerate() {
        let mut acc = [C::ZERO; T];
        acc.copy_from_slice(&row[base..base + T]);
        let prow = pblock
            .as_deref_mut()
            .and_then(|p| p.get_mut(i * big..(i + 1) * big));
        match (prow, args.pdt) {
            (Some(prow), Some(pdt)) => {
                let mut pacc = [0u32; T];
                pacc.copy_from_slice(&prow[base..base + T]);
                for k in 0..T {
                    let a = acc[k];
                    if a < thr {
                        C::relax_pred(&mut acc, &mut pacc, a, &args.dt[k], &pdt[k]);
                    }
                }
                prow[base..base + T].copy_from_slice(&pacc);
            }
            _ => {
                for k in 0..T {
                    let a = acc[k];
                    if a < thr {
                        C::relax(&mut acc, a, &args.dt[k]);
                    }
                }
            }
        }
        row[base..base + T].copy_from_slice(&acc);
        at.push(acc);
    }
    // Phase 3: tile (I, J) = min(tile, (I, K) (x) (K, J)).
    let rounds = big / T;
    for j in (0..rounds).filter(|&j| j != args.kb) {
        let bt = &args.ktiles[j * T..(j + 1) * T];
        let pbt = args.pktiles.map(|p| &p[j * T..(j + 1) * T]);
        let col = j * T;
        if pbt.is_none() {
            // Two rows at a time: each loaded row of (K, J) serves both.
            for (i, pair) in at.chunks_exact(2).enumerate() {
                let (s0, s1) = (2 * i * big + col, (2 * i + 1) * big + col);
                let mut c0 = [C::ZERO; T];
                let mut c1 = [C::ZERO; T];
                c0.copy_from_slice(&block[s0..s0 + T]);
                c1.copy_from_slice(&block[s1..s1 + T]);
                let (c0, c1) = kloop2(c0, c1, &pair[0], &pair[1], bt, thr);
                block[s0..s0 + T].copy_from_slice(&c0);
                block[s1..s1 + T].copy_from_slice(&c1);
            }
            continue;
        }
        for (i, arow) in at.iter().enumerate() {
            let start = i * big + col;
            let mut acc = [C::ZERO; T];
            acc.copy_from_slice(&block[start..start + T]);
            match (pbt, pblock.as_deref_mut()) {
                (Some(pbt), Some(pb)) => {
                    let mut pacc = [0u32; T];
                    pacc.copy_from_slice(&pb[start..start + T]);
                    let (c, p) = kloop_pred(acc, pacc, arow, bt, pbt, thr);
                    acc = c;
                    pb[start..start + T].copy_from_slice(&p);
                }
                _ => {
                    for k in 0..T {
                        let a = arow[k];
                        if a < thr {
                            C::relax(&mut acc, a, &bt[k]);
                        }
                    }
                }
            }
            block[start..start + T].copy_from_slice(&acc);
        }
    }
}

/// Rows `c0` and `c1` of a tile `(I, J)` through the pivots of `bt` (tile `(K, J)`), with
/// `a0`, `a1` their rows of tile `(I, K)`. By value, so the rows live in registers.
#[inline(always)]
fn kloop2<C: Cell>(
    mut c0: [C; T],
    mut c1: [C; T],
    a0: &[C; T],
    a1: &[C; T],
    bt: &[[C; T]],
    thr: C,
) -> ([C; T], [C; T]) {
    for ((&x0, &x1), b) in a0.iter().zip(a1).zip(bt) {
        if x0 < thr {
            C::relax(&mut c0, x0, b);
        }
        if x1 < thr {
            C::relax(&mut c1, x1, b);
        }
    }
    (c0, c1)
}

/// One row `c` (predecessors `p`) of a tile `(I, J)` through the pivots of `bt` (tile
/// `(K, J)`, predecessors `pbt`), with `a` its row of tile `(I, K)`.
#[inline(always)]
fn kloop_pred<C: Cell>(
    mut c: [C; T],
    mut p: [u32; T],
    a: &[C; T],
    bt: &[[C; T]],
    pbt: &[[u32; T]],
    thr: C,
) -> ([C; T], [u32; T]) {
    for ((&x, b), pb) in a.iter().zip(bt).zip(pbt) {
        if x < thr {
            C::relax_pred(&mut c, &mut p, x, b, pb);
        }
    }
    (c, p)
}

/// Dispatches a tile routine to its baseline, AVX2 or AVX-512 compilation.
macro_rules! multiversion {
    ($name:ident, $body:ident, <$C:ident>, ($($arg:ident : $ty:ty),*)) => {
        fn $name<$C: Cell>(isa: Isa, $($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,fma")]
                fn avx2<$C: Cell>($($arg: $ty),*) {
                    $body::<$C>($($arg),*)
                }
                #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")]
                fn avx512<$C: Cell>($($arg: $ty),*) {
                    $body::<$C>($($arg),*)
                }
                match isa {
                    // SAFETY: every run caps its `Isa` by `Isa::best`, which returns this
                    // variant only after `is_x86_feature_detected!` confirmed every feature
                    // enabled above.
                    Isa::Avx512 => return unsafe { avx512::<$C>($($arg),*) },
                    // SAFETY: as above: `Isa::best` is at least `Avx2` only where AVX2 and
                    // FMA were detected.
                    Isa::Avx2 => return unsafe { avx2::<$C>($($arg),*) },
                    Isa::Base => {}
                }
            }
            let _ = isa;
            $body::<$C>($($arg),*)
        }
    };
}

multiversion!(phase2_row, phase2_row_body, <C>, (
    tile: &mut [[C; T]],
    ptile: Option<&mut [[u32; T]]>,
    dt: &[[C; T]],
    thr: C
));
multiversion!(phase3, phase3_body, <C>, (
    args: &Phase3<'_, C>,
    block: &mut [C],
    pblock: Option<&mut [u32]>
));
