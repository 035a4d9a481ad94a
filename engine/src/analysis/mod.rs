//! Beyond the apiserver: what crdlab computes on top of the engine's answers — the cost
//! explanation of each rule ([`explain`]), each rule's lowest release ([`versions`]) and
//! breaking changes between two CRDs ([`diff`]) and the answers of several releases to one
//! request ([`releases`]). These call the engine's typed API ([`crate::engine`],
//! [`crate::crd`], [`crate::strategy`]), never the batch protocol. [`parallel`] splits the
//! work of the tools that validate many objects over threads.

pub mod diff;
pub mod explain;
pub mod parallel;
pub mod releases;
pub mod suite;
pub mod versions;
