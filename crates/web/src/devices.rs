//! The pairing store: paired devices (kept in a private file, so they survive a restart) and the
//! pairing tokens that are still open (kept in memory only, so a restart closes them).
//!
//! A device is kept as the SHA-256 of its token, never the token. Devices paired by an older
//! `gatehouse web`, whose token was a cookie (which every port of the same host could receive),
//! are dropped when the file is read: they pair again. The file
//! (`<state dir>/web-devices.json`) is written whole to a temporary file of mode 0600 in the same
//! private folder, synced, and renamed over the old one, so a crash leaves the old or the new list.
//! Pairing tokens are single-use and live for [`PAIRING_LIFETIME`]; failed pairing attempts are
//! limited to [`MAX_FAILED_PAIRINGS`] a minute.

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use gatehouse_core::Timestamp;
use serde::{Deserialize, Serialize};

use super::auth::{hash_token, same_hash, Secret};
use super::push::{PushSubscription, MAX_SUBSCRIPTIONS_PER_DEVICE};

/// How long a pairing link stays valid.
pub const PAIRING_LIFETIME: Duration = Duration::from_secs(10 * 60);

/// Failed pairing attempts allowed in any minute; past that every attempt is refused until the
/// minute has passed.
pub const MAX_FAILED_PAIRINGS: usize = 10;

/// The longest device name kept.
pub const MAX_NAME_CHARS: usize = 60;

/// How often a device's `last_seen` is written to the file at most.
const LAST_SEEN_WRITE_INTERVAL: u64 = 60_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// A short random id that `gatehouse web revoke` takes.
    pub id: String,
    pub name: String,
    /// The SHA-256 of the device's token, as hex.
    pub token_sha256: String,
    pub paired_at: Timestamp,
    pub last_seen: Timestamp,
    /// Whether the token was only ever handed to the page, to be sent in a header; false for a
    /// device paired by an older `gatehouse web` through a cookie.
    #[serde(default)]
    pub token_in_header: bool,
    /// The device's push subscriptions (at most [`MAX_SUBSCRIPTIONS_PER_DEVICE`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub push: Vec<PushSubscription>,
}

/// A device as `gatehouse web devices` shows it: no hash.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceView {
    pub id: String,
    pub name: String,
    pub paired_at: Timestamp,
    pub last_seen: Timestamp,
    /// The push services this device gets pushes through (their origins).
    #[serde(default)]
    pub push: Vec<String>,
}

