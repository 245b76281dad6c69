#!/bin/sh
# A mesh wall and bodies other than spheres on several MPI ranks (issue 15): a rotating drum
# (examples/drum-spheres.yaml or drum-ellipsoids.yaml: an STL drum turning at 10 rpm, with its
# collision log), shortened to COUNT bodies, a fill of FILL s (0.1 by default) and 0.04 s of
# turning, and cut into domains of DOMAIN particles, run serially, on 2 ranks and resumed on 3
# from the 2 ranks' checkpoint (at 0.07 s): the drum's force and torque (drum.csv), energy.csv,
# particles.csv, repose.csv and collisions.csv identical to the serial run's, byte for byte (the
# checkpoint of 2 ranks is a piece per rank: the resume joins them, shape records included).
# Usage: test_mpi_mesh.sh TALUS SOURCE_DIR MPIEXEC EXAMPLE COUNT DOMAIN [FILL]
set -eu
talus=$1
src=$2
mpiexec=$3
example=$4
count=$5
domain=$6
fill=${7:-0.1}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/meshes"
cp "$src/examples/meshes/drum.stl" "$dir/meshes/"
sed -e "s/{name: fill, duration: 0.5}/{name: fill, duration: $fill}/" -e 's/{name: turn, duration: 6.0}/{name: turn, duration: 0.04}/' \
    -e "s/count: [0-9]*/count: $count/" -e '/type: plot/d' -e '/type: vtk/d' \
    -e 's/^outputs:/outputs:\n  - {type: collisions, file: collisions.csv}/' \
    "$src/examples/$example" > "$dir/drum.yaml"
printf 'neighbor: {domain_size: %s}\ncheckpoint: {every: 0.07}\n' "$domain" >> "$dir/drum.yaml"
for want in "duration: $fill}" 'duration: 0.04}' "count: $count" 'type: collisions' 'type: mesh'; do
    grep -q "$want" "$dir/drum.yaml" || { echo "the drum scene changed: no '$want'"; exit 1; }
done
run() { # N OUT [ARGS]: the drum on N ranks
    n=$1; out=$2; shift 2
    "$mpiexec" --allow-run-as-root --oversubscribe -n "$n" "$talus" run "$dir/drum.yaml" -o "$dir/$out" "$@" \
        > "$dir/$out.log" 2>&1 || { cat "$dir/$out.log"; exit 1; }
}
"$talus" run "$dir/drum.yaml" -o "$dir/serial" -q
run 2 ranks2
grep -q "spread over 2 MPI ranks" "$dir/ranks2.log" || { echo "not spread"; cat "$dir/ranks2.log"; exit 1; }
files="drum.csv energy.csv particles.csv repose.csv collisions.csv"
for f in $files; do
    cmp "$dir/serial/$f" "$dir/ranks2/$f" || { echo "2 ranks: $f differs"; exit 1; }
done
# the drum carried the bed: its force is not nil at the end (a comparison of zeros proves nothing)
tail -n 3 "$dir/serial/drum.csv" | awk -F, '$3 == 0 { f = $10 * $10 + $11 * $11 + $12 * $12; if (f > 1e-4) ok = 1 }
    END { exit !ok }' || { echo "the drum carries nothing"; tail -n 3 "$dir/serial/drum.csv"; exit 1; }
ck=$(cat "$dir/ranks2/checkpoint/latest")
n=$(ls "$dir/ranks2/checkpoint" | grep -cE "^${ck%.tlck}\.[0-9a-f]{16}\.piece[01]\$" || true)
[ "$n" -eq 2 ] || { echo "2 ranks: $n pieces of $ck"; ls "$dir/ranks2/checkpoint"; exit 1; }
echo "$example on 2 ranks: $files identical to the serial run's; $ck in 2 pieces"
cp -r "$dir/ranks2" "$dir/ranks3"
run 3 ranks3 --resume "$dir/ranks3/checkpoint"
grep -q "resuming from" "$dir/ranks3.log" || { echo "not resumed"; cat "$dir/ranks3.log"; exit 1; }
for f in $files; do
    cmp "$dir/serial/$f" "$dir/ranks3/$f" || { echo "resumed on 3 ranks: $f differs"; exit 1; }
done
echo "resumed on 3 ranks from the checkpoint of 2: $files identical to the serial run's"
