//! Pages through engines that spread one table over several servers, behind one endpoint the
//! application queries as it would one database.
//!
//! `postgres_fdw::`: a PostgreSQL coordinator whose table is partitioned over postgres_fdw
//! foreign tables on two shard servers (`tests/postgres-fdw.sh`). `spider::`: a MariaDB Spider
//! head node whose table is partitioned over two data nodes (`tests/spider.sh`). `galera::`: a
//! MariaDB Galera cluster of three nodes, each holding every row (`tests/galera.sh`). Each
//! script starts its three servers and runs its module's tests with their addresses; a test
//! without them fails, it never skips.

mod galera;
mod listing;
mod postgres_fdw;
mod spider;
mod walks;