impl From<&Device> for DeviceView {
    fn from(device: &Device) -> Self {
        DeviceView {
            id: device.id.clone(),
            name: device.name.clone(),
            paired_at: device.paired_at,
            last_seen: device.last_seen,
            push: device.push.iter().map(PushSubscription::service).collect(),
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct DeviceFile {
    devices: Vec<Device>,
}

/// Why a pairing attempt failed.
#[derive(Debug, PartialEq, Eq)]
pub enum PairingRefusal {
    /// Too many failed attempts in the last minute.
    RateLimited,
    /// The token is unknown, used or expired.
    Invalid,
}

struct OpenToken {
    token_sha256: String,
    expires: Instant,
}

/// The paired devices and open pairing tokens. Callers keep it behind one mutex.
pub struct DeviceStore {
    path: Option<PathBuf>,
    devices: Vec<Device>,
    open_tokens: Vec<OpenToken>,
    failures: VecDeque<Instant>,
}

impl DeviceStore {
    /// The store kept in `path` (read now if it exists), or in memory only with `None`.
    pub fn open(path: Option<PathBuf>) -> anyhow::Result<DeviceStore> {
        let devices = match &path {
            Some(path) => read_devices(path)?,
            None => Vec::new(),
        };
        Ok(DeviceStore {
            path,
            devices,
            open_tokens: Vec::new(),
            failures: VecDeque::new(),
        })
    }

    /// The default file: `<state dir>/web-devices.json`.
    pub fn default_path() -> anyhow::Result<PathBuf> {
        gatehouse_host_ipc::socket::state_dir()
            .map(|folder| folder.join("web-devices.json"))
            .context("cannot tell where to keep paired devices: set HOME or XDG_STATE_HOME")
    }

    /// Opens a new single-use pairing token, valid for [`PAIRING_LIFETIME`] from `now`.
    pub fn open_pairing(&mut self, now: Instant) -> anyhow::Result<Secret> {
        self.open_tokens.retain(|open| open.expires > now);
        let token = Secret::generate()?;
        self.open_tokens.push(OpenToken {
            token_sha256: token.hash(),
            expires: now + PAIRING_LIFETIME,
        });
        Ok(token)
    }

    /// Uses up `token` to pair a new device called `name`; returns the device and its device
    /// token. A token pairs once; any failure counts towards the rate limit.
    pub fn pair(
        &mut self,
        token: &str,
        name: &str,
        now: Instant,
        at: Timestamp,
    ) -> Result<(Device, Secret), PairingRefusal> {
        while self
            .failures
            .front()
            .is_some_and(|failed| now.duration_since(*failed) > Duration::from_secs(60))
        {
            self.failures.pop_front();
        }
        if self.failures.len() >= MAX_FAILED_PAIRINGS {
            return Err(PairingRefusal::RateLimited);
        }
        self.open_tokens.retain(|open| open.expires > now);
        let presented = hash_token(token);
        let Some(index) = self
            .open_tokens
            .iter()
            .position(|open| same_hash(&open.token_sha256, &presented))
        else {
            self.failures.push_back(now);
            return Err(PairingRefusal::Invalid);
        };
        self.open_tokens.remove(index);
        let (Ok(device_token), Ok(id)) = (Secret::generate(), Secret::generate()) else {
            return Err(PairingRefusal::Invalid);
        };
        let device = Device {
            id: id.expose()[..8].to_owned(),
            name: clean_name(name),
            token_sha256: device_token.hash(),
            paired_at: at,
            last_seen: at,
            token_in_header: true,
            push: Vec::new(),
        };
        self.devices.push(device.clone());
        Ok((device, device_token))
    }

    /// The device whose token is `token`, noting that it was seen at `at`.
    pub fn device_for(&mut self, token: &str, at: Timestamp) -> Option<Device> {
        let presented = hash_token(token);
        let device = self
            .devices
            .iter_mut()
            .find(|device| same_hash(&device.token_sha256, &presented))?;
        let stale = at.millis_since(device.last_seen) >= LAST_SEEN_WRITE_INTERVAL;
        device.last_seen = at;
        let found = device.clone();
        if stale {
            // Best effort: a failed write only loses a `last_seen`.
            let _ = self.save();
        }
        Some(found)
    }

    /// Whether the device `id` is still paired (not revoked).
    pub fn is_paired(&self, id: &str) -> bool {
        self.devices.iter().any(|device| device.id == id)
    }

    pub fn devices(&self) -> Vec<DeviceView> {
        self.devices.iter().map(DeviceView::from).collect()
    }

    /// Removes the device `id`, or every device with `None`; returns the removed ids.
    pub fn revoke(&mut self, id: Option<&str>) -> Vec<String> {
        let mut removed = Vec::new();
        self.devices.retain(|device| {
            let matches = id.is_none_or(|id| device.id == id);
            if matches {
                removed.push(device.id.clone());
            }
            !matches
        });
        removed
    }

    /// Keeps `subscription` for device `id` (replacing one with the same endpoint; past
    /// [`MAX_SUBSCRIPTIONS_PER_DEVICE`] the oldest goes); the device's push services after.
    pub fn subscribe(&mut self, id: &str, subscription: PushSubscription) -> Vec<String> {
        let Some(device) = self.devices.iter_mut().find(|device| device.id == id) else {
            return Vec::new();
        };
        device
            .push
            .retain(|kept| kept.endpoint != subscription.endpoint);
        device.push.push(subscription);
        let excess = device
            .push
            .len()
            .saturating_sub(MAX_SUBSCRIPTIONS_PER_DEVICE);
        device.push.drain(..excess);
        device.push.iter().map(PushSubscription::service).collect()
    }

    /// Drops device `id`'s subscription to `endpoint`; the device's push services after.
    pub fn unsubscribe(&mut self, id: &str, endpoint: &str) -> Vec<String> {
        let Some(device) = self.devices.iter_mut().find(|device| device.id == id) else {
            return Vec::new();
        };
        device.push.retain(|kept| kept.endpoint != endpoint);
        device.push.iter().map(PushSubscription::service).collect()
    }

    /// Every paired device's subscriptions, with the device's name.
    pub fn subscriptions(&self) -> Vec<(String, PushSubscription)> {
        self.devices
            .iter()
            .flat_map(|device| {
                device
                    .push
                    .iter()
                    .map(|subscription| (device.name.clone(), subscription.clone()))
            })
            .collect()
    }

    /// Drops every subscription to one of `endpoints` (gone, or no longer allowed).
    pub fn drop_subscriptions(&mut self, endpoints: &[String]) {
        for device in &mut self.devices {
            device
                .push
                .retain(|subscription| !endpoints.contains(&subscription.endpoint));
        }
    }

    /// Writes the devices to the file, atomically.
    pub fn save(&self) -> anyhow::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let text = serde_json::to_vec_pretty(&DeviceFile {
            devices: self.devices.clone(),
        })?;
        write_private_atomically(path, &text)
    }
}

/// A device name as kept: the characters a person can see, at most [`MAX_NAME_CHARS`].
pub fn clean_name(name: &str) -> String {
    let name = gatehouse_core::text::one_line(name, MAX_NAME_CHARS);
    if name.is_empty() {
        "browser".to_owned()
    } else {
        name
    }
}

fn read_devices(path: &Path) -> anyhow::Result<Vec<Device>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error).with_context(|| format!("cannot read {}", path.display())),
    };
    let file: DeviceFile = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{} is not a list of paired devices; remove it (every device pairs again)",
            path.display()
        )
    })?;
    let (kept, cookie_era): (Vec<Device>, Vec<Device>) = file
        .devices
        .into_iter()
        .partition(|device| device.token_in_header);
    for device in cookie_era {
        tracing::warn!(
            "dropped device {} ({}): it was paired through a cookie, which other ports of this host could read; pair it again",
            device.id,
            device.name
        );
    }
    Ok(kept)
}

