//! The cursor token: what clients hold between page requests.
//!
//! A token is URL-safe base64 (no padding) of:
//!
//! | bytes | what |
//! |---|---|
//! | 1 | format version (3); its high bit (`0x80`) marks a signed token, the next (`0x40`) an encrypted one |
//! | 4 | fingerprint of the model and its sort order ([`Keyset::FINGERPRINT`](crate::Keyset::FINGERPRINT)), little-endian |
//! | 24 | encrypted tokens only: the nonce, drawn at random for each token |
//! | 1 | the [`Direction`] the token was issued for: bit 0 set for `before`; bit 1 set for a token that marks an end of the listing instead of a row; bit 2 set for a scoped token |
//! | 4 | scoped tokens only: the hash of the scope ([`PageRequest::scoped`](crate::PageRequest::scoped)), little-endian |
//! | rest | the cursor's key values, each in its [`CursorValue`] form (none in an end token) |
//! | 16 | signed tokens only: HMAC-SHA256 of all the bytes before it, truncated (feature `signed`, `TokenKeys`) |
//! | 16 | encrypted tokens only: the XChaCha20-Poly1305 tag (feature `encrypted`, `TokenKeys::encrypting`) |
//!
//! An encrypted token carries the same bytes as a plain one, with the direction, the scope and
//! the values (everything after the fingerprint) encrypted; the version byte and the fingerprint stay readable
//! and are authenticated as associated data, so a token of another listing is told apart as
//! a plain one is.
//!
//! The values are a compact binary form of their own ([`CursorValue`]: varint integers, a
//! timestamp as seconds and nanoseconds, length-prefixed strings, no field names), so every key
//! round-trips exactly (chrono timestamps keep their nanoseconds, `i64::MIN` stays `i64::MIN`).
//! A token is decoded on the stack, and a string or byte key is allocated only after its bytes were
//! found in the token, so a hostile length prefix cannot make decoding allocate more than the
//! token holds (the test suite measures it with a counting allocator).
//!
//! Tokens are opaque, not secret: a client can decode the key values of a row it has already seen,
//! and can write a token for any key values it likes (which is harmless: the keyset filter is
//! ANDed with the query's own filters, so a token can only move the start of a page within rows the
//! query already allows). Where key values must not be forged or edited, sign the tokens
//! (feature `signed`, `TokenKeys`): signing stops forgery and edits, not reading, since a signed
//! token's values decode as plainly as an unsigned one's. Where they must not be read either,
//! encrypt them (feature `encrypted`, `TokenKeys::encrypting`). Decoding never panics; every way a token can be wrong is a
//! [`CursorError`], which a web handler answers with 400. A string whose header is not this
//! listing's (its fingerprint does not match) is [`CursorError::Malformed`]: only a token that
//! carries the listing's fingerprint is told about its version, its signature or its encryption.
//!
//! A page with no rows still leads back to the rows behind it: its token marks the end of the
//! listing it lies at (bit 1 of its direction byte), and reads as the last page (sent as `before`) or the first page
//! (sent as `after`). Every row behind an empty page is all the rows there are: the page is empty
//! because none lies ahead of its cursor.

mod bind;
mod builtin;
pub(crate) mod codec;
pub(crate) mod direction;
#[cfg(feature = "encrypted")]
pub(crate) mod encrypted;
pub(crate) mod error;
pub(crate) mod format;
#[cfg(feature = "signed")]
pub(crate) mod keys;
#[cfg(any(test, feature = "__testing"))]
pub(crate) mod raw;
#[cfg(feature = "signed")]
pub(crate) mod signed;
pub(crate) mod value;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

pub use bind::Engine;
use direction::Direction;
use error::CursorError;
use format::{ENCRYPTED, END, FLAGS, MAX_TOKEN_LEN, SCOPED, SIGNED, VERSION};
pub use value::{CursorValue, Reader, Writer};

/// The version before [`VERSION`], whose tokens are recognised by their old fingerprint.
pub(crate) const LEGACY_VERSION: u8 = 2;

const HEADER_LEN: usize = 6;

/// The most bytes a token of [`MAX_TOKEN_LEN`] characters decodes to (with room for base64's
/// rounding): the stack buffer a token is decoded into. A longer token (accepted only by a model
/// with a higher limit) is decoded into a heap buffer of its own decoded length.
pub(crate) const MAX_TOKEN_BYTES: usize = MAX_TOKEN_LEN / 4 * 3 + 3;

/// The stack buffer a token of up to 128 characters is decoded into (zeroing the large one costs
/// more than decoding a typical token).
const SMALL_TOKEN_BYTES: usize = 96;

