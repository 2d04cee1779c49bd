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

/// `work` applied to every item on up to `threads` threads (this one among them), each
/// taking the next item as it finishes one, so a thread that is slowed down (by another
/// process, by page faults) takes fewer items instead of holding up the end. Results
/// come back in item order; an item whose `work` panicked gives the panic's message.
pub fn map_pulled<W: Send, T: Send>(
    threads: usize,
    items: Vec<W>,
    work: impl Fn(W) -> T + Sync,
) -> Vec<Result<T, String>> {
    let n = items.len();
    let queue = std::sync::Mutex::new(items.into_iter().enumerate());
    let results: Vec<std::sync::Mutex<Option<Result<T, String>>>> =
        (0..n).map(|_| std::sync::Mutex::new(None)).collect();
    let worker = || loop {
        // A poisoned lock only means another worker panicked while holding it: the
        // iterator inside is still sound.
        let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
        let Some((i, item)) = next else { break };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(item)))
            .map_err(|payload| panic_message(&*payload));
        *results[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.clamp(1, n.max(1)) {
            scope.spawn(worker);
        }
        worker();
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .unwrap_or_else(|| Err("not run".into()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulled_results_in_item_order_with_panics_reported() {
        let items: Vec<u64> = (0..100).collect();
        let out = map_pulled(3, items, |x| {
            if x == 42 {
                panic!("item {x}");
            }
            x * x
        });
        assert_eq!(out.len(), 100);
        for (i, r) in out.iter().enumerate() {
            let i = i as u64;
            match r {
                Ok(v) => assert_eq!(*v, i * i),
                Err(m) => assert_eq!((i, m.as_str()), (42, "item 42")),
            }
        }
        assert!(out[42].is_err());
        assert!(map_pulled(4, Vec::<u8>::new(), |x| x).is_empty());
    }

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
