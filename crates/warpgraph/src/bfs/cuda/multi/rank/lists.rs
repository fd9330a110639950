//! A rank's short levels: the lists of what they found, absorbed by every rank, the
//! frontier made again from them, and a team of one's runs of short levels in one launch.

use cudarc::driver::PushKernelArg;

use super::{NextRule, RankState, Short};
use crate::bfs::cuda::multi::trace::step;
use crate::bfs::cuda::multi::tuning::{LISTED_CAP, SHORT_PIECE, THREADS};
use crate::cuda::team::Member;
use crate::cuda::{gpu_err, launch_config, Gpu};
use crate::error::Result;

impl RankState {
    /// Before a level that is not short, after a short one whose lists held at most `cap`
    /// pairs each: its frontier, in those lists, set in `front` (cleared at the first
    /// short level of the run).
    pub(super) fn front_of_lists(&mut self, gpu: &Gpu, world: usize, cap: u32) -> Result<()> {
        let stride = 1 + 2 * cap;
        let world = world as u32;
        let mut b = gpu.stream().launch_builder(&self.k.front);
        b.arg(&self.lists)
            .arg(&stride)
            .arg(&cap)
            .arg(&world)
            .arg(&mut *self.front);
        // A thread a pair of each list.
        let blocks = cap.div_ceil(THREADS).clamp(1, self.blocks);
        // SAFETY: matches mbfs_front; lists holds `world` lists of `stride` entries, each
        // at most `cap` pairs of vertices below n, front covers every vertex.
        unsafe { b.launch(launch_config(blocks, THREADS)) }.map_err(gpu_err)?;
        Ok(())
    }

    /// The short level's lists move on: the level about to be absorbed gets the buffer
    /// of `lists`, the last one's are kept (in `lists_prev`; a team of one, whose list is
    /// every rank's, swaps it with `lists` instead of an all-gather, and mbfs_absorb
    /// zeroes the count of the one the next expansion writes). Twice, nothing moved: for
    /// a level queued ahead that was not short.
    pub(super) fn turn_lists(&mut self, world: usize) {
        match world {
            1 => std::mem::swap(&mut self.counters.list, &mut self.lists),
            _ => std::mem::swap(&mut self.lists_prev, &mut self.lists),
        }
    }

