#!/usr/bin/env bash
# Runs sbt on a fresh machine.
#  - JDK: see project/pick-java.sh (a JDK >= 21 when one is installed).
#  - sbt: an installed `sbt` if there is one; else the sbt launcher jar, fetched once from
#    Maven Central through Maven into ~/.m2 and reused from there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sbt_version="$(sed -n 's/^sbt.version *= *//p' "$here/project/build.properties")"

# shellcheck source=project/pick-java.sh
. "$here/project/pick-java.sh"
if command -v sbt >/dev/null 2>&1 && [ "$(command -v sbt)" != "$here/sbt" ]; then
  exec sbt "$@"
fi

launcher="$HOME/.m2/repository/org/scala-sbt/sbt-launch/$sbt_version/sbt-launch-$sbt_version.jar"
if [ ! -f "$launcher" ]; then
  if ! command -v mvn >/dev/null 2>&1; then
    echo "sbt wrapper: neither sbt nor Maven is installed; install one of them" >&2
    exit 1
  fi
  echo "sbt wrapper: fetching the sbt $sbt_version launcher through Maven (once)" >&2
  mvn -q dependency:get -Dtransitive=false "-Dartifact=org.scala-sbt:sbt-launch:$sbt_version" >&2
fi

# JDK 23+ warns about sbt's own use of sun.misc.Unsafe and JNA; these flags (unknown before) allow them.
quiet=()
if [ "$(java_major "$JAVA_HOME/bin/java")" -ge 23 ]; then
  quiet=(--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED)
fi

exec "$JAVA_HOME/bin/java" -Xms512m -Xmx3g -Xss4m "${quiet[@]}" \
  -Dsbt.log.noformat="${SBT_NOFORMAT:-false}" \
  -jar "$launcher" "$@"
