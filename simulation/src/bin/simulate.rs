//! Runs seeds of the simulation (`docs/simulation.md`): a range of them, stopping at the
//! first that breaks an invariant, or one seed replayed with its whole history.

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(about = "Seeded runs of the coordinator against a simulated world")]
struct Args {
    /// How many seeds to run.
    #[arg(long, default_value_t = 10_000)]
    seeds: u64,
    /// The first seed of the range.
    #[arg(long, default_value_t = 0)]
    from: u64,
    /// Replays this one seed and prints its history, passed or not.
    #[arg(long)]
    seed: Option<u64>,
}

// The binary's output is its report.
#[allow(clippy::print_stdout)]
fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(seed) = args.seed {
        let report = simulation::run(seed, None);
        println!("{report}");
        return if report.passed() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let started = Instant::now();
    let mut steps = 0;
    for seed in args.from..args.from.saturating_add(args.seeds) {
        let report = simulation::run(seed, None);
        steps += report.steps;
        if !report.passed() {
            println!("seed {seed} failed: {:?}", report.violations());
            let shortest = simulation::shrink(report);
            println!("the shortest history found:\n{shortest}");
            println!("replay: scripts/simulate --seed {seed}");
            return ExitCode::FAILURE;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    #[allow(clippy::cast_precision_loss)] // a count of seeds, far below 2^52
    let rate = args.seeds as f64 / seconds;
    println!(
        "{} seeds passed ({} to {}) in {seconds:.1} s: {rate:.0} seeds/s, {steps} steps",
        args.seeds,
        args.from,
        args.from + args.seeds.saturating_sub(1)
    );
    ExitCode::SUCCESS
}
