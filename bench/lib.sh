# Shared by the benchmark scripts: source it after setting `repo`.
#   weir_bench_start OUT_NAME PORT SERVE-ARGS...   sets `out` (created), `weir` (the staged command),
#   exports the JDK that ./weir picks (21 or later, as JAVA_HOME), raises the open-file limit,
#   builds weir once and starts `weir serve` on PORT in the background (killed on exit), waiting
#   until it answers.
weir_bench_start() {
  local name="$1" port="$2"; shift 2
  out="${OUT:-$repo/bench/$name/$(date +%Y%m%d-%H%M%S)}"
  mkdir -p "$out"
  ulimit -n "$(ulimit -Hn)"
  "$repo/weir" --help >/dev/null 2>&1 || true   # build once
  weir="$repo/modules/cli/target/universal/stage/bin/weir"
  # shellcheck source=../project/pick-java.sh
  . "$repo/project/pick-java.sh"
  export JAVA_HOME PATH
  echo "JDK: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); cores: $(nproc)" | tee "$out/env.txt"
  "$weir" serve --port "$port" "$@" >"$out/server.log" 2>&1 &
  weir_bench_server=$!
  trap 'kill $weir_bench_server 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
}
