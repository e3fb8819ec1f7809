//! `ADMIN_UI`: whether the on-call page is served under `/admin/`
//! (`docs/admin.md#the-on-call-page`). Off unless set to `1`, so a server that never asked
//! for it serves nothing new.

use crate::config::{ConfigError, Lookup, invalid, text};

pub(crate) fn admin_ui(lookup: Lookup<'_>) -> Result<bool, ConfigError> {
    match text(lookup, "ADMIN_UI")?.as_deref() {
        None | Some("0") => Ok(false),
        Some("1") => Ok(true),
        Some(_) => Err(invalid("ADMIN_UI", "must be 0 or 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_vars;

    #[test]
    fn off_unless_one() {
        assert_eq!(parse_vars(&[], admin_ui), Ok(false));
        assert_eq!(parse_vars(&[("ADMIN_UI", "")], admin_ui), Ok(false));
        assert_eq!(parse_vars(&[("ADMIN_UI", "0")], admin_ui), Ok(false));
        assert_eq!(parse_vars(&[("ADMIN_UI", "1")], admin_ui), Ok(true));
        let error = parse_vars(&[("ADMIN_UI", "yes")], admin_ui).unwrap_err();
        assert_eq!(error.variable, "ADMIN_UI");
    }
}
