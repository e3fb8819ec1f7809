//! The simulation's budget in every test run (`docs/simulation.md#the-budget`), and its
//! promise that a seed replays its run exactly.

#![allow(clippy::print_stdout)]

/// The seeds every test run goes through; `scripts/simulate --seeds N` runs more.
const BUDGET: u64 = 10_000;

/// Every seed keeps every invariant; and the budget as a whole ran batches of every
/// batched operation, some rolled back by a member's taken key and some at their
/// `COMMIT`, so the batches' faults are in what the invariants were held against.
#[test]
fn every_seed_of_the_budget_keeps_every_invariant() {
    let mut batches = simulation::Batches::default();
    for seed in 0..BUDGET {
        let report = simulation::run(seed, None);
        if !report.passed() {
            let shortest = simulation::shrink(report);
            println!("{shortest}");
            panic!("seed {seed} broke an invariant: replay with scripts/simulate --seed {seed}");
        }
        batches.add(&report.batches);
    }
    println!("the budget's batches: {batches:?}");
    for operation in [
        "orders.create.v1",
        "orders.cancel.v1",
        "payments.capture.v1",
        "payments.refund.v1",
    ] {
        assert!(
            batches.ran.get(operation).is_some_and(|n| *n > 0),
            "no batch of {operation} ran: {batches:?}"
        );
    }
    for cause in ["key_taken", "rolled_back_at_commit"] {
        assert!(
            batches.rerun.keys().any(|(_, rerun)| *rerun == cause),
            "no batch was rerun for {cause}: {batches:?}"
        );
    }
}

#[test]
fn a_seed_replays_its_run_exactly() {
    for seed in [3, 20, 260, 4_321] {
        let first = simulation::run(seed, None).to_string();
        let again = simulation::run(seed, None).to_string();
        assert_eq!(first, again, "seed {seed}");
    }
}

/// Seeds three apart run the same scenario (`docs/simulation.md`): each scenario's runs
/// differ by their seed, not by which scenario a seed picks.
#[test]
fn seeds_make_different_runs() {
    for seed in 0..3 {
        let a = simulation::run(seed, None).to_string();
        let b = simulation::run(seed + 3, None).to_string();
        assert_ne!(a, b, "seeds {seed} and {}", seed + 3);
    }
}
