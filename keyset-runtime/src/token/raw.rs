//! Unsigned tokens written and read by hand, for tests that forge, corrupt or inspect them
//! (through `keyset_runtime::__testing::token`): pages issue and read tokens through
//! [`Codec`](super::codec::Codec), never through these.

use super::direction::Direction;
use super::error::CursorError;
use super::format::MAX_TOKEN_LEN;
use super::value::CursorValue;
use super::{decode_anchor, encode_anchor, Anchor, Binding};

/// Writes the token for `cursor`, of at most [`MAX_TOKEN_LEN`] characters.
pub fn encode<C: CursorValue>(
    fingerprint: u32,
    direction: Direction,
    cursor: &C,
) -> Result<String, CursorError> {
    Ok(encode_anchor(
        Binding::unscoped(fingerprint),
        MAX_TOKEN_LEN,
        direction,
        Anchor::Row(cursor),
    )?)
}

/// Reads a token issued by [`encode`] with the same `fingerprint` and `direction`, of at most
/// [`MAX_TOKEN_LEN`] characters. A token that marks an end of the listing (issued by an empty
/// page) names no row, and is refused here: page with it through [`PageRequest`](crate::PageRequest).
pub fn decode<C: CursorValue>(
    fingerprint: u32,
    direction: Direction,
    token: &str,
) -> Result<C, CursorError> {
    match decode_anchor(Binding::unscoped(fingerprint), MAX_TOKEN_LEN, direction, token)? {
        Anchor::Row(cursor) => Ok(cursor),
        Anchor::End => Err(CursorError::InvalidValues(
            "the token marks an end of the listing, not a row".to_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;

    use super::*;
    use crate::token::format::{fingerprint, scope_hash, END, SCOPED, VERSION};
    use crate::token::MAX_TOKEN_BYTES;

    /// Scoped tokens carry this hash: changing it would refuse every scoped token in the wild.
    #[test]
    fn scope_hash_is_stable_and_tells_scopes_apart() {
        // 7i64 is written as the zigzag varint 14; FNV-1a 64 of [14], folded to 32 bits.
        assert_eq!(scope_hash(&7i64), 0x2962_015d);
        assert_ne!(scope_hash(&7i64), scope_hash(&8i64));
        let (posts, drafts) = (("posts".to_owned(), 7i64), ("drafts".to_owned(), 7i64));
        assert_ne!(scope_hash(&posts), scope_hash(&drafts));
    }

    #[test]
    fn a_scoped_token_flags_its_direction_byte_and_carries_the_hash() {
        let binding = Binding { fingerprint: 0x0403_0201, scope: Some(0x0807_0605) };
        let token = encode_anchor(binding, MAX_TOKEN_LEN, Direction::Before, Anchor::Row(&(9u8,)));
        let bytes = URL_SAFE_NO_PAD.decode(token.unwrap()).unwrap();
        assert_eq!(bytes, [VERSION, 1, 2, 3, 4, 1 | SCOPED, 5, 6, 7, 8, 9]);
        let end = encode_anchor::<(u8,)>(binding, MAX_TOKEN_LEN, Direction::After, Anchor::End);
        let bytes = URL_SAFE_NO_PAD.decode(end.unwrap()).unwrap();
        assert_eq!(bytes, [VERSION, 1, 2, 3, 4, END | SCOPED, 5, 6, 7, 8]);
    }

    #[test]
    fn a_token_reads_only_in_its_own_scope() {
        let (seven, eight) = (Some(scope_hash(&7i64)), Some(scope_hash(&8i64)));
        let bound = |scope| Binding { fingerprint: 9, scope };
        let issue = |scope| {
            encode_anchor(bound(scope), MAX_TOKEN_LEN, Direction::After, Anchor::Row(&(1i64,)))
                .unwrap()
        };
        let read = |scope, token: &str| {
            decode_anchor::<(i64,)>(bound(scope), MAX_TOKEN_LEN, Direction::After, token)
        };
        for (issued, sent) in [(seven, eight), (seven, None), (None, seven)] {
            assert_eq!(read(sent, &issue(issued)), Err(CursorError::OtherScope), "{issued:?}");
        }
        for scope in [seven, None] {
            assert_eq!(read(scope, &issue(scope)), Ok(Anchor::Row((1,))));
        }
        // Before the direction: a token of another scope is told so, whichever way it is sent.
        let before =
            decode_anchor::<(i64,)>(bound(eight), MAX_TOKEN_LEN, Direction::Before, &issue(seven));
        assert_eq!(before, Err(CursorError::OtherScope));
        // Cut inside the hash: truncated.
        let bytes = URL_SAFE_NO_PAD.decode(issue(seven)).unwrap();
        assert_eq!(read(seven, &URL_SAFE_NO_PAD.encode(&bytes[..8])), Err(CursorError::Truncated));
    }

    /// Issued tokens carry this hash: changing the function would reject every token in the wild.
    #[test]
    fn fingerprint_is_stable() {
        // FNV-1a 64 of "" is its offset basis; folded: 0x8422_2325 ^ 0xcbf2_9ce4.
        assert_eq!(fingerprint(""), 0x4fd0_bfc1);
        assert_eq!(fingerprint("Post(posts: created_at DESC, id DESC)"), 0x19fc_5681);
        assert_ne!(
            fingerprint("Post(posts: created_at DESC, id DESC)"),
            fingerprint("Post(posts: created_at DESC, id ASC)")
        );
    }

    #[test]
    fn header_is_version_fingerprint_direction() {
        let token = encode(0x0403_0201, Direction::Before, &(5u8,)).unwrap();
        let bytes = URL_SAFE_NO_PAD.decode(token).unwrap();
        assert_eq!(bytes, [VERSION, 1, 2, 3, 4, 1, 5]);
    }

    #[test]
    fn a_token_too_long_to_accept_is_not_issued() {
        let long = "x".repeat(MAX_TOKEN_LEN);
        assert!(encode(1, Direction::After, &"x".repeat(MAX_TOKEN_BYTES - 12)).is_ok());
        assert!(matches!(encode(1, Direction::After, &long), Err(CursorError::TooLong { .. })));
    }

    /// Tokens at the edge of the small decoding buffer and at the longest accepted length
    /// round-trip: both buffers are big enough.
    #[test]
    fn tokens_of_every_length_round_trip() {
        for len in 0..MAX_TOKEN_BYTES - 12 {
            let key = "é".repeat(len / 2) + &"x".repeat(len % 2);
            let token = encode(7, Direction::Before, &key).unwrap();
            assert!(token.len() <= MAX_TOKEN_LEN);
            assert_eq!(decode::<String>(7, Direction::Before, &token), Ok(key), "{len}");
        }
    }
}
