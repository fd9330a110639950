//! The first levels of a search, expanded on the host.

use crate::graph::{Csr, VertexId};

/// The first levels of a search, expanded on the host: a top-down level whose arcs keep
/// the total within the bound ([`HostLevels::take`]) costs a few microseconds here,
/// against a collective and a round trip on the GPUs. Parents follow the GPUs' rule: the
/// frontier is scanned in ascending order and the first arc to reach a vertex is its
/// parent's, so the least in-neighbour one level up.
pub(super) struct HostLevels {
    /// Arcs the levels may still expand.
    pub(super) budget: usize,
    /// Arcs the levels may expand in all.
    pub(super) cap: usize,
    /// The vertices reached (open addressing, `EMPTY` for none), and which slots are used.
    pub(super) slots: Vec<u32>,
    pub(super) used: Vec<usize>,
    /// The frontier (ascending) and the one being made.
    pub(super) front: Vec<u32>,
    pub(super) next: Vec<u32>,
    /// (vertex, parent, depth) of every vertex reached but the source.
    pub(super) found: Vec<u32>,
}

impl HostLevels {
    const EMPTY: u32 = u32::MAX;

    /// For levels of up to `cap` arcs in all.
    pub(super) fn new(cap: usize) -> HostLevels {
        // The source and one vertex per arc at most: the table stays at most half full.
        let slots = (2 * (cap + 1)).next_power_of_two();
        HostLevels {
            budget: cap,
            cap,
            slots: vec![Self::EMPTY; slots],
            used: Vec::new(),
            front: Vec::new(),
            next: Vec::new(),
            found: Vec::new(),
        }
    }

    /// A new search from `source`: the source is reached, and the frontier.
    pub(super) fn start(&mut self, source: VertexId) {
        for &i in &self.used {
            self.slots[i] = Self::EMPTY;
        }
        self.used.clear();
        self.found.clear();
        self.front.clear();
        self.budget = self.cap;
        self.insert(source);
        self.front.push(source);
    }

    /// Whether a level of `arcs` frontier arcs is the host's (then counted).
    pub(super) fn take(&mut self, arcs: u64) -> bool {
        match usize::try_from(arcs) {
            Ok(a) if a <= self.budget => {
                self.budget -= a;
                true
            }
            _ => false,
        }
    }

    /// Marks `v` reached; whether it was not before.
    pub(super) fn insert(&mut self, v: VertexId) -> bool {
        // Fibonacci hashing: the product's top bits pick the slot.
        let mask = self.slots.len() - 1;
        let bits = self.slots.len().trailing_zeros();
        let mut i = (u64::from(v).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
        loop {
            match self.slots[i] {
                Self::EMPTY => {
                    self.slots[i] = v;
                    self.used.push(i);
                    return true;
                }
                x if x == v => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Expands the frontier over `out`, its new vertices at `depth`; the next frontier's
    /// vertices and out-arcs.
    pub(super) fn expand(&mut self, out: &Csr, depth: u32) -> (u64, u64) {
        let mut next = std::mem::take(&mut self.next);
        next.clear();
        for i in 0..self.front.len() {
            let u = self.front[i];
            for &t in out.neighbors(u) {
                if self.insert(t) {
                    next.push(t);
                    self.found.extend([t, u, depth]);
                }
            }
        }
        next.sort_unstable();
        self.next = std::mem::replace(&mut self.front, next);
        let arcs = self.front.iter().map(|&v| out.degree(v)).sum();
        (self.front.len() as u64, arcs)
    }
}
