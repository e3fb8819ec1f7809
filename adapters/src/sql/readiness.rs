//! The readiness probe's port, for both stores.

use application::ports::Readiness;

use super::both_stores::for_both_stores;

for_both_stores! {
    impl Readiness {
        async fn is_ready(&self) -> bool {
            self.ping().await
        }
    }
}
