//! Creates under simulation: clients, processes and faults drawn from the seed, the
//! production coordinator in every process, the invariants after every step.

mod checks;
mod client;
mod processes;

use std::sync::Arc;

use crate::choice::Choice;
use crate::executor::{Executor, ProcessId};
use crate::history::{Event, History};
use crate::report::{Report, Scale};
use crate::world::{Faults, World};
use client::Shared;
use processes::{Memory, Processes};

/// A run that has not ended by then is reported: nothing the code does should take this
/// many steps for a few clients.
const MAX_STEPS: u64 = 200_000;

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
pub fn run(seed: u64, scale: Option<Scale>) -> Report {
    let choice = Choice::seeded(seed);
    let drawn = Scale::drawn(&choice);
    let scale = scale.unwrap_or(drawn);
    let faults = Faults::drawn(&choice);
    let memory = Memory::drawn(&choice);
    let world = World::new(choice.clone(), faults);
    let mut executor = Executor::new(choice.clone());
    let history = History::default();
    let shared = Arc::new(Shared::new(
        Arc::clone(&world),
        Processes::start(&world, memory, scale.processes),
        executor.spawner(),
        history.clone(),
    ));
    for client in 0..scale.clients {
        executor.spawner().spawn(
            None,
            client::client(Arc::clone(&shared), client, scale.intents),
        );
    }
    let mut steps = 0;
    let mut ended = drive(&mut executor, &shared, &mut steps);
    if ended.is_ok() && history.violations().is_empty() {
        world.calm();
        ended = last_look(&mut executor, &shared, &mut steps);
    }
    if let Err(violation) = ended {
        history.push(world.micros(), Event::Violation(violation));
    }
    Report {
        seed,
        scale,
        steps,
        detail: format!("{faults:?}\n{memory:?}"),
        history,
    }
}

/// Runs until every task has ended, checking the database after each commit.
fn drive(executor: &mut Executor, shared: &Shared, steps: &mut u64) -> Result<(), String> {
    let world = &shared.world;
    let mut commits = 0;
    while !executor.is_empty() {
        *steps += 1;
        if *steps > MAX_STEPS {
            return Err(format!(
                "not finished after {MAX_STEPS} steps ({} tasks left)",
                executor.tasks()
            ));
        }
        world.tick(1);
        step(executor, shared)?;
        let db = world.db();
        if db.commits != commits {
            commits = db.commits;
            checks::database(&db)?;
        }
        drop(db);
        if !shared.history.violations().is_empty() {
            return Ok(());
        }
    }
    Ok(())
}

/// One step: a fault, or the next ready task; with none ready, a wait ends.
fn step(executor: &mut Executor, shared: &Shared) -> Result<(), String> {
    let world = &shared.world;
    let choice = world.choice();
    let faults = world.faults();
    if !executor.has_ready() {
        return if world.fire_one() {
            Ok(())
        } else {
            Err(format!(
                "stuck: {} tasks wait and nothing can wake them",
                executor.tasks()
            ))
        };
    }
    if choice.chance(faults.wait_ends) && world.fire_one() {
        return Ok(());
    }
    if choice.chance(faults.crash) {
        let process = choice.below(shared.processes.count());
        executor.crash(ProcessId(process));
        shared.processes.restart(process);
        shared
            .history
            .push(world.micros(), Event::Crashed { process });
        return Ok(());
    }
    if choice.chance(faults.request_dropped) {
        let process = choice.below(shared.processes.count());
        executor.drop_one_of(ProcessId(process));
        return Ok(());
    }
    executor.run_one();
    Ok(())
}

/// In a calm world every intent's key still in use is asked once more: each must now get
/// a definite answer, and every intent a client saw succeed has its one order.
fn last_look(executor: &mut Executor, shared: &Arc<Shared>, steps: &mut u64) -> Result<(), String> {
    for (key, body) in shared.keys_in_use() {
        let asking = Arc::clone(shared);
        executor.spawner().spawn(None, async move {
            let answer = client::send(&asking, 0, &key, &body).await;
            if !client::is_definite(answer.as_ref()) {
                asking.history.push(
                    asking.world.micros(),
                    Event::Violation(format!(
                        "key {key}: no definite answer in a calm world: {answer:?}"
                    )),
                );
            }
        });
    }
    drive(executor, shared, steps)?;
    let db = shared.world.db();
    for sku in shared.succeeded_intents() {
        if !db.orders.iter().any(|order| order.sku == sku) {
            return Err(format!(
                "intent {sku} was answered as done and has no order"
            ));
        }
    }
    Ok(())
}
