//! Several GPUs working as one team over NCCL.
//!
//! A team has `world` ranks, one GPU each, numbered 0..world. A process drives a
//! contiguous run of them (`first_rank..first_rank + gpus.len()`) with one thread per GPU,
//! each thread owning its GPU's NCCL communicator; the threads of all processes meet in
//! NCCL's collectives. One process driving every GPU of its machine is the usual case
//! ([`TeamSpec::local`]); the same code spans hosts when several processes join with
//! NCCL's own bootstrap, a unique id that the process of rank 0 writes to a file every
//! other process reads ([`TeamSpec::from_env`]):
//!
//! ```text
//! # host A (ranks 0-3), host B (ranks 4-7); /shared/job42.id on a shared file system
//! A$ WARPGRAPH_NCCL_WORLD=8 WARPGRAPH_NCCL_FIRST_RANK=0 WARPGRAPH_NCCL_ID_FILE=/shared/job42.id \
//!      warpgraph bfs --generate kron:26 --device cuda --gpus 4
//! B$ WARPGRAPH_NCCL_WORLD=8 WARPGRAPH_NCCL_FIRST_RANK=4 WARPGRAPH_NCCL_ID_FILE=/shared/job42.id \
//!      warpgraph bfs --generate kron:26 --device cuda --gpus 4
//! ```
//!
//! Each rank exchanges through its [`Link`]: NCCL between GPUs, copies on the GPU where
//! the whole team is on one (a team of one, the baseline of strong scaling; or, for tests
//! where one GPU is all there is, several ranks sharing it: [`TeamSpec::on_one_gpu`]).
//!
//! NCCL (`libnccl.so.2`) is opened at run time like the rest of CUDA: without it, asking
//! for a team of several GPUs is an [`Error::Nccl`] saying so, and nothing else changes.
//!
//! Collectives block until every rank joins, so a rank must never leave the others
//! waiting: every fallible step before the first collective (allocation) ends in
//! [`Member::agree`], which all ranks call and which fails on all of them when it fails
//! on one. Where a rank stops anyway (an error later on, a process killed, a host lost),
//! the others do not wait forever: a rank of the same process that fails tells the others
//! at once, and any wait for the team, joining it included, ends in an error after the
//! team's patience ([`TeamSpec::patience`], `WARPGRAPH_NCCL_TIMEOUT`; see
//! `cuda/nccl.rs`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::nccl::Id;

use super::exchange::{departed, Reduce, DEPARTED};
use super::link::{Hub, Link};
use super::nccl::{self, Comm, Watch};
use super::{Gpu, Spin};
use crate::error::{Error, Result};

/// Which ranks of a team this process drives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamSpec {
    /// Ranks in the whole team (over every process).
    pub world: usize,
    /// The rank of this process's first GPU.
    pub first_rank: usize,
    /// The CUDA ordinals of this process's GPUs, one rank each in order.
    pub gpus: Vec<usize>,
    /// Where the unique id is exchanged when the team spans processes.
    pub id_file: Option<PathBuf>,
    /// How long a rank of a team over NCCL waits for the others (to join, for the id
    /// file, in an exchange) before it takes one for lost and stops with an error
    /// ([`DEFAULT_PATIENCE`] unless `WARPGRAPH_NCCL_TIMEOUT` says otherwise). Ranks sharing
    /// a GPU need none: they meet on the host, where a rank that stops is seen at once.
    pub patience: Duration,
    /// Exchange through NCCL even where the whole team is on one GPU (a team of one):
    /// NCCL's path tested where one GPU is all there is.
    pub over_nccl: bool,
}

/// How long a rank waits for the others by default: 5 minutes.
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(300);

impl TeamSpec {
    /// This process alone, on its GPUs `0..count`.
    pub fn local(count: usize) -> TeamSpec {
        TeamSpec {
            world: count,
            first_rank: 0,
            gpus: (0..count).collect(),
            id_file: None,
            patience: DEFAULT_PATIENCE,
            over_nccl: false,
        }
    }

