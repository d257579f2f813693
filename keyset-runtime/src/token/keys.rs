//! [`TokenKeys`]: the server's keys for protected tokens, which sign them (feature `signed`,
//! `signed.rs`) or encrypt them (feature `encrypted`, `encrypted.rs`), with rotation; and
//! [`KeyError`], why a key is refused.

use std::fmt;

use super::direction::Direction;
use super::error::CursorError;
use super::format::MAX_TOKEN_LEN;
use super::signed::{self, prf, HmacSha256};
use super::value::CursorValue;
use super::{Anchor, Binding, TooLong};

/// The server's keys for protected tokens: the current key, which protects every token issued,
/// and the previous keys, still accepted while tokens issued with them are in circulation (key
/// rotation).
///
/// Keys made with [`new`](Self::new) **sign** tokens (HMAC-SHA256): a client can no longer edit
/// a token's key values or write one of its own, but it can still read them, as plainly as in an
/// unsigned token. Keys made with [`encrypting`](Self::encrypting) (feature `encrypted`) also
/// **encrypt** them (XChaCha20-Poly1305), for key values the client must not read. Either way, a
/// token that was modified, forged, issued with an unknown key, or not protected as the keys
/// require is refused with a [`CursorError`], before any query runs.
///
/// Configure them once, at startup, from secrets the clients never see (each at least
/// [`MIN_KEY_LEN`](Self::MIN_KEY_LEN) random bytes: `openssl rand -base64 32`, decoded), and
/// pass them to [`Paginate::paginate_signed`](crate::Paginate::paginate_signed) for each page.
/// A key whose bytes are all the same, or a previous key given twice, is refused
/// ([`KeyError`]).
///
/// To rotate: make the new key current and the old one previous; once the longest-lived token
/// issued with the old key has expired in practice (e.g. a day later), drop it.
///
/// ```
/// use keyset_runtime::{CursorError, Direction, TokenKeys};
///
/// // 32 random bytes each, from the server's secrets (`openssl rand -base64 32`, decoded).
/// let (old_key, new_key) = (secret("TOKEN_KEY_OLD"), secret("TOKEN_KEY"));
/// # fn secret(name: &str) -> [u8; 32] { std::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ name.len() as u8) }
///
/// let old = TokenKeys::new(old_key)?;
/// let issued = old.encode(0xfeed, Direction::After, &(42i64,))?;
///
/// // Rotation: a new current key, the old one still accepted.
/// let keys = TokenKeys::new(new_key)?.with_previous(old_key)?;
/// assert_eq!(keys.decode::<(i64,)>(0xfeed, Direction::After, &issued)?, (42,));
/// // Once the old key is dropped, its tokens are refused.
/// let later = TokenKeys::new(new_key)?;
/// assert_eq!(later.decode::<(i64,)>(0xfeed, Direction::After, &issued), Err(CursorError::BadSignature));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct TokenKeys {
    ring: Ring,
    /// Each key's identity (HMAC-SHA256 of a fixed label under it), current first: what tells a
    /// key given twice without keeping the keys themselves.
    ids: Vec<[u8; 32]>,
}

/// The keys, current first, as the primitive of their mode.
#[derive(Clone)]
enum Ring {
    Signing(Vec<HmacSha256>),
    #[cfg(feature = "encrypted")]
    Encrypting(Vec<chacha20poly1305::XChaCha20Poly1305>),
}

