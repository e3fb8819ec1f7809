//! Events under simulation: operations commit order events to the outbox, the production
//! relay publishes them to a simulated stream, and the production inbox consumer
//! (`RequestShipments`, each application counted) applies them, in processes that crash, over a database, broker and
//! consumer that fail as the seed draws.

mod checks;
mod counted;
mod outbox;
mod stream;
mod tasks;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::choice::Choice;
use crate::driver::{Scenario, run_through};
use crate::executor::{Executor, ProcessId, Spawner};
use crate::history::{Event, History};
use crate::report::{Report, Scale};
use crate::world::{Faults, SimStore, World};
use outbox::SimOutbox;
use stream::SimStream;

/// What the run's tasks share.
#[derive(Debug)]
pub(crate) struct Shared {
    world: Arc<World>,
    outbox: SimOutbox,
    stream: SimStream,
    store: SimStore,
    history: History,
    spawner: Spawner,
    processes: usize,
    /// The relay's batch.
    batch: usize,
    writers: usize,
    writers_done: AtomicUsize,
    /// Each event's order and sequence, as its operation wrote it.
    written: Mutex<BTreeMap<uuid::Uuid, (u64, u64)>>,
    /// Messages of the stream already looked at by the order check, and the events whose
    /// first copy it has seen.
    looked_at: AtomicUsize,
    appeared: Mutex<BTreeSet<(u64, u64)>>,
}

impl Shared {
    fn note(&self, what: String) {
        self.history.push(self.world.micros(), Event::Note(what));
    }

    /// Every writer has committed all its events.
    fn written_all(&self) -> bool {
        self.writers_done.load(Ordering::Relaxed) == self.writers
    }

    /// Nothing left for the relays: every event written and marked published.
    fn relayed_all(&self) -> bool {
        self.written_all() && self.outbox.lock().rows.values().all(|row| row.published)
    }

    /// A process's relay and consumer.
    fn start(self: &Arc<Self>, process: usize) {
        self.spawner.spawn(
            Some(ProcessId(process)),
            tasks::relay(Arc::clone(self), process),
        );
        self.spawner.spawn(
            Some(ProcessId(process)),
            tasks::consumer(Arc::clone(self), process),
        );
    }
}

/// One run of `seed`: `scale.processes` processes each with a relay and a consumer,
/// `scale.clients` orders written, `scale.intents` the relay's batch.
#[must_use]
pub(crate) fn run(seed: u64, scale: Option<Scale>) -> Report {
    let choice = Choice::seeded(seed);
    let drawn = Scale {
        processes: 1 + choice.below(2),
        clients: 2 + choice.below(7),
        intents: 1 + choice.below(4),
    };
    let scale = scale.unwrap_or(drawn);
    let faults = Faults::drawn(&choice);
    let world = World::new(choice.clone(), faults);
    let mut executor = Executor::new(choice);
    let history = History::default();
    let shared = Arc::new(Shared {
        outbox: SimOutbox::new(&world),
        stream: SimStream::new(&world),
        store: SimStore(Arc::clone(&world)),
        world: Arc::clone(&world),
        history: history.clone(),
        spawner: executor.spawner(),
        processes: scale.processes,
        batch: scale.intents,
        writers: scale.clients,
        writers_done: AtomicUsize::new(0),
        written: Mutex::default(),
        looked_at: AtomicUsize::new(0),
        appeared: Mutex::default(),
    });
    for order in 1..=scale.clients {
        executor
            .spawner()
            .spawn(None, tasks::writer(Arc::clone(&shared), order as u64));
    }
    for process in 0..scale.processes {
        shared.start(process);
    }
    let steps = run_through(&mut executor, &world, &history, &shared, |_, _| {
        checks::at_the_end(&shared)
    });
    Report {
        seed,
        scenario: "events",
        scale,
        steps,
        detail: format!("{faults:?}"),
        history,
        batches: crate::report::Batches::default(),
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
        checks::stream_in_order(self)
    }
}
