//! How often each fault happens in a run, per thousand chances; the seed draws the rates
//! too, so some runs are calm and some are storms.

use crate::choice::Choice;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Faults {
    /// A statement's connection drops: the server rolls the transaction back.
    pub(crate) connection_lost: u32,
    /// A statement runs past its deadline: the connection is closed, as above.
    pub(crate) timeout: u32,
    /// The server picks this transaction as a deadlock's victim (or Galera's certification
    /// fails it mid-transaction): all of it is rolled back.
    pub(crate) deadlock: u32,
    /// No connection can be had.
    pub(crate) begin_fails: u32,
    /// The commit's connection drops before the server has it: nothing committed.
    pub(crate) commit_lost_before: u32,
    /// The commit is applied and its answer lost.
    pub(crate) commit_lost_after: u32,
    /// The server reports the commit rolled back (Galera's certification).
    pub(crate) commit_rolled_back: u32,
    /// A read fails: the coordinator's fresh read, the provider's lookup.
    pub(crate) read_fails: u32,
    /// Per scheduler step: a wait ends early (a lock wait times out, a pause ends).
    pub(crate) wait_ends: u32,
    /// Per scheduler step: a request's client goes away, its future dropped mid-flight.
    pub(crate) request_dropped: u32,
    /// Per scheduler step: a process crashes, every request it holds dropped with it.
    pub(crate) crash: u32,
    /// A call to another service (the broker's publish, the provider's charge) is not
    /// done.
    pub(crate) remote_fails: u32,
    /// It is done, and its answer lost.
    pub(crate) remote_answer_lost: u32,
    /// A consumer's ack is lost: the message is delivered again.
    pub(crate) ack_lost: u32,
}

impl Faults {
    pub(crate) fn none() -> Self {
        Self {
            connection_lost: 0,
            timeout: 0,
            deadlock: 0,
            begin_fails: 0,
            commit_lost_before: 0,
            commit_lost_after: 0,
            commit_rolled_back: 0,
            read_fails: 0,
            wait_ends: 0,
            request_dropped: 0,
            crash: 0,
            remote_fails: 0,
            remote_answer_lost: 0,
            ack_lost: 0,
        }
    }

    /// A calm run one time in four; otherwise each rate up to its bound.
    pub(crate) fn drawn(choice: &Choice) -> Self {
        if choice.chance(250) {
            return Self::none();
        }
        let up_to = |bound: usize| u32::try_from(choice.below(bound + 1)).unwrap_or(0);
        Self {
            connection_lost: up_to(20),
            timeout: up_to(10),
            deadlock: up_to(30),
            begin_fails: up_to(20),
            commit_lost_before: up_to(60),
            commit_lost_after: up_to(120),
            commit_rolled_back: up_to(60),
            read_fails: up_to(60),
            wait_ends: up_to(40),
            request_dropped: up_to(8),
            crash: up_to(4),
            remote_fails: up_to(150),
            remote_answer_lost: up_to(150),
            ack_lost: up_to(150),
        }
    }
}
