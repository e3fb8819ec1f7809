//! The faults a test turns on with `PUT /control`, and what each charge or refund call
//! ("a call" below) takes from them when it arrives.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// `PUT /control` replaces all of it, so `{}` resets. Counts mean "the next N calls"
/// and go down as calls take them; `GET /control` shows what is left.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub(crate) struct Controls {
    /// On every call, before it charges or refunds.
    pub(crate) delay_ms: u64,
    /// Answer `503` before charging or refunding, for the next N calls.
    pub(crate) fail5xx: u32,
    /// `503` to every call and every lookup: the provider is down.
    pub(crate) fail_always: bool,
    /// Charge or refund, then close the connection without answering (the next N calls).
    pub(crate) drop_after_charge: u32,
    /// New charges and refunds are declined (a key already used keeps its answer).
    pub(crate) decline: bool,
    /// Charge, then hold the answer until `POST /control/release` or `hold` turns off.
    pub(crate) hold: bool,
    /// Every answer (of a call or a lookup) names this id instead of the one stored: a
    /// provider that misbehaves, for the client's checks of what it records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) answer_id: Option<String>,
    /// Every answer names this amount instead of the one charged or refunded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) answer_amount: Option<u64>,
    /// Every answer names this currency instead of the one charged or refunded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) answer_currency: Option<String>,
}

/// What one call does, decided when it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) delay: Duration,
    pub(crate) fail: bool,
    pub(crate) drop_after_charge: bool,
    pub(crate) decline: bool,
    pub(crate) hold: bool,
}

impl Controls {
    /// Takes one from each count it uses; a failing call takes no drop: it charges nothing.
    pub(crate) fn take_plan(&mut self) -> Plan {
        let fail = self.fail_always || take_one(&mut self.fail5xx);
        let drop_after_charge = !fail && take_one(&mut self.drop_after_charge);
        Plan {
            delay: Duration::from_millis(self.delay_ms),
            fail,
            drop_after_charge,
            decline: self.decline,
            hold: self.hold,
        }
    }

    /// `answer` (a charge's or refund's JSON) with the members these controls misstate.
    pub(crate) fn misstated(&self, mut answer: serde_json::Value) -> serde_json::Value {
        if let Some(members) = answer.as_object_mut() {
            if let Some(id) = &self.answer_id {
                members.insert("id".to_owned(), id.clone().into());
            }
            if let Some(amount) = self.answer_amount {
                members.insert("amount".to_owned(), amount.into());
            }
            if let Some(currency) = &self.answer_currency {
                members.insert("currency".to_owned(), currency.clone().into());
            }
        }
        answer
    }
}

fn take_one(count: &mut u32) -> bool {
    let some = *count > 0;
    *count = count.saturating_sub(1);
    some
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_taken_one_call_at_a_time() {
        let mut controls = Controls {
            fail5xx: 1,
            drop_after_charge: 1,
            ..Controls::default()
        };
        let first = controls.take_plan();
        assert!(first.fail && !first.drop_after_charge);
        let second = controls.take_plan();
        assert!(!second.fail && second.drop_after_charge);
        assert_eq!(controls, Controls::default());
        let third = controls.take_plan();
        assert!(!third.fail && !third.drop_after_charge);
    }

    #[test]
    fn only_the_members_told_are_misstated() {
        let answer = serde_json::json!({"id": "ch_1", "status": "succeeded", "amount": 5, "currency": "JPY"});
        assert_eq!(Controls::default().misstated(answer.clone()), answer);
        let told = Controls {
            answer_id: Some("<b>".to_owned()),
            answer_currency: Some("USD".to_owned()),
            ..Controls::default()
        };
        assert_eq!(
            told.misstated(answer),
            serde_json::json!({"id": "<b>", "status": "succeeded", "amount": 5, "currency": "USD"})
        );
    }

    #[test]
    fn an_unknown_field_is_refused() {
        assert!(serde_json::from_str::<Controls>(r#"{"failAlways":true}"#).is_ok());
        assert!(serde_json::from_str::<Controls>(r#"{"fail_always":true}"#).is_err());
    }
}
