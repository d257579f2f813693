//! Compile-fail tests of `#[derive(Keyset)]`: one minimal file per misuse in `tests/ui/`, named
//! after it, with the compiler's expected output beside it (`.stderr`). The output is stable only
//! on the pinned toolchain (`rust-toolchain.toml`).
//!
//! After changing a message or a span, regenerate with `TRYBUILD=overwrite cargo test -p
//! keyset-tests --test ui`, then read every changed `.stderr` as a user would: does it say what
//! is wrong and what to write instead, at the attribute or field at fault?

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
}
