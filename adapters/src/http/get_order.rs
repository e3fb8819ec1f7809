//! `GET /api/orders/{orderId}`: an order of the caller's tenant.

use actix_web::{HttpRequest, HttpResponse, web};
use application::ports::FlowHooks;
use domain::OrderId;

use super::problem::Problem;
use super::respond;
use super::responses::{AuthRefusals, ReadRefusals};
use super::schema::Order;
use super::state::{AppState, ServiceStore};

/// The permission to read orders.
pub const ORDERS_READ: &str = "orders:read";

/// `404` for an id that is not a positive decimal, and for another tenant's order alike:
/// the answer never tells whether an order exists elsewhere.
#[utoipa::path(
    get,
    path = "/api/orders/{orderId}",
    tag = "orders",
    operation_id = "getOrder",
    summary = "Read an order of the caller's tenant",
    description = "Any actor of the order's tenant whose token grants `orders:read`. Another \
        tenant's order, and an id that is not a positive decimal, are `404` alike: the answer \
        never tells whether an order exists elsewhere.",
    security(("bearer" = ["orders:read"])),
    params(
        (
            "orderId" = String,
            Path,
            description = "The `orderId` of the create's answer (the end of its `Location`).",
            example = "1"
        ),
    ),
    responses(
        AuthRefusals,
        ReadRefusals,
        (status = 200, description = "The order, in the create's shape.", body = Order),
    ),
)]
pub(super) async fn get_order<S: ServiceStore, H: FlowHooks + 'static>(
    request: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse {
    let caller = match respond::authorized(&request, &state.keys, ORDERS_READ) {
        Ok(caller) => caller,
        Err(refusal) => return refusal.response(),
    };
    let Some(id) = parse_order_id(&path) else {
        return respond::problem(&Problem::not_found());
    };
    let found = state.store.find_order(caller.tenant, id).await;
    respond::read(found, "order", |order, _| order.to_json())
}

/// Plain digits naming a positive id that a signed 64-bit column can hold.
pub(super) fn parse_order_id(text: &str) -> Option<OrderId> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let id: u64 = text.parse().ok()?;
    (1..=i64::MAX.unsigned_abs())
        .contains(&id)
        .then(|| OrderId::new(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_positive_decimal_ids_in_range_name_an_order() {
        assert_eq!(parse_order_id("42").map(OrderId::get), Some(42));
        for text in ["", "0", "-1", "+1", "1e3", "9223372036854775808", "abc"] {
            assert!(parse_order_id(text).is_none(), "{text}");
        }
    }
}