/// What a token points at: a row, by its key values, or an end of the listing ([`END`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor<C> {
    /// The row with these key values (which may since have been deleted).
    Row(C),
    /// The start of the listing (a token sent as `after`) or its end (sent as `before`): what a
    /// page with no rows issues to lead back to the rows behind it.
    End,
}

/// The version byte and fingerprint a string's header claims, if it is long enough to have one:
/// what names the order a token of a sibling order was issued for, and tells a token of an older
/// format version from junk.
pub(crate) fn header_of(token: &str) -> Option<(u8, u32)> {
    let mut header = [0; HEADER_LEN];
    match URL_SAFE_NO_PAD.decode_slice(token.get(..8)?, &mut header) {
        Ok(HEADER_LEN) => {
            let [version, f0, f1, f2, f3, _] = header;
            Some((version, u32::from_le_bytes([f0, f1, f2, f3])))
        }
        _ => None,
    }
}

/// The fingerprint of a token of this format version, plain, signed or encrypted.
pub(crate) fn fingerprint_of(token: &str) -> Option<u32> {
    match header_of(token)? {
        (version, fingerprint) if version & !FLAGS == VERSION => Some(fingerprint),
        _ => None,
    }
}

/// A token would be `len` characters long, over the `max` its listing accepts: the only way
/// issuing a token fails.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TooLong {
    pub(crate) len: usize,
    pub(crate) max: usize,
}

impl From<TooLong> for CursorError {
    fn from(TooLong { len, max }: TooLong) -> Self {
        CursorError::TooLong { len, max }
    }
}

/// What ties a token to its listing: the model's sort order (its fingerprint) and, for a scoped
/// request, the hash of its scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Binding {
    pub(crate) fingerprint: u32,
    pub(crate) scope: Option<u32>,
}

impl Binding {
    /// The binding of an unscoped listing of the order with this fingerprint.
    #[cfg(any(feature = "signed", test, feature = "__testing"))]
    pub(crate) fn unscoped(fingerprint: u32) -> Self {
        Binding { fingerprint, scope: None }
    }
}

fn encode_anchor<C: CursorValue>(
    binding: Binding,
    max_len: usize,
    direction: Direction,
    anchor: Anchor<&C>,
) -> Result<String, TooLong> {
    with_payload(VERSION, binding, direction, anchor, |bytes| finish(bytes, max_len))
}

fn decode_anchor<C: CursorValue>(
    binding: Binding,
    max_len: usize,
    direction: Direction,
    token: &str,
) -> Result<Anchor<C>, CursorError> {
    let fingerprint = binding.fingerprint;
    open(token, max_len, |bytes| match bytes[0] {
        VERSION => read(bytes, binding, direction),
        byte if byte == VERSION | SIGNED => {
            Err(foreign_or(bytes, fingerprint, CursorError::UnexpectedSignature))
        }
        byte if byte == VERSION | ENCRYPTED => {
            Err(foreign_or(bytes, fingerprint, CursorError::UnexpectedEncryption))
        }
        byte => Err(foreign_or(bytes, fingerprint, unsupported(byte))),
    })
}

/// The token's bytes before base64 (header, scope, then the values), handed to `issue`. They are
/// written into a buffer kept per thread, so issuing a token allocates only the token itself.
fn with_payload<C: CursorValue, R>(
    version: u8,
    binding: Binding,
    direction: Direction,
    anchor: Anchor<&C>,
    issue: impl FnOnce(&mut Vec<u8>) -> R,
) -> R {
    thread_local! {
        // A `Cell` taken and put back, not a `RefCell`: a `CursorValue` that issued a token while
        // being written would find it empty and allocate, instead of panicking.
        static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    }
    let mut bytes = SCRATCH.take();
    bytes.clear();
    bytes.push(version);
    bytes.extend_from_slice(&binding.fingerprint.to_le_bytes());
    let mut out = Writer::from_vec(bytes);
    let end = match anchor {
        Anchor::Row(_) => 0,
        Anchor::End => END,
    };
    match binding.scope {
        Some(scope) => {
            out.byte(direction.byte() | end | SCOPED);
            out.bytes(&scope.to_le_bytes());
        }
        None => out.byte(direction.byte() | end),
    }
    if let Anchor::Row(cursor) = anchor {
        cursor.write(&mut out);
    }
    let mut bytes = out.into_bytes();
    let issued = issue(&mut bytes);
    // A huge key's buffer is not kept: the next token would not need it.
    if bytes.capacity() <= MAX_TOKEN_BYTES {
        SCRATCH.set(bytes);
    }
    issued
}

