//! One meter per file, charged by work (#49).
//!
//! Reading one file may cost more than one pass over it: the YAML layers that read what
//! kubectl's go-yaml reads parse a document again after each mend (quoted scalars, tabs,
//! comments), indent a flow collection's lines and parse again, and retry with a line break
//! kept; Terraform's reader parses a file again for each repeated object key. Each of those
//! loops had a bound of its own, and each bound counted the wrong thing (passes, not the bytes
//! a pass parses; one document, not the file; one loop at a time, not all of them together).
//! Here every such path draws from one meter, opened once for the file being read, and
//! charged by the bytes it parses or produces: the work a file can cause is linear in its
//! size whatever it holds.
//!
//! The meter belongs to the thread reading the file: a file is read by one thread from start
//! to end (the run's parallelism is across files), and nothing in reading one file hands work
//! to another thread. [`per_file`] opens it (or joins the one already open, so that the
//! engine's scope and a parser's own are one), [`charge`] draws from it. Outside any scope
//! (a unit test calling a parser), [`per_file`] is where the meter starts.
//!
//! Why there is no separate budget for the run: the run's work is the sum of its files', each
//! bounded by its size, and the walk bounds the run's bytes; a shared pool that files drew
//! from in parallel would make which file runs out depend on the threads' timing, and the
//! output must not.

use std::cell::Cell;

/// Units every file may spend, whatever its size: a small file may be re-read in full many
/// times (each unit is a byte parsed or made).
pub const BASE_UNITS: u64 = 16 << 20;

/// Units a file may spend per byte it holds, on top of [`BASE_UNITS`]: about sixteen passes
/// over the whole of it, for whatever mix of re-parses and retries it needs.
pub const UNITS_PER_BYTE: u64 = 16;

/// The budget of a file of `len` bytes.
pub fn budget_for(len: usize) -> u64 {
    BASE_UNITS.saturating_add(UNITS_PER_BYTE.saturating_mul(len as u64))
}

thread_local! {
    /// The units left to the file this thread reads (`None`: no file's meter is open).
    static LEFT: Cell<Option<u64>> = const { Cell::new(None) };
}

#[cfg(test)]
thread_local! {
    /// The units a test sets for the next scope opened on this thread (see [`with_budget`]).
    static OVERRIDE: Cell<Option<u64>> = const { Cell::new(None) };
}

/// The budget of a file of `len` bytes, or the one a test set.
fn units_for(len: usize) -> u64 {
    #[cfg(test)]
    if let Some(units) = OVERRIDE.with(Cell::get) {
        return units;
    }
    budget_for(len)
}

/// Restores the meter that was open (none) when a scope ends, also on a panic.
struct Scope {
    outer: Option<u64>,
}

impl Drop for Scope {
    fn drop(&mut self) {
        LEFT.with(|l| l.set(self.outer));
    }
}

/// Runs `f` under the meter of a file of `len` bytes: a new one, or the one already open on
/// this thread (a parser called from the engine's scope draws from the engine's meter).
pub fn per_file<R>(len: usize, f: impl FnOnce() -> R) -> R {
    if LEFT.with(Cell::get).is_some() {
        return f();
    }
    let units = units_for(len);
    let _scope = Scope { outer: None };
    LEFT.with(|l| l.set(Some(units)));
    f()
}

/// Takes `units` from the open meter: `false` (and the meter empty from then on) when fewer
/// are left. Without an open meter, `true`.
pub fn charge(units: u64) -> bool {
    LEFT.with(|l| match l.get() {
        None => true,
        Some(left) if left >= units => {
            l.set(Some(left - units));
            true
        }
        Some(_) => {
            l.set(Some(0));
            false
        }
    })
}

/// Whether the open meter has run out.
pub fn exhausted() -> bool {
    LEFT.with(|l| l.get() == Some(0))
}

/// Runs `f` with every file meter opened on this thread holding `units` (tests: a small
/// budget reached by a small input).
#[cfg(test)]
pub fn with_budget<R>(units: u64, f: impl FnOnce() -> R) -> R {
    struct Reset(Option<u64>);
    impl Drop for Reset {
        fn drop(&mut self) {
            OVERRIDE.with(|o| o.set(self.0));
        }
    }
    let _reset = Reset(OVERRIDE.with(|o| o.replace(Some(units))));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_meters_its_file_and_nested_scopes_share_it() {
        assert!(charge(u64::MAX), "no meter open: unmetered");
        with_budget(100, || {
            per_file(10, || {
                assert!(charge(60));
                per_file(1_000_000, || assert!(!charge(60), "the outer file's meter"));
                assert!(exhausted());
                assert!(!charge(1));
            });
            per_file(10, || assert!(charge(100), "a new file, a new meter"));
        });
        assert!(!exhausted());
        assert_eq!(budget_for(1), BASE_UNITS + UNITS_PER_BYTE);
    }

    #[test]
    fn a_panic_closes_the_scope() {
        let r = std::panic::catch_unwind(|| {
            per_file(1, || -> () { panic!("boom") });
        });
        assert!(r.is_err());
        assert!(charge(u64::MAX), "the meter was closed");
    }
}