/// Why a token key was refused: too short, not random, or given twice. Each message says what to
/// give instead.
///
/// ```
/// use keyset_runtime::{KeyError, TokenKeys};
///
/// assert_eq!(TokenKeys::new([0u8; 32]).unwrap_err(), KeyError::Uniform { byte: 0 });
/// assert_eq!(TokenKeys::new(b"too short").unwrap_err(), KeyError::TooShort { len: 9 });
/// # let key: [u8; 32] = std::array::from_fn(|i| i as u8 * 7);
/// let refused = TokenKeys::new(key).unwrap().with_previous(key).unwrap_err();
/// assert_eq!(refused, KeyError::Repeated { previous: 1 });
/// assert!(refused.to_string().contains("openssl rand -base64 32"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The key is shorter than [`TokenKeys::MIN_KEY_LEN`] bytes.
    #[error(
        "a token key must be at least {min} bytes of random data, but this one has {len}: \
         generate one with `openssl rand -base64 32` and pass its decoded bytes",
        min = TokenKeys::MIN_KEY_LEN
    )]
    TooShort {
        /// The length of the key that was given, in bytes.
        len: usize,
    },
    /// Every byte of the key is the same (a placeholder such as 32 zero bytes, not a secret).
    #[error(
        "a token key must be random data, but every byte of this one is {byte:#04x}: generate \
         one with `openssl rand -base64 32` and pass its decoded bytes"
    )]
    Uniform {
        /// The byte the key repeats.
        byte: u8,
    },
    /// A previous key is the current key, or an earlier previous key, again: rotation needs a
    /// new key, and a key listed twice would hide that it was not replaced.
    #[error(
        "previous key {previous} is the same as the current key or an earlier previous key: give \
         each key once, the new one (from `openssl rand -base64 32`) as current and the one \
         being rotated out as previous"
    )]
    Repeated {
        /// Which previous key, counting from 1 in the order they were added.
        previous: usize,
    },
}

impl TokenKeys {
    /// The shortest key accepted: 32 bytes (256 bits), e.g. from `openssl rand -base64 32`.
    pub const MIN_KEY_LEN: usize = 32;

    /// Keys that sign tokens, with `current` as the only key: it signs new tokens and verifies
    /// them. Refused: a key shorter than [`MIN_KEY_LEN`](Self::MIN_KEY_LEN), or whose bytes are
    /// all the same.
    ///
    /// ```
    /// # use keyset_runtime::TokenKeys;
    /// # let key: [u8; 32] = std::array::from_fn(|i| i as u8 * 7);
    /// let keys = TokenKeys::new(key)?; // 32 random bytes from the server's secrets
    /// # Ok::<(), keyset_runtime::KeyError>(())
    /// ```
    pub fn new(current: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let current = checked(current.as_ref())?;
        Ok(TokenKeys { ring: Ring::Signing(vec![signed::mac(current)]), ids: vec![id(current)] })
    }

    /// Keys that encrypt tokens (feature `encrypted`), with `current` as the only key: a token's
    /// direction and key values are encrypted with XChaCha20-Poly1305, so a client can neither
    /// read nor edit them, and its header (format version, fingerprint) is authenticated. Each
    /// token gets a random 24-byte nonce and a 16-byte tag, 40 bytes (about 54 characters) more
    /// than a plain token (a signed one carries 16), and must still fit the listing's
    /// [`MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN). Refused: the same weak keys as
    /// [`new`](Self::new). The cipher's key is derived from `current` (HMAC-SHA256 under a
    /// label of its own), so a secret that once signed tokens does not encrypt under the same key.
    ///
    /// ```
    /// use keyset_runtime::{CursorError, Direction, TokenKeys};
    ///
    /// # let key: [u8; 32] = std::array::from_fn(|i| i as u8 * 7);
    /// let keys = TokenKeys::encrypting(key)?; // 32 random bytes from the server's secrets
    /// let token = keys.encode(0xfeed, Direction::After, &(String::from("secret-title-107"),))?;
    /// assert!(!token.contains("c2VjcmV0")); // "secret" in base64: not there to read
    /// assert_eq!(keys.decode::<(String,)>(0xfeed, Direction::After, &token)?.0, "secret-title-107");
    ///
    /// // Signing keys do not read it, nor encrypting keys a signed token.
    /// let signing = TokenKeys::new(key)?;
    /// assert_eq!(signing.decode::<(String,)>(0xfeed, Direction::After, &token), Err(CursorError::UnexpectedEncryption));
    /// let signed = signing.encode(0xfeed, Direction::After, &(String::from("a"),))?;
    /// assert_eq!(keys.decode::<(String,)>(0xfeed, Direction::After, &signed), Err(CursorError::NotEncrypted));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "encrypted")]
    pub fn encrypting(current: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let current = checked(current.as_ref())?;
        let ring = Ring::Encrypting(vec![super::encrypted::cipher(current)]);
        Ok(TokenKeys { ring, ids: vec![id(current)] })
    }

