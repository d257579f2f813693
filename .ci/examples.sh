# Sourced by .ci/run and .ci/third-party.sh: the one cargo selection every build of the web and
# GraphQL examples uses, so that CI compiles them once. Every feature of the examples (SQLite,
# PostgreSQL, MariaDB; `DATABASE_URL` picks one at run time), and keyset-runtime beside them, so
# that its GraphQL doc examples run on the same build: a cargo command that selected the examples
# alone would resolve other features (keyset-runtime's dev-dependencies) and rebuild everything.
# shellcheck shell=bash
examples=(-p keyset-examples -p keyset-runtime
    --features keyset-examples/web,keyset-examples/graphql,keyset-examples/postgres,keyset-examples/mysql)
