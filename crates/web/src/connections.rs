//! The open connections of `gatehouse web`, bounded so that no flood starves a paired device.
//!
//! Anyone who can reach the port can open connections and never finish a request. Each one costs
//! a file descriptor, so an unbounded server runs out of them and then serves nobody. Here:
//!
//! - at most [`ConnectionLimits::total`] connections are open, and at most
//!   [`ConnectionLimits::per_address`] from one client address;
//! - a connection is *unproven* until one of its requests carries a paired device's token
//!   ([`ConnectionTicket::mark_paired`]); only unproven connections are ever pushed out by a
//!   flood, and a revoked device's connections are closed at once ([`Connections::close_devices`]);
//! - a new connection past a limit pushes out the oldest unproven connection (of the same
//!   address for the per-address limit), so a paired device's new connection is served at once
//!   while an idle flood only ever displaces itself; when every connection is proven the new
//!   one is refused.
//!
//! On top of this, hyper closes a connection that does not send a whole request head in time
//! (`serve`), and the open-file limit the binary raised for it lets the process use every
//! descriptor it may.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// The most connections open at once, and from one client address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    pub total: usize,
    pub per_address: usize,
}

/// The most connections `gatehouse web` keeps open, whatever its open-file limit.
pub const MAX_CONNECTIONS: usize = 1_024;

/// The most connections one client address keeps open. Loopback clients (this machine, an SSH
/// tunnel) all share one address, so this is generous: it is what keeps one remote address from
/// taking every slot.
pub const MAX_CONNECTIONS_PER_ADDRESS: usize = 256;

/// File descriptors kept for everything but connections (the gateway link, the control socket,
/// the state files, the runtime).
const RESERVED_DESCRIPTORS: usize = 64;

impl ConnectionLimits {
    /// The limits for a process that may open `open_file_limit` descriptors.
    pub fn for_open_file_limit(open_file_limit: u64) -> ConnectionLimits {
        let usable = usize::try_from(open_file_limit)
            .unwrap_or(usize::MAX)
            .saturating_sub(RESERVED_DESCRIPTORS)
            .max(16);
        let total = MAX_CONNECTIONS.min(usable);
        ConnectionLimits {
            total,
            per_address: MAX_CONNECTIONS_PER_ADDRESS.min(total),
        }
    }
}

struct OpenConnection {
    address: IpAddr,
    /// The paired device whose request it carried, once it did.
    device: Option<String>,
    /// Fired when the connection is pushed out; its task then drops it.
    push_out: Option<oneshot::Sender<()>>,
}

/// Every open connection, oldest first (ids only grow).
pub struct Connections {
    limits: ConnectionLimits,
    open: Mutex<Registry>,
}

#[derive(Default)]
struct Registry {
    next_id: u64,
    open: BTreeMap<u64, OpenConnection>,
}

/// Counts of the open connections, for tests and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionCounts {
    pub open: usize,
    pub paired: usize,
}

impl Connections {
    pub fn new(limits: ConnectionLimits) -> Arc<Connections> {
        Arc::new(Connections {
            limits,
            open: Mutex::new(Registry::default()),
        })
    }

    /// Admits a new connection from `address`, pushing out the oldest unproven one when a limit
    /// is reached. `None` when it cannot be admitted (every connection in the way is paired).
    /// The receiver fires when this connection is pushed out in turn.
    pub fn admit(
        self: &Arc<Self>,
        address: IpAddr,
    ) -> Option<(ConnectionTicket, oneshot::Receiver<()>)> {
        let mut registry = self.open.lock().unwrap();
        let from_address = registry
            .open
            .values()
            .filter(|open| open.address == address)
            .count();
        if from_address >= self.limits.per_address
            && !registry.push_out_oldest_unproven(Some(address))
        {
            return None;
        }
        if registry.open.len() >= self.limits.total && !registry.push_out_oldest_unproven(None) {
            return None;
        }
        let (push_out, pushed_out) = oneshot::channel();
        let id = registry.next_id;
        registry.next_id += 1;
        registry.open.insert(
            id,
            OpenConnection {
                address,
                device: None,
                push_out: Some(push_out),
            },
        );
        let ticket = ConnectionTicket(Arc::new(TicketInner {
            id,
            connections: self.clone(),
        }));
        Some((ticket, pushed_out))
    }

    pub fn counts(&self) -> ConnectionCounts {
        let registry = self.open.lock().unwrap();
        ConnectionCounts {
            open: registry.open.len(),
            paired: registry
                .open
                .values()
                .filter(|open| open.device.is_some())
                .count(),
        }
    }

    /// Closes every connection that carried a request of one of these devices (revoked ones),
    /// whatever it is doing, however far behind its reader is.
    pub fn close_devices(&self, devices: &[String]) {
        let mut registry = self.open.lock().unwrap();
        let closing: Vec<u64> = registry
            .open
            .iter()
            .filter(|(_, open)| open.device.as_ref().is_some_and(|id| devices.contains(id)))
            .map(|(id, _)| *id)
            .collect();
        for id in closing {
            registry.close(id);
        }
    }
}

