//! A counting latch: work is added, marked done, and waited for.

use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(Default)]
pub struct Latch {
    count: AtomicUsize,
    /// Taken to sleep on `zero` and to signal it, so a waiter never misses the last `done`.
    lock: Mutex<()>,
    zero: Condvar,
}

impl Latch {
    pub fn add(&self, n: usize) {
        self.count.fetch_add(n, Ordering::SeqCst);
    }

    pub fn done(&self) {
        let before =
            self.count.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| Some(c.saturating_sub(1)));
        if before.unwrap_or(0) <= 1 {
            let _guard = self.lock.lock();
            self.zero.notify_all();
        }
    }

    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    pub fn wait_zero(&self) {
        let mut guard = self.lock.lock();
        while self.count() > 0 {
            self.zero.wait(&mut guard);
        }
    }

    /// Wait for zero, looking for up to `spin` before going to sleep: work that ends within
    /// microseconds (helpers seeing the stop flag) is then not waited for through the scheduler,
    /// which on a loaded machine can take a whole tick to wake a sleeper.
    pub fn wait_zero_spinning(&self, spin: Duration) {
        let deadline = Instant::now() + spin;
        while self.count() > 0 && Instant::now() < deadline {
            std::hint::spin_loop();
        }
        self.wait_zero();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn waiters_wake_at_zero_whether_they_spin_or_sleep() {
        let latch = Arc::new(Latch::default());
        latch.add(2);
        let worker = Arc::clone(&latch);
        let done = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            worker.done();
            worker.done();
            worker.done(); // one too many stays at zero
        });
        latch.wait_zero_spinning(Duration::from_micros(100));
        assert_eq!(latch.count(), 0);
        done.join().unwrap();
        latch.wait_zero();
    }
}
