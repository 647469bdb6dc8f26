#!/usr/bin/env bash
# Renders weir HTML reports in headless Chromium and writes PNG screenshots of them.
#
#   scripts/report-screenshots.sh OUT_DIR REPORT.html[@WIDTHxHEIGHT] ...
#   scripts/report-screenshots.sh OUT_DIR NAME=http://127.0.0.1:8181/[@WIDTHxHEIGHT] ...
#
# Each argument is a report file (or a page served over HTTP, such as `weir queue ui`'s, named
# NAME) and a window size (default 1000x1400): the screenshot is the top of the page at that size,
# OUT_DIR/<report name or NAME>-<width>.png. Chromium comes from Debian's
# `chromium` package, installed with apt-get when it is missing; it runs headless with a fresh
# profile and no network services, and reads the file from disk only (the reports load nothing).
# When `pngquant` is on PATH, the PNG is reduced to 64 colours (charts need no more), which keeps
# committed screenshots small.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 OUT_DIR REPORT.html[@WIDTHxHEIGHT] ..." >&2
  exit 2
fi
out="$1"
shift
mkdir -p "$out"

browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "report-screenshots: installing Debian's chromium (apt-get)" >&2
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
  $sudo_cmd apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q chromium >&2
  browser="$(command -v chromium)"
fi

for arg in "$@"; do
  file="${arg%@*}"
  size="1000x1400"
  if [ "$file" != "$arg" ]; then size="${arg##*@}"; fi
  width="${size%x*}"
  height="${size#*x}"
  if [[ "$file" == *=http://* || "$file" == *=https://* ]]; then
    name="${file%%=*}-$width.png"
    url="${file#*=}"
  else
    if [ ! -f "$file" ]; then
      echo "report-screenshots: no such file: $file" >&2
      exit 2
    fi
    name="$(basename "$file" .html)-$width.png"
    url="file://$(cd "$(dirname "$file")" && pwd)/$(basename "$file")"
  fi
  profile="$(mktemp -d)"
  "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --force-device-scale-factor=1 \
    --user-data-dir="$profile" --window-size="$width,$height" \
    --screenshot="$out/$name" "$url" >/dev/null 2>&1 || {
      rm -rf "$profile"
      echo "report-screenshots: chromium failed on $url" >&2
      exit 1
    }
  rm -rf "$profile"
  if command -v pngquant >/dev/null 2>&1; then
    pngquant --force --nofs --output "$out/$name" 64 -- "$out/$name"
  fi
  echo "$out/$name"
done
