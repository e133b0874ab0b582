#!/bin/sh
# Writes OUT/ContractFiles.swift for the StreamServer target: each of DOCS/openapi.json,
# DOCS/asyncapi.json and DOCS/schema/*.json as a raw string literal, under the path the
# server serves it at (/v1/openapi.json, /v1/asyncapi.json, /v1/schema/NAME.json). The
# file is replaced only when its text changes.
# Usage: embed.sh DOCS OUT
set -eu
docs=$1
out=$2
mkdir -p "$out"
new="$out/ContractFiles.swift.new"
{
  echo "// Written by Plugins/EmbedContract before each build from docs/; not in the repository."
  echo "extension ContractDocuments {"
  echo "    /// Each document's path on the server and its text."
  echo "    static let files: [(path: String, text: String)] = ["
  for file in "$docs/openapi.json" "$docs/asyncapi.json" "$docs"/schema/*.json; do
    if grep -q -e '"""#' -e '\\#' "$file"; then
      echo "embed.sh: $file holds \"\"\"# or \\#, which would end or escape a raw string" >&2
      exit 1
    fi
    printf '        ("/v1/%s",\n#"""\n' "${file#"$docs"/}"
    cat "$file"
    printf '"""#),\n'
  done
  echo "    ]"
  echo "}"
} > "$new"
if cmp -s "$new" "$out/ContractFiles.swift"; then
  rm -f "$new"
else
  mv "$new" "$out/ContractFiles.swift"
fi
