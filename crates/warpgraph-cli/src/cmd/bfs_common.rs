//! What the BFS commands share (`bfs`, `bench bfs`, the GPU teams' benchmark): the
//! direction switch's options, the runner they configure, and how a team's search ran.

use anyhow::Result;
use clap::Args;
use warpgraph::bfs::{self, cuda::Variant, BfsOptions, BfsRunner, Direction};
use warpgraph::device::Device;
use warpgraph::Graph;

/// When a direction-optimizing search changes direction.
#[derive(Debug, Clone, Copy, Default, Args)]
#[command(next_help_heading = "Direction switch")]
pub struct SwitchArgs {
    /// CPU and GPU teams (`--gpus`): go bottom-up when the frontier's arcs exceed the
    /// unexplored arcs / ALPHA (Beamer's rule) [default: 15]
    #[arg(long, value_name = "ALPHA")]
    alpha: Option<u32>,
    /// GPU: go bottom-up when the frontier holds more than this share of the hub vertices
    /// (Enterprise's rule; `tuned`, the default variant, also switches on Beamer's arc
    /// rule) [default: 0.2 for `tuned`, 0.3 for the paper's variants]
    #[arg(long, value_name = "SHARE")]
    gamma: Option<f64>,
    /// Both: back to top-down when the shrinking frontier holds fewer than n / BETA
    /// vertices [default: 18]
    #[arg(long, value_name = "BETA")]
    beta: Option<u32>,
}

/// How a team ran, as its report says after the GPUs: ", short levels solo" and ", bitmaps
/// in NCCL symmetric memory" where it did, or where NCCL's all-gather there failed the
/// team's check, that it kept its own buffers.
pub fn team_ways(s: &bfs::cuda::multi::TeamSearch) -> String {
    let mut ways = String::new();
    if s.solo {
        ways += ", short levels solo";
    }
    if s.symmetric {
        ways += ", bitmaps in NCCL symmetric memory";
    }
    if s.symmetric_wrong {
        ways += ", NCCL symmetric memory refused (its all-gather failed the check)";
    }
    ways
}

/// BFS on a resolved device: `direction` and `switch` (where given) override the
/// defaults of the CPU code and of the GPU `variant`.
pub fn runner(
    device: Device,
    g: &Graph,
    direction: Option<Direction>,
    variant: Variant,
    switch: SwitchArgs,
) -> Result<BfsRunner> {
    let cpu = cpu_options(direction, switch);
    let mut gpu = variant.options();
    if let Some(d) = direction {
        gpu.direction = d;
    }
    gpu.beta = switch.beta.unwrap_or(gpu.beta);
    gpu.gamma = switch.gamma.unwrap_or(gpu.gamma);
    Ok(BfsRunner::new(device, g, cpu, gpu)?)
}

/// The CPU's options (also the multi-GPU search's: Beamer's switch) with the user's
/// `direction` and `switch`.
pub fn cpu_options(direction: Option<Direction>, switch: SwitchArgs) -> BfsOptions {
    let d = BfsOptions::default();
    BfsOptions {
        direction: direction.unwrap_or_default(),
        alpha: switch.alpha.unwrap_or(d.alpha),
        beta: switch.beta.unwrap_or(d.beta),
    }
}
