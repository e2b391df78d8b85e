#!/bin/sh
# run.sh DAY SHARDS: a day's sharded run (docs/scale-out.md) as Slurm jobs,
# each waiting on the one before: the plan here, then the map array, the
# judgments, the fold array, the summary, and the history's append.
# Where things are: VERIFY_LAKE (the run's directory is
# $VERIFY_LAKE/verify/DAY, the compact history $VERIFY_LAKE/history),
# VERIFY_ARCHIVE (the day's files in $VERIFY_ARCHIVE/DAY/), VERIFY_KEYS,
# VERIFY_SCHEMAS. judgments.sh and append.sh are this script's
# neighbours.
set -eu
day=$1 shards=$2
: "${VERIFY_LAKE:=/lake}" "${VERIFY_ARCHIVE:=/archive}"
: "${VERIFY_KEYS:=/etc/verify/jwks.json}" "${VERIFY_SCHEMAS:=/etc/verify/schemas}"
here=$(cd "$(dirname "$0")" && pwd)
history=$VERIFY_LAKE/history
mkdir -p "$VERIFY_LAKE/verify/$day" "$history"   # the first day's history is empty
cd "$VERIFY_LAKE/verify/$day"
# --at: one instant for every step, named in the plan (here the end of the day).
verify plan --keys "$VERIFY_KEYS" --schemas "$VERIFY_SCHEMAS" --at "${day}T23:59:59Z" \
  --id "$day" --shards "$shards" -o plan.json "$VERIFY_ARCHIVE/$day/"
last=$((shards - 1))
map=$(sbatch --parsable --array=0-$last --cpus-per-task=2 --mem=1536M --requeue \
  --wrap 'verify receipts --plan plan.json --emit maps/shard-$SLURM_ARRAY_TASK_ID --shard $SLURM_ARRAY_TASK_ID')
judge=$(sbatch --parsable --dependency=afterok:$map --mem=4G --wrap "sh '$here/judgments.sh' '$history'")
fold=$(sbatch --parsable --dependency=afterok:$judge --array=0-$last --mem=1G --requeue \
  --wrap 'verify finalize --plan plan.json --judgments judgments/shard-$SLURM_ARRAY_TASK_ID.parquet -f jsonl --shard $SLURM_ARRAY_TASK_ID --emit folds/shard-$SLURM_ARRAY_TASK_ID maps/*')
# The run's verdict is summarize's exit code: 1 and 2 (failures found) are not a failed job.
sum=$(sbatch --parsable --dependency=afterok:$fold \
  --wrap 'verify summarize --plan plan.json --results folds/* > results.jsonl; test $? -le 2')
# The day's keys into the compact history once its verdicts are out: the next day judges against it.
sbatch --parsable --dependency=afterok:$sum --mem=2G --wrap "sh '$here/append.sh' '$history'"
