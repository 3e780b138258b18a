#!/usr/bin/env bash
# The manifests' JSON Schemas (schema/, `lb schema`) against a standard tool,
# Taplo's CLI: every shipped manifest validates against the schema its
# `#:schema` line names, and on the hostile corpus the schema is never
# stricter than `lb plan` (what lb plan accepts, the schema accepts; what the
# schema refuses, lb plan refuses). What only lb plan refuses needs the whole
# manifest (a load ≥ 1, a NaN, a name a claim does not define) and is counted.
# Needs taplo on PATH (`npm install -g @taplo/cli`) and a built lb (LB, default
# target/release/lb).
set -euo pipefail
cd "$(dirname "$0")/.."
LB=${LB:-target/release/lb}
command -v taplo >/dev/null || { echo "taplo is not installed (npm install -g @taplo/cli)" >&2; exit 1; }

echo "shipped manifests against their #:schema:"
taplo check experiments/*.toml experiments/coverage/*.toml 2>&1 | grep -v " INFO " || true
taplo check experiments/*.toml experiments/coverage/*.toml >/dev/null 2>&1 \
  || { echo "a shipped manifest does not validate against its schema" >&2; exit 1; }

model_of() {
  python3 - "$1" <<'PY' 2>/dev/null || echo slotted
import sys, tomllib
m = tomllib.load(open(sys.argv[1], "rb")).get("experiment", {}).get("model", "slotted")
print(m if m in ("slotted", "many", "spn") else "slotted")
PY
}

both=0; lb_only=0; accepted=0; bad=0
for f in crates/lb-cli/tests/hostile/*.toml; do
  m=$(model_of "$f")
  if taplo check --schema "file://$PWD/schema/$m.json" "$f" >/dev/null 2>&1; then s=ok; else s=no; fi
  if "$LB" plan "$f" >/dev/null 2>&1; then l=ok; else l=no; fi
  case "$s/$l" in
    no/no) both=$((both + 1)) ;;
    ok/no) lb_only=$((lb_only + 1)) ;;
    ok/ok) accepted=$((accepted + 1)) ;;
    no/ok) echo "the schema refuses what lb plan accepts: $f" >&2; bad=$((bad + 1)) ;;
  esac
done
echo "hostile corpus: $both refused by both, $lb_only by lb plan only (whole-manifest checks), $accepted accepted by both"
test "$bad" -eq 0
