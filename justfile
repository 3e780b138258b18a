# lb — reproducible load-balancing research. `just --list` shows the recipes.
# Everything builds in the release profile: one profile for tests and
# binaries, so a clean machine compiles the workspace once.

set shell := ["bash", "-euo", "pipefail", "-c"]

# Not --quiet: a cold build takes minutes (polars), and cargo's progress says so.
lb := "cargo run --release -p lb-cli --"

# Regenerate every figure, table and report page (cache hits are free).
[doc("Regenerate every figure, table and report page (cache hits are free)")]
reproduce *ARGS:
    {{lb}} reproduce {{ARGS}}

# Puts `lb` on the PATH: the release binary this workspace builds anyway (no
# second build in a folder of its own), with the lock file's versions, copied
# to cargo's bin folder (on the PATH wherever rustup installed Rust).
[doc("Put `lb` on the PATH (the workspace's release build, the lock file's versions)")]
install:
    cargo build --release --locked -p lb-cli
    bin="${CARGO_HOME:-$HOME/.cargo}/bin"; mkdir -p "$bin"; install -m 755 "$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/lb" "$bin/lb"; echo "installed $bin/lb: $("$bin/lb" --version)"; case ":$PATH:" in *":$bin:"*) ;; *) echo "$bin is not on your PATH: add it (export PATH=\"$bin:\$PATH\")";; esac

# The test suite (fast: heavy simulations are not in the default run). Uses
# cargo-nextest where installed (`cargo install cargo-nextest`), else cargo test.
[doc("The test suite (heavy simulations are not in the default run)")]
test:
    if cargo nextest --version >/dev/null 2>&1; then cargo nextest run --workspace --release --no-fail-fast; else cargo test --workspace --release --no-fail-fast; fi
    cargo test --workspace --release --doc 2>&1 | awk -f scripts/doctests.awk

# Slot-loop throughput against lb's speed targets, then the event rates of
# the continuous-time engines (single thread).
[doc("Throughput against the targets: slots per second, then the continuous-time event rates")]
bench *ARGS:
    cargo bench -p lb-core --bench slots -- {{ARGS}}
    cargo bench -p lb-core --bench events

# Verdicts on every claim, then a sampled bit-for-bit re-verification.
[doc("Verdicts on every claim, then a sampled bit-for-bit re-verification")]
audit *ARGS:
    {{lb}} audit {{ARGS}}
    {{lb}} verify --sample 20

# The coverage certificate (experiments/coverage/certificate.toml): entries without a
# record in results/coverage/ are computed (their replications go to .lb-scratch/, not
# kept), then the table is printed; `just reproduce` puts it in the report.
[doc("The coverage certificate: compute the missing entries, print the table")]
certify *ARGS:
    {{lb}} coverage --certificate experiments/coverage/certificate.toml {{ARGS}}

# Times the whole certificate from scratch (every replication recomputed into a fresh
# scratch cache: their own times sum to 538 CPU-minutes on 2026-12-03, each replication
# counted once though several entries read it); its records in
# results/coverage/ are rewritten with the same numbers (the replications are lb's own,
# deterministic).
[doc("Time the whole coverage certificate from scratch (about 9 CPU-hours)")]
bench-certificate:
    scratch=$(mktemp -d) && time {{lb}} coverage --certificate experiments/coverage/certificate.toml --again --scratch "$scratch" > /dev/null && rm -rf "$scratch"

[doc("Format the workspace")]
fmt:
    cargo fmt --all

[doc("rustfmt check and clippy -D warnings")]
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets --release -- -D warnings

# Scale-out on a real single-node Slurm cluster (installs and starts one:
# needs root): lb slurm --submit of a small manifest, checked bit for bit
# against a local run. About a minute once the workspace is built.
[doc("Scale-out on a real single-node Slurm cluster (needs root), checked against a local run")]
slurm-test:
    bash scripts/slurm-single-node.sh
    LB_SLURM_TEST=1 cargo nextest run --release -p lb-cli --no-fail-fast -E 'binary(shards)'

# The manifests' JSON Schemas: regenerate (after changing a manifest type),
# then check them with Taplo against the shipped manifests and the hostile
# corpus (needs `npm install -g @taplo/cli`).
[doc("Regenerate the manifests' JSON Schemas and check them with Taplo")]
schema:
    {{lb}} schema
    LB=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/lb bash scripts/schema-check.sh

# A citable archive of the audit of MANIFESTS (default: every experiment) in
# DIR, its RO-Crate metadata validated with roc-validator (pip install
# roc-validator).
[doc("A citable archive of the audit in DIR, its RO-Crate metadata validated")]
archive DIR *MANIFESTS:
    {{lb}} archive {{MANIFESTS}} --out {{DIR}}
    python3 scripts/rocrate-validate.py {{DIR}}
