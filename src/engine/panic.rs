//! What a panic prints: the place in taintlint's code, never the panic's text. A string
//! slicing panic quotes up to 256 bytes of the string, which is the file being checked: from
//! an untrusted pull request, lines such as `::add-mask::` would reach the CI log. The place is
//! kept for the file's `internal-error` finding (see `file::lint_one`).

std::thread_local! {
    /// Where the last panic on this thread happened (see [`install_panic_hook`]).
    static PANICKED_AT: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the default panic message, which quotes its payload (a string slicing panic
/// quotes up to 256 bytes of the file being checked, attacker lines included), with the
/// place alone; the place is kept for the file's `internal-error` finding. For the binary:
/// a library user keeps its own hook.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let place = info.location().map_or_else(
            || "an unknown place".to_string(),
            |l| format!("{}:{}:{}", l.file(), l.line(), l.column()),
        );
        eprintln!(
            "taintlint: internal error (a bug) at {place}; the file being checked is reported as `internal-error`"
        );
        PANICKED_AT.with(|p| *p.borrow_mut() = Some(place));
    }));
}

/// The place of the last panic on this thread, once.
pub(super) fn take_place() -> Option<String> {
    PANICKED_AT.with(|p| p.borrow_mut().take())
}