    /// GPUs `0..count` of this process, joined with other processes as the environment
    /// says: `WARPGRAPH_NCCL_WORLD` (ranks in all), `WARPGRAPH_NCCL_FIRST_RANK` (this
    /// process's first) and `WARPGRAPH_NCCL_ID_FILE` (a path every process can read; the
    /// process of rank 0 writes NCCL's unique id there, the others wait for it: give each
    /// job a fresh path). Without `WARPGRAPH_NCCL_WORLD`, [`TeamSpec::local`], or with
    /// `WARPGRAPH_TEAM_ON_ONE_GPU=1` [`TeamSpec::on_one_gpu`] on GPU 0: `count` ranks
    /// sharing it, to follow a team's logic (and its levels' costs, exchanges aside) on a
    /// machine of one GPU; their times are no figures of several GPUs.
    /// `WARPGRAPH_NCCL_TIMEOUT` (seconds, over 0) sets the [`TeamSpec::patience`] either
    /// way.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a variable that cannot be parsed
    /// ([`crate::settings::Settings::check`]); [`Error::Nccl`] for a team that does not
    /// hold this process's ranks, or a missing id file variable.
    pub fn from_env(count: usize) -> Result<TeamSpec> {
        let settings = crate::settings::get();
        settings.check()?;
        let nccl = &settings.nccl;
        let patience = nccl.timeout.unwrap_or(DEFAULT_PATIENCE);
        let Some(world) = nccl.world else {
            let spec = match one_gpu() {
                true => TeamSpec::on_one_gpu(0, count),
                false => TeamSpec::local(count),
            };
            return Ok(TeamSpec { patience, ..spec });
        };
        let first_rank = nccl.first_rank.unwrap_or(0);
        let id_file = nccl.id_file.clone();
        let spec = TeamSpec {
            world,
            first_rank,
            gpus: (0..count).collect(),
            id_file,
            patience,
            over_nccl: false,
        };
        spec.check()?;
        Ok(spec)
    }

    /// `ranks` ranks all on GPU `ordinal`, in this process: the team's logic where there
    /// is one GPU, its exchanges copies on that GPU ([`super::link`]); for tests.
    pub fn on_one_gpu(ordinal: usize, ranks: usize) -> TeamSpec {
        TeamSpec {
            world: ranks,
            first_rank: 0,
            gpus: vec![ordinal; ranks],
            id_file: None,
            patience: DEFAULT_PATIENCE,
            over_nccl: false,
        }
    }

    /// Whether the whole team is on one GPU (a team of one, or ranks sharing a GPU).
    pub fn on_one(&self) -> bool {
        self.is_whole() && self.gpus.iter().all(|&g| g == self.gpus[0])
    }

    /// Whether the ranks exchange through NCCL (else by copies on their one GPU).
    fn uses_nccl(&self) -> bool {
        self.over_nccl || !self.on_one()
    }

    /// Whether this process drives every rank.
    pub fn is_whole(&self) -> bool {
        self.first_rank == 0 && self.gpus.len() == self.world
    }

    /// Whether this process drives rank 0 (which holds the team's results).
    pub fn has_root(&self) -> bool {
        self.first_rank == 0
    }

    fn check(&self) -> Result<()> {
        if self.gpus.is_empty() {
            return Err(Error::Nccl("a team needs at least one GPU".into()));
        }
        if self.first_rank + self.gpus.len() > self.world {
            return Err(Error::Nccl(format!(
                "ranks {}..{} of this process lie outside a team of {} (WARPGRAPH_NCCL_WORLD)",
                self.first_rank,
                self.first_rank + self.gpus.len(),
                self.world
            )));
        }
        let mut distinct = self.gpus.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() != self.gpus.len() && self.uses_nccl() {
            return Err(Error::Nccl(
                "ranks may share a GPU only when the whole team is on that one GPU, in one \
                 process, and does without NCCL"
                    .into(),
            ));
        }
        if !self.is_whole() && self.id_file.is_none() {
            return Err(Error::Nccl(
                "a team over several processes needs WARPGRAPH_NCCL_ID_FILE, a path every \
                 process can read, for NCCL's unique id"
                    .into(),
            ));
        }
        Ok(())
    }

