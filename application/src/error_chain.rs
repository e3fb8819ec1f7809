//! Errors as logs show them: with every cause.

use std::error::Error;
use std::fmt;

/// Shows an error and its sources on one line, `outer: inner: root`.
#[derive(Debug, Clone, Copy)]
pub struct ErrorChain<'a>(pub &'a (dyn Error + 'a));

impl fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

pub(crate) fn same_error(a: &dyn Error, b: &dyn Error) -> bool {
    ErrorChain(a).to_string() == ErrorChain(b).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn every_cause_is_shown_in_order() {
        let error = Outer(std::io::Error::other("root"));
        assert_eq!(ErrorChain(&error).to_string(), "outer: root");
    }

    #[test]
    fn errors_are_the_same_when_their_whole_chains_read_alike() {
        let (a, b) = (
            Outer(std::io::Error::other("root")),
            Outer(std::io::Error::other("root")),
        );
        assert!(same_error(&a, &b));
        assert!(!same_error(
            &a,
            &Outer(std::io::Error::other("another root"))
        ));
    }
}
