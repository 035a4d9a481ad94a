//! Limits of the Kubernetes CEL configuration (apiserver `pkg/apis/cel/config.go`).

/// Per-call cost limit (AS `pkg/apis/cel/config.go` PerCallLimit).
pub const PER_CALL_LIMIT: u64 = 1_000_000;