    /// In words: `2 GPUs (ranks 0-1 of 2)`, `4 ranks on GPU 0`, or `1 GPU (rank 0 of 1)
    /// over NCCL` for a team of one told to use it.
    pub fn describe(&self) -> String {
        let n = self.gpus.len();
        if n > 1 && self.on_one() {
            return format!("{n} ranks on GPU {}", self.gpus[0]);
        }
        format!(
            "{n} GPU{} (rank{} {}{} of {}){}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "" } else { "s" },
            self.first_rank,
            if n == 1 {
                String::new()
            } else {
                format!("-{}", self.first_rank + n - 1)
            },
            self.world,
            if self.over_nccl && self.on_one() {
                " over NCCL"
            } else {
                ""
            }
        )
    }
}

/// Whether `WARPGRAPH_TEAM_ON_ONE_GPU=1` asks a team's ranks to share GPU 0
/// ([`TeamSpec::from_env`]).
pub fn one_gpu() -> bool {
    crate::settings::get().team_on_one_gpu
}

/// Whether a GPU test of NCCL's path can run: a GPU ([`super::test_gpu`], which may skip
/// or fail the test) and NCCL. Where NCCL is missing the test skips, saying so, unless
/// `WARPGRAPH_REQUIRE_GPU=1`, which makes that a failure.
///
/// # Panics
/// As [`super::test_gpu`]; where NCCL is missing and `WARPGRAPH_REQUIRE_GPU=1`.
#[doc(hidden)]
pub fn test_nccl() -> bool {
    if super::test_gpu().is_none() {
        return false;
    }
    if nccl_present() {
        return true;
    }
    assert!(
        !crate::settings::get().require_gpu,
        "WARPGRAPH_REQUIRE_GPU=1 but libnccl.so.2 cannot be opened"
    );
    eprintln!("skipped: no NCCL (libnccl.so.2)");
    false
}

