//! Helpers for the std threads behind the explorer (loader, input, watcher): a panic on
//! one of them is caught there and reported through the event channel, so no thread
//! dies silently.

use std::any::Any;

/// The message of a caught panic (`panic!("..")` payloads are `&str` or `String`).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Whether a panic on the current thread ends the process: only the main thread's does
/// (the others catch theirs and report them in the UI).
pub fn panicking_thread_is_main() -> bool {
    std::thread::current().name() == Some("main")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_of_str_and_string_payloads() {
        let s = std::panic::catch_unwind(|| panic!("plain")).unwrap_err();
        assert_eq!(panic_message(&*s), "plain");
        let n = 3;
        let s = std::panic::catch_unwind(|| panic!("formatted {n}")).unwrap_err();
        assert_eq!(panic_message(&*s), "formatted 3");
        let s = std::panic::catch_unwind(|| std::panic::panic_any(7u8)).unwrap_err();
        assert_eq!(panic_message(&*s), "unknown panic");
    }

    #[test]
    fn only_the_main_thread_is_main() {
        let named = std::thread::Builder::new()
            .name("load-1".into())
            .spawn(panicking_thread_is_main)
            .unwrap();
        assert!(!named.join().unwrap());
        assert!(!std::thread::spawn(panicking_thread_is_main).join().unwrap());
    }
}
