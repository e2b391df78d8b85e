#!/bin/sh
# append.sh HISTORY: in a run's directory, once verify summarize exited
# 0, 1 or 2, the run's keys appended to the compact history HISTORY as
# HISTORY/RUN-ID. A run appended already is left as it is, so a rerun is
# safe.
set -eu
exec verify judge --plan plan.json --append-history "$1" maps/*
