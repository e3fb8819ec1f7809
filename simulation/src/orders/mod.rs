//! Creates and cancels under simulation: clients, processes and faults drawn from the
//! seed, the production coordinator in every process, the invariants after every step.

mod answers;
mod cancel_checks;
mod capture_checks;
mod checks;
mod client;
mod follow_ups;
mod processes;
mod refund_checks;
mod requests;
mod shared;

use std::sync::Arc;

use crate::choice::Choice;
use crate::driver::{Scenario, drive, run_through};
use crate::executor::Executor;
use crate::history::{Event, History};
use crate::report::{BatchTally, Report, Scale};
use crate::world::{Faults, World};
use processes::{Memory, Processes};
use shared::Shared;

impl Scale {
    fn drawn(choice: &Choice) -> Self {
        Self {
            processes: 1 + choice.below(3),
            clients: 1 + choice.below(6),
            intents: 1 + choice.below(3),
        }
    }
}

/// One run of `seed`; `scale` overrides the drawn one (to look for a shorter history).
#[must_use]
pub(crate) fn run(seed: u64, scale: Option<Scale>) -> Report {
    let choice = Choice::seeded(seed);
    let drawn = Scale::drawn(&choice);
    let scale = scale.unwrap_or(drawn);
    let faults = Faults::drawn(&choice);
    let memory = Memory::drawn(&choice);
    let world = World::new(choice.clone(), faults);
    let mut executor = Executor::new(choice.clone());
    let history = History::default();
    let tally = BatchTally::default();
    let shared = Arc::new(Shared::new(
        Arc::clone(&world),
        Processes::start(&world, memory, scale.processes, &tally),
        executor.spawner(),
        history.clone(),
    ));
    for client in 0..scale.clients {
        executor.spawner().spawn(
            None,
            client::client(Arc::clone(&shared), client, scale.intents),
        );
    }
    let steps = run_through(
        &mut executor,
        &world,
        &history,
        &shared,
        |executor, steps| {
            world.calm();
            last_look(executor, &shared, steps)
        },
    );
    Report {
        seed,
        scenario: "orders",
        scale,
        steps,
        detail: format!("{faults:?}\n{memory:?}"),
        history,
        batches: tally.counted(),
    }
}

/// In a calm world every intent's key still in use is asked once more: each must now get
/// a definite answer, and every intent a client saw succeed has its one order.
fn last_look(executor: &mut Executor, shared: &Arc<Shared>, steps: &mut u64) -> Result<(), String> {
    for (who, key, body) in shared.keys_in_use() {
        let asking = Arc::clone(shared);
        executor.spawner().spawn(None, async move {
            let answer = requests::send(&asking, 0, who, &key, &body).await;
            if !requests::is_definite(answer.as_ref()) {
                asking.history.push(
                    asking.world.micros(),
                    Event::Violation(format!(
                        "key {who}:{key}: no definite answer in a calm world: {answer:?}"
                    )),
                );
            }
        });
    }
    drive(executor, &shared.world, &shared.history, shared, steps)?;
    let db = shared.world.db();
    for (tenant, sku) in shared.succeeded_intents() {
        if !db
            .orders
            .iter()
            .any(|order| order.tenant == tenant && order.sku == sku)
        {
            return Err(format!(
                "intent {sku} of tenant {tenant} was answered as done and has no order"
            ));
        }
    }
    Ok(())
}

impl Scenario for Shared {
    /// Each task of a process is a request.
    fn drops_requests(&self) -> bool {
        true
    }

    fn processes(&self) -> usize {
        self.processes.count()
    }

    fn restart(self: Arc<Self>, process: usize) {
        self.processes.restart(process);
    }

    /// The database's invariants, when something committed since the last look.
    fn check(&self) -> Result<(), String> {
        let db = self.world.db();
        if self
            .commits_seen
            .swap(db.commits, std::sync::atomic::Ordering::Relaxed)
            == db.commits
        {
            return Ok(());
        }
        checks::database(&db)?;
        refund_checks::database(&db)
    }
}
