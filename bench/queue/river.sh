#!/usr/bin/env bash
# River's command line (cmd/river at the version given), built once from the Go module proxy into
# DIR; prints its path. The proxy has no version list for cmd/river, which `go install ...@version`
# wants for its deprecation check, so it is built inside a throwaway module.
# Usage: bench/queue/river.sh VERSION DIR
set -euo pipefail
version=$1 dir=$2
export PATH="$PATH:/usr/local/go/bin"
river="$dir/river-$version"
if [[ ! -x "$river" ]]; then
  rm -rf "$dir/river-build" && mkdir -p "$dir/river-build"
  (
    cd "$dir/river-build"
    export GOPROXY="$(go env GOPROXY | sed 's/,direct$//')"
    go mod init riverbench >/dev/null 2>&1
    go get "github.com/riverqueue/river/cmd/river@$version" >/dev/null 2>&1
    go build -o "$river" github.com/riverqueue/river/cmd/river
  )
fi
echo "$river"
