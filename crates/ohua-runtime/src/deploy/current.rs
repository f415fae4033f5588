//! The process's deployment: read from the environment once, kept until
//! [`reload`].
//!
//! Why: a call of an algorithm without a [`crate::context::with_deployment`]
//! override used to read every `OHUA_*` variable, open the `OHUA_CONFIG`
//! file and ask the system for its parallelism (a cgroup file read) on every
//! call: 45-56 µs per call of a small algorithm, against 6-9 µs with a
//! prebuilt deployment, and 210 µs with section rules in the file (the
//! `calls` benchmark). Now the first such call reads them and later calls
//! share the result. A configuration that is invalid stays invalid: the
//! error is kept and reported by every call, as before, until a reload
//! finds a valid one.

use std::sync::{Arc, RwLock};

use super::{from_env, DeployError, Deployment};

/// The cached outcome of reading the environment; `None` until the first call.
type Cached = Option<Result<Arc<Deployment>, Arc<DeployError>>>;

static CURRENT: RwLock<Cached> = RwLock::new(None);

/// The process's deployment from the environment (defaults, `OHUA_CONFIG`,
/// `OHUA_*` variables), read at the first call and kept until [`reload`].
///
/// # Errors
///
/// The [`DeployError`] of an invalid configuration, the same one on every
/// call until [`reload`] reads a valid one.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy;
/// let a = deploy::current().unwrap();
/// let b = deploy::current().unwrap();
/// assert!(std::sync::Arc::ptr_eq(&a, &b), "read once, then shared");
/// ```
pub fn current() -> Result<Arc<Deployment>, Arc<DeployError>> {
    if let Some(cached) = &*CURRENT.read().unwrap_or_else(|e| e.into_inner()) {
        return cached.clone();
    }
    let mut slot = CURRENT.write().unwrap_or_else(|e| e.into_inner());
    // Another caller may have read it meanwhile; either reading is the same.
    slot.get_or_insert_with(read).clone()
}

/// Read the environment and the `OHUA_CONFIG` file again; later calls of
/// algorithms use the new configuration (runs already under way keep
/// theirs). Call it after changing `OHUA_*` variables or the file.
///
/// # Errors
///
/// The [`DeployError`] if the new configuration is invalid. It is kept
/// like any other: calls without an override then fail with it, until a
/// reload finds a valid configuration.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy;
/// deploy::reload().unwrap();
/// assert!(deploy::current().is_ok());
/// ```
pub fn reload() -> Result<(), Arc<DeployError>> {
    let fresh = read();
    // A new configuration: its rules are checked (and reported) anew.
    super::unmatched::reset();
    let outcome = fresh.as_ref().map(|_| ()).map_err(Arc::clone);
    *CURRENT.write().unwrap_or_else(|e| e.into_inner()) = Some(fresh);
    outcome
}

fn read() -> Result<Arc<Deployment>, Arc<DeployError>> {
    from_env().map(Arc::new).map_err(Arc::new)
}