/// Whether the NCCL library can be opened.
pub fn nccl_present() -> bool {
    // SAFETY: only tries to open the shared library by its usual names.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// One rank of a running team, as its thread sees it.
pub struct Member {
    /// This rank's GPU.
    pub gpu: Arc<Gpu>,
    /// Its exchanges with the other ranks (on the GPU's stream).
    pub link: Link,
    /// This rank, and the team's size.
    pub rank: usize,
    pub world: usize,
    /// The threads of this process's ranks meet here ([`Member::meet_here`]).
    here: Arc<std::sync::Barrier>,
    /// Where this process drives every rank: counts summed in host memory ([`Board`]).
    board: Option<Arc<Board>>,
}

impl Member {
    /// Waits until every rank of this process has called it (no NCCL: a host barrier of
    /// this process's threads, which every one of them must reach, failed or not). After
    /// NCCL's window registration, so that no rank's collective kernel spins on its GPU
    /// while another rank's registration still maps that GPU's memory
    /// (NVIDIA/nccl#2184: registration in parallel with collectives can deadlock).
    pub fn meet_here(&self) {
        self.here.wait();
    }

    /// Where this process drives every rank of the team, its [`Board`].
    pub fn board(&self) -> Option<&Board> {
        self.board.as_deref()
    }

    /// Whether every rank's `ok` is true: a collective all ranks call before their first
    /// other collective, so that a rank that failed to set up stops the others instead of
    /// leaving them waiting.
    ///
    /// # Errors
    /// [`Error::Nccl`] when the collective fails.
    pub fn agree(&self, ok: bool) -> Result<bool> {
        let mut flag = self.gpu.upload(&[u32::from(!ok)])?;
        self.link.all_reduce_in_place(&mut flag, Reduce::Max)?;
        self.link.sync()?;
        let mut out = [0u32];
        self.gpu.download_into(&flag, &mut out)?;
        Ok(out[0] == 0)
    }
}

/// Values a rank posts to a [`Board`] a round, at most.
pub const BOARD_VALUES: usize = 8;

/// A few counts that every rank of a team posts each round, read back summed by every
/// rank: an all-reduce in host memory for a team whose ranks all live in this process,
/// with no collective and no kernel (a BFS level's counts, from which every rank's host
/// decides alike on the next level while the GPUs still exchange the frontier). Every
/// rank sums every round, numbered from 1; each rank keeps two slots, by the round's
/// parity: a rank may post round r + 1 while another still reads round r, and cannot
/// post round r + 2 before every rank has read round r (its sum of r + 1 waits for every
/// rank's post of r + 1, which each makes after reading r).
pub struct Board {
    slots: Vec<[BoardSlot; 2]>,
    watch: Watch,
}

#[derive(Default)]
struct BoardSlot {
    round: AtomicU64,
    values: [AtomicU64; BOARD_VALUES],
}

impl Board {
    fn new(world: usize, watch: Watch) -> Board {
        Board {
            slots: (0..world).map(|_| Default::default()).collect(),
            watch,
        }
    }

    /// Posts `values` as rank `rank`'s of round `round`, then waits for every rank's and
    /// leaves their sums in `values`. Now and then `watch` is asked, with the wait's
    /// start, whether to go on waiting (a team's [`Link::watch`]); a rank of this process
    /// that stopped ends the wait too.
    ///
    /// # Errors
    /// `watch`'s error, or [`Error::Nccl`] when another rank stopped.
    ///
    /// # Panics
    /// With more than [`BOARD_VALUES`] values, round 0 or a rank beyond the team.
    pub fn sum(
        &self,
        rank: usize,
        round: u64,
        values: &mut [u64],
        watch: impl Fn(Instant) -> Result<()>,
    ) -> Result<()> {
        assert!(values.len() <= BOARD_VALUES && round > 0);
        let parity = (round & 1) as usize;
        let mine = &self.slots[rank][parity];
        for (slot, &v) in mine.values.iter().zip(values.iter()) {
            slot.store(v, Ordering::Relaxed);
        }
        mine.round.store(round, Ordering::Release);
        values.fill(0);
        let since = Instant::now();
        for slots in &self.slots {
            let slot = &slots[parity];
            let mut spin = Spin::default();
            while slot.round.load(Ordering::Acquire) != round {
                if spin.turn().watch_due() {
                    if self.watch.stopped() {
                        return Err(Error::Nccl(DEPARTED.into()));
                    }
                    watch(since)?;
                }
            }
            for (v, s) in values.iter_mut().zip(&slot.values) {
                *v += s.load(Ordering::Relaxed);
            }
        }
        Ok(())
    }
}

/// Runs `work` on every GPU of `spec`, one thread each, `inputs[i]` going to the i-th;
/// returns the results in rank order.
///
/// # Errors
/// [`Error::Nccl`] when NCCL is missing, the spec is bad, or the id cannot be exchanged;
/// the first error of any rank otherwise.
pub fn run<I: Send, R: Send>(
    spec: &TeamSpec,
    inputs: Vec<I>,
    work: impl Fn(&Member, I) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    spec.check()?;
    if inputs.len() != spec.gpus.len() {
        return Err(Error::InvalidArgument(format!(
            "{} inputs for {} GPUs",
            inputs.len(),
            spec.gpus.len()
        )));
    }
    // One GPU for the whole team (a team of one, or ranks sharing a GPU): copies on it,
    // no NCCL.
    let hub = (!spec.uses_nccl()).then(|| Hub::new(spec.world));
    if hub.is_none() && !nccl_present() {
        return Err(Error::Nccl(
            "the NCCL library (libnccl.so.2) was not found on this machine; several GPUs \
             need it (https://developer.nvidia.com/nccl), one GPU does not"
                .into(),
        ));
    }
    // Two teams on one GPU would interleave their collectives on its one stream and wait
    // for each other forever: a team holds its GPUs until it is done.
    let _held = GpuClaim::take(&spec.gpus);
    // Every GPU opens (and compiles nothing yet) before any thread waits in NCCL.
    let gpus = spec
        .gpus
        .iter()
        .map(|&i| Gpu::open(i))
        .collect::<Result<Vec<_>>>()?;
    let id = match hub {
        None => Some(unique_id(spec)?),
        Some(_) => None,
    };
    let watch = Watch::new(spec.patience);
    let here = Arc::new(std::sync::Barrier::new(spec.gpus.len()));
    let board = spec
        .is_whole()
        .then(|| Arc::new(Board::new(spec.world, watch.clone())));
    let results: Vec<Result<R>> = std::thread::scope(|s| {
        let handles: Vec<_> = gpus
            .into_iter()
            .zip(inputs)
            .enumerate()
            .map(|(i, (gpu, input))| {
                let work = &work;
                let hub = hub.clone();
                let watch = watch.clone();
                let here = here.clone();
                let board = board.clone();
                s.spawn(move || -> Result<R> {
                    let rank = spec.first_rank + i;
                    // A shared link first: should this rank fail from here on, dropping
                    // it tells the other ranks, which would otherwise wait for it.
                    let shared =
                        hub.map(|hub| Link::shared(hub, rank, spec.world, gpu.stream().clone()));
                    // Should this rank fail, the others of this process stop waiting.
                    let stopped = |e: Error| {
                        watch.stop();
                        e
                    };
                    gpu.bind().map_err(stopped)?;
                    let stream = gpu.stream().clone();
                    let link = match (shared, id) {
                        (Some(link), _) => link,
                        (None, Some(id)) => {
                            let comm =
                                Comm::join(stream.clone(), rank, spec.world, &id, watch.clone())
                                    .map_err(stopped)?;
                            Link::nccl(comm, rank, spec.world, stream)
                        }
                        (None, None) => unreachable!("a team over NCCL has its id"),
                    };
                    let member = Member {
                        gpu,
                        link,
                        rank,
                        world: spec.world,
                        here,
                        board,
                    };
                    work(&member, input).map_err(stopped)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Nccl("a GPU's thread panicked".into())))
            })
            .collect()
    });
    let (mut values, mut errors) = (Vec::new(), Vec::new());
    for r in results {
        match r {
            Ok(v) => values.push(v),
            Err(e) => errors.push(e),
        }
    }
    // A failed rank's own error says why; the ranks sharing its GPU only that it stopped.
    match errors.iter().position(|e| !departed(e)) {
        Some(i) => Err(errors.swap_remove(i)),
        None => errors.into_iter().next().map_or(Ok(values), Err),
    }
}

/// The GPUs of this process that a team is using, released on drop.
struct GpuClaim(Vec<usize>);

static CLAIMED: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());
static RELEASED: std::sync::Condvar = std::sync::Condvar::new();