    /// After a `short` top-down expansion at `level` (its lists hold at most `short.cap`
    /// pairs each): an all-gather gives every rank every list, and each builds the next
    /// frontier, the visited set and the counts from them, its own vertices' depths and
    /// parents and its list of their pieces too; it posts the counts (`post`), clears
    /// them, and decides by `rule` whether the level after is short.
    pub(super) fn absorb_lists(
        &mut self,
        m: &Member,
        short: Short,
        level: u32,
        rule: NextRule,
        post: u64,
    ) -> Result<()> {
        let stream = m.gpu.stream().clone();
        let cap = short.cap;
        // A thread a pair of each list (a level's last ones hold a few hundred, and a full
        // grid's blocks each taking the ticket would cost more than the work).
        let blocks = cap.div_ceil(THREADS).clamp(1, self.blocks);
        let cfg = launch_config(blocks, THREADS);
        let len = 1 + 2 * cap as usize;
        let alone = self.short_world(m) == 1;
        self.turn_lists(self.short_world(m));
        if !alone {
            m.link.all_gather(
                &self.counters.list.slice(..len),
                &mut self.lists.slice_mut(..m.world * len),
            )?;
            step(&mut self.steps, &m.gpu, "all-gather")?;
        }
        let len32 = len as u32;
        let undirected = self.undirected();
        let (listed_cap, piece) = (LISTED_CAP as u32, SHORT_PIECE as u32);
        let short_arcs = self.list_cap as u32;
        let (lo, nl) = self.short_range();
        let mut b = stream.launch_builder(&self.k.absorb);
        b.arg(&self.lists)
            .arg(&len32)
            .arg(&cap)
            .arg(&lo)
            .arg(&nl)
            .arg(&mut self.visited)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&level)
            .arg(&self.deg);
        self.counters.push_for(&mut b, alone);
        let dev = self.mailbox[level as usize & 1].device();
        b.arg(&mut self.ticket)
            .arg(&dev)
            .arg(&post)
            .arg(&mut self.listed)
            .arg(&listed_cap)
            .arg(&piece)
            .arg(&short_arcs);
        let gated = u32::from(short.ahead);
        let (frontier_vertices, frontier_arcs) = rule.frontier.unwrap_or((u64::MAX, u64::MAX));
        let next_cap = u64::from(rule.next_cap);
        b.arg(&mut self.ahead)
            .arg(&gated)
            .arg(&rule.unexplored)
            .arg(&frontier_vertices)
            .arg(&frontier_arcs)
            .arg(&rule.alpha)
            .arg(&next_cap)
            .arg(&undirected);
        // SAFETY: matches mbfs_absorb; lists holds `world` lists of `len` entries, each
        // at most `cap` pairs of vertices below n; deg covers every vertex, sent `world`
        // counts, the mailbox STATS + 1 values, listed two lists of LISTED_CAP entries,
        // listed_len their lengths and arcs (four words), ahead four words.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        Ok(())
    }

    /// A team of one's run of short levels from `level` (short, its frontier of
    /// `frontier.0` vertices listed in pieces of `frontier.1` arcs in all; `unexplored`
    /// arcs in no frontier up to this one) in one cooperative launch of mbfs_short_run, up
    /// to the last level whose next one is not short (more arcs than the lists' bound or,
    /// with `alpha` not 0, than the arcs left over alpha, from a frontier not smaller than
    /// its own; or [`spent`]) or has more than `run_arcs` arcs, or `last`. It posts `post`:
    /// the last level's counts, whether the next level is short, the levels run, the arcs
    /// still unexplored and the last level's frontier's vertices.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn short_run(
        &mut self,
        gpu: &Gpu,
        level: u32,
        frontier: (u64, u64),
        unexplored: u64,
        alpha: u64,
        last: u32,
        post: u64,
    ) -> Result<()> {
        let (listed_cap, piece) = (LISTED_CAP as u32, SHORT_PIECE as u32);
        let undirected = self.undirected();
        let short_arcs = self.list_cap as u32;
        let dev = self.mailbox[level as usize & 1].device();
        let rows = self.solo.as_ref().unwrap_or(&self.out);
        let mut b = gpu.stream().launch_builder(&self.k.short_run);
        b.arg(&rows.0)
            .arg(&rows.1)
            .arg(&mut self.visited)
            .arg(&mut self.depth)
            .arg(&mut self.parent)
            .arg(&self.lo)
            .arg(&self.nl)
            .arg(&self.deg)
            .arg(&mut self.listed)
            .arg(&listed_cap)
            .arg(&piece)
            .arg(&short_arcs)
            .arg(&mut self.counters.listed_len)
            .arg(&mut self.counters.list)
            .arg(&mut self.lists)
            .arg(&mut self.run)
            .arg(&mut self.run_bar)
            .arg(&level)
            .arg(&last)
            .arg(&unexplored)
            .arg(&alpha)
            .arg(&undirected)
            .arg(&frontier.0)
            .arg(&frontier.1)
            .arg(&self.run_arcs)
            .arg(&dev)
            .arg(&post);
        // SAFETY: matches mbfs_short_run on a team of one or solo (every vertex's rows,
        // depths and parents); listed holds two lists of LISTED_CAP pieces of rows,
        // listed_len their lengths and arcs (four words); both lists hold 1 + 2 * LIST_CAP words
        // (short_arcs <= LIST_CAP pairs: a pair per frontier arc); run holds 3 * RUN_SET
        // words, the mailbox STATS + 4 values; every block is resident (run_blocks, at
        // most resident_grid's).
        unsafe { b.launch_cooperative(launch_config(self.run_blocks, THREADS)) }
            .map_err(gpu_err)?;
        Ok(())
    }
}
