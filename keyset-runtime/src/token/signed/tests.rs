use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::*;
use crate::token::keys::TokenKeys;

fn key(seed: u8) -> [u8; 32] {
    std::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(seed))
}

fn keys() -> TokenKeys {
    TokenKeys::new(key(1)).unwrap()
}

#[test]
fn layout_is_the_unsigned_one_flagged_then_a_tag() {
    let signed = URL_SAFE_NO_PAD
        .decode(keys().encode(0x0403_0201, Direction::Before, &(5u8,)).unwrap())
        .unwrap();
    assert_eq!(signed[..7], [VERSION | SIGNED, 1, 2, 3, 4, 1, 5]);
    assert_eq!(signed.len(), 7 + SIGNATURE_LEN);
}

#[test]
fn every_single_bit_flip_is_refused() {
    let token = keys().encode(9, Direction::After, &(String::from("abc"), 7i64)).unwrap();
    let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
    for at in 0..bytes.len() {
        for bit in 0..8 {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1 << bit;
            let result = keys().decode::<(String, i64)>(
                9,
                Direction::After,
                &URL_SAFE_NO_PAD.encode(&flipped),
            );
            assert!(result.is_err(), "byte {at} bit {bit} was accepted");
        }
    }
}

#[test]
fn rotation_reads_every_listed_key_and_signs_with_the_current() {
    let old = TokenKeys::new(key(1)).unwrap();
    let issued = old.encode(9, Direction::After, &(3i64,)).unwrap();
    let rotated = TokenKeys::new(key(2)).unwrap().with_previous(key(3)).unwrap();
    let rotated = rotated.with_previous(key(1)).unwrap();
    assert_eq!(rotated.decode::<(i64,)>(9, Direction::After, &issued), Ok((3,)));
    let fresh = rotated.encode(9, Direction::After, &(3i64,)).unwrap();
    assert_eq!(old.decode::<(i64,)>(9, Direction::After, &fresh), Err(CursorError::BadSignature));
    let current = TokenKeys::new(key(2)).unwrap();
    assert_eq!(current.decode::<(i64,)>(9, Direction::After, &fresh), Ok((3,)));
}