    /// Also accepts tokens issued with `previous` (a key being rotated out), in the same mode as
    /// the current key (signing or encrypting). New tokens are always issued with the current
    /// key. Refused: a weak key, as by [`new`](Self::new), and a key already among these.
    ///
    /// ```
    /// # use keyset_runtime::TokenKeys;
    /// # let (new_key, old_key): ([u8; 32], [u8; 32]) = (std::array::from_fn(|i| i as u8 * 7), std::array::from_fn(|i| (i as u8).wrapping_mul(11)));
    /// let keys = TokenKeys::new(new_key)?.with_previous(old_key)?;
    /// assert!(keys.clone().with_previous(new_key).is_err()); // the current key again
    /// # Ok::<(), keyset_runtime::KeyError>(())
    /// ```
    pub fn with_previous(mut self, previous: impl AsRef<[u8]>) -> Result<Self, KeyError> {
        let previous = checked(previous.as_ref())?;
        let key_id = id(previous);
        if self.ids.contains(&key_id) {
            return Err(KeyError::Repeated { previous: self.ids.len() });
        }
        self.ids.push(key_id);
        match &mut self.ring {
            Ring::Signing(macs) => macs.push(signed::mac(previous)),
            #[cfg(feature = "encrypted")]
            Ring::Encrypting(ciphers) => ciphers.push(super::encrypted::cipher(previous)),
        }
        Ok(self)
    }

    /// Writes a token for `cursor`, protected with the current key, of at most 1024 characters
    /// (the default [`Keyset::MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN)).
    ///
    /// Encrypting keys draw each token's nonce from the operating system's random number
    /// generator, and panic should it fail (as `rand`'s generators do; on the platforms Rust
    /// supports, it does not once the system has booted).
    pub fn encode<C: CursorValue>(
        &self,
        fingerprint: u32,
        direction: Direction,
        cursor: &C,
    ) -> Result<String, CursorError> {
        let binding = Binding::unscoped(fingerprint);
        Ok(self.encode_anchor(binding, MAX_TOKEN_LEN, direction, Anchor::Row(cursor))?)
    }

    /// Reads a token issued with one of these keys for the same `fingerprint` and `direction`,
    /// of at most 1024 characters (the default
    /// [`Keyset::MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN)). The signature (or the
    /// encryption's tag) is checked, in constant time, before anything else is read. A token
    /// that marks an end of the listing (issued by an empty page) names no row, and is refused
    /// here.
    pub fn decode<C: CursorValue>(
        &self,
        fingerprint: u32,
        direction: Direction,
        token: &str,
    ) -> Result<C, CursorError> {
        match self.decode_anchor(Binding::unscoped(fingerprint), MAX_TOKEN_LEN, direction, token)? {
            Anchor::Row(cursor) => Ok(cursor),
            Anchor::End => Err(CursorError::InvalidValues(
                "the token marks an end of the listing, not a row".to_owned(),
            )),
        }
    }

    pub(crate) fn encode_anchor<C: CursorValue>(
        &self,
        binding: Binding,
        max_len: usize,
        direction: Direction,
        anchor: Anchor<&C>,
    ) -> Result<String, TooLong> {
        match &self.ring {
            Ring::Signing(macs) => signed::encode(&macs[0], binding, max_len, direction, anchor),
            #[cfg(feature = "encrypted")]
            Ring::Encrypting(ciphers) => {
                super::encrypted::encode(&ciphers[0], binding, max_len, direction, anchor)
            }
        }
    }

