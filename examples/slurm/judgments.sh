#!/bin/sh
# judgments.sh HISTORY: in a run's directory (plan.json, maps/), the
# run's judgments on DuckDB, judged against the compact history HISTORY
# (an existing directory: empty on the first day), published as
# judgments/shard-N.parquet, one file for every shard, without rows for
# a shard with nothing to judge. Rerun whole on failure.
set -eu
exec verify judge --plan plan.json --history-keys "$1" --emit judgments maps/*
