//! A counting latch: work is added, marked done, and waited for.

use parking_lot::{Condvar, Mutex};

#[derive(Default)]
pub struct Latch {
    count: Mutex<usize>,
    zero: Condvar,
}

impl Latch {
    pub fn add(&self, n: usize) {
        *self.count.lock() += n;
    }

    pub fn done(&self) {
        let mut count = self.count.lock();
        *count = count.saturating_sub(1);
        if *count == 0 {
            self.zero.notify_all();
        }
    }

    pub fn count(&self) -> usize {
        *self.count.lock()
    }

    pub fn wait_zero(&self) {
        let mut count = self.count.lock();
        while *count > 0 {
            self.zero.wait(&mut count);
        }
    }

    /// Wait for zero, but no longer than `timeout`. Returns whether zero was reached.
    pub fn wait_zero_for(&self, timeout: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut count = self.count.lock();
        while *count > 0 {
            if self.zero.wait_until(&mut count, deadline).timed_out() {
                return *count == 0;
            }
        }
        true
    }
}
