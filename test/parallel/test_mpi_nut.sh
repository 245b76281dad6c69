#!/bin/sh
# Meshed bodies on several MPI ranks (issue 15): the Brazil nut of 000 with meshed ellipsoids
# (examples/000-brazil-nut-mesh.yaml: 150 peanuts of 810 vertices and a nut of 2864 in a rocking
# box), its first 0.1 s (the bodies fall into contact), serially and on 2 ranks (domains of 64):
# the nut's track, the energy and the box's force and torque identical to the serial run's.
# Usage: test_mpi_nut.sh TALUS SOURCE_DIR MPIEXEC
set -eu
talus=$1
src=$2
mpiexec=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed -e 's/{name: rock, duration: 12.0}/{name: rock, duration: 0.1}/' -e '/type: vtk/d' \
    "$src/examples/000-brazil-nut-mesh.yaml" > "$dir/nut.yaml"
grep -q 'duration: 0.1}' "$dir/nut.yaml" || { echo "the Brazil nut scene's stage line changed"; exit 1; }
echo "neighbor: {domain_size: 64}" >> "$dir/nut.yaml"
"$talus" run "$dir/nut.yaml" -o "$dir/serial" -q
"$mpiexec" --allow-run-as-root --oversubscribe -n 2 "$talus" run "$dir/nut.yaml" -o "$dir/ranks2" > "$dir/log2" 2>&1 ||
    { cat "$dir/log2"; exit 1; }
grep -q "spread over 2 MPI ranks" "$dir/log2" || { echo "not spread"; cat "$dir/log2"; exit 1; }
for f in nut.csv energy.csv box.csv; do
    cmp "$dir/serial/$f" "$dir/ranks2/$f" || { echo "2 ranks: $f differs"; exit 1; }
done
contacts=$(tail -n 1 "$dir/serial/energy.csv" | awk -F, '{ print $NF }')
[ "$contacts" -gt 50 ] || { echo "only $contacts contacts at the end: nothing compared"; exit 1; }
echo "the meshed Brazil nut on 2 ranks: nut.csv, energy.csv and box.csv identical to the serial run's ($contacts contacts)"
