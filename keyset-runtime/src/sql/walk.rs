//! Which way a statement walks the model's order: [`Forward`] (rows after a cursor, the ORDER BY
//! as declared) or [`Backward`] (rows before it, every direction flipped). A type, not a value,
//! so that the two walks are two statement types, each with a static `QueryId`.

/// Pages in the model's order: rows after the cursor, ORDER BY as declared.
#[derive(Debug, Clone, Copy, Default)]
pub struct Forward;

/// Pages against the model's order: rows before the cursor, every ORDER BY direction flipped.
#[derive(Debug, Clone, Copy, Default)]
pub struct Backward;

/// Which way a query walks the model's order (marker types [`Forward`] and [`Backward`]).
pub trait Walk: 'static {
    /// Whether every comparison and ORDER BY direction is flipped.
    const BACKWARD: bool;
}

impl Walk for Forward {
    const BACKWARD: bool = false;
}

impl Walk for Backward {
    const BACKWARD: bool = true;
}
