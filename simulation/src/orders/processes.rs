//! The simulated server processes: each the production `Coordinator` over the shared
//! world, with what a process keeps in memory (same-key waits, the replay cache, batches)
//! on or off as the seed says. A crash replaces a process's coordinator, and with it all
//! it kept in memory.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use application::ports::NoHooks;
use application::{
    BatchSettings, Batching, BoxError, Coordinator, CoordinatorSettings, InFlight, Refusal,
    RefusalForms, ReplayCache, ReplayCacheSettings,
};
use domain::StoredResponse;

use crate::choice::Choice;
use crate::locked::locked;
use crate::report::BatchTally;
use crate::world::{SimClock, SimReader, SimStore, World};

pub(crate) type SimCoordinator = Coordinator<SimStore, SimReader, NoHooks, SimForms>;

/// A stored refusal's response as the run stores it: `409` and its code, what the edge's
/// problem document would carry (the documents themselves are the adapters', proven there).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SimForms;

impl<R: Refusal> RefusalForms<R> for SimForms {
    fn stored(&self, refusal: R) -> Result<StoredResponse, BoxError> {
        Ok(StoredResponse::new(
            409,
            "application/problem+json".to_owned(),
            None,
            format!("{{\"code\":\"{}\"}}", refusal.code()).into_bytes(),
        )?)
    }
}

/// What every process of a run keeps in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Memory {
    pub(crate) same_key_waits: bool,
    pub(crate) replay_cache: bool,
    /// The largest batch, when creates are batched.
    pub(crate) batches: Option<usize>,
}

impl Memory {
    pub(crate) fn drawn(choice: &Choice) -> Self {
        Self {
            same_key_waits: choice.chance(500),
            replay_cache: choice.chance(500),
            batches: choice.chance(600).then(|| 2 + choice.below(6)),
        }
    }
}

#[derive(Debug)]
pub(crate) struct Processes {
    world: Arc<World>,
    memory: Memory,
    tally: BatchTally,
    running: Mutex<Vec<Arc<SimCoordinator>>>,
}

impl Processes {
    pub(crate) fn start(
        world: &Arc<World>,
        memory: Memory,
        count: usize,
        tally: &BatchTally,
    ) -> Self {
        let running = (0..count)
            .map(|_| Arc::new(process(world, memory, tally)))
            .collect();
        Self {
            world: Arc::clone(world),
            memory,
            tally: tally.clone(),
            running: Mutex::new(running),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Arc<SimCoordinator>>> {
        locked(&self.running)
    }

    pub(crate) fn count(&self) -> usize {
        self.lock().len()
    }

    pub(crate) fn get(&self, process: usize) -> Option<Arc<SimCoordinator>> {
        self.lock().get(process).cloned()
    }

    /// The process starts again with nothing in memory.
    pub(crate) fn restart(&self, process: usize) {
        if let Some(slot) = self.lock().get_mut(process) {
            *slot = Arc::new(self::process(&self.world, self.memory, &self.tally));
        }
    }
}

fn process(world: &Arc<World>, memory: Memory, tally: &BatchTally) -> SimCoordinator {
    let settings = CoordinatorSettings {
        same_key_wait: Duration::from_secs(5),
        ..CoordinatorSettings::default()
    };
    let mut coordinator = Coordinator::new(
        SimStore(Arc::clone(world)),
        SimReader(Arc::clone(world)),
        Arc::new(SimClock(Arc::clone(world))),
        settings,
    )
    .with_refusal_forms(SimForms);
    if memory.same_key_waits {
        coordinator = coordinator.with_in_flight(Arc::new(InFlight::new()));
    }
    if memory.replay_cache
        && let Some(cache) = ReplayCache::new(ReplayCacheSettings::default())
    {
        coordinator = coordinator.with_replay_cache(Arc::new(cache));
    }
    if let Some(max_members) = memory.batches {
        let batching = Batching::new(BatchSettings {
            max_members,
            max_in_flight: 2,
        })
        .with_observer(Arc::new(tally.clone()));
        coordinator = coordinator.with_batching(Arc::new(batching));
    }
    coordinator
}
