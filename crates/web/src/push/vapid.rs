//! The gateway's VAPID key (RFC 8292): one ECDSA P-256 key pair, made once and kept as PKCS#8 in
//! `<state dir>/web-push-vapid.pk8` (mode 0600, in the private state folder). Its public half is
//! the `applicationServerKey` a browser subscribes with; every push carries
//! `Authorization: vapid t=<JWT>, k=<public key>`, the JWT signed with ES256 and naming the push
//! service's origin (`aud`), an expiry within a day (`exp`) and a contact (`sub`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};

use crate::devices::write_private_atomically;

/// How long a signed VAPID token is valid: RFC 8292 allows at most 24 hours.
pub const TOKEN_LIFETIME_SECONDS: u64 = 12 * 60 * 60;

/// The contact named in `sub` unless `[web] push_contact` names another (Apple's push service
/// refuses a `sub` that is neither a real `mailto:` nor an `https:` address).
pub const DEFAULT_CONTACT: &str = "mailto:gatehouse-web-push@users.noreply.github.com";

pub struct VapidKey {
    key_pair: EcdsaKeyPair,
    random: SystemRandom,
}

impl VapidKey {
    /// The key kept in `path`, made (and written with mode 0600) the first time.
    pub fn load_or_create(path: &Path) -> anyhow::Result<VapidKey> {
        let random = SystemRandom::new();
        let pkcs8 = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let document =
                    EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &random)
                        .map_err(|_| anyhow::anyhow!("cannot make a VAPID key"))?;
                write_private_atomically(path, document.as_ref())?;
                document.as_ref().to_vec()
            }
            Err(error) => {
                return Err(error).with_context(|| format!("cannot read {}", path.display()))
            }
        };
        let key_pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &random)
            .map_err(|_| {
                anyhow::anyhow!(
                    "{} is not a VAPID key; remove it (a new one is made, and every browser subscribes again)",
                    path.display()
                )
            })?;
        Ok(VapidKey { key_pair, random })
    }

    /// The default file: `<state dir>/web-push-vapid.pk8`.
    pub fn default_path() -> anyhow::Result<PathBuf> {
        gatehouse_host_ipc::socket::state_dir()
            .map(|folder| folder.join("web-push-vapid.pk8"))
            .context("cannot tell where to keep the push key: set HOME or XDG_STATE_HOME")
    }

    /// The public key as the browser takes it: the uncompressed point, base64url.
    pub fn public_key(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.key_pair.public_key().as_ref())
    }

    /// A signed JWT for a push service at `audience` (its origin), valid until `expires`
    /// (seconds since the epoch).
    pub fn token(&self, audience: &str, expires: u64, contact: &str) -> anyhow::Result<String> {
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({ "aud": audience, "exp": expires, "sub": contact });
        let claims = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims)?);
        let signed = format!("{header}.{claims}");
        let signature = self
            .key_pair
            .sign(&self.random, signed.as_bytes())
            .map_err(|_| anyhow::anyhow!("cannot sign a VAPID token"))?;
        Ok(format!(
            "{signed}.{}",
            URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }

    /// The `Authorization` header for a push to a service at `audience`, now being `now` (seconds
    /// since the epoch).
    pub fn authorization(&self, audience: &str, now: u64, contact: &str) -> anyhow::Result<String> {
        let token = self.token(audience, now + TOKEN_LIFETIME_SECONDS, contact)?;
        Ok(format!("vapid t={token}, k={}", self.public_key()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    #[test]
    fn the_key_is_made_once_kept_private_and_signs_a_token_a_push_service_verifies() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("state").join("web-push-vapid.pk8");
        let key = VapidKey::load_or_create(&path).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = VapidKey::load_or_create(&path).unwrap();
        assert_eq!(key.public_key(), again.public_key(), "made once");
        let public = URL_SAFE_NO_PAD.decode(key.public_key()).unwrap();
        assert_eq!(
            (public.len(), public[0]),
            (65, 4),
            "an uncompressed P-256 point"
        );

        let header = key
            .authorization("https://fcm.googleapis.com", 1_000_000, DEFAULT_CONTACT)
            .unwrap();
        let (token, k) = header
            .strip_prefix("vapid t=")
            .unwrap()
            .split_once(", k=")
            .unwrap();
        assert_eq!(k, key.public_key());
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3);
        let head: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(head, serde_json::json!({ "typ": "JWT", "alg": "ES256" }));
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["aud"], "https://fcm.googleapis.com");
        assert_eq!(claims["exp"], 1_000_000 + TOKEN_LIFETIME_SECONDS);
        const { assert!(TOKEN_LIFETIME_SECONDS <= 24 * 60 * 60) };
        assert!(claims["sub"].as_str().unwrap().starts_with("mailto:"));
        let signature = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        assert_eq!(
            signature.len(),
            64,
            "ES256 in JWS form: r and s, 32 bytes each"
        );
        let signed = format!("{}.{}", parts[0], parts[1]);
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &public)
            .verify(signed.as_bytes(), &signature)
            .expect("the signature verifies with the public key");
        let mut forged = signed.into_bytes();
        forged[5] ^= 1;
        assert!(UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &public)
            .verify(&forged, &signature)
            .is_err());
    }

    #[test]
    fn a_damaged_key_file_is_refused_with_what_to_do() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("web-push-vapid.pk8");
        std::fs::write(&path, b"not a key").unwrap();
        let error = VapidKey::load_or_create(&path).err().unwrap().to_string();
        assert!(error.contains("remove it"), "{error}");
    }
}
