//! Push message encryption (RFC 8291, with the `aes128gcm` content coding of RFC 8188): what the
//! push service carries is readable only by the browser that subscribed.
//!
//! For each message: a fresh ECDH P-256 key pair and a fresh 16-byte salt; the shared secret with
//! the browser's `p256dh` key and its `auth` secret give, through HKDF-SHA-256, a 16-byte
//! AES-128-GCM key and a 12-byte nonce. The body is one record: the header (salt, record size,
//! the sender's public key) and the sealed plaintext, padded to a fixed length so that even its
//! size says nothing.

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM};
use ring::agreement::{self, EphemeralPrivateKey, UnparsedPublicKey, ECDH_P256};
use ring::hkdf::{KeyType, Prk, Salt, HKDF_SHA256};
use ring::rand::{SecureRandom, SystemRandom};

/// The record size written in the header; one record always holds the whole message.
pub const RECORD_SIZE: u32 = 4096;

/// Every push's plaintext is padded to this many bytes (before the AEAD tag).
pub const PADDED_PLAINTEXT_BYTES: usize = 256;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EncryptError {
    #[error("the browser's p256dh key is not an uncompressed P-256 point")]
    BadPublicKey,
    #[error("the browser's auth secret is not 16 bytes")]
    BadAuthSecret,
    #[error("the message is longer than one record")]
    TooLong,
    #[error("the system's random number generator failed")]
    Random,
}

/// Encrypts `plaintext` for a browser whose subscription has `ua_public` (65 bytes) and
/// `auth_secret` (16 bytes), padded to [`PADDED_PLAINTEXT_BYTES`].
pub fn encrypt(
    ua_public: &[u8],
    auth_secret: &[u8],
    plaintext: &[u8],
) -> Result<Vec<u8>, EncryptError> {
    let random = SystemRandom::new();
    let as_private =
        EphemeralPrivateKey::generate(&ECDH_P256, &random).map_err(|_| EncryptError::Random)?;
    let mut salt = [0u8; 16];
    random.fill(&mut salt).map_err(|_| EncryptError::Random)?;
    let pad_to = PADDED_PLAINTEXT_BYTES.max(plaintext.len());
    encrypt_with(ua_public, auth_secret, plaintext, pad_to, as_private, salt)
}

