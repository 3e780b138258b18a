//! Locks: a record's or a pack's lock has one holder at a time, even while
//! holders remove the lock file before they let go.

use lb_store::cache::Cache;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Many threads take one lock in turn, each removing the lock file before
/// it lets go ([`lb_store::cache::LockGuard::remove`], as runs and pack
/// edits do). A thread that waited on the removed file must not hold the
/// lock beside a newcomer who locked a fresh file: at most one holder at
/// any moment. (Before locks were checked against the file at their path,
/// this saw two holders within a few rounds; two pack edits at once lose
/// records.)
#[test]
fn a_lock_whose_file_is_removed_has_one_holder_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let record = dir.path().join("ab").join("pack.zst");
    let holders = AtomicUsize::new(0);
    let most = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| {
                for _ in 0..150 {
                    let g = cache.lock(&record).unwrap();
                    let now = holders.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_micros(50));
                    holders.fetch_sub(1, Ordering::SeqCst);
                    g.remove();
                }
            });
        }
    });
    assert_eq!(
        most.load(Ordering::SeqCst),
        1,
        "two holders of one lock at once"
    );
}
