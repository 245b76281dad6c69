# The sphere beds of the benchmark, sourced by bench/run.sh and bench/shapes.sh (from the
# repository's root, with WORK, SCENE_TEMPLATE and die() set): make_bed SIZE writes
# $WORK/bed_SIZE.data and $WORK/bed_SIZE.yaml.
size_n() { case $1 in 10k) echo 10000 ;; 20k) echo 20000 ;; 50k) echo 50000 ;; 100k) echo 100000 ;; 1m) echo 1000000 ;; *) return 1 ;; esac; }
size_rep() { case $1 in 10k) echo "1 1" ;; 20k) echo "2 1" ;; 50k) echo "5 1" ;; 100k) echo "5 2" ;; 1m) echo "10 10" ;; esac; }

make_bed() { # SIZE: bench/work/bed_SIZE.data and bench/work/bed_SIZE.yaml
  local size=$1 data=$WORK/bed_$1.data scene=$WORK/bed_$1.yaml
  size_n "$size" > /dev/null || die "unknown size '$size' (10k, 20k, 50k, 100k, 1m)"
  [ -s $WORK/bed_10k.data ] || gunzip -c bench/peers/bed_10k.data.gz > $WORK/bed_10k.data || die "gunzip failed"
  if [ "$size" != 10k ] && [ ! -s "$data" ]; then
    read -r nx ny <<< "$(size_rep "$size")"
    python3 bench/peers/make_bed_data.py $WORK/bed_10k.data "$data" --nx "$nx" --ny "$ny" --zhi 0.03 \
      || die "make_bed_data.py failed for $size"
  fi
  # the scene: the template (bench/bed.yaml) with the domain's min and max set to the data
  # file's box (the rest of the line, `periodic: [x, y]`, is kept)
  local mm
  mm=$(awk '/xlo xhi/{x0=$1;x1=$2} /ylo yhi/{y0=$1;y1=$2} /zlo zhi/{z0=$1;z1=$2}
            /^Atoms/{exit} END{printf "min: [%s, %s, %s], max: [%s, %s, %s]", x0,y0,z0,x1,y1,z1}' "$data")
  grep -qE '^domain: \{min: \[[^]]*\], max: \[[^]]*\]' "$SCENE_TEMPLATE" \
    || die "$SCENE_TEMPLATE has no one-line 'domain: {min: [...], max: [...], ...}'"
  sed -E "s/^domain: \{min: \[[^]]*\], max: \[[^]]*\]/domain: {$mm/" "$SCENE_TEMPLATE" > "$scene"
}

