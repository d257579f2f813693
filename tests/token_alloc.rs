//! Decoding a token allocates a bounded amount, whatever length prefixes it claims: a counting
//! global allocator follows the heap the decoder holds, on tokens crafted with huge length
//! prefixes for strings, bytes and optional strings, and on random tokens.
//!
//! The bound: at most [`BOUND`] bytes held at once during one decode. A token is decoded on the
//! stack, and a string or byte key is allocated only once its bytes were found in the token, so a
//! decode holds at most the token's own length in keys.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use keyset_runtime::__testing::token::{self, MAX_TOKEN_LEN, SIGNED, VERSION};
use keyset_runtime::token::CursorValue;
use keyset_runtime::Keyset;
use keyset_runtime::{Direction, TokenKeys};
use keyset_tests::models::{
    ByUniqueTitle, ByUniqueTitleCursor, Newest, NewestCursor, RankDue, RankDueCursor,
    TitleLongTokens,
};
use proptest::prelude::*;

/// Bytes one decode may hold at once: the longest token's length.
const BOUND: usize = MAX_TOKEN_LEN;

thread_local! {
    /// Bytes this thread holds now, relative to the last reset, and the most it held since
    /// (tests run on several threads, and each measures its own).
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
}

fn count(bytes: isize) {
    let _ = LIVE.try_with(|live| {
        live.set(live.get() + bytes);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The most bytes held at once while decoding `token` as a `C`, plain or signed.
fn allocated_by<C: CursorValue>(fingerprint: u32, token: &str) -> usize {
    let keys = TokenKeys::new(*b"alloc test key, 32 bytes, unreal").unwrap();
    let mut most = 0;
    for signed in [false, true] {
        LIVE.with(|live| live.set(0));
        PEAK.with(|peak| peak.set(0));
        let result = if signed {
            keys.decode::<C>(fingerprint, Direction::After, token)
        } else {
            token::decode::<C>(fingerprint, Direction::After, token)
        };
        most = most.max(PEAK.with(Cell::get) as usize);
        drop(result);
    }
    most
}

/// Key shapes whose decoding allocates by a length prefix.
type Text = (String, i64);
type Bytes = (Vec<u8>,);
type Nested = (Vec<u8>, Option<String>, Option<Vec<u8>>);

fn varint(mut value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

/// A token with a valid header (version `first`) whose values begin with `values`, padded
/// with `fill` up to the longest accepted token.
fn crafted(first: u8, values: &[u8], fill: u8) -> String {
    let mut bytes = vec![first, 1, 2, 3, 4, 0];
    bytes.extend_from_slice(values);
    let room = MAX_TOKEN_LEN * 3 / 4;
    bytes.resize(room.max(bytes.len()), fill);
    let token = URL_SAFE_NO_PAD.encode(&bytes);
    assert!(token.len() <= MAX_TOKEN_LEN);
    token
}

#[test]
fn huge_length_prefixes_allocate_no_more_than_the_bound() {
    let fingerprint = u32::from_le_bytes([1, 2, 3, 4]);
    let mut worst = 0;
    for claimed in [u64::from(u32::MAX), u64::MAX >> 1, 1 << 40, 1_000_000, 765, 700] {
        for first in [VERSION, VERSION | SIGNED] {
            for fill in [0u8, 0x41, 0xff] {
                let token = crafted(first, &varint(claimed), fill);
                let sizes = [
                    allocated_by::<Text>(fingerprint, &token),
                    allocated_by::<Bytes>(fingerprint, &token),
                    allocated_by::<Nested>(fingerprint, &token),
                    allocated_by::<ByUniqueTitleCursor>(fingerprint, &token),
                ];
                for (size, shape) in sizes.iter().zip(["String", "bytes", "nested", "cursor"]) {
                    assert!(
                        *size <= BOUND,
                        "{shape} with a length prefix of {claimed}: {size} bytes allocated"
                    );
                }
                worst = worst.max(sizes.into_iter().max().unwrap());
            }
        }
    }
    println!("most held by one decode of a crafted token: {worst} bytes (bound {BOUND})");
}

#[test]
fn tokens_over_the_limit_are_refused_before_decoding() {
    let long = "A".repeat(64 * MAX_TOKEN_LEN);
    let size = allocated_by::<NewestCursor>(Newest::FINGERPRINT, &long);
    assert_eq!(size, 0, "bytes allocated to refuse an over-long token");
}

/// A model whose limit is raised past [`MAX_TOKEN_LEN`] decodes its long tokens on the heap, into
/// a buffer of the token's decoded length: the bytes `paginate` holds stay within a small multiple
/// of the token's length (the buffer, the key, and the request's copy of the token), whatever its
/// length prefix claims.
#[test]
fn a_raised_limit_keeps_decoding_bounded_by_the_token() {
    use diesel::prelude::*;
    use keyset_runtime::{PageRequest, Paginate};
    type Query = diesel::dsl::Select<
        keyset_tests::schema::posts::table,
        diesel::dsl::AsSelect<TitleLongTokens, diesel::sqlite::Sqlite>,
    >;
    let paginate = |token: &str| {
        let request = PageRequest::after(token, 5);
        let query: Query = keyset_tests::schema::posts::table.select(TitleLongTokens::as_select());
        LIVE.with(|live| live.set(0));
        PEAK.with(|peak| peak.set(0));
        let result = query.paginate(&request).map(|_| ());
        (result, PEAK.with(Cell::get) as usize)
    };
    let title = "é".repeat(3000);
    let token = token::encode(1, Direction::After, &(title.clone(),)).err();
    assert!(token.is_some(), "too long for the default limit");
    // Issued by a page of the model; here written by hand with the model's fingerprint.
    let mut bytes = vec![VERSION];
    bytes.extend_from_slice(&TitleLongTokens::FINGERPRINT.to_le_bytes());
    bytes.push(0);
    bytes.extend_from_slice(&varint(title.len() as u64));
    bytes.extend_from_slice(title.as_bytes());
    let token = URL_SAFE_NO_PAD.encode(&bytes);
    assert!(token.len() > MAX_TOKEN_LEN && token.len() <= TitleLongTokens::MAX_TOKEN_LEN);
    let (result, held) = paginate(&token);
    assert!(result.is_ok(), "{result:?}");
    assert!(held <= 3 * token.len(), "{held} bytes held for a token of {}", token.len());
    for claimed in [u64::MAX >> 1, 1 << 40, 10_000] {
        let mut bytes = bytes[..6].to_vec();
        bytes.extend_from_slice(&varint(claimed));
        bytes.resize(TitleLongTokens::MAX_TOKEN_LEN * 3 / 4, b'x');
        let token = URL_SAFE_NO_PAD.encode(&bytes);
        let (result, held) = paginate(&token);
        assert!(result.is_err());
        assert!(held <= 3 * token.len(), "{held} bytes held for a token of {}", token.len());
    }
}

/// `values` behind a valid header for `fingerprint`.
fn behind_header(fingerprint: u32, signed: bool, values: &[u8]) -> String {
    let mut bytes = vec![if signed { VERSION | SIGNED } else { VERSION }];
    bytes.extend_from_slice(&fingerprint.to_le_bytes());
    bytes.push(0);
    bytes.extend_from_slice(values);
    URL_SAFE_NO_PAD.encode(&bytes)
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// Random values behind a valid header: within the bound for any shape.
    #[test]
    fn random_values_allocate_within_the_bound(
        values in prop::collection::vec(any::<u8>(), 0..750),
        signed in any::<bool>(),
    ) {
        let within = |fingerprint, size: usize, limit: usize| {
            prop_assert!(size <= limit, "{} bytes for fingerprint {:x}", size, fingerprint);
            Ok(())
        };
        let token = behind_header(Newest::FINGERPRINT, signed, &values);
        within(1, allocated_by::<NewestCursor>(Newest::FINGERPRINT, &token), BOUND)?;
        let token = behind_header(RankDue::FINGERPRINT, signed, &values);
        within(2, allocated_by::<RankDueCursor>(RankDue::FINGERPRINT, &token), BOUND)?;
        let token = behind_header(ByUniqueTitle::FINGERPRINT, signed, &values);
        within(3, allocated_by::<ByUniqueTitleCursor>(ByUniqueTitle::FINGERPRINT, &token), BOUND)?;
        within(4, allocated_by::<Text>(ByUniqueTitle::FINGERPRINT, &token), BOUND)?;
        within(5, allocated_by::<Nested>(ByUniqueTitle::FINGERPRINT, &token), BOUND)?;
    }
}
