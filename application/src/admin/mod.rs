//! What people on call do to operations and idempotency records, with an audit trail
//! (`docs/admin.md`). Reached over HTTP (`/api/admin`) and from `server admin`.

mod json;
mod page;
mod ports;
mod refusal;
mod scope;
mod use_cases;
mod views;

pub use json::{
    AuditBody, AuditPage, KeyBody, LeaseBody, OperationBody, OperationsPage, TargetBody, WhoBody,
    audit_page_json, hex, key_json, operation_json, operations_page_json,
};
pub use page::{AuditCursor, BadCursor, BadLimit, Cursor, OperationCursor, Page, PageLimit};
pub use ports::{AdminStore, ChangeOutcome, OperationChange, OperationFilter, Recording};
pub use refusal::AdminRefusal;
pub use scope::{
    ADMIN_READ, ADMIN_WRITE, ALL_TENANTS, AdminScope, BadOperatorName, OperatorName, Who,
};
pub use use_cases::{Admin, AdminRequest};
pub use views::{
    AdminOperation, AuditEntry, AuditEvent, KeyAddress, KeyRecordView, KeyState, Target,
};
