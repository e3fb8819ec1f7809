//! A single-threaded executor whose every choice comes from the run's seed: which ready
//! task runs next, which parked wait ends, which task or process is dropped. The code
//! under test awaits only its ports, so each await is a point the seed may interleave at.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};

use crate::choice::Choice;
use crate::locked::locked;

pub(crate) type TaskId = u64;
type BoxedTask = Pin<Box<dyn Future<Output = ()> + Send>>;
/// A task spawned from inside another, waiting to be taken in.
type Spawned = (Option<ProcessId>, BoxedTask);

/// Which simulated process a task belongs to; clients belong to none and never crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ProcessId(pub(crate) usize);

struct Task {
    future: BoxedTask,
    process: Option<ProcessId>,
}

/// Tasks woken since they last ran, in a set so the pick does not depend on wake order.
#[derive(Default)]
struct Ready(Mutex<BTreeSet<TaskId>>);

impl Ready {
    fn lock(&self) -> MutexGuard<'_, BTreeSet<TaskId>> {
        locked(&self.0)
    }
}

struct TaskWaker {
    id: TaskId,
    ready: Arc<Ready>,
}

impl Wake for TaskWaker {
    fn wake(self: Arc<Self>) {
        self.ready.lock().insert(self.id);
    }
}

/// Spawns from inside a task: the executor takes the new tasks in before its next step.
#[derive(Clone, Default)]
pub(crate) struct Spawner(Arc<Mutex<Vec<Spawned>>>);

impl std::fmt::Debug for Spawner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Spawner")
    }
}

impl Spawner {
    pub(crate) fn spawn(
        &self,
        process: Option<ProcessId>,
        future: impl Future<Output = ()> + Send + 'static,
    ) {
        locked(&self.0).push((process, Box::pin(future)));
    }

    fn take(&self) -> Vec<Spawned> {
        std::mem::take(&mut *locked(&self.0))
    }
}

pub(crate) struct Executor {
    tasks: BTreeMap<TaskId, Task>,
    next: TaskId,
    ready: Arc<Ready>,
    spawner: Spawner,
    choice: Choice,
}

impl Executor {
    pub(crate) fn new(choice: Choice) -> Self {
        Self {
            tasks: BTreeMap::new(),
            next: 0,
            ready: Arc::new(Ready::default()),
            spawner: Spawner::default(),
            choice,
        }
    }

    pub(crate) fn spawner(&self) -> Spawner {
        self.spawner.clone()
    }

    /// Takes in what tasks spawned; every new task is ready.
    fn admit(&mut self) {
        for (process, future) in self.spawner.take() {
            let id = self.next;
            self.next += 1;
            self.tasks.insert(id, Task { future, process });
            self.ready.lock().insert(id);
        }
    }

    pub(crate) fn has_ready(&mut self) -> bool {
        self.admit();
        !self.ready.lock().is_empty()
    }

    pub(crate) fn is_empty(&mut self) -> bool {
        self.admit();
        self.tasks.is_empty()
    }

    /// Polls one ready task, picked by the seed; false when none is ready.
    pub(crate) fn run_one(&mut self) -> bool {
        self.admit();
        let id = {
            let mut ready = self.ready.lock();
            let Some(id) = self.choice.pick_from(ready.iter().copied()) else {
                return false;
            };
            ready.remove(&id);
            id
        };
        let Some(task) = self.tasks.get_mut(&id) else {
            // Dropped since it was woken.
            return true;
        };
        let waker = Waker::from(Arc::new(TaskWaker {
            id,
            ready: Arc::clone(&self.ready),
        }));
        let mut context = Context::from_waker(&waker);
        if task.future.as_mut().poll(&mut context).is_ready() {
            self.tasks.remove(&id);
        }
        true
    }

    /// Drops one task of a process, picked by the seed, at whatever await it is parked:
    /// a client that went away mid-request.
    pub(crate) fn drop_one_of(&mut self, process: ProcessId) -> bool {
        self.admit();
        let of_process = self
            .tasks
            .iter()
            .filter(|(_, task)| task.process == Some(process))
            .map(|(id, _)| *id);
        let Some(id) = self.choice.pick_from(of_process) else {
            return false;
        };
        drop(self.tasks.remove(&id));
        true
    }

    /// Drops every task of a process: it crashed. What its futures held is dropped with
    /// them (open transactions roll back, as a closed connection's do).
    pub(crate) fn crash(&mut self, process: ProcessId) {
        self.admit();
        let doomed: Vec<TaskId> = self
            .tasks
            .iter()
            .filter(|(_, task)| task.process == Some(process))
            .map(|(id, _)| *id)
            .collect();
        for id in doomed {
            drop(self.tasks.remove(&id));
        }
    }

    pub(crate) fn tasks(&self) -> usize {
        self.tasks.len()
    }
}

/// Gives the scheduler a choice here: the task is ready again at once, but any other ready
/// task may run first.
pub(crate) async fn interleave() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
}
