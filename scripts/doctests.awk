# Filters `cargo test --doc`: a crate with no doc tests prints a block that
# says "running 0 tests"; it is dropped, with the blank line after it.
/^ *Doc-tests / { pending = 1; buf = $0 "\n"; zero = 0; next }
pending && /^running 0 tests$/ { zero = 1 }
pending {
    buf = buf $0 "\n"
    if ($0 ~ /^test result:/) { if (!zero) printf "%s", buf; else dropped = 1; pending = 0 }
    next
}
dropped && /^$/ { dropped = 0; next }
{ dropped = 0; print }
END { if (pending) printf "%s", buf }
