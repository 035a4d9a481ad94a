//! The apiserver's bound on a request body (`MaxRequestBodyBytes`, apiserver
//! `server/config.go`): 3 MiB, checked by the handlers' `limitedReadBody` before anything is
//! decoded, and assumed by the CEL cost estimator as the largest object
//! (`DefaultMaxRequestSizeBytes`). One constant for every layer: the text reader stops
//! building a document that cannot fit, the strategy refuses an object that does not, and
//! the cost code bounds unbounded lists by it.

/// 3 MiB.
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;

/// `limitedReadBody`'s refusal (apimachinery `NewRequestEntityTooLargeError`, HTTP 413).
pub(crate) fn entity_too_large() -> String {
    format!("Request entity too large: limit is {}", MAX_REQUEST_BODY_BYTES)
}