/// [`encrypt`] with the sender's key and salt given, padded to `pad_to` bytes (the RFC's test
/// vector pads nothing).
pub fn encrypt_with(
    ua_public: &[u8],
    auth_secret: &[u8],
    plaintext: &[u8],
    pad_to: usize,
    as_private: EphemeralPrivateKey,
    salt: [u8; 16],
) -> Result<Vec<u8>, EncryptError> {
    if ua_public.len() != 65 || ua_public[0] != 0x04 {
        return Err(EncryptError::BadPublicKey);
    }
    if auth_secret.len() != 16 {
        return Err(EncryptError::BadAuthSecret);
    }
    let pad_to = pad_to.max(plaintext.len());
    // The record: plaintext, the last-record delimiter 2, zeros; then the 16-byte tag.
    if pad_to + 1 + 16 > RECORD_SIZE as usize {
        return Err(EncryptError::TooLong);
    }
    let as_public = as_private
        .compute_public_key()
        .map_err(|_| EncryptError::Random)?;
    let keys = agreement::agree_ephemeral(
        as_private,
        &UnparsedPublicKey::new(&ECDH_P256, ua_public),
        |ecdh_secret| {
            derive(
                ecdh_secret,
                auth_secret,
                ua_public,
                as_public.as_ref(),
                &salt,
            )
        },
    )
    .map_err(|_| EncryptError::BadPublicKey)?;
    let (content_key, nonce) = keys;
    let mut record = Vec::with_capacity(pad_to + 17);
    record.extend_from_slice(plaintext);
    record.push(2);
    record.resize(pad_to + 1, 0);
    let key = LessSafeKey::new(
        UnboundKey::new(&AES_128_GCM, &content_key).map_err(|_| EncryptError::Random)?,
    );
    key.seal_in_place_append_tag(
        Nonce::assume_unique_for_key(nonce),
        Aad::empty(),
        &mut record,
    )
    .map_err(|_| EncryptError::TooLong)?;
    let mut body = Vec::with_capacity(21 + 65 + record.len());
    body.extend_from_slice(&salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(as_public.as_ref().len() as u8);
    body.extend_from_slice(as_public.as_ref());
    body.extend_from_slice(&record);
    Ok(body)
}

/// RFC 8291 section 3.4 and RFC 8188 section 2.2: the content key and nonce.
fn derive(
    ecdh_secret: &[u8],
    auth_secret: &[u8],
    ua_public: &[u8],
    as_public: &[u8],
    salt: &[u8; 16],
) -> ([u8; 16], [u8; 12]) {
    let prk_key = Salt::new(HKDF_SHA256, auth_secret).extract(ecdh_secret);
    let mut key_info = Vec::with_capacity(14 + 65 + 65);
    key_info.extend_from_slice(b"WebPush: info\0");
    key_info.extend_from_slice(ua_public);
    key_info.extend_from_slice(as_public);
    let ikm: [u8; 32] = expand(&prk_key, &key_info);
    let prk = Salt::new(HKDF_SHA256, salt).extract(&ikm);
    (
        expand(&prk, b"Content-Encoding: aes128gcm\0"),
        expand(&prk, b"Content-Encoding: nonce\0"),
    )
}

struct Length(usize);

impl KeyType for Length {
    fn len(&self) -> usize {
        self.0
    }
}

fn expand<const N: usize>(prk: &Prk, info: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let info = [info];
    // Lengths of 12, 16 and 32 bytes are far below HKDF-SHA-256's limit: these cannot fail.
    prk.expand(&info, Length(N))
        .and_then(|okm| okm.fill(&mut out))
        .expect("HKDF output of at most 32 bytes");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;

    fn b64(text: &str) -> Vec<u8> {
        URL_SAFE_NO_PAD.decode(text).unwrap()
    }

    /// A P-256 private key with the given scalar (ring makes only random ones; its fixed
    /// "random" source for known-answer tests gives the scalar).
    #[allow(deprecated)]
    fn private_key(scalar: &[u8]) -> EphemeralPrivateKey {
        EphemeralPrivateKey::generate(
            &ECDH_P256,
            &ring::test::rand::FixedSliceRandom { bytes: scalar },
        )
        .unwrap()
    }

    /// The browser's side (RFC 8291 section 3.4 from the receiver), written from the RFC again
    /// rather than sharing `derive`'s order of arguments.
    fn decrypt(ua_private: &[u8], auth_secret: &[u8], body: &[u8]) -> Vec<u8> {
        let salt: [u8; 16] = body[..16].try_into().unwrap();
        let record_size = u32::from_be_bytes(body[16..20].try_into().unwrap());
        assert_eq!(record_size, RECORD_SIZE);
        let id_length = body[20] as usize;
        let as_public = &body[21..21 + id_length];
        let ua = private_key(ua_private);
        let ua_public = ua.compute_public_key().unwrap().as_ref().to_vec();
        let (key, nonce) = agreement::agree_ephemeral(
            ua,
            &UnparsedPublicKey::new(&ECDH_P256, as_public),
            |secret| derive(secret, auth_secret, &ua_public, as_public, &salt),
        )
        .unwrap();
        let mut record = body[21 + id_length..].to_vec();
        let key = LessSafeKey::new(UnboundKey::new(&AES_128_GCM, &key).unwrap());
        let plain = key
            .open_in_place(
                Nonce::assume_unique_for_key(nonce),
                Aad::empty(),
                &mut record,
            )
            .unwrap();
        let end = plain.iter().rposition(|byte| *byte != 0).unwrap();
        assert_eq!(plain[end], 2, "the last record's delimiter");
        plain[..end].to_vec()
    }

    /// RFC 8291 Appendix A, byte for byte.
    #[test]
    fn the_rfc_8291_example_is_reproduced_byte_for_byte() {
        let ua_public = b64("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4");
        let auth = b64("BTBZMqHH6r4Tts7J_aSIgg");
        let as_private = private_key(&b64("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"));
        assert_eq!(
            URL_SAFE_NO_PAD.encode(as_private.compute_public_key().unwrap().as_ref()),
            "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
        );
        let salt: [u8; 16] = b64("DGv6ra1nlYgDCS1FRnbzlw").try_into().unwrap();
        let plaintext = b"When I grow up, I want to be a watermelon";
        let body = encrypt_with(&ua_public, &auth, plaintext, 0, as_private, salt).unwrap();
        assert_eq!(
            URL_SAFE_NO_PAD.encode(&body),
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        );
        let ua_private = b64("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94");
        assert_eq!(decrypt(&ua_private, &auth, &body), plaintext);
    }

    #[test]
    fn every_push_has_a_fresh_key_and_salt_and_the_same_padded_size() {
        let ua_private = [7u8; 32];
        let ua_public = private_key(&ua_private)
            .compute_public_key()
            .unwrap()
            .as_ref()
            .to_vec();
        let auth = [9u8; 16];
        let short = encrypt(&ua_public, &auth, br#"{"waiting":1}"#).unwrap();
        let long = encrypt(&ua_public, &auth, br#"{"waiting":12,"id":"a3f7c1"}"#).unwrap();
        assert_eq!(short.len(), long.len(), "the size says nothing");
        assert_eq!(short.len(), 21 + 65 + PADDED_PLAINTEXT_BYTES + 1 + 16);
        assert_ne!(short[..16], long[..16], "a fresh salt");
        assert_ne!(short[21..86], long[21..86], "a fresh sender key");
        assert_eq!(decrypt(&ua_private, &auth, &short), br#"{"waiting":1}"#);
    }

    #[test]
    fn a_bad_key_or_secret_is_refused() {
        assert_eq!(
            encrypt(&[4u8; 10], &[0; 16], b"x").unwrap_err(),
            EncryptError::BadPublicKey
        );
        let mut not_on_curve = vec![4u8];
        not_on_curve.extend([1u8; 64]);
        assert_eq!(
            encrypt(&not_on_curve, &[0; 16], b"x").unwrap_err(),
            EncryptError::BadPublicKey
        );
        let ua_public = private_key(&[7u8; 32]).compute_public_key().unwrap();
        assert_eq!(
            encrypt(ua_public.as_ref(), &[0; 15], b"x").unwrap_err(),
            EncryptError::BadAuthSecret
        );
    }
}
