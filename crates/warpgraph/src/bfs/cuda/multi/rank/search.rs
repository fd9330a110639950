//! A rank's search: its start and the level loop (each level's direction, steps,
//! exchange and counts).

use std::time::Instant;

use cudarc::driver::{CudaEvent, PushKernelArg};

use super::walk::Walk;
use super::{ahead_differs, Expand, NextRule, RankRun, RankState, Short};
use crate::bfs::cuda::multi::dest::Dest;
use crate::bfs::cuda::multi::trace::{mark, step, LevelMarks};
use crate::bfs::cuda::multi::tuning::{AHEAD_SLACK, STATS, THREADS};
use crate::bfs::BfsOptions;
use crate::bfs::Direction;
use crate::cuda::link::Reduce;
use crate::cuda::team::Member;
use crate::cuda::{gpu_err, launch_config, Timer};
use crate::error::{Error, Result};
use crate::graph::{Graph, VertexId};
use crate::settings;

/// How a level that the GPUs take is queued: decided before its steps.
#[derive(Clone, Copy)]
struct Plan {
    /// The level, if it is short.
    short: Option<Short>,
    /// The step does the level before's visit ([`RankState::host_counts`]).
    fold: bool,
    /// Its post, where it was queued ahead (its kernels queued already).
    queued: Option<u64>,
    /// Its rule's alpha (0: top-down only), whether the next level is queued ahead, and
    /// whether a run of short levels takes this one on.
    alpha_rule: u64,
    go_ahead: bool,
    run: bool,
    /// The lists' bound of the next level if it is queued ahead.
    then: u32,
}

impl RankState {
    /// One search from `source`, every rank of the team calling it alike; the rank's part
    /// of the tree goes to its range of `dest` (gathering, rank 0 writes all of it). On
    /// return every rank has written its part, and the times are the slowest rank's.
    pub(crate) fn search(
        &mut self,
        m: &Member,
        g: &Graph,
        source: VertexId,
        opts: &BfsOptions,
        dest: Option<&Dest>,
    ) -> Result<RankRun> {
        let (timer, begun) = self.start(m, source)?;
        let mut w = Walk {
            source,
            opts: *opts,
            n: self.part.n as u64,
            alpha: u64::from(opts.alpha.max(1)),
            beta: u64::from(opts.beta.max(1)),
            trace: settings::get().trace >= 1,
            undirected: self.undirected(),
            nf: 1,
            mf: g.out().degree(source),
            unexplored: g.out().num_arcs(),
            bottom_up: opts.direction == Direction::BottomUp,
            level: 0,
            prev_nf: 0,
            traced: Vec::new(),
            seeded: false,
            seeded_queue: false,
            last_short: None,
            ahead: None,
            said_short: None,
            ran: false,
            nothing_left: false,
            split_round: false,
            board_ms: None,
            unvisited: false,
        };
        // The host expands the first top-down levels while they are small (the GPUs
        // clearing their arrays meanwhile), until `seeded` hands their result over.
        self.host.start(source);
        while w.goes_on() {
            self.level(m, g, &mut w)?;
        }
        self.after_levels(m, &w)?;
        self.finish(m, dest, timer, begun, &w)
    }

