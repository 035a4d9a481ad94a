//! The CLI's allocator: mimalloc, not the system allocator. Validating objects and running
//! suites allocate and free many small values (JSON trees, error lists, CEL values) on
//! several threads, where glibc's malloc and free took about a third of the time (perf,
//! `crdlab test` over the openshift suites). What is allocated does not change, only how
//! fast. (It also replaces the glibc `mallopt` tuning the CLI had: memory returned to the
//! system at once, and thread heaps grown one page and one `mprotect` at a time.)
//!
//! Included by path (`#[path]`) by the CLI, `benches/engine.rs` and
//! `examples/compile_profile.rs`, so that their figures are the CLI's.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
