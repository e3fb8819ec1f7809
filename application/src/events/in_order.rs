//! The relay's order rule (`docs/events.md#order-of-events`), written once for every store
//! and for the simulation.

use std::collections::HashMap;
use std::hash::Hash;

/// What a claim may publish of the events it `read`: an event with an ordering key only
/// while no earlier event of its key is `pending`, whether another relay holds that one or
/// its last publish failed. So at most one event per key goes out per pass. `pending` is
/// every pending event of the read events' keys, by key and sequence; `ordering` gives an
/// event's. Also how many of `read` were left for a later pass.
pub fn publishable_in_order<T, K: Eq + Hash>(
    read: Vec<T>,
    ordering: impl Fn(&T) -> Option<(&K, i64)>,
    pending: impl IntoIterator<Item = (K, i64)>,
) -> (Vec<T>, usize) {
    let mut earliest: HashMap<K, i64> = HashMap::new();
    for (key, sequence) in pending {
        let lowest = earliest.entry(key).or_insert(sequence);
        *lowest = (*lowest).min(sequence);
    }
    let count = read.len();
    let kept: Vec<T> = read
        .into_iter()
        .filter(|event| match ordering(event) {
            Some((key, sequence)) => earliest.get(key) == Some(&sequence),
            None => true,
        })
        .collect();
    let deferred = count - kept.len();
    (kept, deferred)
}

#[cfg(test)]
mod tests {
    use super::publishable_in_order;

    #[test]
    fn only_the_earliest_pending_event_of_a_key_goes_out() {
        let read = vec![("a", Some(2)), ("a", Some(3)), ("b", Some(1)), ("c", None)];
        let pending = [("a", 1), ("a", 2), ("a", 3), ("b", 1)];
        let (kept, deferred) =
            publishable_in_order(read, |(key, sequence)| sequence.map(|s| (key, s)), pending);
        assert_eq!(kept, vec![("b", Some(1)), ("c", None)]);
        assert_eq!(deferred, 2);
    }

    #[test]
    fn an_event_whose_key_has_nothing_earlier_pending_goes_out() {
        let read = vec![("a", Some(2))];
        let (kept, deferred) = publishable_in_order(
            read,
            |(key, sequence)| sequence.map(|s| (key, s)),
            [("a", 2)],
        );
        assert_eq!(kept, vec![("a", Some(2))]);
        assert_eq!(deferred, 0);
    }
}
