#!/bin/sh
# judgments.sh HISTORY: in a run's directory (plan.json, maps/), the
# run's judgments on DuckDB, judged against the compact history HISTORY
# (an existing directory: empty on the first day), published as
# judgments/shard-N.parquet, one file for every shard, without rows for
# a shard with nothing to judge. Rerun whole on failure.
# VERIFY_JUDGE_MEMORY bounds DuckDB below the job's memory (run.sh asks
# for 4G; DuckDB would otherwise take 80% of the node's), spilling to
# TMPDIR past it: docs/scale-out.md, Sizing.
set -eu
exec verify judge --plan plan.json --history-keys "$1" \
  --memory-limit "${VERIFY_JUDGE_MEMORY:-3GB}" --temp-dir "${TMPDIR:-/tmp}" \
  --emit judgments maps/*
