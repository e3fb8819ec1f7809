//! The payment kinds' events (`docs/events.md#payment-events`): events about the order, so
//! they keep its order with its own, written in the transaction that records the operation's
//! end. Each carries the operation's id, the money and the provider's id of the work.

use domain::{Amount, Currency};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::events::{EventType, OrderRevisions, OutboxWriter, event_about_order};
use crate::leased::{Ended, LeasedOperation};
use crate::ports::StoreError;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PaymentBody<'a> {
    order_id: String,
    operation_id: String,
    amount: u32,
    currency: &'a str,
    #[serde(flatten)]
    provider_id: ProviderIdMember<'a>,
}

/// The provider's id under the kind's own member name (`providerChargeId`), as its status
/// read shows it.
struct ProviderIdMember<'a> {
    name: &'static str,
    id: &'a str,
}

impl Serialize for ProviderIdMember<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.name, self.id)?;
        map.end()
    }
}

/// Writes `event_type` for the operation of kind `K` that `ended` as done by the provider
/// under `provider_id`, at the order's next revision.
///
/// # Errors
/// The store's.
pub async fn write_payment_event<K, Tx>(
    tx: &mut Tx,
    event_type: EventType,
    ended: &Ended<'_, K::Job>,
    (amount, currency): (Amount, Currency),
    provider_id: &str,
) -> Result<(), StoreError>
where
    K: LeasedOperation,
    Tx: OrderRevisions + OutboxWriter + Send,
{
    let revision = tx.next_order_revision(ended.tenant, ended.order).await?;
    let body = PaymentBody {
        order_id: ended.order.get().to_string(),
        operation_id: ended.id.hyphenated().to_string(),
        amount: amount.get(),
        currency: currency.as_str(),
        provider_id: ProviderIdMember {
            name: K::PROVIDER_ID_MEMBER,
            id: provider_id,
        },
    };
    let event = event_about_order(
        event_type,
        uuid::Uuid::new_v4(),
        (ended.tenant, ended.order),
        revision,
        ended.at,
        body,
    );
    tx.add_event(&event).await
}

#[cfg(test)]
mod tests {
    use std::future::Future;

    use chrono::TimeZone;
    use domain::{OrderId, TenantId};
    use uuid::Uuid;

    use super::*;
    use crate::events::{EventOrder, NewEvent};
    use crate::leased::EndedAs;
    use crate::payments::{CaptureJob, CapturePayment};

    #[derive(Default)]
    struct Written {
        events: Vec<NewEvent>,
    }

    impl OrderRevisions for Written {
        fn next_order_revision(
            &mut self,
            _: TenantId,
            _: OrderId,
        ) -> impl Future<Output = Result<u64, StoreError>> + Send {
            std::future::ready(Ok(4))
        }
    }

    impl OutboxWriter for Written {
        fn add_event(
            &mut self,
            event: &NewEvent,
        ) -> impl Future<Output = Result<(), StoreError>> + Send {
            self.events.push(event.clone());
            std::future::ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn a_payment_event_is_an_event_about_the_order_at_its_next_revision() {
        let job = CaptureJob {
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        };
        let ended = Ended {
            id: Uuid::from_u128(7),
            tenant: TenantId::parse(3).unwrap(),
            order: OrderId::new(42),
            job: &job,
            outcome: EndedAs::Succeeded {
                provider_id: "ch_1",
            },
            at: chrono::Utc.timestamp_opt(1_700_000_000, 5_000).unwrap(),
        };
        let mut written = Written::default();
        let captured = EventType::about_order("payments.captured.v1");
        write_payment_event::<CapturePayment, _>(
            &mut written,
            captured,
            &ended,
            (job.amount, job.currency),
            "ch_1",
        )
        .await
        .unwrap();
        let [event] = written.events.as_slice() else {
            panic!("{:?}", written.events);
        };
        assert_eq!(event.subject, "payments.captured.v1.3");
        assert_eq!(
            event.order,
            Some(EventOrder {
                key: "orders/42".to_owned(),
                sequence: 4
            })
        );
        let payload: serde_json::Value = serde_json::from_slice(&event.payload).unwrap();
        assert_eq!(
            payload,
            serde_json::json!({
                "eventId": event.id.hyphenated().to_string(),
                "type": "payments.captured.v1",
                "tenantId": 3,
                "occurredAt": "2023-11-14T22:13:20.000005Z",
                "sequence": 4,
                "orderId": "42",
                "operationId": "00000000-0000-0000-0000-000000000007",
                "amount": 1500,
                "currency": "JPY",
                "providerChargeId": "ch_1"
            })
        );
    }
}
