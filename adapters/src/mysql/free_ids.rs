//! What is left of this process's block of order ids (`docs/storage.md#order-ids`): the
//! store keeps it, `order_ids` gives from it and reserves the next block.

use std::ops::Range;
use std::sync::Arc;

use tokio::sync::Mutex;

/// The ids not yet given, taken under the lock by one create or batch at a time.
#[derive(Debug, Clone, Default)]
pub(super) struct FreeIds(pub(super) Arc<Mutex<Range<u64>>>);