impl GpuClaim {
    /// Waits until none of `gpus` is in a team, then claims them all at once.
    fn take(gpus: &[usize]) -> GpuClaim {
        let mut claimed = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
        while gpus.iter().any(|g| claimed.contains(g)) {
            claimed = RELEASED.wait(claimed).unwrap_or_else(|e| e.into_inner());
        }
        claimed.extend_from_slice(gpus);
        GpuClaim(gpus.to_vec())
    }
}

impl Drop for GpuClaim {
    fn drop(&mut self) {
        let mut claimed = CLAIMED.lock().unwrap_or_else(|e| e.into_inner());
        claimed.retain(|g| !self.0.contains(g));
        RELEASED.notify_all();
    }
}

/// NCCL's unique id: made here when this process drives rank 0 (and written to the id
/// file when there is one), read from the id file otherwise.
fn unique_id(spec: &TeamSpec) -> Result<Id> {
    if spec.has_root() {
        let id = Id::new().map_err(|e| {
            nccl::error(
                e.0,
                std::ptr::null_mut(),
                "making NCCL's unique id for the team",
            )
        })?;
        if let Some(path) = &spec.id_file {
            let hex: String = id
                .internal()
                .iter()
                .map(|&c| format!("{:02x}", c as u8))
                .collect();
            let tmp = path.with_extension("partial");
            std::fs::write(&tmp, hex + "\n")
                .and_then(|_| std::fs::rename(&tmp, path))
                .map_err(|e| {
                    Error::Nccl(format!(
                        "cannot write the NCCL id to {}: {e}",
                        path.display()
                    ))
                })?;
        }
        return Ok(id);
    }
    let path = spec
        .id_file
        .as_ref()
        .expect("checked: a partial team has an id file");
    let start = Instant::now();
    let text = loop {
        match std::fs::read_to_string(path) {
            Ok(t) => break t,
            Err(_) if start.elapsed() < spec.patience => {
                std::thread::sleep(Duration::from_millis(100))
            }
            Err(e) => {
                return Err(Error::Nccl(format!(
                    "no NCCL id in {} after {} s (WARPGRAPH_NCCL_TIMEOUT; is the process of \
                     rank 0 running?): {e}",
                    path.display(),
                    spec.patience.as_secs_f64()
                )))
            }
        }
    };
    parse_id(text.trim()).ok_or_else(|| {
        Error::Nccl(format!(
            "{} does not hold an NCCL id (256 hex digits)",
            path.display()
        ))
    })
}

