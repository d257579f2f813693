//! The behaviour suite, written once against each backend's `Conn` and `connect()` (the crate
//! root's): every backend's `main.rs` includes this one list, so a suite added here runs on all
//! three.

pub mod asynchronous;
pub mod bound_values;
pub mod compose;
pub mod concurrent;
pub mod counts;
pub mod db;
pub mod edge_props;
pub mod edges;
pub mod feeds;
pub mod hostile;
pub mod joins;
pub mod joins_grouped;
pub mod joins_plan;
pub mod jump;
pub mod key_types;
pub mod migration_writer;
pub mod migrations;
pub mod nulls;
pub mod orders;
pub mod orders_plan;
pub mod orders_tokens;
pub mod props;
pub mod row_ids;
pub mod schema_changes;
pub mod scopes;
pub mod shards;
pub mod starts;
pub mod walk;
