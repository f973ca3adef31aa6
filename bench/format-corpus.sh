#!/usr/bin/env bash
# Clones the documentation repositories of test/fixtures/formats/corpus.json at their pinned
# commits into node_modules/.cache/format-corpus, where test/shared/formats/format-corpus.test.ts compares
# the reST and AsciiDoc outlines with docutils and Asciidoctor.js on their real pages.
# Their files are never committed here.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=node_modules/.cache/format-corpus
mkdir -p "$dest"
node -e 'for (const r of require("./test/fixtures/formats/corpus.json").repositories) console.log(r.repo, r.sha)' |
  while read -r repo sha; do
    dir="$dest/${repo/\//+}"
    [ -d "$dir" ] || git clone --quiet --filter=blob:none "https://github.com/$repo" "$dir"
    git -C "$dir" cat-file -e "$sha^{commit}" 2>/dev/null || git -C "$dir" fetch --quiet origin "$sha"
    echo "$repo at $sha: $dir"
  done
