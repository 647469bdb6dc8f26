# Sourced by ./sbt and ./weir: exports JAVA_HOME and PATH for a JDK >= 21 when one is installed.
# Order: $WEIR_JAVA_HOME, $JAVA_HOME, `java` on PATH, then the newest under /usr/lib/jvm, /opt/java
# and ~/.sdkman. Falls back to whatever java there is, with a warning (virtual threads need 21).
java_major() { # prints the major version of the java binary $1, or 0
  # A JDK's `release` file says it without starting a JVM (each start costs ~0.1 s), read with bash
  # alone (a `sed` per JDK made picking one ~60 ms of every ./weir start); else ask java.
  local bin release line v
  bin="$(readlink -f "$1")"
  release="${bin%/bin/java}/release"
  if [ -r "$release" ]; then
    while IFS= read -r line || [ -n "$line" ]; do
      case $line in
        JAVA_VERSION=*)
          v="${line#JAVA_VERSION=}"; v="${v//\"/}"; v="${v#1.}"; v="${v%%[!0-9]*}"
          if [ -n "$v" ]; then echo "$v"; return; fi ;;
      esac
    done < "$release"
  fi
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | sed 's/^1\.//' | head -1 || echo 0
}

pick_java_home() {
  local candidates=() best="" best_major=0 home major
  [ -n "${WEIR_JAVA_HOME:-}" ] && candidates+=("$WEIR_JAVA_HOME")
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  for home in "${candidates[@]}"; do
    [ -x "$home/bin/java" ] || continue
    major="$(java_major "$home/bin/java")"
    if [ "${major:-0}" -ge 21 ]; then echo "$home"; return; fi
  done
  for home in /usr/lib/jvm/* /opt/java/* "$HOME"/.sdkman/candidates/java/*; do
    [ -x "$home/bin/java" ] || continue
    major="$(java_major "$home/bin/java")"
    if [ "${major:-0}" -gt "$best_major" ]; then best="$home"; best_major="$major"; fi
  done
  if [ "$best_major" -ge 21 ]; then echo "$best"; return; fi
  echo "sbt wrapper: no JDK >= 21 found; using ${candidates[0]:-$best} (virtual threads unavailable)" >&2
  echo "${candidates[0]:-$best}"
}

JAVA_HOME="$(pick_java_home)"
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
