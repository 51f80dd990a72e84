//! A multi-producer, single-consumer queue whose receiver goes to sleep without yielding.
//!
//! Crossbeam's channels (and the standard library's, which are a port of them) spin and then
//! call `sched_yield` a few times before a receiver sleeps. On an idle machine that saves a
//! wakeup; with more search threads than cores every yield sends the thread to the back of the
//! scheduler's queue, and the threads that wait here must run promptly: the search workers
//! between searches (the main thread is woken by `go`, the helpers by it), and with more threads
//! than cores the workers yielded several times per search each. This queue takes a lock held
//! only to push or pop, and sleeps on a condition variable.
//!
//! The input loop keeps a crossbeam channel: on this queue `stop` with many more threads than
//! cores was answered later, probably because the reader thread, which has a short time slice,
//! then shares a lock with the session thread, which has not.

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::Arc;

struct Queue<T> {
    items: VecDeque<T>,
    senders: usize,
    receiver: bool,
}

struct Shared<T> {
    queue: Mutex<Queue<T>>,
    ready: Condvar,
}

/// The sending side; clone it for more producers.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// The receiving side.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
}

/// A new, empty queue.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        queue: Mutex::new(Queue { items: VecDeque::new(), senders: 1, receiver: true }),
        ready: Condvar::new(),
    });
    (Sender { shared: Arc::clone(&shared) }, Receiver { shared })
}

impl<T> Sender<T> {
    /// Queue `item`; gives it back if the receiver is gone.
    pub fn send(&self, item: T) -> Result<(), T> {
        let mut queue = self.shared.queue.lock();
        if !queue.receiver {
            return Err(item);
        }
        queue.items.push_back(item);
        drop(queue);
        self.shared.ready.notify_one();
        Ok(())
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.queue.lock().senders += 1;
        Sender { shared: Arc::clone(&self.shared) }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut queue = self.shared.queue.lock();
        queue.senders -= 1;
        if queue.senders == 0 {
            drop(queue);
            self.shared.ready.notify_one();
        }
    }
}

impl<T> Receiver<T> {
    /// The next item, waiting for one; `None` once the queue is empty and every sender is gone.
    pub fn recv(&self) -> Option<T> {
        let mut queue = self.shared.queue.lock();
        loop {
            if let Some(item) = queue.items.pop_front() {
                return Some(item);
            }
            if queue.senders == 0 {
                return None;
            }
            self.shared.ready.wait(&mut queue);
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.shared.queue.lock().receiver = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn items_arrive_in_order_from_several_senders() {
        let (first, inbox) = channel();
        let second = first.clone();
        let producer = std::thread::spawn(move || {
            for i in 0..1000 {
                second.send(i).expect("receiver alive");
            }
        });
        producer.join().expect("producer");
        first.send(1000).expect("receiver alive");
        for expected in 0..=1000 {
            assert_eq!(inbox.recv(), Some(expected));
        }
    }

    #[test]
    fn a_waiting_receiver_wakes_for_an_item_and_ends_when_senders_are_gone() {
        let (sender, inbox) = channel();
        let consumer = std::thread::spawn(move || {
            let mut got = Vec::new();
            while let Some(item) = inbox.recv() {
                got.push(item);
            }
            got
        });
        std::thread::sleep(Duration::from_millis(20));
        sender.send("a").expect("receiver alive");
        std::thread::sleep(Duration::from_millis(20));
        sender.send("b").expect("receiver alive");
        drop(sender);
        assert_eq!(consumer.join().expect("consumer"), vec!["a", "b"]);
    }

    #[test]
    fn sending_to_a_dropped_receiver_gives_the_item_back() {
        let (sender, inbox) = channel();
        drop(inbox);
        assert_eq!(sender.send(7), Err(7));
    }
}
