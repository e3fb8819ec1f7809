//! Captures under simulation: accepted operations worked by the production worker
//! (`work_once` with the production capture kind) in processes that crash, with leases that
//! run out while a call is slow, against a provider that charges once per key and loses
//! answers, over a database that fails as the seed draws.

mod checks;
mod provider;
mod worker;

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use application::IdempotentOperation;
use application::payments::CapturePayment;
use domain::{Generation, OperationState, OrderId, TenantId};
use uuid::Uuid;

use crate::choice::Choice;
use crate::driver::{Scenario, run_through};
use crate::executor::{Executor, ProcessId, Spawner};
use crate::history::{Event, History};
use crate::report::{Report, Scale};
use crate::world::{Faults, OperationRow, SimClock, SimStore, World};
use application::ports::Clock;
use provider::SimProvider;

/// Calls without a definite answer before an operation ends `needs_review`.
const MAX_ATTEMPTS: u32 = 3;

#[derive(Debug)]
pub(crate) struct Shared {
    world: Arc<World>,
    store: SimStore,
    provider: SimProvider,
    history: History,
    spawner: Spawner,
    processes: usize,
    /// Workers started so far: each its own owner.
    started: AtomicU64,
    /// Operations whose end the checks have looked at.
    looked_at: Mutex<Vec<Uuid>>,
}

impl Shared {
    fn note(&self, what: String) {
        self.history.push(self.world.micros(), Event::Note(what));
    }

    fn any_pending(&self) -> bool {
        self.world
            .db()
            .operations
            .values()
            .any(|row| row.state == OperationState::Pending)
    }

    fn start(self: &Arc<Self>, process: usize) {
        let worker = self
            .started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.spawner.spawn(
            Some(ProcessId(process)),
            worker::worker(Arc::clone(self), process, worker),
        );
    }
}

/// One run of `seed`: `scale.processes` processes with a worker each, `scale.clients`
/// captures accepted.
pub(crate) fn run(seed: u64, scale: Option<Scale>) -> Report {
    let choice = Choice::seeded(seed);
    let drawn = Scale {
        processes: 1 + choice.below(3),
        clients: 1 + choice.below(4),
        intents: 1,
    };
    let scale = scale.unwrap_or(drawn);
    let faults = Faults::drawn(&choice);
    let world = World::new(choice.clone(), faults);
    let mut executor = Executor::new(choice);
    let history = History::default();
    let shared = Arc::new(Shared {
        store: SimStore(Arc::clone(&world)),
        provider: SimProvider::new(&world),
        world: Arc::clone(&world),
        history: history.clone(),
        spawner: executor.spawner(),
        processes: scale.processes,
        started: AtomicU64::new(0),
        looked_at: Mutex::default(),
    });
    accept(&world, scale.clients);
    for process in 0..scale.processes {
        shared.start(process);
    }
    let steps = run_through(&mut executor, &world, &history, &shared, |_, _| {
        checks::at_the_end(&shared)
    });
    Report {
        seed,
        scenario: "captures",
        scale,
        steps,
        detail: format!("{faults:?}"),
        history,
        batches: crate::report::Batches::default(),
    }
}

/// `count` captures accepted, each of its own order, as the acceptance commits them.
fn accept(world: &Arc<World>, count: usize) {
    let now = SimClock(Arc::clone(world)).now();
    let mut db = world.db();
    for n in 1..=count as u64 {
        let Ok(tenant) = TenantId::parse(1) else {
            return;
        };
        db.revisions.insert(n, 1);
        db.operations.insert(
            Uuid::from_u128(u128::from(n)),
            OperationRow {
                kind: CapturePayment::NAME,
                tenant,
                order: OrderId::new(n),
                input: br#"{"amount":1500,"currency":"JPY"}"#.to_vec(),
                downstream_key: format!("capture-{n}"),
                accepted_at: now,
                state: OperationState::Pending,
                attempts: 0,
                next_attempt_at: now,
                last_error: None,
                generation: Generation::new(0),
                holder: None,
                claimed_by: None,
                landed: Vec::new(),
            },
        );
    }
}

impl Scenario for Shared {
    fn processes(&self) -> usize {
        self.processes
    }

    fn restart(self: Arc<Self>, process: usize) {
        self.start(process);
    }

    fn check(&self) -> Result<(), String> {
        checks::every_step(self)
    }
}
