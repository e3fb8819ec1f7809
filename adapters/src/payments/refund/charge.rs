//! A payment's stored charge, as a refund of it needs it: one reading for the single
//! acceptance's read and a batch's.

use application::payments::CapturedCharge;
use application::ports::StoreError;
use domain::Currency;

use crate::sql::bad_value::{bad, bad_row};

/// The `provider_charge_id` and `currency` of a `payments` row, checked.
pub(crate) fn captured_charge(
    charge: Vec<u8>,
    currency: &[u8],
) -> Result<CapturedCharge, StoreError> {
    let currency = std::str::from_utf8(currency)
        .ok()
        .and_then(|currency| Currency::parse(currency).ok())
        .ok_or_else(|| bad_row("payments", "currency"))?;
    Ok(CapturedCharge {
        charge: String::from_utf8(charge).map_err(bad("payments", "provider_charge_id"))?,
        currency,
    })
}
