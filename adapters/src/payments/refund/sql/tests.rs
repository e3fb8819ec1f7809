use diesel::debug_query;
use diesel::mysql::Mysql;
use diesel::sqlite::Sqlite;

use super::*;

#[test]
fn a_reservation_holds_only_while_the_payment_has_the_amount_left() {
    let reserve = ShiftRefunded::<true> {
        tenant: 1,
        order: 9,
        amount: 500,
    };
    for text in [
        debug_query::<Mysql, _>(&reserve).to_string(),
        debug_query::<Sqlite, _>(&reserve).to_string(),
    ] {
        assert_eq!(
            text,
            "UPDATE payments SET refunded = refunded + ? WHERE tenant_id = ? AND \
             order_id = ? AND amount - refunded >= ? -- binds: [500, 1, 9, 500]"
        );
    }
}
