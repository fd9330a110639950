//! `warpgraph devices`: the GPUs this machine has, or why there are none.

use anyhow::Result;
use clap::Args;
use warpgraph::cuda;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  warpgraph devices           # each GPU's name, memory, compute capability; the driver
  warpgraph devices --json")]
pub struct DevicesArgs {
    /// Print a machine-readable JSON summary instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: DevicesArgs) -> Result<()> {
    let threads = rayon::current_num_threads();
    let found = cuda::probe();
    if args.json {
        let j = match &found {
            Ok(inv) => serde_json::json!({
                "cpu_threads": threads, "driver_cuda_version": format!("{}.{}", inv.driver_version.0, inv.driver_version.1),
                "gpus": inv.gpus,
            }),
            Err(e) => {
                serde_json::json!({ "cpu_threads": threads, "gpus": [], "no_gpu_reason": e.to_string() })
            }
        };
        println!("{}", serde_json::to_string_pretty(&j)?);
        return Ok(());
    }
    println!("cpu     {threads} threads");
    match found {
        Ok(inv) => {
            println!(
                "driver  supports CUDA {}.{}",
                inv.driver_version.0, inv.driver_version.1
            );
            for g in &inv.gpus {
                println!("{}", g.describe());
            }
        }
        Err(e) => println!("{e}; algorithms run on the CPU"),
    }
    Ok(())
}
