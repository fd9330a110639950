//! BFS on teams of GPUs (NCCL, 1-D partition) against the CPU BFS: identical depths, every
//! tree passes the Graph500 verifier, and the trees (parents included) are the same for
//! every team size.
//!
//! Teams of 1, 2 and all GPUs, as many as the machine has, and teams of 2 and 4 ranks
//! sharing GPU 0 where it has fewer (`common::teams`); every test skips where no GPU can be
//! used and fails instead with `WARPGRAPH_REQUIRE_GPU=1`.

mod common;

use proptest::prelude::*;
use warpgraph::bfs::cuda::multi::{
    bfs_team, bfs_team_each, bfs_team_failing, bfs_team_visit, bfs_team_ways, TeamSetup,
    TeamTuning, LIST_CAP, WHOLE_DEGREE,
};
use warpgraph::bfs::{self, verify, BfsOptions, BfsTree, Direction, UNREACHED};
use warpgraph::cuda::team::TeamSpec;
use warpgraph::generate::{generate, GenerateOptions, Generator};
use warpgraph::{Error, Graph, Weights};

/// `bfs_team_ways`'s mean out-degree that no frontier reaches: hubs only.
const NEVER: u64 = u64::MAX;

/// Short levels solo, bitmaps in memory of the team's own.
const SOLO: TeamSetup = TeamSetup {
    solo: true,
    symmetric: false,
};

/// Short levels split by owner, bitmaps in NCCL's symmetric memory where it can.
const SPLIT: TeamSetup = TeamSetup {
    solo: false,
    symmetric: true,
};

/// Whether a team asked to exchange its bitmaps in NCCL's symmetric memory must have:
/// with `WARPGRAPH_REQUIRE_GPU=1` (the GPU machines have NCCL 2.27 or later), where it
/// has several ranks on GPUs of their own. (NCCL 2.28.3's all-gather delivered wrong data
/// on 4 H200s for some small graphs while a rank's part of a bitmap was not a whole number
/// of 16 bytes; the team's own check refuses that, and this test then fails.) Elsewhere it
/// may or may not (NCCL's version; the check).
fn symmetric_required(team: &TeamSpec) -> bool {
    warpgraph::settings::get().require_gpu && team.world > 1 && !team.on_one()
}

/// The switch settings tried: Beamer's defaults, each forced direction, and extremes.
fn all_options() -> Vec<BfsOptions> {
    let d = BfsOptions::default();
    vec![
        d,
        BfsOptions {
            direction: Direction::TopDown,
            ..d
        },
        BfsOptions {
            direction: Direction::BottomUp,
            ..d
        },
        BfsOptions {
            alpha: 1,
            beta: 1000,
            ..d
        },
    ]
}

/// Searches `g` from every one of `sources` on each team size with every option set,
/// checking each tree against the CPU's depths and the verifier, and that every team size
/// gives the same trees; with the defaults, and with every level on the GPUs (none
/// expanded by the host).
fn check(g: &Graph, sources: &[u32]) {
    check_lists(g, sources, &[(LIST_CAP, 0, WHOLE_DEGREE)]);
}