/// The id from its 256 hex digits.
fn parse_id(hex: &str) -> Option<Id> {
    if hex.len() != 256 || !hex.is_ascii() {
        return None;
    }
    let mut internal = [0 as std::ffi::c_char; 128];
    for (i, c) in internal.iter_mut().enumerate() {
        *c = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()? as std::ffi::c_char;
    }
    Some(Id::uninit(internal))
}

/// Splits `units` into `world` contiguous runs as even as possible: rank r gets
/// `split(units, world, r)`.
pub fn split(units: usize, world: usize, rank: usize) -> std::ops::Range<usize> {
    units * rank / world..units * (rank + 1) / world
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_sums_every_rounds_counts_on_every_rank() {
        // Four ranks' threads, each posting round after round with nothing else between
        // (so some run a round ahead of others, as the board allows); every rank must
        // read every round's sums.
        let world = 4;
        let board = Board::new(world, Watch::new(Duration::from_secs(60)));
        let rounds = 2000u64;
        std::thread::scope(|s| {
            let board = &board;
            let ranks: Vec<_> = (0..world)
                .map(|rank| {
                    s.spawn(move || {
                        for round in 1..=rounds {
                            let r = rank as u64;
                            let mut v = [round, r, round * r, 1];
                            board.sum(rank, round, &mut v, |_| Ok(())).unwrap();
                            assert_eq!(v, [4 * round, 6, 6 * round, 4], "rank {rank}");
                        }
                    })
                })
                .collect();
            for h in ranks {
                h.join().unwrap();
            }
        });
    }

    #[test]
    fn a_board_wait_ends_when_a_rank_stops_or_the_watch_says_so() {
        let watch = Watch::new(Duration::from_secs(60));
        let board = Board::new(2, watch.clone());
        // Rank 1 never posts: rank 0's wait ends once another rank of the process stops.
        watch.stop();
        let e = board.sum(0, 1, &mut [1], |_| Ok(())).unwrap_err();
        assert!(departed(&e), "{e}");
        // And when the caller's watch gives up.
        let board = Board::new(2, Watch::new(Duration::from_secs(60)));
        let e = board
            .sum(0, 1, &mut [1], |_| Err(Error::Nccl("gave up".into())))
            .unwrap_err();
        assert!(e.to_string().contains("gave up"), "{e}");
    }

    #[test]
    fn ids_round_trip_and_bad_ones_are_refused() {
        let mut internal = [0 as std::ffi::c_char; 128];
        for (i, c) in internal.iter_mut().enumerate() {
            *c = (i * 7) as u8 as std::ffi::c_char;
        }
        let hex: String = internal
            .iter()
            .map(|&c| format!("{:02x}", c as u8))
            .collect();
        assert_eq!(parse_id(&hex).unwrap().internal(), &internal);
        assert!(parse_id(&hex[2..]).is_none());
        assert!(parse_id(&format!("zz{}", &hex[2..])).is_none());
    }

    #[test]
    fn specs_are_checked() {
        let whole = TeamSpec::local(2);
        assert!(whole.is_whole() && whole.has_root());
        assert_eq!(whole.describe(), "2 GPUs (ranks 0-1 of 2)");
        let part = TeamSpec {
            world: 4,
            first_rank: 2,
            gpus: vec![0, 1],
            id_file: None,
            ..TeamSpec::local(2)
        };
        let e = part.check().unwrap_err().to_string();
        assert!(e.contains("WARPGRAPH_NCCL_ID_FILE"), "{e}");
        let outside = TeamSpec {
            world: 3,
            ..part.clone()
        };
        assert!(outside.check().unwrap_err().to_string().contains("outside"));
        let none = TeamSpec::local(0);
        assert!(none.check().is_err());
        let shared = TeamSpec::on_one_gpu(1, 3);
        assert!(shared.check().is_ok() && shared.on_one());
        assert_eq!(shared.describe(), "3 ranks on GPU 1");
        assert!(TeamSpec::local(1).on_one() && !whole.on_one());
        let mixed = TeamSpec {
            world: 3,
            first_rank: 0,
            gpus: vec![0, 0, 1],
            id_file: None,
            ..TeamSpec::local(3)
        };
        assert!(mixed.check().unwrap_err().to_string().contains("share"));
        let split_shared = TeamSpec {
            world: 4,
            id_file: Some("id".into()),
            ..shared
        };
        assert!(!split_shared.on_one() && split_shared.check().is_err());
    }

    /// A process without rank 0 waits for the id file no longer than its patience.
    #[test]
    fn the_id_file_is_awaited_no_longer_than_the_patience() {
        let dir = tempfile::tempdir().unwrap();
        let spec = TeamSpec {
            world: 2,
            first_rank: 1,
            gpus: vec![0],
            id_file: Some(dir.path().join("never.id")),
            patience: Duration::from_millis(200),
            over_nccl: false,
        };
        let e = unique_id(&spec).unwrap_err().to_string();
        assert!(
            e.contains("no NCCL id in") && e.contains("after 0.2 s"),
            "{e}"
        );
    }

    /// Rank 0 of a team of two whose rank 1 never comes: an error once the patience has
    /// passed, where a plain `ncclCommInitRank` would wait forever.
    #[test]
    fn a_rank_that_never_joins_is_an_error_after_the_patience() {
        if !test_nccl() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let spec = TeamSpec {
            world: 2,
            first_rank: 0,
            gpus: vec![0],
            id_file: Some(dir.path().join("half.id")),
            patience: Duration::from_secs(2),
            over_nccl: false,
        };
        let e = run(&spec, vec![()], |_, ()| Ok(()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("rank 0 of 2") && e.contains("not every rank came within 2 s"),
            "{e}"
        );
        // The GPU is free for the next team.
        let one = TeamSpec {
            over_nccl: true,
            ..TeamSpec::local(1)
        };
        assert_eq!(
            run(&one, vec![5], |m, x: u32| Ok(x + m.rank as u32)).unwrap(),
            [5]
        );
    }

    #[test]
    fn splits_cover_everything_evenly() {
        for (units, world) in [(0, 1), (5, 2), (7, 4), (1024, 3), (3, 4)] {
            let mut next = 0;
            for r in 0..world {
                let s = split(units, world, r);
                assert_eq!(s.start, next);
                assert!(s.len() <= units / world + 1);
                next = s.end;
            }
            assert_eq!(next, units);
        }
    }
}
