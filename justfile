# lb — reproducible load-balancing research. `just --list` shows the recipes.
# Everything builds in the release profile: one profile for tests and
# binaries, so a clean machine compiles the workspace once.

set shell := ["bash", "-euo", "pipefail", "-c"]

lb := "cargo run --quiet --release -p lb-cli --"

# Regenerate every figure, table and report page (cache hits are free).
reproduce *ARGS:
    {{lb}} reproduce {{ARGS}}

# The test suite (fast: heavy simulations are not in the default run).
test:
    cargo nextest run --workspace --release --no-fail-fast
    cargo test --workspace --release --doc

# Slot-loop throughput against the targets of issues 2 and 14, then the event rates of
# the continuous-time engines (single thread).
bench *ARGS:
    cargo bench -p lb-core --bench slots -- {{ARGS}}
    cargo bench -p lb-core --bench events

# Verdicts on every claim, then a sampled bit-for-bit re-verification.
audit *ARGS:
    {{lb}} audit {{ARGS}}
    {{lb}} verify --sample 20

fmt:
    cargo fmt --all

lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets --release -- -D warnings
