//! The charges and refunds, one per idempotency key each, in memory and optionally in a JSON
//! file. One async mutex is held across the look-up, the insert and the file write, so calls
//! with the same key make one charge or refund however they overlap.

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What the provider keeps under an idempotency key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resource {
    Charges,
    Refunds,
}

impl Resource {
    pub(crate) fn of_path(path: &str) -> Option<Self> {
        match path {
            "/v1/charges" => Some(Self::Charges),
            "/v1/refunds" => Some(Self::Refunds),
            _ => None,
        }
    }

    /// As a `400` names the body it wanted.
    pub(crate) fn expected_body(self) -> &'static str {
        match self {
            Self::Charges => {
                "body must be {\"amount\": positive integer, \"currency\": \"AAA\", \"reference\": string}"
            }
            Self::Refunds => {
                "body must be {\"charge\": string, \"amount\": positive integer, \"currency\": \"AAA\", \"reference\": string}"
            }
        }
    }

    fn id_prefix(self) -> &'static str {
        match self {
            Self::Charges => "ch_",
            Self::Refunds => "re_",
        }
    }
}

/// A charge's or a refund's body; a refund names its charge.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct WorkRequest {
    pub(crate) amount: u64,
    pub(crate) currency: String,
    pub(crate) reference: String,
    #[serde(default)]
    pub(crate) charge: Option<String>,
}

impl WorkRequest {
    /// The request, if the body is one for `resource`: a positive amount, three letters
    /// `A-Z`, and for a refund a charge id.
    pub(crate) fn parse(resource: Resource, body: &[u8]) -> Option<Self> {
        let request: Self = serde_json::from_slice(body).ok()?;
        let currency_ok =
            request.currency.len() == 3 && request.currency.bytes().all(|b| b.is_ascii_uppercase());
        let charge_ok = match resource {
            Resource::Charges => true,
            Resource::Refunds => request.charge.as_deref().is_some_and(|c| !c.is_empty()),
        };
        (request.amount > 0 && currency_ok && charge_ok).then_some(request)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stored {
    pub(crate) id: String,
    pub(crate) succeeded: bool,
    pub(crate) amount: u64,
    pub(crate) currency: String,
    pub(crate) reference: String,
    /// A refund's charge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) charge: Option<String>,
}

impl Stored {
    pub(crate) fn answer(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id,
            "status": if self.succeeded { "succeeded" } else { "declined" },
            "amount": self.amount,
            "currency": self.currency,
        })
    }
}

#[derive(Debug)]
pub(crate) enum Outcome {
    New(Stored),
    /// The key was used before with the same request: what it made then.
    Existing(Stored),
    /// The key was used before with another amount, currency or charge.
    Conflict,
    /// A refund of a charge that is not there, not succeeded, or in another currency.
    NoSuchCharge,
}

/// The state file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Kept {
    charges: HashMap<String, Stored>,
    #[serde(default)]
    refunds: HashMap<String, Stored>,
}

#[derive(Debug)]
pub(crate) struct Ledger {
    kept: Kept,
    file: Option<PathBuf>,
}

impl Ledger {
    /// The ledger kept in `file` (loaded when it exists), or in memory only.
    pub(crate) async fn open(file: Option<PathBuf>) -> io::Result<Self> {
        let kept = match &file {
            Some(path) => match tokio::fs::read(path).await {
                Ok(bytes) => serde_json::from_slice(&bytes)?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => Kept::default(),
                Err(e) => return Err(e),
            },
            None => Kept::default(),
        };
        Ok(Self { kept, file })
    }

    fn map(&self, resource: Resource) -> &HashMap<String, Stored> {
        match resource {
            Resource::Charges => &self.kept.charges,
            Resource::Refunds => &self.kept.refunds,
        }
    }

    pub(crate) fn get(&self, resource: Resource, key: &str) -> Option<&Stored> {
        self.map(resource).get(key)
    }

    pub(crate) fn len(&self, resource: Resource) -> usize {
        self.map(resource).len()
    }

    /// Makes the charge or refund under `key` unless the key was used already. A refund
    /// that would take more than its charge has left is declined, as a provider does. An
    /// error means the state file was not written, yet the work stands, as with a provider
    /// whose answer got lost.
    pub(crate) async fn create(
        &mut self,
        resource: Resource,
        key: &str,
        request: &WorkRequest,
        decline: bool,
    ) -> io::Result<Outcome> {
        if let Some(existing) = self.map(resource).get(key) {
            let same = existing.amount == request.amount
                && existing.currency == request.currency
                && (resource == Resource::Charges || existing.charge == request.charge);
            return Ok(if same {
                Outcome::Existing(existing.clone())
            } else {
                Outcome::Conflict
            });
        }
        let succeeded = match resource {
            Resource::Charges => !decline,
            Resource::Refunds => match self.refundable(request) {
                Some(left) => !decline && request.amount <= left,
                None => return Ok(Outcome::NoSuchCharge),
            },
        };
        let made = Stored {
            id: format!("{}{}", resource.id_prefix(), uuid::Uuid::new_v4().simple()),
            succeeded,
            amount: request.amount,
            currency: request.currency.clone(),
            reference: request.reference.clone(),
            charge: match resource {
                Resource::Charges => None,
                Resource::Refunds => request.charge.clone(),
            },
        };
        match resource {
            Resource::Charges => &mut self.kept.charges,
            Resource::Refunds => &mut self.kept.refunds,
        }
        .insert(key.to_owned(), made.clone());
        self.save().await?;
        Ok(Outcome::New(made))
    }

