//! TLS for `gatehouse web` (rustls with ring; no OpenSSL): a certificate and key the owner gives
//! (`--tls-cert`, `--tls-key`), or a self-signed one made once with rcgen and kept in the state
//! folder (`web-tls/cert.pem`, `web-tls/key.pem`, mode 0600), whose SHA-256 fingerprint is
//! printed so that the person can check it in the browser before trusting it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use sha2::{Digest, Sha256};

use super::devices::write_private_atomically;

/// A TLS server configuration and the fingerprint of its leaf certificate.
pub struct Tls {
    pub config: Arc<rustls::ServerConfig>,
    /// SHA-256 of the leaf certificate's DER, as `AB:CD:...`.
    pub fingerprint: String,
}

/// Loads the owner's certificate chain and key (PEM).
pub fn from_files(cert: &Path, key: &Path) -> anyhow::Result<Tls> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .with_context(|| format!("cannot read the certificate {}", cert.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("{} is not a PEM certificate chain", cert.display()))?;
    let key = PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("cannot read a PEM private key from {}", key.display()))?;
    build(chain, key)
}

/// The self-signed certificate kept in `folder`, made now (for `names`) if it is not there yet.
pub fn self_signed(folder: &Path, names: &[String]) -> anyhow::Result<Tls> {
    let (cert, key) = self_signed_paths(folder);
    if !cert.exists() || !key.exists() {
        let made = rcgen::generate_simple_self_signed(names.to_vec())
            .context("cannot make a self-signed certificate")?;
        write_private_atomically(&key, made.signing_key.serialize_pem().as_bytes())?;
        write_private_atomically(&cert, made.cert.pem().as_bytes())?;
    }
    from_files(&cert, &key)
}

pub fn self_signed_paths(folder: &Path) -> (PathBuf, PathBuf) {
    (folder.join("cert.pem"), folder.join("key.pem"))
}

fn build(chain: Vec<CertificateDer<'static>>, key: PrivateKeyDer<'static>) -> anyhow::Result<Tls> {
    let leaf = chain
        .first()
        .context("the certificate file holds no certificate")?;
    let fingerprint = fingerprint(leaf);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("cannot set up TLS")?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .context("the certificate and the key do not belong together, or the key is not usable")?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Tls {
        config: Arc::new(config),
        fingerprint,
    })
}

pub fn fingerprint(certificate: &[u8]) -> String {
    Sha256::digest(certificate)
        .iter()
        .map(|byte| format!("{byte:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_self_signed_certificate_is_made_once_kept_private_and_fingerprinted() {
        let folder = tempfile::tempdir().unwrap();
        let tls_folder = folder.path().join("web-tls");
        let first = self_signed(&tls_folder, &["localhost".into()]).unwrap();
        let again = self_signed(&tls_folder, &["other".into()]).unwrap();
        assert_eq!(first.fingerprint, again.fingerprint, "kept, not made again");
        assert_eq!(first.fingerprint.len(), 32 * 3 - 1);
        use std::os::unix::fs::PermissionsExt;
        let (_, key) = self_signed_paths(&tls_folder);
        let mode = std::fs::metadata(key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
