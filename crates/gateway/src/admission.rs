//! Who may hold a connection open on the hooks socket: at most so many connections on the socket,
//! and at most so many from one peer process (a link's relay or ssh, which carries every hook of
//! its link, or one hook of a container given the socket), as the kernel names it
//! (`SO_PEERCRED`). A connection past either is told why and closed at once, so that peers of the
//! hooks socket can never take the descriptors the person's own socket needs.
//!
//! A [`Seat`] is one admitted connection; dropping it frees its place.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many connections the hooks socket takes, in all and from one peer process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatLimits {
    pub socket: usize,
    pub peer: usize,
}

/// The places of the hooks socket.
#[derive(Debug)]
pub struct Seats {
    limits: SeatLimits,
    taken: Mutex<Taken>,
}

#[derive(Debug, Default)]
struct Taken {
    all: usize,
    /// By peer process id; `None` for a peer whose process the kernel cannot name.
    by_peer: HashMap<Option<u32>, usize>,
}

/// One admitted connection; dropped, it frees its place.
#[derive(Debug)]
pub struct Seat {
    seats: Arc<Seats>,
    peer: Option<u32>,
}

impl Seats {
    pub fn new(limits: SeatLimits) -> Arc<Self> {
        Arc::new(Seats {
            limits,
            taken: Mutex::new(Taken::default()),
        })
    }

    fn taken(&self) -> std::sync::MutexGuard<'_, Taken> {
        self.taken
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A place for a connection from the process `peer`, or why there is none.
    pub fn take(self: &Arc<Self>, peer: Option<u32>) -> Result<Seat, String> {
        let mut taken = self.taken();
        let from_peer = taken.by_peer.get(&peer).copied().unwrap_or_default();
        if taken.all >= self.limits.socket {
            return Err(format!(
                "the hooks socket has {} connections open, as many as it takes",
                taken.all
            ));
        }
        if from_peer >= self.limits.peer {
            let who = peer.map_or_else(|| "a peer".to_owned(), |pid| format!("process {pid}"));
            return Err(format!(
                "{who} has {from_peer} connections open on the hooks socket, as many as one peer may"
            ));
        }
        taken.all += 1;
        *taken.by_peer.entry(peer).or_default() += 1;
        Ok(Seat {
            seats: Arc::clone(self),
            peer,
        })
    }

    /// How many connections hold a place now.
    pub fn taken_count(&self) -> usize {
        self.taken().all
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut taken = self.seats.taken();
        taken.all -= 1;
        if let Some(count) = taken.by_peer.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                taken.by_peer.remove(&self.peer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_and_each_peer_take_at_most_their_limits_and_a_freed_place_is_taken_again() {
        let seats = Seats::new(SeatLimits { socket: 3, peer: 2 });
        let first = seats.take(Some(7)).unwrap();
        let _second = seats.take(Some(7)).unwrap();
        let refused = seats.take(Some(7)).unwrap_err();
        assert!(refused.contains("process 7 has 2 connections"), "{refused}");
        let _other = seats.take(Some(8)).unwrap();
        let full = seats.take(Some(9)).unwrap_err();
        assert!(full.contains("has 3 connections open"), "{full}");
        drop(first);
        assert_eq!(seats.taken_count(), 2);
        let _again = seats.take(Some(7)).expect("a freed place is taken again");
    }
}