    /// What the refund's charge has left to refund; `None` when there is no succeeded
    /// charge of that id in the refund's currency.
    fn refundable(&self, refund: &WorkRequest) -> Option<u64> {
        let charge_id = refund.charge.as_deref()?;
        let charge = self
            .kept
            .charges
            .values()
            .find(|c| c.id == charge_id && c.succeeded && c.currency == refund.currency)?;
        let refunded: u64 = self
            .kept
            .refunds
            .values()
            .filter(|r| r.succeeded && r.charge.as_deref() == Some(charge_id))
            .map(|r| r.amount)
            .sum();
        Some(charge.amount.saturating_sub(refunded))
    }

    /// Writes the state file whole (a temporary file renamed over it, so a crash leaves
    /// the old or the new one).
    async fn save(&self) -> io::Result<()> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let mut temporary = path.clone().into_os_string();
        temporary.push(".tmp");
        tokio::fs::write(&temporary, serde_json::to_vec(&self.kept)?).await?;
        tokio::fs::rename(&temporary, path).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charge(amount: u64) -> WorkRequest {
        WorkRequest::parse(
            Resource::Charges,
            format!(r#"{{"amount":{amount},"currency":"JPY","reference":"r"}}"#).as_bytes(),
        )
        .unwrap()
    }

    fn refund(charge: &str, amount: u64) -> WorkRequest {
        WorkRequest::parse(
            Resource::Refunds,
            format!(
                r#"{{"charge":"{charge}","amount":{amount},"currency":"JPY","reference":"r"}}"#
            )
            .as_bytes(),
        )
        .unwrap()
    }

    #[test]
    fn only_a_valid_body_is_a_request() {
        for bad in [
            &br#"{"amount":0,"currency":"JPY","reference":"r"}"#[..],
            br#"{"amount":-1,"currency":"JPY","reference":"r"}"#,
            br#"{"amount":1,"currency":"jpy","reference":"r"}"#,
            br#"{"amount":1,"currency":"JPY"}"#,
            b"{",
        ] {
            assert!(
                WorkRequest::parse(Resource::Charges, bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let no_charge = br#"{"amount":1,"currency":"JPY","reference":"r"}"#;
        assert!(WorkRequest::parse(Resource::Charges, no_charge).is_some());
        assert!(WorkRequest::parse(Resource::Refunds, no_charge).is_none());
    }

    #[tokio::test]
    async fn one_key_one_charge() {
        let mut ledger = Ledger::open(None).await.unwrap();
        let request = charge(5);
        let Outcome::New(first) = ledger
            .create(Resource::Charges, "k", &request, false)
            .await
            .unwrap()
        else {
            panic!("not a new charge");
        };
        let Outcome::Existing(again) = ledger
            .create(Resource::Charges, "k", &request, true)
            .await
            .unwrap()
        else {
            panic!("not the same charge");
        };
        assert_eq!(first, again);
        assert!(matches!(
            ledger
                .create(Resource::Charges, "k", &charge(6), false)
                .await
                .unwrap(),
            Outcome::Conflict
        ));
        assert_eq!(ledger.len(Resource::Charges), 1);
    }

    #[tokio::test]
    async fn refunds_never_take_more_than_the_charge() {
        let mut ledger = Ledger::open(None).await.unwrap();
        let Outcome::New(charged) = ledger
            .create(Resource::Charges, "c", &charge(100), false)
            .await
            .unwrap()
        else {
            panic!("not charged");
        };
        let mut made = Vec::new();
        for (key, amount) in [("r1", 60), ("r2", 50), ("r3", 40)] {
            let Outcome::New(refund) = ledger
                .create(Resource::Refunds, key, &refund(&charged.id, amount), false)
                .await
                .unwrap()
            else {
                panic!("not a refund");
            };
            assert!(refund.id.starts_with("re_"));
            made.push(refund.succeeded);
        }
        assert_eq!(
            made,
            [true, false, true],
            "60 of 100, then 50 is over, then 40"
        );
        assert!(matches!(
            ledger
                .create(Resource::Refunds, "r4", &refund("ch_none", 1), false)
                .await
                .unwrap(),
            Outcome::NoSuchCharge
        ));
        assert_eq!(ledger.len(Resource::Refunds), 3);
    }
}
