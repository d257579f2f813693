//! What needs no database: the token format and its decoder under hostile input, signed and
//! encrypted tokens, scoped requests, every key type's token form, and page requests as a query
//! string hands them over.

mod key_types;
mod props;
mod protected;
mod request;
mod scoped;
mod tokens;
