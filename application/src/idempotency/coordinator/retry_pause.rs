//! The pause before a deadlocked unit runs again.

/// 1 to 4 ms, doubling per further attempt; UUID jitter avoids a `rand` dependency.
pub(super) fn retry_pause(attempt: u32) -> std::time::Duration {
    let jitter = u64::from(uuid::Uuid::new_v4().as_u128() as u16 % 3_000);
    let base = 1_000u64 << attempt.saturating_sub(1).min(4);
    std::time::Duration::from_micros(base + jitter * (base / 1_000))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::retry_pause;

    #[test]
    fn the_retry_pause_is_a_few_jittered_milliseconds_growing_per_attempt() {
        let (mut firsts, mut thirds) = (Vec::new(), Vec::new());
        for _ in 0..400 {
            let first = retry_pause(1);
            assert!(first >= Duration::from_millis(1) && first < Duration::from_millis(4));
            firsts.push(first);
            let third = retry_pause(3);
            assert!(third >= Duration::from_millis(4) && third < Duration::from_millis(16));
            thirds.push(third);
        }
        // Jittered over the whole range, not bunched at its start: two deadlocked units
        // do not run again in step.
        assert!(firsts.iter().any(|p| *p < Duration::from_millis(2)));
        assert!(firsts.iter().any(|p| *p >= Duration::from_millis(3)));
        assert!(thirds.iter().any(|p| *p >= Duration::from_millis(12)));
    }
}