/// As `check` with the defaults, then with each of `ways`: short top-down levels (one
/// all-gather of what each GPU found) up to `.0` frontier arcs (0 takes the long way
/// always), the host's first levels up to `.1` arcs in all (0: none), and on a long level
/// every GPU expanding the whole frontier from a mean out-degree of `.2` (0: always;
/// `NEVER`: the hubs only, the other vertices' finds sent to their owners as pairs)
/// (teams of several ranks: once as `SOLO`, once as `SPLIT`; the defaults as both); the
/// trees must not change. Teams of several ranks take each of `ways` twice: their short
/// levels solo (every rank the whole level, on its copy of the graph) and split by owner
/// (lists all-gathered).
fn check_lists(g: &Graph, sources: &[u32], ways: &[(usize, usize, u64)]) {
    let teams = common::teams();
    let expected: Vec<Vec<u32>> = sources
        .iter()
        .map(|&s| bfs::bfs(g, s, &BfsOptions::default()).unwrap().depth)
        .collect();
    // Every option with every source, on one setup of each team.
    let searches: Vec<(u32, BfsOptions)> = all_options()
        .into_iter()
        .flat_map(|o| sources.iter().map(move |&s| (s, o)))
        .collect();
    let mut first: Option<Vec<BfsTree>> = None;
    // The levels each search expanded, by way: the same for every team, solo or not.
    let mut levels_of = std::collections::HashMap::new();
    // Each team: the defaults on a setup of their own, then every one of `ways` on one
    // setup as SOLO, and on another as SPLIT (a join of NCCL across 4 GPUs costs more
    // than all of a small graph's searches).
    let runs_of = teams.iter().flat_map(|team| {
        let size = team.describe();
        let fail = move |cap: &dyn std::fmt::Debug, e: Error| -> ! {
            panic!("team of {size}, ways (lists, host arcs, whole degree) and setup {cap:?}: {e}")
        };
        let defaults = bfs_team_each(team, g, &searches, &TeamTuning::default())
            .unwrap_or_else(|e| fail(&"defaults", e));
        let setups: &[TeamSetup] = if team.world > 1 {
            &[SOLO, SPLIT]
        } else {
            &[SOLO]
        };
        let mut all = vec![(None, defaults)];
        for &setup in setups.iter().filter(|_| !ways.is_empty()) {
            let runs = bfs_team_ways(team, g, &searches, ways, setup)
                .unwrap_or_else(|e| fail(&(ways, setup), e));
            all.extend(ways.iter().zip(runs).map(|(&c, r)| (Some((c, setup)), r)));
        }
        all.into_iter().map(move |(cap, runs)| (team, cap, runs))
    });
    for (team, cap, runs) in runs_of {
        let size = team.describe();
        assert_eq!(runs.trees.len(), searches.len());
        // The memory is there: a team of several ranks is solo as asked (by default too).
        let setup = cap.map_or(
            TeamSetup {
                solo: true,
                symmetric: true,
            },
            |(_, s)| s,
        );
        let solo = team.world > 1 && setup.solo;
        assert_eq!(runs.solo, solo, "team of {size}, ways {cap:?}");
        // In symmetric memory only where asked, and there where required.
        if !setup.symmetric || symmetric_required(team) {
            let symmetric = setup.symmetric && symmetric_required(team);
            assert!(
                !(symmetric && runs.symmetric_wrong),
                "team of {size}, ways {cap:?}, {} vertices: NCCL's all-gather in symmetric \
                 memory failed the team's check",
                g.num_vertices()
            );
            assert_eq!(runs.symmetric, symmetric, "team of {size}, ways {cap:?}");
        }
        let trees: Vec<BfsTree> = runs.trees.into_iter().map(Option::unwrap).collect();
        for (i, tree) in trees.iter().enumerate() {
            let (s, opts) = searches[i];
            assert_eq!(tree.source, s);
            let want = &expected[sources.iter().position(|&x| x == s).unwrap()];
            assert!(
                tree.depth == *want,
                "team of {size}, ways {cap:?}, {opts:?}, source {s}: depths differ \
                 from the CPU's"
            );
            verify(g, tree)
                .unwrap_or_else(|e| panic!("team of {size}, ways {cap:?}, {opts:?}: {e}"));
            assert!(
                tree.parent == least_parents(g, tree),
                "team of {size}, ways {cap:?}, {opts:?}, source {s}: a parent is not \
                 the least in-neighbour one level up"
            );
            let t = runs.times[i];
            assert!(t.seconds > 0.0 && t.kernel_seconds.unwrap() > 0.0, "{t:?}");
        }
        match &first {
            None => first = Some(trees),
            Some(f) => assert!(
                *f == trees,
                "team of {size}, ways {cap:?}, gives other parents"
            ),
        }
        let way = cap.map(|(c, _)| c);
        let levels = levels_of.entry(way).or_insert_with(|| runs.levels.clone());
        assert!(
            *levels == runs.levels,
            "team of {size}, ways {cap:?}: levels expanded {:?}, other teams {levels:?}",
            runs.levels
        );
    }
}

/// The parents the team promises, by a serial scan: each reached vertex's least
/// in-neighbour one level up (the source its own parent), none for an unreached one.
fn least_parents(g: &Graph, tree: &BfsTree) -> Vec<u32> {
    let mut want = vec![UNREACHED; g.num_vertices()];
    want[tree.source as usize] = tree.source;
    for v in 0..g.num_vertices() as u32 {
        let d = tree.depth[v as usize];
        if d == UNREACHED || d == 0 {
            continue;
        }
        for &u in g.incoming().neighbors(v) {
            if tree.depth[u as usize] == d - 1 {
                want[v as usize] = want[v as usize].min(u);
            }
        }
    }
    want
}

