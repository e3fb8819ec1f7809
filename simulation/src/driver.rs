//! The run loop every scenario shares: a fault or the next ready task at each step, a
//! wait ended when nothing is ready, and the scenario's checks after every step.

use std::sync::Arc;

use crate::executor::{Executor, ProcessId};
use crate::history::{Event, History};
use crate::world::World;

/// A run that has not ended by then is reported: nothing the code does should take this
/// many steps for a few clients.
const MAX_STEPS: u64 = 200_000;

/// How a run stopped at [`MAX_STEPS`] is reported: a stall, never a pass.
pub(crate) const STALLED: &str = "not finished after";

/// What a scenario brings to the loop.
pub(crate) trait Scenario {
    fn processes(&self) -> usize;
    /// Whether a process's tasks are requests a client may abandon one by one; by default
    /// they are its background tasks, which end only with the process.
    fn drops_requests(&self) -> bool {
        false
    }
    /// The process crashed: its tasks are gone; it starts again with nothing in memory.
    fn restart(self: Arc<Self>, process: usize);
    /// After every step: the invariants that must hold at every moment.
    ///
    /// # Errors
    /// The invariant broken, said for the report.
    fn check(&self) -> Result<(), String>;
}

/// Runs the scenario through, then `at_the_end` (which may drive more) if nothing broke;
/// a broken invariant goes into the history. Gives back the steps taken.
pub(crate) fn run_through<S: Scenario>(
    executor: &mut Executor,
    world: &World,
    history: &History,
    scenario: &Arc<S>,
    at_the_end: impl FnOnce(&mut Executor, &mut u64) -> Result<(), String>,
) -> u64 {
    let mut steps = 0;
    let mut ended = drive(executor, world, history, scenario, &mut steps);
    if ended.is_ok() && history.violations().is_empty() {
        ended = at_the_end(executor, &mut steps);
    }
    if let Err(violation) = ended {
        history.push(world.micros(), Event::Violation(violation));
    }
    steps
}

/// Runs until every task has ended or an invariant broke (then in the history).
pub(crate) fn drive<S: Scenario>(
    executor: &mut Executor,
    world: &World,
    history: &History,
    scenario: &Arc<S>,
    steps: &mut u64,
) -> Result<(), String> {
    while !executor.is_empty() {
        *steps += 1;
        if *steps > MAX_STEPS {
            return Err(format!(
                "{STALLED} {MAX_STEPS} steps ({} tasks left)",
                executor.tasks()
            ));
        }
        world.tick(1);
        step(executor, world, history, scenario)?;
        scenario.check()?;
        if !history.violations().is_empty() {
            return Ok(());
        }
    }
    Ok(())
}

/// One step: a fault, or the next ready task; with none ready, a wait ends.
fn step<S: Scenario>(
    executor: &mut Executor,
    world: &World,
    history: &History,
    scenario: &Arc<S>,
) -> Result<(), String> {
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
        let process = choice.below(scenario.processes());
        world.strike();
        executor.crash(ProcessId(process));
        Arc::clone(scenario).restart(process);
        history.push(world.micros(), Event::Crashed { process });
        return Ok(());
    }
    if scenario.drops_requests() && choice.chance(faults.request_dropped) {
        let process = choice.below(scenario.processes());
        world.strike();
        executor.drop_one_of(ProcessId(process));
        return Ok(());
    }
    executor.run_one();
    Ok(())
}
