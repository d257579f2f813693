//! The README's JSON endpoint is `examples/readme_endpoint.rs`, which CI compiles: the README
//! must show that file's code, line for line, so that what users copy builds.

#[test]
fn the_readme_shows_the_compiled_endpoint() {
    let readme = include_str!("../../README.md");
    let example = include_str!("../readme_endpoint.rs");
    // The file's code, without its module doc comment.
    let code: String = example
        .lines()
        .skip_while(|line| line.starts_with("//!") || line.is_empty())
        .map(|line| format!("{line}\n"))
        .collect();
    assert!(code.contains("load_page_async"), "the endpoint pages on diesel-async");
    assert!(
        readme.contains(&format!("```rust\n{code}```")),
        "README.md's JSON endpoint differs from examples/readme_endpoint.rs: copy the file's code into the README"
    );
}
