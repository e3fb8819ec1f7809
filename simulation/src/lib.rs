//! Deterministic simulation (`docs/simulation.md`): the production coordinator runs
//! against a simulated database, clock and set of processes, and one seed decides every
//! interleaving and every fault, so a failing seed replays its run exactly.

mod choice;
mod driver;
mod events;
mod executor;
mod history;
mod locked;
mod orders;
mod payments;
mod report;
mod world;

pub use report::{Batches, Report, Scale};

/// One run of `seed`: by the seed's remainder by three, creates, events or captures;
/// `scale` overrides the drawn size (to look for a shorter history).
#[must_use]
pub fn run(seed: u64, scale: Option<Scale>) -> Report {
    match seed % 3 {
        0 => orders::run(seed, scale),
        1 => events::run(seed, scale),
        _ => payments::run(seed, scale),
    }
}

/// The shortest history the seed's failure shows at any smaller size, or the run itself:
/// a smaller run counts only if it fails the same way (a broken invariant, or a stall at
/// the step limit), so a stall never stands for the invariant the full run broke.
#[must_use]
pub fn shrink(failed: Report) -> Report {
    let mut shortest = failed;
    let largest = shortest.scale;
    for processes in 1..=largest.processes {
        for clients in 1..=largest.clients {
            for intents in 1..=largest.intents {
                let scale = Scale {
                    processes,
                    clients,
                    intents,
                };
                let report = run(shortest.seed, Some(scale));
                if !report.passed()
                    && report.stalled() == shortest.stalled()
                    && report.events() < shortest.events()
                {
                    shortest = report;
                }
            }
        }
    }
    shortest
}
