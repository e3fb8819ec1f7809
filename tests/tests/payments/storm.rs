//! Scenario 6: a claim storm, 8 workers in 2 processes on 200 due operations.

use tests::{Api, Controls, History, Service, spread};

use crate::support::{Accepted, Counts, PATIENCE, Scenario, accept_on};

/// Operations in the storm.
const OPERATIONS: usize = 200;

/// Accepts `n` captures through `base_url`, `threads` clients at a time, recording
/// every create and capture into `history`.
async fn accept_many(base_url: &str, n: usize, threads: usize, history: &History) -> Vec<Accepted> {
    let history = history.clone();
    spread(vec![base_url.to_owned()], n, threads, move |api, i| {
        vec![accept_on(&api.recording(&history), &format!("REF-{i}"))]
    })
    .await
}

/// 200 captures are accepted while no worker runs, so all are due at once; then two
/// `serve` processes with 4 worker tasks each start together and claim over each other.
/// The claims won, summed over both processes, equal the generations the operations
/// moved through: every won claim moved a generation, and no generation was won twice.
/// Every operation ends `succeeded`, with one provider call, one charge and one payment.
#[tokio::test]
async fn a_claim_storm_gives_each_generation_one_owner_and_each_operation_one_charge() {
    let scenario = Scenario::new().await;
    let accepted = accept_many(
        scenario.accepting.base_url(),
        OPERATIONS,
        4,
        &scenario.history,
    )
    .await;
    assert_eq!(accepted.len(), OPERATIONS);
    // Every charge is held until both processes have won claims and their workers are in
    // calls: each has won claims before any operation ends, however the two start.
    scenario.provider.control(&Controls {
        hold: true,
        ..Controls::default()
    });

    let env = [
        ("WORKER_CONCURRENCY", "4"),
        ("OPERATION_LEASE_SECS", "60"),
        ("PROVIDER_TIMEOUT_MS", "50000"),
    ];
    let options = scenario.worker_options(scenario.db.url(), None, &env);
    let processes: Vec<Service> = std::thread::scope(|scope| {
        let starting: Vec<_> = (0..2)
            .map(|_| scope.spawn(|| Service::start(&options)))
            .collect();
        starting.into_iter().map(|s| s.join().unwrap()).collect()
    });
    for process in &processes {
        process.wait_for_log("workers started").unwrap();
    }
    // An owner id starts with its process's id.
    tests::wait_until(
        PATIENCE,
        "both processes won claims",
        || async {
            scenario
                .db
                .count(
                    "SELECT COUNT(DISTINCT SUBSTRING_INDEX(lease_owner, '-', 1)) AS n \
                     FROM operations WHERE lease_owner IS NOT NULL",
                )
                .await
        },
        |processes| *processes == 2,
    )
    .await;
    scenario.provider.wait_for(PATIENCE, |c| c.held >= 8);
    // Holding off lets the held calls go, and every later one.
    scenario.provider.control(&Controls::default());

    scenario.wait_until_none_pending().await;

    let generations = scenario
        .db
        .count("SELECT CAST(SUM(generation) AS SIGNED) AS n FROM operations")
        .await;
    // Per process: claims won, claims lost, leases lost, operations ended.
    let figures: Vec<[f64; 4]> = processes
        .iter()
        .map(|process| {
            let api = Api::new(process.base_url());
            let claims = |result: &str| {
                api.labelled_metric("operation_claims_total", &format!(r#"result="{result}""#))
                    .unwrap_or(0.0)
            };
            let ended = api
                .labelled_metric(
                    "operations_ended_total",
                    r#"type="payments.capture.v1",state="succeeded""#,
                )
                .unwrap_or(0.0);
            let figures = [
                claims("won"),
                claims("lost"),
                api.metric("operation_lease_losses_total"),
                ended,
            ];
            eprintln!(
                "process {}: claims won {}, lost {}; leases lost {}; ended {}",
                process.pid(),
                figures[0],
                figures[1],
                figures[2],
                figures[3]
            );
            figures
        })
        .collect();
    let total = |i: usize| figures.iter().map(|f| f[i]).sum::<f64>();
    assert_eq!(
        total(0),
        generations as f64,
        "claims won over both processes = generations moved"
    );
    assert!(
        figures.iter().all(|f| f[0] > 0.0),
        "both processes won claims: {figures:?}"
    );
    assert_eq!(total(2), 0.0, "no lease was lost");
    assert_eq!(total(3), OPERATIONS as f64, "each operation ended once");
    scenario
        .assert_counts(Counts {
            operations: OPERATIONS as i64,
            succeeded: OPERATIONS as i64,
            needs_review: 0,
            payments: OPERATIONS as i64,
            charge_calls: OPERATIONS as u64,
            charges: OPERATIONS as u64,
        })
        .await;
    drop(processes);
    scenario.finish().await;
}

/// Operations due together in one process with several worker tasks.
const ONE_PROCESS: usize = 60;

/// 60 captures due at once, one process with 4 worker tasks: the tasks share the process's
/// reads of the due operations and each operation read goes to one task, so no task loses
/// a claim to another task of its process, and every operation is claimed once.
#[tokio::test]
async fn the_worker_tasks_of_one_process_never_race_each_other_for_a_claim() {
    let scenario = Scenario::new().await;
    let accepted = accept_many(
        scenario.accepting.base_url(),
        ONE_PROCESS,
        4,
        &scenario.history,
    )
    .await;
    assert_eq!(accepted.len(), ONE_PROCESS);
    let worker = scenario.serve_worker(None, &[("WORKER_CONCURRENCY", "4")]);
    scenario.wait_until_none_pending().await;

    let api = Api::new(worker.base_url());
    let claims = |result: &str| {
        api.labelled_metric("operation_claims_total", &format!(r#"result="{result}""#))
            .unwrap_or(0.0)
    };
    let (won, lost) = (claims("won"), claims("lost"));
    eprintln!("claims won {won}, lost {lost}");
    assert_eq!(lost, 0.0, "no task lost a claim to another of its process");
    assert_eq!(won, ONE_PROCESS as f64, "each operation claimed once");
    scenario
        .assert_counts(Counts {
            operations: ONE_PROCESS as i64,
            succeeded: ONE_PROCESS as i64,
            needs_review: 0,
            payments: ONE_PROCESS as i64,
            charge_calls: ONE_PROCESS as u64,
            charges: ONE_PROCESS as u64,
        })
        .await;
    drop(worker);
    scenario.finish().await;
}
