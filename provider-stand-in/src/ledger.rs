//! The charges, one per idempotency key, in memory and optionally in a JSON file. One
//! async mutex is held across the look-up, the insert and the file write, so calls with the
//! same key make one charge however they overlap.

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ChargeRequest {
    pub(crate) amount: u64,
    pub(crate) currency: String,
    pub(crate) reference: String,
}

impl ChargeRequest {
    /// The request, if the body is one: a positive amount, three letters `A-Z`.
    pub(crate) fn parse(body: &[u8]) -> Option<Self> {
        let request: Self = serde_json::from_slice(body).ok()?;
        let currency_ok =
            request.currency.len() == 3 && request.currency.bytes().all(|b| b.is_ascii_uppercase());
        (request.amount > 0 && currency_ok).then_some(request)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StoredCharge {
    pub(crate) id: String,
    pub(crate) succeeded: bool,
    pub(crate) amount: u64,
    pub(crate) currency: String,
    pub(crate) reference: String,
}

impl StoredCharge {
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
    New(StoredCharge),
    /// The key was charged before with the same amount and currency: that charge.
    Existing(StoredCharge),
    /// The key was charged before with another amount or currency.
    Conflict,
}

#[derive(Debug)]
pub(crate) struct Ledger {
    charges: HashMap<String, StoredCharge>,
    file: Option<PathBuf>,
}

impl Ledger {
    /// The ledger kept in `file` (loaded when it exists), or in memory only.
    pub(crate) async fn open(file: Option<PathBuf>) -> io::Result<Self> {
        let charges = match &file {
            Some(path) => match tokio::fs::read(path).await {
                Ok(bytes) => serde_json::from_slice(&bytes)?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => HashMap::new(),
                Err(e) => return Err(e),
            },
            None => HashMap::new(),
        };
        Ok(Self { charges, file })
    }

    pub(crate) fn get(&self, key: &str) -> Option<&StoredCharge> {
        self.charges.get(key)
    }

    pub(crate) fn len(&self) -> usize {
        self.charges.len()
    }

    /// Charges under `key` unless it was charged already. An error means the state file was
    /// not written, yet the charge stands, as with a provider whose answer got lost.
    pub(crate) async fn charge(
        &mut self,
        key: &str,
        request: &ChargeRequest,
        decline: bool,
    ) -> io::Result<Outcome> {
        if let Some(existing) = self.charges.get(key) {
            let same = existing.amount == request.amount && existing.currency == request.currency;
            return Ok(if same {
                Outcome::Existing(existing.clone())
            } else {
                Outcome::Conflict
            });
        }
        let charge = StoredCharge {
            id: format!("ch_{}", uuid::Uuid::new_v4().simple()),
            succeeded: !decline,
            amount: request.amount,
            currency: request.currency.clone(),
            reference: request.reference.clone(),
        };
        self.charges.insert(key.to_owned(), charge.clone());
        self.save().await?;
        Ok(Outcome::New(charge))
    }

    /// Writes the state file whole (a temporary file renamed over it, so a crash leaves
    /// the old or the new one).
    async fn save(&self) -> io::Result<()> {
        let Some(path) = &self.file else {
            return Ok(());
        };
        let mut temporary = path.clone().into_os_string();
        temporary.push(".tmp");
        tokio::fs::write(&temporary, serde_json::to_vec(&self.charges)?).await?;
        tokio::fs::rename(&temporary, path).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_valid_body_is_a_request() {
        assert!(
            ChargeRequest::parse(br#"{"amount":1,"currency":"JPY","reference":"r"}"#).is_some()
        );
        for bad in [
            &br#"{"amount":0,"currency":"JPY","reference":"r"}"#[..],
            br#"{"amount":-1,"currency":"JPY","reference":"r"}"#,
            br#"{"amount":1,"currency":"jpy","reference":"r"}"#,
            br#"{"amount":1,"currency":"JPY"}"#,
            b"{",
        ] {
            assert!(
                ChargeRequest::parse(bad).is_none(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[tokio::test]
    async fn one_key_one_charge() {
        let mut ledger = Ledger::open(None).await.unwrap();
        let request =
            ChargeRequest::parse(br#"{"amount":5,"currency":"JPY","reference":"r"}"#).unwrap();
        let Outcome::New(first) = ledger.charge("k", &request, false).await.unwrap() else {
            panic!("not a new charge");
        };
        let Outcome::Existing(again) = ledger.charge("k", &request, true).await.unwrap() else {
            panic!("not the same charge");
        };
        assert_eq!(first, again);
        let other = ChargeRequest {
            amount: 6,
            ..request
        };
        assert!(matches!(
            ledger.charge("k", &other, false).await.unwrap(),
            Outcome::Conflict
        ));
        assert_eq!(ledger.len(), 1);
    }
}
