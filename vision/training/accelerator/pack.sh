#!/usr/bin/env bash
# Pack the window sets train.sh made in $WORK (ONLY=data bash vision/training/train.sh makes them and stops) for
# an accelerator that cannot render (no font or card-art packages) and takes a limited upload:
# .accelerator/stage1 holds the rendered sets, each without the "no index" windows training would drop, at JPEG
# quality 85, and 5,000/3,000-window samples of the held-out sets that watch training's progress (about 49 MB);
# .accelerator/stage2 the real photos' windows at quality 90 (about 23 MB).
# Then stage1.sh and stage2.sh there, in that order, on the same machine (see vision/README.md).
set -euo pipefail
cd "$(dirname "$0")/../../.."
PY=${PY:-.venv/bin/python}
WORK=${WORK:-/tmp/guandan-index}
mkdir -p .accelerator/stage1 .accelerator/stage2
pack() {  # pack SET PART ARGS...
    local set=$1 part=$2
    shift 2
    [ -f ".accelerator/$part/$set.pack.npz" ] || $PY -m vision.training.window_pack pack "$WORK/$set.npz" \
        ".accelerator/$part/$set.pack.npz" "$@"
}
for set in train1 train2 dark jokers; do
    pack "$set" stage1 --quality 85 --none-per-card 1.3
done
pack held stage1 --quality 85 --at-most 5000
pack held_dark stage1 --quality 85 --at-most 3000
pack real_train stage2 --quality 90
pack real_cal stage2 --quality 90
du -sh .accelerator/stage1 .accelerator/stage2
