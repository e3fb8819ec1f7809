//! The payment provider: one charge per idempotency key, whatever is sent again under it;
//! a call may fail before it charges or charge and lose its answer, a lookup may fail,
//! and a slow call waits until the scheduler lets it answer.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use application::leased::{Definite, NoAnswer, ProviderAnswer};
use application::payments::{Money, PaymentProvider, ProviderRequest, ProviderResource};
use domain::{AttemptError, ProviderId};

use crate::executor::interleave;
use crate::locked::locked;
use crate::world::World;

#[derive(Debug, thiserror::Error)]
#[error("simulated provider failure")]
struct SimulatedProviderFailure;

/// What the provider told about a key, in order: the last says whether a definite
/// answer was there to be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Told {
    /// A call, answered definitely or not.
    Charged { definite: bool },
    /// A lookup: failed, found nothing (the call may still land), or found the charge.
    LookedUp { found: Option<bool> },
}

impl Told {
    /// A definite answer the worker was given.
    pub(crate) fn definite(self) -> bool {
        matches!(
            self,
            Self::Charged { definite: true } | Self::LookedUp { found: Some(true) }
        )
    }
}

#[derive(Debug, Default)]
pub(crate) struct Ledger {
    pub(crate) charges: BTreeMap<String, Definite>,
    /// Charges made per `reference` (the operation): more than one is a second charge.
    pub(crate) per_reference: BTreeMap<String, u32>,
    pub(crate) told: BTreeMap<String, Vec<Told>>,
    next: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct SimProvider {
    world: Arc<World>,
    ledger: Arc<Mutex<Ledger>>,
}

fn no_answer() -> NoAnswer {
    NoAnswer::new(AttemptError::Timeout, SimulatedProviderFailure)
}

impl SimProvider {
    pub(crate) fn new(world: &Arc<World>) -> Self {
        Self {
            world: Arc::clone(world),
            ledger: Arc::default(),
        }
    }

    pub(crate) fn ledger(&self) -> MutexGuard<'_, Ledger> {
        locked(&self.ledger)
    }

    /// The network's turn, and sometimes a slow answer: held until a wait ends.
    async fn on_the_wire(&self) {
        interleave().await;
        if self.world.choice().chance(100) {
            self.world.parked().wait(None).await;
        }
    }
}

impl PaymentProvider for SimProvider {
    async fn create(
        &self,
        _resource: ProviderResource,
        key: &str,
        request: &ProviderRequest<'_>,
    ) -> ProviderAnswer {
        self.on_the_wire().await;
        if self.world.fails(|f| f.remote_fails) {
            self.ledger()
                .told
                .entry(key.to_owned())
                .or_default()
                .push(Told::Charged { definite: false });
            return ProviderAnswer::Unknown(no_answer());
        }
        let declines = self.world.choice().chance(200);
        let answer_lost = self.world.fails(|f| f.remote_answer_lost);
        let mut ledger = self.ledger();
        let charge = match ledger.charges.get(key) {
            Some(charge) => charge.clone(),
            None => {
                ledger.next += 1;
                let Ok(id) = ProviderId::parse(&format!("ch_{}", ledger.next)) else {
                    return ProviderAnswer::Unknown(no_answer());
                };
                let charge = Definite {
                    id,
                    succeeded: !declines,
                };
                ledger.charges.insert(key.to_owned(), charge.clone());
                *ledger
                    .per_reference
                    .entry(request.reference.to_owned())
                    .or_default() += 1;
                charge
            }
        };
        ledger
            .told
            .entry(key.to_owned())
            .or_default()
            .push(Told::Charged {
                definite: !answer_lost,
            });
        if answer_lost {
            ProviderAnswer::Unknown(no_answer())
        } else {
            ProviderAnswer::Definite(charge)
        }
    }

    async fn find(
        &self,
        _resource: ProviderResource,
        key: &str,
        _money: Money,
    ) -> Result<Option<Definite>, NoAnswer> {
        self.on_the_wire().await;
        let fails = self.world.fails(|f| f.read_fails);
        let mut ledger = self.ledger();
        let found = ledger.charges.get(key).cloned();
        ledger
            .told
            .entry(key.to_owned())
            .or_default()
            .push(Told::LookedUp {
                found: (!fails).then_some(found.is_some()),
            });
        if fails { Err(no_answer()) } else { Ok(found) }
    }
}