impl Registry {
    /// Pushes out the oldest unproven connection (of `address`, if given); whether there was one.
    fn push_out_oldest_unproven(&mut self, address: Option<IpAddr>) -> bool {
        let oldest = self
            .open
            .iter()
            .find(|(_, open)| {
                open.device.is_none() && address.is_none_or(|address| open.address == address)
            })
            .map(|(id, _)| *id);
        let Some(id) = oldest else {
            return false;
        };
        self.close(id);
        true
    }

    /// Drops connection `id` from the count and tells its task to close it.
    fn close(&mut self, id: u64) {
        if let Some(mut open) = self.open.remove(&id) {
            if let Some(push_out) = open.push_out.take() {
                let _ = push_out.send(());
            }
        }
    }
}

/// One admitted connection; every request on it carries a clone (as a request extension). The
/// connection leaves the count when the last clone is dropped.
#[derive(Clone)]
pub struct ConnectionTicket(Arc<TicketInner>);

struct TicketInner {
    id: u64,
    connections: Arc<Connections>,
}

impl ConnectionTicket {
    /// Notes that this connection carried a request of the paired device `device`: no flood
    /// pushes it out; revoking the device closes it.
    pub fn mark_paired(&self, device: &str) {
        let mut registry = self.0.connections.open.lock().unwrap();
        if let Some(open) = registry.open.get_mut(&self.0.id) {
            open.device = Some(device.to_owned());
        }
    }
}

impl Drop for TicketInner {
    fn drop(&mut self) {
        if let Ok(mut registry) = self.connections.open.lock() {
            registry.open.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
    const THERE: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 0, 2, 7));

    /// Connections within `total`, at most `per_address` from one address.
    fn limited(total: usize, per_address: usize) -> Arc<Connections> {
        Connections::new(ConnectionLimits { total, per_address })
    }

    /// A connection from `address`, admitted and paired as `device`, and its close signal.
    fn admit_paired(
        connections: &Arc<Connections>,
        address: IpAddr,
        device: &str,
    ) -> (ConnectionTicket, oneshot::Receiver<()>) {
        let (ticket, closed) = connections.admit(address).unwrap();
        ticket.mark_paired(device);
        (ticket, closed)
    }

    #[test]
    fn the_limits_leave_room_for_everything_else() {
        let small = ConnectionLimits::for_open_file_limit(256);
        assert_eq!(small.total, 256 - RESERVED_DESCRIPTORS);
        assert!(small.per_address <= small.total);
        let large = ConnectionLimits::for_open_file_limit(1 << 20);
        assert_eq!(large.total, MAX_CONNECTIONS);
        assert_eq!(large.per_address, MAX_CONNECTIONS_PER_ADDRESS);
    }

    #[test]
    fn a_flood_pushes_out_only_its_own_oldest_unproven_connections() {
        let connections = limited(8, 4);
        let (_phone, mut phone_pushed) = admit_paired(&connections, THERE, "phone");
        let mut flood = Vec::new();
        for _ in 0..20 {
            flood.push(connections.admit(HERE).expect("an idle flood never blocks"));
        }
        assert_eq!(connections.counts().open, 5, "4 from the flood, 1 paired");
        assert!(
            phone_pushed.try_recv().is_err(),
            "the paired connection stays"
        );
        let pushed = flood
            .iter_mut()
            .map(|(_, pushed_out)| pushed_out.try_recv().is_ok())
            .filter(|pushed| *pushed)
            .count();
        assert_eq!(pushed, 16, "the oldest flood connections were pushed out");
        // A new connection from the paired device's address is admitted too.
        let (_second, _) = connections.admit(THERE).unwrap();
        assert_eq!(connections.counts().open, 6);
        drop(flood);
        assert_eq!(connections.counts().open, 2);
    }

    #[test]
    fn when_every_connection_is_paired_a_new_one_is_refused() {
        let connections = limited(2, 2);
        let tickets: Vec<_> = (0..2)
            .map(|_| admit_paired(&connections, HERE, "desk").0)
            .collect();
        assert!(connections.admit(HERE).is_none());
        assert!(connections.admit(THERE).is_none());
        drop(tickets);
        assert!(connections.admit(HERE).is_some());
    }

    #[test]
    fn revoking_a_device_closes_its_connections_at_once() {
        let connections = limited(8, 8);
        let (_phone, mut phone_closed) = admit_paired(&connections, THERE, "phone");
        let (_desk, mut desk_closed) = admit_paired(&connections, HERE, "desk");
        let (_stranger, mut stranger_closed) = connections.admit(HERE).unwrap();
        connections.close_devices(&["phone".to_owned()]);
        assert!(phone_closed.try_recv().is_ok());
        assert!(desk_closed.try_recv().is_err());
        assert!(stranger_closed.try_recv().is_err());
        assert_eq!(connections.counts().open, 2);
    }
}