/// Base64 of `bytes`, refused when longer than `max_len`, the most the listing accepts (checked
/// before encoding).
fn finish(bytes: &[u8], max_len: usize) -> Result<String, TooLong> {
    fits(bytes.len(), max_len)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// Refuses a token of `bytes` bytes when its base64 would be longer than `max_len` characters.
fn fits(bytes: usize, max_len: usize) -> Result<(), TooLong> {
    match bytes / 3 * 4 + [0, 2, 3][bytes % 3] {
        len if len > max_len => Err(TooLong { len, max: max_len }),
        _ => Ok(()),
    }
}

/// Hands the token's bytes to `read` (to decrypt in place, if need be): at most `max_len`
/// characters of base64, at least one byte.
/// They are decoded on the stack, into a buffer as small as the token allows (a typical token's
/// bytes fit in [`SMALL_TOKEN_BYTES`]); only a token longer than [`MAX_TOKEN_LEN`], which a model
/// with a higher limit accepts, is decoded on the heap, into a buffer of its decoded length.
fn open<R>(
    token: &str,
    max_len: usize,
    read: impl FnOnce(&mut [u8]) -> Result<R, CursorError>,
) -> Result<R, CursorError> {
    fn decoded<'b>(token: &str, buffer: &'b mut [u8]) -> Result<&'b mut [u8], CursorError> {
        match URL_SAFE_NO_PAD.decode_slice(token, buffer) {
            Ok(0) => Err(CursorError::Truncated),
            Ok(len) => Ok(&mut buffer[..len]),
            Err(_) => Err(CursorError::NotBase64),
        }
    }
    if token.is_empty() {
        return Err(CursorError::Empty);
    }
    if token.len() > max_len {
        return Err(CursorError::TooLong { len: token.len(), max: max_len });
    }
    if token.len() <= SMALL_TOKEN_BYTES / 3 * 4 {
        read(decoded(token, &mut [0; SMALL_TOKEN_BYTES])?)
    } else if token.len() <= MAX_TOKEN_LEN {
        read(decoded(token, &mut [0; MAX_TOKEN_BYTES])?)
    } else {
        read(decoded(token, &mut vec![0; token.len() / 4 * 3 + 2])?)
    }
}

fn unsupported(byte: u8) -> CursorError {
    CursorError::UnsupportedVersion { found: byte & !FLAGS, supported: VERSION }
}

/// `error`, which speaks of a token's version, signature or encryption, when the token carries this
/// listing's fingerprint after its version byte, as every token format does; otherwise the string
/// is not a token of this listing at all, and its first byte is no version:
/// [`CursorError::Malformed`].
fn foreign_or(bytes: &[u8], fingerprint: u32, error: CursorError) -> CursorError {
    match bytes.get(1..5) {
        Some(found) if found == fingerprint.to_le_bytes() => error,
        _ => CursorError::Malformed,
    }
}

/// Checks the header after the version byte (the caller checked that, and any signature, and
/// decrypted the rest) and decodes the values.
fn read<C: CursorValue>(
    bytes: &[u8],
    binding: Binding,
    direction: Direction,
) -> Result<Anchor<C>, CursorError> {
    let Some((header, values)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        // Too short to carry a fingerprint: nothing says it is a token of ours.
        return Err(CursorError::Malformed);
    };
    let [_version, f0, f1, f2, f3, dir] = *header;
    if u32::from_le_bytes([f0, f1, f2, f3]) != binding.fingerprint {
        return Err(CursorError::ForeignSortOrder);
    }
    // The scope before the direction: a token of another listing is told so, either way.
    let (scope, values) = match values.split_first_chunk::<4>() {
        Some((scope, values)) if dir & SCOPED != 0 => (Some(u32::from_le_bytes(*scope)), values),
        None if dir & SCOPED != 0 => return Err(CursorError::Truncated),
        _ => (None, values),
    };
    if scope != binding.scope {
        return Err(CursorError::OtherScope);
    }
    let found = match dir & !(END | SCOPED) {
        0 => Direction::After,
        1 => Direction::Before,
        _ => return Err(CursorError::InvalidValues(format!("unknown direction byte {dir}"))),
    };
    if found != direction {
        return Err(CursorError::WrongDirection { expected: direction, found });
    }
    if dir & END != 0 {
        return match values.len() {
            0 => Ok(Anchor::End),
            trailing => Err(CursorError::InvalidValues(format!(
                "{trailing} unexpected bytes after an end of the listing"
            ))),
        };
    }
    let mut input = Reader::new(values);
    let cursor = C::read(&mut input)?;
    match input.rest().len() {
        0 => Ok(Anchor::Row(cursor)),
        trailing => {
            Err(CursorError::InvalidValues(format!("{trailing} unexpected trailing bytes")))
        }
    }
}
