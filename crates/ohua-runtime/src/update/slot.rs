//! Functions that can be replaced while a service runs.
//!
//! `#[ohua::updatable]` on a `fn` gives it a [`FnSlot`]: a static that names
//! the function, typed by its signature as a function pointer. The function
//! first asks [`current`] whether the operator running it has adopted a
//! replacement for that slot (see `versions.rs`) and calls it instead of its
//! own body if so. A [`Replacement`] pairs a slot with a new function of the
//! same type, so a replacement of the wrong type does not compile.

use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc;

use super::versions::with_current;

/// The identity of a replaceable function; `F` is its function pointer type
/// (`fn(&str) -> usize`).
///
/// # Example
///
/// ```
/// use ohua_runtime::update::{current, FnSlot};
/// static DOUBLE: FnSlot<fn(u32) -> u32> = FnSlot::new("double");
/// fn double(x: u32) -> u32 {
///     match current(&DOUBLE) {
///         Some(f) => f(x),
///         None => x * 2,
///     }
/// }
/// assert_eq!(double(4), 8); // no operator adopted a replacement here
/// ```
pub struct FnSlot<F: 'static> {
    name: &'static str,
    _f: PhantomData<F>,
}

impl<F: 'static> FnSlot<F> {
    /// A slot for the function named `name` (its path, for reports).
    pub const fn new(name: &'static str) -> Self {
        FnSlot { name, _f: PhantomData }
    }

    /// The function's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The slot's identity: its address (a slot is a `static`).
    pub(crate) fn key(&'static self) -> usize {
        self as *const Self as usize
    }
}

/// The replacement the operator running on this thread has adopted for
/// `slot`, if any. Outside a service, or before an update reached the
/// operator, `None`: the function runs its own body.
#[inline]
pub fn current<F: Copy + 'static>(slot: &'static FnSlot<F>) -> Option<F> {
    let key = slot.key();
    with_current(|v| v.and_then(|v| v.get(key)).and_then(|f| f.downcast_ref::<F>().copied()))
}

/// A new function for a [`FnSlot`], for every operator the update reaches
/// or only for one operator ([`Replacement::at`]).
///
/// # Example
///
/// ```
/// use ohua_runtime::update::{FnSlot, Replacement};
/// static DOUBLE: FnSlot<fn(u32) -> u32> = FnSlot::new("double");
/// fn triple(x: u32) -> u32 { x * 3 }
/// let r = Replacement::new(&DOUBLE, triple).at("svc/double#4");
/// assert_eq!(r.function(), "double");
/// assert!(r.applies_to("svc/double#4") && !r.applies_to("svc/double#6"));
/// ```
#[derive(Clone)]
pub struct Replacement {
    key: usize,
    function: &'static str,
    /// `None`: back to the function's own body ([`Replacement::original`]).
    new: Option<Arc<dyn Any + Send + Sync>>,
    at: Option<String>,
}

impl std::fmt::Debug for Replacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Replacement({})", self.describe())
    }
}

impl Replacement {
    /// Replace the function of `slot` by `new` (a function or non-capturing
    /// closure of the same type).
    pub fn new<F: Copy + Send + Sync + 'static>(slot: &'static FnSlot<F>, new: F) -> Self {
        Replacement { key: slot.key(), function: slot.name, new: Some(Arc::new(new)), at: None }
    }

    /// Go back to the function's own body: the operators the update
    /// reaches drop the replacement they adopted for `slot` (a rollback;
    /// `ohua::replace!(f => _)`). Unlike replacing `f` by `f` itself, which
    /// also runs the original body, nothing is left to look up per call.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::update::{FnSlot, Replacement};
    /// static DOUBLE: FnSlot<fn(u32) -> u32> = FnSlot::new("double");
    /// let r = Replacement::original(&DOUBLE);
    /// assert_eq!(r.describe(), "double (original)");
    /// ```
    pub fn original<F: 'static>(slot: &'static FnSlot<F>) -> Self {
        Replacement { key: slot.key(), function: slot.name, new: None, at: None }
    }

    /// Only at the operator named `operator` (`algorithm/function#callsite`,
    /// as reports and deployment rules name it), not at every call site.
    pub fn at(mut self, operator: impl Into<String>) -> Self {
        self.at = Some(operator.into());
        self
    }

    /// The replaced function's name.
    pub fn function(&self) -> &'static str {
        self.function
    }

    /// Whether the operator named `operator` adopts this replacement.
    pub fn applies_to(&self, operator: &str) -> bool {
        addressed_to(&self.at, operator)
    }

    /// `function` or `function at operator`, for reports.
    pub fn describe(&self) -> String {
        match self.new {
            Some(_) => describe_at(self.function, &self.at),
            None => describe_at(&format!("{} (original)", self.function), &self.at),
        }
    }

    pub(crate) fn key(&self) -> usize {
        self.key
    }

    pub(crate) fn new_fn(&self) -> Option<Arc<dyn Any + Send + Sync>> {
        self.new.clone()
    }
}

/// Whether a change addressed to `at` (every operator if `None`) applies to
/// the operator named `operator`.
pub(crate) fn addressed_to(at: &Option<String>, operator: &str) -> bool {
    at.as_deref().is_none_or(|at| at == operator)
}

/// `what` or `what at operator`, for reports.
pub(crate) fn describe_at(what: &str, at: &Option<String>) -> String {
    match at {
        Some(at) => format!("{what} at {at}"),
        None => what.to_string(),
    }
}