    /// The search's start, on every rank together: returns its timer and the moment the
    /// host began.
    fn start(&mut self, m: &Member, source: VertexId) -> Result<(Timer, Instant)> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let seg = self.part.seg as u32;
        let words = self.part.words() as u32;
        let local = 32 * seg;
        let cfg = launch_config(self.blocks, THREADS);
        // Start together, on the GPUs: a one-word all-reduce in the stream, then the timer's
        // first event. (With the host threads meeting instead, one thread's late wake-up
        // would count against the other GPU, whose first collective waits for it.) A team
        // of one has no one to wait for, and its link does nothing. The GPU's wait there
        // is left out of the wall-clock time as well: the first rank of a process comes
        // late by its caller's look at the last search's tree (a verifier's, say), which
        // would otherwise count in the other ranks' time, so the team's.
        let wait = gpu.wait_start()?;
        let begun = Instant::now();
        m.link.all_reduce_in_place(&mut self.start, Reduce::Max)?;
        // Only the exchange in symmetric memory waits for it (`gather_front`).
        if self.symmetric {
            self.started.record(&stream).map_err(gpu_err)?;
            self.unstarted = true;
        }
        let timer = gpu.timer_after(Some(wait))?;
        let dlo = self.dlo();
        let mut b = stream.launch_builder(&self.k.reset);
        let mut depth = self.depth.slice_mut(dlo..);
        let mut parent = self.parent.slice_mut(dlo..);
        b.arg(&mut *self.front)
            .arg(&mut self.visited)
            .arg(&self.never)
            .arg(&words)
            .arg(&mut depth)
            .arg(&mut parent)
            .arg(&local)
            .arg(&source)
            .arg(&self.lo);
        self.counters.push(&mut b);
        // SAFETY: matches mbfs_reset; front, visited and never hold `words` words,
        // depth and parent `local` entries from dlo, sent `world` counts.
        unsafe { b.launch(cfg) }.map_err(gpu_err)?;
        Ok((timer, begun))
    }

    /// One level of the search (or, in a run of short levels, several): its direction,
    /// its steps on the GPU or the host, and its counts.
    fn level(&mut self, m: &Member, g: &Graph, w: &mut Walk) -> Result<()> {
        let gpu = &m.gpu;
        let level = w.level;
        if self.fail_at == Some((m.rank, level)) {
            return Err(Error::Gpu(format!(
                "BFS team, rank {}: stopped at level {level}, as asked (a test of the \
                 team's stop)",
                m.rank
            )));
        }
        w.bottom_up = w.direction(self.list_cap);
        w.prev_nf = w.nf;
        w.unexplored = w.unexplored.saturating_sub(w.mf);
        let lt = Instant::now();
        let is_short = !w.bottom_up && w.mf <= self.list_cap as u64;
        if !w.seeded {
            if !w.bottom_up && self.host.take(w.mf) {
                self.host_level(g, w, lt);
                return Ok(());
            }
            w.seeded_queue = self.seed(gpu, w.source, level, is_short)?;
            w.seeded = true;
        }
        // The level before's visit (see `host_counts`): this level's bottom-up step's,
        // or a short level's queue's where it reads every word (solo; the level
        // before was not short, so the frontier is not listed), else a launch first.
        let pending = std::mem::take(&mut w.unvisited);
        let fold = pending && (w.bottom_up || (is_short && self.solo.is_some()));
        if pending && !fold {
            self.visit(gpu, None)?;
        }
        let e0 = mark(gpu, w.trace)?;
        let plan = self.plan(m, w, is_short, fold)?;
        let mut e1 = None;
        let post = match plan.queued {
            Some(post) => post,
            None => self.queue_level(m, w, &plan, &mut e1)?,
        };
        w.last_short = plan.short.map(|s| s.cap);
        if plan.go_ahead && !plan.run {
            self.queue_ahead(m, w, &plan)?;
        }
        let e2 = mark(gpu, w.trace)?;
        self.take_counts(m, w, &plan, post, lt, [e0, e1, e2])
    }

    /// A first level expanded by the host, from its copy of the graph.
    fn host_level(&mut self, g: &Graph, w: &mut Walk, lt: Instant) {
        (w.nf, w.mf) = self.host.expand(g.out(), w.level + 1);
        w.level += 1;
        if w.trace {
            let (level, nf, mf) = (w.level, w.nf, w.mf);
            w.traced.push(LevelMarks {
                line: format!("level {level:>4} host      found {nf} vertices, {mf} arcs"),
                host_ms: lt.elapsed().as_secs_f64() * 1e3,
                events: None,
                steps: Vec::new(),
            });
        }
    }

    /// How the level is queued: short or not, queued ahead already or not, and whether
    /// the next level is queued ahead or a run of short levels takes it on.
    fn plan(&mut self, m: &Member, w: &mut Walk, is_short: bool, fold: bool) -> Result<Plan> {
        let level = w.level;
        // A short level's lists hold at most a pair per frontier arc.
        let mut short = is_short.then_some(Short {
            cap: w.mf as u32,
            listed: w.last_short.is_some(),
            seeded: std::mem::take(&mut w.seeded_queue),
            visits: fold,
            ahead: false,
        });
        // The level queued ahead runs if it is short and within the bound it was given
        // (mbfs_absorb found the same: checked below); if not, it did nothing, and the
        // level is queued now.
        let ahead_runs = w
            .ahead
            .is_some_and(|(cap, ..)| short.is_some_and(|s| s.listed && s.cap <= cap));
        if w.ahead.is_some() && w.said_short != Some(ahead_runs) {
            return Err(ahead_differs(m.rank, level, ahead_runs));
        }
        // A run ends where its GPU found the next level not short.
        if std::mem::take(&mut w.ran) && w.said_short != Some(short.is_some()) {
            return Err(ahead_differs(m.rank, level, short.is_some()));
        }
        let (queued, then) = match (w.ahead.take(), short) {
            (Some((cap, post, then)), Some(_)) if ahead_runs => {
                short = Some(Short {
                    cap,
                    listed: true,
                    seeded: false,
                    visits: false,
                    ahead: true,
                });
                (Some(post), Some(then))
            }
            (Some(_), _) => {
                self.turn_lists(self.short_world(m));
                (None, None)
            }
            (None, _) => (None, None),
        };
        // What mbfs_absorb needs to decide on the level after this one (see
        // `NextRule`), and whether that one is queued ahead: only inside a run of short
        // levels (this one short after a short one, so the next one most likely short
        // too), with no trace, and not where a test stops the team.
        let alpha_rule = match w.opts.direction {
            Direction::TopDown => 0,
            _ => w.alpha,
        };
        let go_ahead = short.is_some_and(|s| s.listed)
            && !w.trace
            && w.opts.direction != Direction::BottomUp
            && self.fail_at.map(|(_, l)| l) != Some(level + 1);
        // A team of one runs such levels of at most RUN_ARCS arcs in one launch instead,
        // on to the last whose next level is not (or to the level before the one a test
        // stops at), unless this level was queued ahead already (after one of more
        // arcs: its kernels have run, and the next is queued ahead as before).
        let run = go_ahead
            && queued.is_none()
            && self.short_world(m) == 1
            && self.run_blocks > 0
            && w.mf <= self.run_arcs;
        // The lists' bound of the next level if it is queued ahead (given to this
        // level's mbfs_absorb when it was queued, if it was).
        let then = then.unwrap_or_else(|| self.next_cap(m, w.mf));
        Ok(Plan {
            short,
            fold,
            queued,
            alpha_rule,
            go_ahead,
            run,
            then,
        })
    }

    /// The lists' bound of a level queued ahead after a frontier of `known` arcs.
    fn next_cap(&self, m: &Member, known: u64) -> u32 {
        let list_cap = self.list_cap as u64;
        // A team of one's list costs nothing to bound loosely (nor a solo rank's);
        // other ranks all-gather the whole bound.
        match self.short_world(m) {
            1 => list_cap as u32,
            _ => list_cap.min(2 * known + list_cap / AHEAD_SLACK) as u32,
        }
    }

    /// Queues the level's steps and its exchange (it was not queued ahead); returns the
    /// post of its counts, and sets `e1`, the trace's event after its expansion.
    fn queue_level(
        &mut self,
        m: &Member,
        w: &mut Walk,
        plan: &Plan,
        e1: &mut Option<CudaEvent>,
    ) -> Result<u64> {
        let gpu = &m.gpu;
        let stream = gpu.stream().clone();
        let (level, nf, mf) = (w.level, w.nf, w.mf);
        let seg = self.part.seg as u32;
        let lo_word = (self.rank * self.part.seg) as u32;
        let short = plan.short;
        if let (None, Some(cap)) = (short, w.last_short) {
            self.front_of_lists(gpu, self.short_world(m), cap)?;
            step(&mut self.steps, gpu, "front")?;
        }
        *e1 = if w.bottom_up {
            self.bottom_up_step(gpu, level, lo_word, seg, plan.fold)?;
            step(&mut self.steps, gpu, "bottom-up")?;
            mark(gpu, w.trace)?
        } else if plan.run {
            None
        } else {
            let how = match () {
                _ if short.is_some() || m.world == 1 => Expand::Owners,
                _ if mf >= self.whole_degree.saturating_mul(nf) => Expand::Whole,
                _ => Expand::Hubs,
            };
            self.top_down_step(m, level, short, how, w.trace)?
        };
        // The post of this level's counts.
        let box_ = level as usize & 1;
        let post = self.mailbox[box_].next();
        if plan.run {
            let last = match self.fail_at {
                Some((_, l)) if l > level => l - 1,
                _ => u32::MAX,
            };
            let frontier = (nf, mf);
            self.short_run(
                gpu,
                level,
                frontier,
                w.unexplored,
                plan.alpha_rule,
                last,
                post,
            )?;
            step(&mut self.steps, gpu, "run")?;
        } else if let Some(short) = short {
            // Every rank's list to every rank, which builds the next frontier
            // from them, lists this rank's part of it, posts its counts,
            // clears the counters and decides on the next level.
            let rule = NextRule {
                unexplored: w.unexplored,
                frontier: Some((nf, 0)),
                alpha: plan.alpha_rule,
                next_cap: plan.then,
            };
            self.absorb_lists(m, short, level, rule, post)?;
            step(&mut self.steps, gpu, "absorb")?;
        } else {
            // A level split by owner.
            let dev = self.mailbox[box_].device();
            // With host counts, this rank's own go to its host first, which
            // sums every rank's (below) while the bitmap crosses.
            if self.host_counts {
                let mut b = stream.launch_builder(&self.k.post);
                b.arg(&dev).arg(&post);
                self.counters.push(&mut b);
                // SAFETY: matches mbfs_post; stats holds STATS values, sent
                // `world`, the mailbox STATS values.
                unsafe { b.launch(launch_config(1, 1)) }.map_err(gpu_err)?;
                step(&mut self.steps, gpu, "post")?;
                w.split_round = true;
            }
            // The next frontier (and without host counts, the counts: one
            // group, one launch) on every rank, then visited |= front.
            self.gather_front(m, !self.host_counts)?;
            step(&mut self.steps, gpu, "collective")?;
            // With host counts the visit waits for the next level's direction
            // (see `host_counts`).
            match self.host_counts {
                true => w.unvisited = true,
                false => self.visit(gpu, Some((dev, post)))?,
            }
        }
        self.posted[box_].record(&stream).map_err(gpu_err)?;
        Ok(post)
    }

    /// The next level, queued before this one's counts are in: its kernels do nothing
    /// unless this level's mbfs_absorb found it short with at most `plan.then` frontier
    /// arcs. (The arcs unexplored before it are known now; its frontier's are this
    /// level's mbfs_absorb's count.)
    fn queue_ahead(&mut self, m: &Member, w: &mut Walk, plan: &Plan) -> Result<()> {
        let stream = m.gpu.stream().clone();
        let next = w.level + 1;
        let s = Short {
            cap: plan.then,
            listed: true,
            seeded: false,
            visits: false,
            ahead: true,
        };
        self.top_down_step(m, next, Some(s), Expand::Owners, false)?;
        let box_ = next as usize & 1;
        let post = self.mailbox[box_].next();
        let rule = NextRule {
            unexplored: w.unexplored,
            frontier: None,
            alpha: plan.alpha_rule,
            next_cap: self.next_cap(m, w.mf),
        };
        self.absorb_lists(m, s, next, rule, post)?;
        self.posted[box_].record(&stream).map_err(gpu_err)?;
        w.ahead = Some((plan.then, post, self.next_cap(m, w.mf)));
        Ok(())
    }

    /// Waits for the level's counts (`post`), sums them with the other ranks' where the
    /// hosts do, and moves the search on to the next level (or past a run's levels).
    fn take_counts(
        &mut self,
        m: &Member,
        w: &mut Walk,
        plan: &Plan,
        post: u64,
        lt: Instant,
        [e0, e1, e2]: [Option<CudaEvent>; 3],
    ) -> Result<()> {
        let level = w.level;
        let mut counts = [0u64; STATS + 4];
        let box_ = level as usize & 1;
        self.mailbox[box_].wait(post, &self.posted[box_], &mut counts, |t| m.link.watch(t))?;
        if std::mem::take(&mut w.split_round) {
            // This rank's counts of a level split by owner: the team's are their sums
            // (every rank sums every such level, so the rounds agree).
            let board = m.board().ok_or_else(|| {
                Error::Gpu("BFS team: host counts without a board (an internal error)".into())
            })?;
            self.round += 1;
            let waited = Instant::now();
            board.sum(m.rank, self.round, &mut counts[..STATS], |t| {
                m.link.watch(t)
            })?;
            w.board_ms = Some(waited.elapsed().as_secs_f64() * 1e3);
        }
        if counts[2] != 0 {
            return Err(Error::Gpu(format!(
                "BFS team, rank {}: a list of the vertices found at level {level} \
                 outgrew its bound of {} pairs (an internal error; the tree would be \
                 wrong)",
                m.rank,
                w.mf.min(self.list_cap as u64)
            )));
        }
        (w.nf, w.mf) = (counts[0], counts[1]);
        w.said_short = plan.short.map(|_| counts[STATS] != 0);
        // A bottom-up step that left no vertex unvisited (but those no arc leads to)
        // ends the search: no level after it could find any.
        w.nothing_left = w.bottom_up && counts[3] == 0;
        w.level += match plan.run {
            true => {
                // The run's last level's list is the frontier, for mbfs_front (the
                // run's levels alternate between the two lists, the first in
                // `counters.list`).
                let levels = counts[STATS + 1] as u32;
                if levels % 2 == 1 {
                    self.turn_lists(1);
                }
                w.last_short = Some(self.list_cap as u32);
                w.unexplored = counts[STATS + 2];
                w.prev_nf = counts[STATS + 3];
                w.ran = true;
                levels
            }
            false => 1,
        };
        if w.trace {
            let (level, nf, mf) = (w.level, w.nf, w.mf);
            w.traced.push(LevelMarks {
                line: format!(
                    "level {level:>4} {} found {nf} vertices, {mf} arcs{}",
                    if w.bottom_up {
                        "bottom-up"
                    } else {
                        "top-down "
                    },
                    match w.board_ms.take() {
                        Some(ms) => format!(" (the other ranks' counts waited {ms:.3} ms)"),
                        None => String::new(),
                    }
                ),
                host_ms: lt.elapsed().as_secs_f64() * 1e3,
                events: Some([e0, e1, e2]),
                steps: self.steps.as_mut().map(std::mem::take).unwrap_or_default(),
            });
        }
        Ok(())
    }
}
