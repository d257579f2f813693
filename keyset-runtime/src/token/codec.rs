//! [`Codec`]: how one listing writes and reads its tokens, for a model's cursors.

use super::direction::Direction;
use super::error::CursorError;
use super::format::{FLAGS, VERSION};
#[cfg(feature = "signed")]
use super::keys::TokenKeys;
use super::{decode_anchor, encode_anchor, header_of, Anchor, Binding, TooLong, LEGACY_VERSION};
use crate::error::Error;
use crate::orders::SortOrder;

/// How a listing writes and reads its tokens: plain (the default), or signed or encrypted with
/// the server's keys. What [`Paginated`](crate::Paginated) carries from `paginate` to the page. Its
/// tokens are those of one model: its fingerprint, and at most its
/// [`MAX_TOKEN_LEN`](Keyset::MAX_TOKEN_LEN) characters, both ways.
#[derive(Debug, Clone, Default)]
#[doc(hidden)]
pub struct Codec {
    #[cfg(feature = "signed")]
    keys: Option<TokenKeys>,
    /// The hash of the request's scope, if it has one: tokens are written with it, and only
    /// tokens with the same are read.
    scope: Option<u32>,
}

impl Codec {
    /// Protected by `keys`: tokens are written signed (or encrypted) with the current key, and
    /// only tokens that verify under one of the keys are read.
    #[cfg(feature = "signed")]
    pub(crate) fn signed(self, keys: &TokenKeys) -> Self {
        Codec { keys: Some(keys.clone()), ..self }
    }

    /// Scoped to the scope of this hash (see [`PageRequest::scoped`](crate::PageRequest::scoped)),
    /// or unscoped.
    pub(crate) fn scoped(self, scope: Option<u32>) -> Self {
        Codec { scope, ..self }
    }

    /// Whether tokens are signed or encrypted.
    pub(crate) fn protected(&self) -> bool {
        #[cfg(feature = "signed")]
        return self.keys.is_some();
        #[cfg(not(feature = "signed"))]
        false
    }

    fn binding<M: SortOrder>(&self) -> Binding {
        Binding { fingerprint: M::FINGERPRINT, scope: self.scope }
    }

    /// The token of `anchor` for model `M`'s listing. A row whose keys need a token longer than
    /// the listing accepts is the server's error, [`Error::KeysTooLong`], naming the longest key:
    /// a token the listing would refuse is never issued.
    pub(crate) fn issue<M: SortOrder>(
        &self,
        direction: Direction,
        anchor: Anchor<&M::Cursor>,
    ) -> Result<String, Error> {
        #[cfg(feature = "signed")]
        if let Some(keys) = &self.keys {
            let issued =
                keys.encode_anchor(self.binding::<M>(), M::MAX_TOKEN_LEN, direction, anchor);
            return issued.map_err(|error| too_long::<M>(error, anchor));
        }
        encode_anchor(self.binding::<M>(), M::MAX_TOKEN_LEN, direction, anchor)
            .map_err(|error| too_long::<M>(error, anchor))
    }

    /// Reads a token sent to model `M`'s listing as `direction` (`after` or `before`).
    pub(crate) fn read<M: SortOrder>(
        &self,
        direction: Direction,
        token: &str,
    ) -> Result<Anchor<M::Cursor>, CursorError> {
        #[cfg(feature = "signed")]
        if let Some(keys) = &self.keys {
            let read = keys.decode_anchor(self.binding::<M>(), M::MAX_TOKEN_LEN, direction, token);
            return read.map_err(|error| older::<M>(token, error));
        }
        decode_anchor(self.binding::<M>(), M::MAX_TOKEN_LEN, direction, token)
            .map_err(|error| older::<M>(token, error))
    }
}

/// `error` for a token of `M`'s listing, unless the string is a token of the previous format
/// version, for the same order: then it is told so, not called junk.
fn older<M: SortOrder>(token: &str, error: CursorError) -> CursorError {
    if error != CursorError::Malformed {
        return error;
    }
    match (header_of(token), M::LEGACY_FINGERPRINT) {
        (Some((version, fingerprint)), Some(legacy))
            if version & !FLAGS == LEGACY_VERSION && fingerprint == legacy =>
        {
            CursorError::UnsupportedVersion { found: LEGACY_VERSION, supported: VERSION }
        }
        _ => error,
    }
}

/// The server's error for a row too long to issue a token for, naming its longest key.
fn too_long<M: SortOrder>(TooLong { len, max }: TooLong, anchor: Anchor<&M::Cursor>) -> Error {
    let lengths = match anchor {
        Anchor::Row(cursor) => M::key_lengths(cursor),
        Anchor::End => Vec::new(),
    };
    let (key, key_len) = lengths.into_iter().max_by_key(|&(_, len)| len).unwrap_or(("", 0));
    Error::KeysTooLong { model: M::SORT_ORDER, key, key_len, len, max }
}
