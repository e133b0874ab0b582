#!/bin/sh
# Writes OUT/BuildStamp.swift for the BuildInfo target: the git commit of the package at
# PACKAGE (`unknown` when PACKAGE is not the top of a git checkout) and the version of the
# swiftc on PATH (`unknown` without one). The file is replaced only when its text changes.
# Usage: stamp.sh PACKAGE OUT
set -u
package=$1
out=$2
commit=unknown
top=$(git -C "$package" rev-parse --show-toplevel 2>/dev/null) &&
  [ "$(cd "$top" && pwd -P)" = "$(cd "$package" && pwd -P)" ] &&
  commit=$(git -C "$package" rev-parse --short=12 HEAD 2>/dev/null) || commit=unknown
swift=$(swiftc --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -n 1)
[ -n "$swift" ] || swift=unknown
mkdir -p "$out"
cat > "$out/BuildStamp.swift.new" <<SWIFT
// Written by Plugins/BuildStamp before each build; not in the repository.
extension BuildInfo {
    /// The git commit built, or \`unknown\` when built outside a git checkout.
    public static let commit = "$commit"
    /// The version of the Swift compiler that built it.
    public static let swift = "$swift"
}
SWIFT
if cmp -s "$out/BuildStamp.swift.new" "$out/BuildStamp.swift"; then
  rm -f "$out/BuildStamp.swift.new"
else
  mv "$out/BuildStamp.swift.new" "$out/BuildStamp.swift"
fi
