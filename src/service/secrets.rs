//! Player secrets and turn seeds: random tokens from the operating
//! system, stored only as SHA-256 digests and compared in constant time.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Bytes of randomness in a player's secret (128 bits).
pub const SECRET_BYTES: usize = 16;

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// Bytes from lower- or upper-case hex, if it is hex.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// SHA-256 of bytes, as hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Random bytes from the operating system.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], getrandom::Error> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b)?;
    Ok(b)
}

/// A new player secret: 128 random bits, written as 32 hex digits in
/// groups of eight so it is easy to copy (`1f0c9a2e-...`).
pub fn new_secret() -> Result<String, getrandom::Error> {
    let h = hex(&random_bytes::<SECRET_BYTES>()?);
    Ok(h.as_bytes()
        .chunks(8)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("-"))
}

/// The digest stored for a secret: SHA-256 of the secret with spacing,
/// dashes and case removed, so `1F0C 9A2E...` matches `1f0c9a2e-...`.
pub fn secret_digest(secret: &str) -> String {
    let canonical: String = secret
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .flat_map(|c| c.to_lowercase())
        .collect();
    sha256_hex(canonical.as_bytes())
}

/// Whether a secret matches a stored digest, compared in constant time.
pub fn secret_matches(secret: &str, stored_digest: &str) -> bool {
    let given = secret_digest(secret);
    given.as_bytes().ct_eq(stored_digest.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_has_128_bits_and_matches_its_digest_however_written() {
        let s = new_secret().unwrap();
        assert_eq!(s.len(), 35);
        let d = secret_digest(&s);
        assert!(secret_matches(&s, &d));
        assert!(secret_matches(&s.to_uppercase().replace('-', " "), &d));
        assert!(!secret_matches("wrong", &d));
        assert_ne!(new_secret().unwrap(), s);
    }

    #[test]
    fn hex_round_trips_and_sha256_is_standard() {
        assert_eq!(unhex(&hex(&[0, 15, 255])), Some(vec![0, 15, 255]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

/// The stored form of a game master's password: an argon2 PHC string
/// (passwords people choose are worth a slow hash; player secrets are not).
pub fn hash_password(password: &str) -> Result<String, String> {
    use argon2::password_hash::PasswordHasher;
    argon2::Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// Whether a password matches its stored argon2 hash.
pub fn password_matches(password: &str, stored: &str) -> bool {
    use argon2::password_hash::PasswordVerifier;
    let Ok(parsed) = argon2::password_hash::phc::PasswordHash::new(stored) else {
        return false;
    };
    argon2::Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
}

#[cfg(test)]
mod password_tests {
    #[test]
    fn a_password_matches_its_argon2_hash_only() {
        let h = super::hash_password("omdurman 1898").unwrap();
        assert!(h.starts_with("$argon2"));
        assert!(super::password_matches("omdurman 1898", &h));
        assert!(!super::password_matches("omdurman 1899", &h));
        assert!(!super::password_matches("x", "not a hash"));
    }
}
