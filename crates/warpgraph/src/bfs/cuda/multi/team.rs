//! A team's searches: every rank's thread set up once, then each search on every rank
//! alike, the tree written by the ranks into the host's memory.

use std::time::Instant;

use super::dest::Dest;
use super::partition::Partition;
use super::rank::RankState;
use super::tuning::{TeamSetup, TeamTuning, LIST_CAP, LOCK_VERTICES, THREADS};
use crate::bfs::cuda::never_reached;
use crate::bfs::{check_args, BfsOptions, BfsTree};
use crate::cuda::team::{self, TeamSpec};
use crate::cuda::Gpu;
use crate::device::RunTimes;
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId};
use crate::par::sized;

/// What a team search returns.
#[derive(Debug, Clone)]
pub struct TeamRuns {
    /// One tree per source, on the process that drives rank 0 (`None` elsewhere).
    pub trees: Vec<Option<BfsTree>>,
    /// One time per source, the slowest local rank's: `seconds` from the start to the
    /// tree in the host's memory, `kernel_seconds` (CUDA events) to the end of the search,
    /// every GPU holding its range's depths and parents (for a team spread over
    /// processes: to the tree in rank 0's GPU memory).
    pub times: Vec<RunTimes>,
    /// Levels each search expanded, the host's first ones included (a level that can find
    /// nothing is not expanded, so this may be the tree's depth, not its depth + 1).
    pub levels: Vec<u32>,
    /// Whether the team took its short levels solo (as [`TeamSearch::solo`]).
    pub solo: bool,
    /// Whether the team exchanged its bitmaps in NCCL's symmetric memory (as
    /// [`TeamSearch::symmetric`]).
    pub symmetric: bool,
    /// Whether NCCL's all-gather in symmetric memory failed the team's check (as
    /// [`TeamSearch::symmetric_wrong`]).
    pub symmetric_wrong: bool,
    /// Seconds to set the team up: communicators, partition and upload.
    pub setup_seconds: f64,
}

/// One search of a team, as [`bfs_team_visit`](super::bfs_team_visit) hands it over once every rank is done.
#[derive(Debug, Clone, Copy)]
pub struct TeamSearch<'a> {
    /// Which of the searches (an index into them).
    pub index: usize,
    /// The tree, on the process that drives rank 0 (`None` elsewhere).
    pub tree: Option<&'a BfsTree>,
    /// The slowest rank's times: `seconds` from the start to the tree in the host's
    /// memory, `kernel_seconds` (CUDA events) to the end of the search, every GPU holding
    /// its range's depths and parents (for a team spread over processes: to the tree in
    /// rank 0's GPU memory).
    pub times: RunTimes,
    /// Levels the search expanded (as [`TeamRuns::levels`]).
    pub levels: u32,
    /// Whether the team took its short levels solo: each GPU the whole level alone, on
    /// its own copy of the graph, no collective. A team of several GPUs does so where
    /// every GPU has the memory for the whole graph's out-arcs beside its part; a team of
    /// one always works alone, and says no.
    pub solo: bool,
    /// Whether the team exchanged its bitmaps in NCCL's symmetric memory ([`SYMMETRIC`](super::tuning::SYMMETRIC)):
    /// a team of several GPUs over NCCL 2.27 or later does, where the check of its first
    /// all-gather there passed.
    pub symmetric: bool,
    /// Whether the team had NCCL's symmetric memory, but its check found the all-gather
    /// there delivering wrong data, so it kept its own buffers (the trees stay right).
    /// NCCL 2.28.3 on 4 H200s did so where a rank's part of the bitmap was not a whole
    /// number of 16 bytes, which the partition rules out.
    pub symmetric_wrong: bool,
}

/// The searches of [`team_searches`] with each of `tunings` (at least one), every tree
/// kept: one [`TeamRuns`] per tuning.
pub(super) fn every_tree(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    tunings: &[Tuning],
) -> Result<Vec<TeamRuns>> {
    let k = searches.len();
    let mut runs = vec![
        TeamRuns {
            trees: vec![None; k],
            times: vec![RunTimes::default(); k],
            levels: vec![0; k],
            solo: false,
            symmetric: false,
            symmetric_wrong: false,
            setup_seconds: 0.0,
        };
        tunings.len()
    ];
    let mut tree = BfsTree::default();
    let setup = team_searches(spec, g, searches, tunings, &mut tree, |s| {
        let r = &mut runs[s.index / k];
        let i = s.index % k;
        r.trees[i] = s.tree.cloned();
        r.times[i] = s.times;
        r.levels[i] = s.levels;
        r.solo = s.solo;
        r.symmetric = s.symmetric;
        r.symmetric_wrong = s.symmetric_wrong;
        Ok(())
    })?;
    for r in &mut runs {
        r.setup_seconds = setup;
    }
    Ok(runs)
}

/// The bounds a team's searches take their ways by (see [`bfs_team_lists`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Tuning {
    pub(super) list_cap: usize,
    pub(super) host_arcs: usize,
    pub(super) whole_degree: u64,
    /// A rank and the level at whose start it fails ([`bfs_team_failing`]).
    pub(super) fail_at: Option<(usize, u32)>,
    /// Blocks of a team of one's runs of short levels (0: none), and the most arcs of a
    /// level in a run.
    pub(super) run_blocks: u32,
    pub(super) run_arcs: u64,
    /// Solo short levels, bitmaps in symmetric memory.
    pub(super) setup: TeamSetup,
}

