//! Pages through engines that spread one table over several servers, behind one endpoint the
//! application queries as it would one database.
//!
//! `postgres_fdw::`: a PostgreSQL coordinator whose table is partitioned over postgres_fdw
//! foreign tables on two shard servers. `tests/postgres-fdw.sh` starts the three servers of its
//! own and runs these tests with their addresses; a test without them fails, it never skips.

mod postgres_fdw;
