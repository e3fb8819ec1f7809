//! The slots, the hand-over and the bound, without a database or a runtime.

use super::*;

type Queue = BatchQueue<u32, &'static str>;

fn queue(max_members: usize, max_in_flight: usize) -> Arc<Queue> {
    Arc::new(BatchQueue::new(BatchSettings {
        max_members,
        max_in_flight,
    }))
}

fn members(entries: &[Entry<u32, &'static str>]) -> Vec<u32> {
    entries.iter().map(|entry| entry.member).collect()
}

fn drives(joined: Joined<u32, &'static str>) -> (Slot<u32, &'static str>, Vec<u32>) {
    match joined {
        Joined::Drive(slot, entries) => (slot, members(&entries)),
        Joined::Wait(_) => panic!("waits"),
    }
}

fn waits(joined: Joined<u32, &'static str>) -> oneshot::Receiver<Turn<u32, &'static str>> {
    match joined {
        Joined::Wait(receiver) => receiver,
        Joined::Drive(..) => panic!("drives"),
    }
}

#[test]
fn with_nothing_in_flight_a_request_goes_at_once_alone() {
    let queue = queue(16, 2);
    let (_first, batch) = drives(queue.join(1));
    assert_eq!(batch, [1]);
    assert_eq!(queue.waiting(), 0);
}

#[test]
fn while_recent_batches_were_of_one_a_request_takes_a_free_slot_past_a_slow_batch() {
    let queue = queue(16, 2);
    let (_slow, _) = drives(queue.join(1));
    let (_second, batch) = drives(queue.join(2));
    assert_eq!(batch, [2], "it does not wait for the first");
    let _third = waits(queue.join(3));
}

#[test]
fn after_large_batches_a_further_one_starts_once_as_many_wait() {
    let queue = queue(8, 2);
    queue.lock().typical = 3.0;
    let (_first, _) = drives(queue.join(1));
    let _receivers = [waits(queue.join(2)), waits(queue.join(3))];
    assert_eq!(queue.waiting(), 2, "a free slot is not taken by fewer");
    let (_second, batch) = drives(queue.join(4));
    assert_eq!(
        batch,
        [4, 2, 3],
        "the request that makes enough drives them"
    );
    assert_eq!(queue.waiting(), 0);
    // Every slot is taken now: even enough wait.
    let _later: Vec<_> = (5..=7).map(|n| waits(queue.join(n))).collect();
    assert_eq!(queue.waiting(), 3);
}

#[test]
fn each_batch_that_ends_moves_the_bound_toward_its_size() {
    let queue = queue(16, 1);
    let (slot, _) = drives(queue.join(1));
    let mut receivers: Vec<_> = (2..=9).map(|n| waits(queue.join(n))).collect();
    drop(slot);
    assert!((queue.lock().typical - 1.0).abs() < 1e-9, "a batch of one");
    let Ok(Some(Turn::Drive(slot, entries))) = receivers[0].try_recv() else {
        panic!("the first waiting member drives");
    };
    assert_eq!(entries.len(), 8);
    drop(slot);
    assert!(
        (queue.lock().typical - 2.75).abs() < 1e-9,
        "a quarter of the way to 8"
    );
    receivers.clear();
}

#[test]
fn the_slot_that_frees_takes_everything_waiting_up_to_the_bound() {
    let queue = queue(3, 1);
    let (slot, _) = drives(queue.join(1));
    let mut receivers: Vec<_> = (2..=6).map(|n| waits(queue.join(n))).collect();
    assert_eq!(queue.waiting(), 5);
    drop(slot);

    let Ok(Some(Turn::Drive(next, entries))) = receivers[0].try_recv() else {
        panic!("the first waiting member drives");
    };
    assert_eq!(members(&entries), [2, 3, 4]);
    assert!(entries[0].reply.is_none(), "the driver answers itself");
    assert!(entries[1..].iter().all(|entry| entry.reply.is_some()));
    assert_eq!(queue.waiting(), 2);

    drop(entries);
    drop(next);
    let Ok(Some(Turn::Drive(last, entries))) = receivers[3].try_recv() else {
        panic!("then the next");
    };
    assert_eq!(members(&entries), [5, 6]);
    drop(last);
    assert_eq!(queue.waiting(), 0);
    let (_free, batch) = drives(queue.join(7));
    assert_eq!(batch, [7], "every slot was given back");
    receivers.clear();
}

#[test]
fn a_member_gone_while_waiting_is_skipped() {
    let queue = queue(16, 1);
    let (slot, _) = drives(queue.join(1));
    let gone = waits(queue.join(2));
    let mut kept = waits(queue.join(3));
    drop(gone);
    drop(slot);
    let Ok(Some(Turn::Drive(_slot, entries))) = kept.try_recv() else {
        panic!("the member still listening drives");
    };
    assert_eq!(members(&entries), [3]);
}

#[test]
fn a_driver_dropped_mid_batch_closes_its_members_channels_and_passes_the_slot_on() {
    let queue = queue(2, 1);
    let (slot, _) = drives(queue.join(1));
    let mut second = waits(queue.join(2));
    let mut third = waits(queue.join(3));
    let mut fourth = waits(queue.join(4));
    drop(slot);
    let Ok(Some(Turn::Drive(driving, entries))) = second.try_recv() else {
        panic!("the second drives");
    };
    // The driving request is dropped with its batch: the third hears nothing ran...
    drop((driving, entries));
    assert!(third.try_recv().is_err(), "a closed channel: run alone");
    // ... and the fourth, still waiting, gets the slot.
    let Ok(Some(Turn::Drive(_slot, entries))) = fourth.try_recv() else {
        panic!("the fourth drives");
    };
    assert_eq!(members(&entries), [4]);
}

#[test]
fn every_waiting_member_can_be_answered_at_once_and_the_slot_still_passes_on() {
    let queue = queue(16, 1);
    let (slot, _) = drives(queue.join(1));
    let mut first = waits(queue.join(2));
    let mut second = waits(queue.join(3));
    slot.answer_waiting(|| "unreachable");
    assert_eq!(queue.waiting(), 0);
    for receiver in [&mut first, &mut second] {
        let Ok(Some(Turn::Answer(answer))) = receiver.try_recv() else {
            panic!("answered");
        };
        assert_eq!(answer, "unreachable");
    }
    drop(slot);
    let (_free, batch) = drives(queue.join(4));
    assert_eq!(batch, [4], "the slot was given back");
}