impl Tuning {
    /// A search of the team's own: `tuning`'s bounds, set up as `setup`.
    pub(super) fn of(tuning: &TeamTuning, setup: TeamSetup) -> Tuning {
        Tuning {
            list_cap: tuning.list_cap,
            host_arcs: tuning.host_arcs,
            whole_degree: tuning.whole_degree,
            fail_at: None,
            run_blocks: tuning.run_blocks,
            run_arcs: tuning.run_arcs,
            setup,
        }
    }
}

/// The caller's `visit`, as the first rank of the process holds it.
type Visit<'v> = &'v mut (dyn FnMut(&TeamSearch<'_>) -> Result<()> + Send);

/// The searches of [`bfs_team_visit`](super::bfs_team_visit), their ways bounded by each of `tunings` in turn
/// (at least one; all of one `setup`), all on one setup of the team: `visit` sees search
/// `i` of tuning `t` as index `t * searches.len() + i`.
pub(super) fn team_searches(
    spec: &TeamSpec,
    g: &Graph,
    searches: &[(VertexId, BfsOptions)],
    tunings: &[Tuning],
    tree: &mut BfsTree,
    mut visit: impl FnMut(&TeamSearch<'_>) -> Result<()> + Send,
) -> Result<f64> {
    let n = g.num_vertices();
    for (s, opts) in searches {
        check_args(g, *s, opts)?;
    }
    if n >= u32::MAX as usize - 64 {
        return Err(Error::TooLarge {
            what: "vertices for the multi-GPU BFS".into(),
            value: n as u64,
            limit: u32::MAX as u64 - 64,
        });
    }
    let start = Instant::now();
    let part = Partition::new(n, spec.world);
    // One process driving every GPU: each rank copies its part of the tree straight into
    // the host's arrays. Spread over processes: the parts go to rank 0 over NCCL first.
    let gather = !spec.is_whole();
    let mut dest = match spec.has_root() {
        true => {
            sized(&mut tree.depth, n, 0);
            sized(&mut tree.parent, n, 0);
            Some(Dest::of(tree))
        }
        false => None,
    };
    // The tree page-locked in place for all the searches: each rank's copies land in it
    // straight (through a page-locked buffer, the second copy, on into the tree, would
    // cost more than the first). Where the driver
    // refuses, or for a small tree, through each rank's own page-locked buffer.
    let _locked = match (dest.as_mut(), spec.gpus.first()) {
        (Some(d), Some(&ordinal)) if n >= LOCK_VERTICES => match Gpu::open(ordinal) {
            // SAFETY: the tree's vectors are neither freed nor moved before the end of
            // this function (`Dest::of`), and `_locked` is dropped before then.
            Ok(gpu) => unsafe { d.lock(&gpu) },
            Err(_) => Vec::new(),
        },
        _ => Vec::new(),
    };
    // The first local rank calls `visit`; gathering, it is rank 0 (or no rank writes).
    let visit: Visit<'_> = &mut visit;
    let mut inputs: Vec<(Option<Dest>, Option<Visit<'_>>)> = (0..spec.gpus.len())
        .map(|i| (dest.filter(|_| i == 0 || !gather), None))
        .collect();
    if let Some(first) = inputs.first_mut() {
        first.1 = Some(visit);
    }
    // Alike on every rank: made once for all of this process's.
    let never = never_reached(g.incoming(), part.words());
    let tunings: Vec<Tuning> = tunings
        .iter()
        .map(|t| Tuning {
            list_cap: t.list_cap.min(LIST_CAP),
            host_arcs: t.host_arcs.min(LIST_CAP),
            ..*t
        })
        .collect();
    let (first, setup) = match tunings.first() {
        Some(t) if tunings.iter().all(|u| u.setup == t.setup) => (*t, t.setup),
        _ => unreachable!("team_searches takes at least one tuning, all of one `setup`"),
    };
    // The host's table and the GPUs' seeds for the most arcs any tuning hands them.
    let host_arcs = tunings.iter().map(|t| t.host_arcs).max().unwrap_or(0);
    let setup = team::run(spec, inputs, |m, (dest, mut visit)| {
        let mut state = RankState::new(m, g, part, &never, gather, host_arcs, setup)?;
        let most = match state.short_world(m) == 1 && first.run_blocks > 0 {
            true => m
                .gpu
                .resident_grid(&state.k.short_run, "mbfs_short_run", THREADS, 32)?,
            false => 0,
        };
        let setup = start.elapsed().as_secs_f64();
        let each = tunings
            .iter()
            .flat_map(|t| searches.iter().map(move |s| (t, s)));
        for (index, (tuning, (s, opts))) in each.enumerate() {
            state.list_cap = tuning.list_cap;
            state.whole_degree = tuning.whole_degree;
            state.fail_at = tuning.fail_at;
            state.host.cap = tuning.host_arcs;
            if most > 0 {
                state.run_blocks = tuning.run_blocks.min(most);
                state.run_arcs = tuning.run_arcs;
            }
            let run = state.search(m, g, *s, opts, dest.as_ref())?;
            if let Some(visit) = visit.as_mut() {
                // SAFETY: every rank of the team has copied its part of this search
                // (`search` returns after the all-reduce of every rank's times, which
                // each joins after its copy), and none writes the next search before
                // this rank joins its first all-reduce, after this call: no rank writes
                // the tree while `visit` reads it. Only this thread touches the tree's
                // `source`.
                let tree = dest.map(|d| unsafe { d.tree_after(*s) });
                visit(&TeamSearch {
                    index,
                    tree,
                    times: run.times,
                    levels: run.levels,
                    solo: state.is_solo(),
                    symmetric: state.is_symmetric(),
                    symmetric_wrong: state.symmetric_was_wrong(),
                })?;
            }
        }
        Ok(setup)
    })?;
    Ok(setup.into_iter().fold(0.0, f64::max))
}