/// Writes `bytes` to `path` through a temporary file of mode 0600 in a private folder.
pub fn write_private_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let folder = path
        .parent()
        .with_context(|| format!("{} has no folder", path.display()))?;
    gatehouse_host_ipc::socket::make_private_folder(folder)
        .with_context(|| format!("cannot make the private folder {}", folder.display()))?;
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let _ = std::fs::remove_file(&temporary);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)
        .with_context(|| format!("cannot create {}", temporary.display()))?;
    gatehouse_host_ipc::socket::make_private_file(&file)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&temporary, path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(millis: u64) -> Timestamp {
        Timestamp::from_unix_millis(millis)
    }

    #[test]
    fn a_pairing_token_pairs_once_and_the_device_token_is_kept_only_hashed() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("state").join("web-devices.json");
        let mut store = DeviceStore::open(Some(path.clone())).unwrap();
        let now = Instant::now();
        let token = store.open_pairing(now).unwrap();
        let (device, device_token) = store
            .pair(token.expose(), "Phone\u{1b}[31m", now, at(1))
            .unwrap();
        assert_eq!(device.name, "Phone\\e[31m");
        assert_eq!(
            store.pair(token.expose(), "again", now, at(2)),
            Err(PairingRefusal::Invalid)
        );
        store.save().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(device_token.expose()) && !text.contains(token.expose()));
        assert!(text.contains(&device_token.hash()));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let folder_mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(folder_mode & 0o777, 0o700);
        let mut reopened = DeviceStore::open(Some(path)).unwrap();
        assert_eq!(
            reopened
                .device_for(device_token.expose(), at(3))
                .unwrap()
                .id,
            device.id
        );
        assert!(reopened.device_for(token.expose(), at(3)).is_none());
        assert_eq!(reopened.revoke(Some(&device.id)), vec![device.id.clone()]);
        assert!(reopened.device_for(device_token.expose(), at(4)).is_none());
    }

    #[test]
    fn a_pairing_token_expires_and_failures_are_rate_limited() {
        let mut store = DeviceStore::open(None).unwrap();
        let now = Instant::now();
        let token = store.open_pairing(now).unwrap();
        let later = now + PAIRING_LIFETIME + Duration::from_secs(1);
        assert_eq!(
            store.pair(token.expose(), "x", later, at(1)).unwrap_err(),
            PairingRefusal::Invalid
        );
        let fresh = store.open_pairing(later).unwrap();
        for _ in 1..MAX_FAILED_PAIRINGS {
            assert_eq!(
                store.pair("guess", "x", later, at(1)).unwrap_err(),
                PairingRefusal::Invalid
            );
        }
        assert_eq!(
            store.pair(fresh.expose(), "x", later, at(1)).unwrap_err(),
            PairingRefusal::RateLimited,
            "even a valid token waits out the limit"
        );
        let minute_on = later + Duration::from_secs(61);
        assert!(store.pair(fresh.expose(), "x", minute_on, at(1)).is_ok());
    }

    #[test]
    fn a_device_paired_through_a_cookie_by_an_older_version_is_dropped() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("web-devices.json");
        let old = r#"{"devices":[{"id":"0a1b2c3d","name":"old phone","token_sha256":"00","paired_at":"2026-01-01T00:00:00.000Z","last_seen":"2026-01-01T00:00:00.000Z"}]}"#;
        std::fs::write(&path, old).unwrap();
        let mut store = DeviceStore::open(Some(path.clone())).unwrap();
        assert!(store.devices().is_empty(), "it pairs again");
        assert!(!store.is_paired("0a1b2c3d"));
        let now = Instant::now();
        let token = store.open_pairing(now).unwrap();
        let (device, _) = store.pair(token.expose(), "new", now, at(1)).unwrap();
        store.save().unwrap();
        let reopened = DeviceStore::open(Some(path)).unwrap();
        assert!(reopened.is_paired(&device.id));
    }
}