    pub(crate) fn decode_anchor<C: CursorValue>(
        &self,
        binding: Binding,
        max_len: usize,
        direction: Direction,
        token: &str,
    ) -> Result<Anchor<C>, CursorError> {
        match &self.ring {
            Ring::Signing(macs) => signed::decode(macs, binding, max_len, direction, token),
            #[cfg(feature = "encrypted")]
            Ring::Encrypting(ciphers) => {
                super::encrypted::decode(ciphers, binding, max_len, direction, token)
            }
        }
    }
}

impl fmt::Debug for TokenKeys {
    /// Never shows the keys.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.ring {
            Ring::Signing(_) => "signing",
            #[cfg(feature = "encrypted")]
            Ring::Encrypting(_) => "encrypting",
        };
        f.debug_struct("TokenKeys")
            .field("mode", &mode)
            .field("previous_keys", &(self.ids.len() - 1))
            .finish_non_exhaustive()
    }
}

/// `key`, unless it is too short or its bytes are all the same.
fn checked(key: &[u8]) -> Result<&[u8], KeyError> {
    match key {
        short if short.len() < TokenKeys::MIN_KEY_LEN => Err(KeyError::TooShort { len: key.len() }),
        [first, rest @ ..] if rest.iter().all(|byte| byte == first) => {
            Err(KeyError::Uniform { byte: *first })
        }
        key => Ok(key),
    }
}

/// What tells two keys apart: equal for equal keys (and for keys HMAC treats as equal).
fn id(key: &[u8]) -> [u8; 32] {
    prf(key, b"keyset-runtime token key identity")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key of 32 distinct bytes, one per `seed`.
    fn key(seed: u8) -> [u8; 32] {
        std::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(seed))
    }

    #[test]
    fn short_keys_are_refused() {
        assert_eq!(TokenKeys::new([0x5au8; 31]).unwrap_err(), KeyError::TooShort { len: 31 });
        assert_eq!(
            TokenKeys::new(key(1)).unwrap().with_previous(b"short").unwrap_err(),
            KeyError::TooShort { len: 5 }
        );
    }

    #[test]
    fn keys_of_one_repeated_byte_are_refused() {
        assert_eq!(TokenKeys::new([0u8; 32]).unwrap_err(), KeyError::Uniform { byte: 0 });
        assert_eq!(TokenKeys::new([0xffu8; 64]).unwrap_err(), KeyError::Uniform { byte: 0xff });
        let previous = TokenKeys::new(key(1)).unwrap().with_previous([7u8; 32]);
        assert_eq!(previous.unwrap_err(), KeyError::Uniform { byte: 7 });
        // One byte different is not refused: that is all this check can tell.
        let mut almost = [0u8; 32];
        almost[31] = 1;
        assert!(TokenKeys::new(almost).is_ok());
    }

    #[test]
    fn a_previous_key_given_twice_is_refused() {
        let keys = TokenKeys::new(key(1)).unwrap();
        let err = keys.clone().with_previous(key(1)).unwrap_err();
        assert_eq!(err, KeyError::Repeated { previous: 1 });
        assert!(err.to_string().contains("`openssl rand -base64 32`"), "{err}");
        let two = keys.with_previous(key(2)).unwrap().with_previous(key(3)).unwrap();
        assert_eq!(two.with_previous(key(2)).unwrap_err(), KeyError::Repeated { previous: 3 });
    }

    #[test]
    fn messages_say_how_to_make_a_key() {
        for err in [KeyError::TooShort { len: 3 }, KeyError::Uniform { byte: 0 }] {
            assert!(err.to_string().contains("openssl rand -base64 32"), "{err}");
        }
        assert!(KeyError::Uniform { byte: 0 }.to_string().contains("0x00"));
    }

    #[test]
    fn debug_shows_no_key() {
        let shown = format!("{:?}", TokenKeys::new(key(1)).unwrap().with_previous(key(2)).unwrap());
        assert_eq!(shown, r#"TokenKeys { mode: "signing", previous_keys: 1, .. }"#);
    }
}
