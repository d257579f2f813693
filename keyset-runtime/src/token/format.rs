//! The token format's constants: its version, its flags, its default length limit, and the
//! fingerprint that ties a token to its listing and sort order (and the hash of its scope).

use super::value::{CursorValue, Writer};

/// The token format this version writes and reads. Version 1 held the values in postcard (serde);
/// version 2 hashed the model's struct name into the fingerprint, so renaming the struct
/// invalidated its tokens. Their tokens are refused with [`CursorError::UnsupportedVersion`](super::error::CursorError::UnsupportedVersion).
pub const VERSION: u8 = 3;

/// The flag in the version byte of a signed token (`VERSION | SIGNED`): a server that requires
/// signatures refuses a token without it, and one that does not refuses a token with it.
pub const SIGNED: u8 = 0x80;

/// The flag in the version byte of an encrypted token (`VERSION | ENCRYPTED`, feature
/// `encrypted`): such a token is read only by a listing whose keys encrypt, and a listing whose
/// keys encrypt reads no other.
pub const ENCRYPTED: u8 = 0x40;

/// The flags a version byte may carry beside the version itself.
pub(crate) const FLAGS: u8 = SIGNED | ENCRYPTED;

/// The longest token a listing issues and accepts by default, in characters; a model raises or
/// lowers its own limit with `#[keyset(max_token_len = ..)]`
/// ([`Keyset::MAX_TOKEN_LEN`](crate::Keyset::MAX_TOKEN_LEN)). A row whose keys would need a longer
/// token is the server's error ([`Error::KeysTooLong`](crate::Error::KeysTooLong)), found when
/// its page is loaded, so a token this library issues is always accepted.
pub const MAX_TOKEN_LEN: usize = 1024;

/// The flag in the direction byte of a token that marks an end of the listing instead of a row:
/// the start when sent as `after`, the end when sent as `before`. It carries no key values.
pub const END: u8 = 0b10;

/// The flag in the direction byte of a scoped token
/// ([`PageRequest::scoped`](crate::PageRequest::scoped)): 4 bytes of the scope's hash follow the
/// direction byte. A token without it is unscoped, as every token issued before scopes were.
pub const SCOPED: u8 = 0b100;

/// FNV-1a over the sort order's description, folded to 32 bits. Not a security measure (see the
/// signed tokens feature for that); it catches tokens sent to the wrong listing.
pub const fn fingerprint(sort_order: &str) -> u32 {
    fnv1a(sort_order.as_bytes())
}

/// The hash a scoped token carries: FNV-1a (folded to 32 bits) over the scope's
/// [`CursorValue`] form, the token format's own, so it is the same on every build and platform
/// (not `std`'s `Hash`, which promises neither). Not a secret, and 32 bits: it tells an honest client's token of another
/// listing; only a signed or encrypted token's scope cannot be rewritten by the client.
pub fn scope_hash<S: CursorValue>(scope: &S) -> u32 {
    let mut out = Writer::from_vec(Vec::new());
    scope.write(&mut out);
    fnv1a(&out.into_bytes())
}

/// FNV-1a 64 over `bytes`, folded to 32 bits.
const fn fnv1a(bytes: &[u8]) -> u32 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    (hash ^ (hash >> 32)) as u32
}