fn arb_graph() -> impl Strategy<Value = (u64, Vec<(u32, u32)>, bool)> {
    (1u64..300, any::<bool>(), 0usize..6).prop_flat_map(|(n, directed, density)| {
        let max = ((n as usize) << density) / 2 + 1;
        (
            Just(n),
            prop::collection::vec((0..n as u32, 0..n as u32), 0..max),
            Just(directed),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Random graphs with self loops, parallel arcs, isolated and unreachable vertices,
    /// n below and above a bitmap word per GPU, directed and undirected.
    #[test]
    fn teams_match_the_cpu((n, edges, directed) in arb_graph(), pick in any::<u32>()) {
        if common::teams().is_empty() {
            return Ok(());
        }
        let g = common::graph(n, &edges, Weights::None, directed);
        let n = n as u32;
        check_lists(
            &g,
            &[pick % n, (pick / 7) % n, n - 1],
            &[(0, 0, 0), (0, 0, NEVER), (7, 0, 2), (LIST_CAP, 5, WHOLE_DEGREE)],
        );
    }
}

/// A search from each of `sources` with the default options.
fn with_defaults(sources: &[u32]) -> Vec<(u32, BfsOptions)> {
    sources
        .iter()
        .map(|&s| (s, BfsOptions::default()))
        .collect()
}

/// An undirected Kronecker graph of 2^`scale` vertices and `edge_factor` edges a vertex.
fn kronecker(scale: u32, edge_factor: u32) -> Graph {
    generated(Generator::Kronecker { scale, edge_factor }, false)
}

fn generated(gen: Generator, directed: bool) -> Graph {
    let opts = GenerateOptions {
        undirected: !directed,
        ..Default::default()
    };
    generate(&gen, &opts).unwrap()
}

/// Power-law, uniform and mesh graphs: many levels, big frontiers, both directions.
#[test]
fn generated_graphs_match_the_cpu() {
    if common::teams().is_empty() {
        return;
    }
    for (gen, directed) in [
        (
            Generator::Kronecker {
                scale: 16,
                edge_factor: 16,
            },
            false,
        ),
        (
            Generator::Kronecker {
                scale: 14,
                edge_factor: 16,
            },
            true,
        ),
        (
            Generator::Grid {
                rows: 300,
                cols: 200,
                remove: 0.0,
                shortcuts: 0,
            },
            false,
        ),
    ] {
        let g = generated(gen, directed);
        check_lists(
            &g,
            &warpgraph::bench::pick_sources(&g, 3, 5),
            &[(LIST_CAP, 0, WHOLE_DEGREE), (0, 0, NEVER), (0, 0, 0)],
        );
    }
}

/// A sparse directed graph (132 vertices, out-degrees up to 4) whose searches under a list
/// bound of 7 (runs of short levels up to 3 arcs) switch between a team of one's runs,
/// queued short levels and bitmap levels; among them a level queued ahead (after one of 4
/// to 7 arcs) with at most 3 arcs itself, which the host once also took for a run (its
/// counts then read from a post no run had made).
#[test]
fn runs_queued_and_bitmap_levels_alternate() {
    if common::teams().is_empty() {
        return;
    }
    let flat: [u32; 298] = [
        128, 97, 79, 71, 3, 113, 27, 96, 78, 116, 25, 54, 103, 23, 17, 101, 8, 28, 114, 10, 7, 103,
        70, 50, 46, 93, 2, 126, 24, 33, 62, 73, 79, 43, 8, 82, 84, 7, 104, 17, 100, 64, 87, 115,
        92, 126, 0, 33, 58, 54, 72, 31, 22, 40, 17, 66, 86, 31, 69, 7, 131, 27, 44, 12, 90, 122,
        131, 108, 94, 86, 62, 71, 44, 114, 110, 39, 26, 60, 74, 11, 105, 115, 62, 106, 2, 80, 121,
        109, 29, 29, 55, 90, 63, 98, 66, 112, 85, 68, 129, 35, 6, 40, 87, 50, 129, 33, 75, 127, 35,
        36, 96, 122, 49, 122, 106, 62, 12, 65, 26, 72, 15, 34, 35, 5, 66, 66, 100, 68, 15, 25, 82,
        105, 82, 74, 108, 29, 4, 61, 88, 124, 43, 109, 76, 99, 38, 102, 130, 85, 122, 64, 34, 63,
        74, 57, 106, 120, 112, 24, 64, 65, 77, 128, 64, 1, 54, 76, 1, 50, 58, 8, 66, 63, 37, 42,
        94, 85, 82, 64, 86, 4, 2, 49, 107, 42, 15, 122, 40, 75, 104, 125, 38, 66, 68, 88, 5, 70,
        108, 116, 62, 31, 114, 9, 130, 19, 126, 11, 46, 111, 67, 37, 37, 121, 107, 127, 54, 69, 48,
        19, 118, 87, 95, 37, 47, 95, 54, 10, 121, 110, 18, 100, 53, 122, 50, 121, 34, 109, 102, 44,
        14, 102, 77, 109, 111, 103, 115, 90, 95, 12, 50, 28, 60, 124, 6, 115, 42, 105, 93, 99, 54,
        75, 46, 9, 21, 70, 129, 69, 103, 35, 18, 104, 78, 101, 17, 129, 111, 117, 115, 23, 17, 82,
        40, 123, 130, 57, 73, 84, 131, 90, 7, 128, 45, 113, 55, 26, 120, 39, 30, 3,
    ];
    let edges: Vec<(u32, u32)> = flat.chunks(2).map(|e| (e[0], e[1])).collect();
    let g = common::graph(132, &edges, Weights::None, true);
    check_lists(&g, &[17, 96, 131], &[(7, 0, 2), (7, 0, NEVER), (3, 0, 0)]);
}

/// A vertex of 70,000 arcs, a star of 1,000, an isolated source, a single vertex, a long path.
#[test]
fn edge_cases() {
    if common::teams().is_empty() {
        return;
    }
    let leaves = 70_000u32;
    let star: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
    let g = common::graph(u64::from(leaves) + 2, &star, Weights::None, false);
    check_lists(
        &g,
        &[0, 5, leaves + 1],
        &[
            (0, 0, NEVER),
            (0, 0, 0),
            (69_999, 0, WHOLE_DEGREE),
            (0, 3, 0),
        ],
    );
    // From a leaf of a small star, the host takes the first level and hands the GPUs the
    // hub, whose 1,000 arcs are beyond its bound (with a bound of 2,000, below, it takes
    // two levels and hands over 999 leaves).
    let small: Vec<(u32, u32)> = (1..=1000).map(|v| (0, v)).collect();
    check_lists(
        &common::graph(1001, &small, Weights::None, false),
        &[1, 0],
        &[(LIST_CAP, 0, WHOLE_DEGREE), (LIST_CAP, 2000, NEVER)],
    );
    check(&common::graph(1, &[], Weights::None, true), &[0]);
    // The broom's last level is leaves only, which a search ends at without expanding
    // (each has just the arc to its parent), whether that level came in a run of short
    // levels, queued ahead or as a bitmap; as a directed graph (the same arcs, outward) it
    // must not, until no frontier arc is left.
    for directed in [false, true] {
        check_lists(
            &common::graph(40, &broom(), Weights::None, directed),
            &[0, 15],
            &[(7, 0, 2), (3, 0, NEVER), (0, 0, 0)],
        );
    }
    let path: Vec<(u32, u32)> = (0..4999).map(|v| (v, v + 1)).collect();
    check(&common::graph(5000, &path, Weights::None, true), &[0]);
    check(&common::graph(5000, &path, Weights::None, false), &[2500]);
}

/// A path of 30 vertices, 0 to 29, with 10 leaves (30 to 39) on vertex 29.
fn broom() -> Vec<(u32, u32)> {
    let mut arcs: Vec<(u32, u32)> = (0..29).map(|v| (v, v + 1)).collect();
    arcs.extend((30..40).map(|v| (29, v)));
    arcs
}

/// A search ends at a level that can find nothing without expanding it: on the broom
/// (undirected), from 0 the leaves at level 30, from 29 vertex 0 at level 29, each with
/// just the arc to its parent; directed, the levels whose vertices have no arcs out.
#[test]
fn a_level_that_can_find_nothing_is_not_expanded() {
    for team in common::teams() {
        let size = team.describe();
        for (directed, levels) in [(false, [30, 29]), (true, [30, 1])] {
            let g = common::graph(40, &broom(), Weights::None, directed);
            let searches = with_defaults(&[0, 29]);
            // Every level on the GPUs: short ones (runs, queued ahead) or bitmaps only,
            // each bound on one setup of the team (a join of NCCL costs more than these
            // searches).
            let caps = [LIST_CAP, 7, 0];
            let ways = caps.map(|c| (c, 0, WHOLE_DEGREE));
            for setup in [SOLO, SPLIT] {
                let runs = bfs_team_ways(&team, &g, &searches, &ways, setup)
                    .unwrap_or_else(|e| panic!("team of {size}: {e}"));
                for (c, runs) in caps.iter().zip(runs) {
                    assert_eq!(
                        runs.levels, levels,
                        "team of {size}, directed {directed}, lists up to {c}, {setup:?}"
                    );
                }
            }
            // The defaults, the host taking the first levels (here all).
            let runs = bfs_team(&team, &g, &[0, 29], &BfsOptions::default()).unwrap();
            assert_eq!(runs.levels, levels, "team of {size}, directed {directed}");
        }
    }
}

/// `bfs_team_visit` writes every search into the caller's tree, its vectors kept, and
/// hands each over in order before the next; an error from `visit` stops the team and is
/// what the call returns.
#[test]
fn searches_into_a_reused_tree() {
    if common::teams().is_empty() {
        return;
    }
    let g = kronecker(14, 8);
    // Roots of different depths, an unreached vertex's too (Kronecker graphs have many
    // isolated ones), so each search must write over every entry of the last.
    let mut sources = warpgraph::bench::pick_sources(&g, 3, 11);
    let isolated = (0..g.num_vertices() as u32).find(|&v| g.out().degree(v) == 0);
    sources.extend(isolated);
    sources.push(sources[0]);
    let searches = with_defaults(&sources);
    for team in common::teams() {
        let size = team.describe();
        let mut tree = BfsTree::default();
        let (mut seen, mut at) = (Vec::new(), None);
        bfs_team_visit(
            &team,
            &g,
            &searches,
            &TeamTuning::default(),
            &mut tree,
            |s| {
                let t = s.tree.expect("one process holds rank 0");
                assert_eq!(t.source, sources[s.index], "team of {size}");
                let want = bfs::bfs(&g, t.source, &BfsOptions::default()).unwrap();
                assert!(t.depth == want.depth, "team of {size}, search {}", s.index);
                verify(&g, t).unwrap_or_else(|e| panic!("team of {size}: {e}"));
                assert!(s.times.seconds > 0.0 && s.times.kernel_seconds.unwrap() > 0.0);
                assert!(s.levels >= 1 || t.reached() == 1, "{} levels", s.levels);
                let ptr = (t.depth.as_ptr() as usize, t.parent.as_ptr() as usize);
                assert_eq!(
                    *at.get_or_insert(ptr),
                    ptr,
                    "team of {size}: vectors replaced"
                );
                seen.push(s.index);
                Ok(())
            },
        )
        .unwrap_or_else(|e| panic!("team of {size}: {e}"));
        assert_eq!(
            seen,
            (0..searches.len()).collect::<Vec<_>>(),
            "team of {size}"
        );
        assert_eq!(
            Some((tree.depth.as_ptr() as usize, tree.parent.as_ptr() as usize)),
            at
        );
        assert_eq!(tree.source, *sources.last().unwrap());
        // The caller's error, after the second search: no third one.
        let mut calls = 0;
        let e = bfs_team_visit(
            &team,
            &g,
            &searches,
            &TeamTuning::default(),
            &mut tree,
            |s| {
                calls += 1;
                match s.index {
                    1 => Err(Error::InvalidArgument("enough".into())),
                    _ => Ok(()),
                }
            },
        )
        .unwrap_err();
        assert!(
            matches!(&e, Error::InvalidArgument(m) if m == "enough"),
            "team of {size}: {e}"
        );
        assert_eq!(calls, 2, "team of {size}");
    }
}

/// A search's time is its own: the caller's look at the last tree (here 300 ms of sleep
/// after each), while the other ranks wait for rank 0 to start the next search, counts in
/// no search's time, end to end or in kernels (over NCCL the other GPUs wait for it at
/// the start; it counted before, the team's time being the slowest rank's).
#[test]
fn a_slow_look_at_the_tree_is_not_timed() {
    if common::teams().is_empty() {
        return;
    }
    let g = kronecker(12, 8);
    let sources = warpgraph::bench::pick_sources(&g, 3, 2);
    let searches = with_defaults(&sources);
    for team in common::teams() {
        let size = team.describe();
        let mut tree = BfsTree::default();
        let mut times = Vec::new();
        bfs_team_visit(
            &team,
            &g,
            &searches,
            &TeamTuning::default(),
            &mut tree,
            |s| {
                times.push(s.times);
                std::thread::sleep(std::time::Duration::from_millis(300));
                Ok(())
            },
        )
        .unwrap_or_else(|e| panic!("team of {size}: {e}"));
        assert_eq!(times.len(), searches.len());
        // The first search waits for no look; the later ones would each have counted one.
        for (i, t) in times.iter().enumerate() {
            assert!(
                t.seconds < 0.15 && t.kernel_seconds.unwrap() < 0.15,
                "team of {size}, search {i}: {t:?} (a 4,096-vertex graph)"
            );
        }
    }
}

/// A rank that stops mid-search (at the start of a level, the others on their way into
/// that level's exchange, over NCCL stuck in it) stops the whole team with its own error,
/// no rank left waiting; the same GPUs then serve the next team.
#[test]
fn a_rank_that_stops_mid_search_stops_the_team() {
    let teams = common::teams();
    if teams.is_empty() {
        return;
    }
    let path: Vec<(u32, u32)> = (0..999).map(|v| (v, v + 1)).collect();
    let g = common::graph(1000, &path, Weights::None, false);
    let searches = [(0, BfsOptions::default())];
    let want = bfs::bfs(&g, 0, &BfsOptions::default()).unwrap().depth;
    for team in &teams {
        let size = team.describe();
        // The last rank deep into the search, and rank 0 at its first level.
        for (rank, level) in [(team.world - 1, 7), (0, 0)] {
            let e = bfs_team_failing(team, &g, &searches, rank, level).unwrap_err();
            let said = format!("rank {rank}: stopped at level {level}, as asked");
            assert!(e.to_string().contains(&said), "team of {size}: {e}");
        }
        let runs = bfs_team_each(team, &g, &searches, &TeamTuning::default())
            .unwrap_or_else(|e| panic!("team of {size}, after the stops: {e}"));
        let tree = runs.trees[0].as_ref().unwrap();
        assert!(tree.depth == want, "team of {size}, after the stops");
    }
}

#[test]
fn bad_arguments_are_errors() {
    if common::teams().is_empty() {
        return;
    }
    let g = common::graph(3, &[(0, 1)], Weights::None, false);
    let e = bfs_team(&TeamSpec::local(1), &g, &[3], &BfsOptions::default()).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let count = warpgraph::cuda::probe().unwrap().gpus.len();
    let e = bfs_team(
        &TeamSpec::local(count + 1),
        &g,
        &[0],
        &BfsOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, Error::NoGpu(_)), "{e}");
}

/// Two teams that join as one through the id file, as processes on two hosts would
/// (here two threads, each driving one GPU as its "process"): the same trees as a team of
/// two in one process.
#[test]
fn a_team_joins_through_the_id_file() {
    let sizes = common::team_sizes();
    if !sizes.contains(&2) {
        eprintln!("skipped: needs two GPUs");
        return;
    }
    let g = kronecker(12, 8);
    let sources = warpgraph::bench::pick_sources(&g, 2, 9);
    let dir = tempfile::tempdir().unwrap();
    let id_file = dir.path().join("job.id");
    let part = |rank: usize| TeamSpec {
        world: 2,
        first_rank: rank,
        gpus: vec![rank],
        id_file: Some(id_file.clone()),
        ..TeamSpec::local(1)
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| bfs_team(&part(0), &g, &sources, &BfsOptions::default()));
        let b = s.spawn(|| bfs_team(&part(1), &g, &sources, &BfsOptions::default()));
        (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
    });
    assert!(
        b.trees.iter().all(Option::is_none),
        "only rank 0 holds trees"
    );
    let whole = bfs_team(&TeamSpec::local(2), &g, &sources, &BfsOptions::default()).unwrap();
    assert_eq!(a.trees, whole.trees);
    for t in a.trees.iter().flatten() {
        verify(&g, t).unwrap();
    }
}
