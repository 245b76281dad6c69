#!/bin/sh
# The corpus of hostile input (test/io/hostile/): every scene there, and the
# larger ones made here, must be refused by both `talus check` and
# `talus run -o DIR` with the error status (1), within 10 s, with a message
# that names the file (and its line where there is one: test/io/hostile/EXPECT
# holds the start of each message), with no raw control character on the
# terminal, and with nothing written (no DIR, no file anywhere in the copy).
# Usage: test_hostile.sh TALUS SOURCE_DIR
TALUS=$1
SRC=$2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/talus_hostile_XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
FAILS=0
fail() {
    echo "FAIL: $*" >&2
    FAILS=$((FAILS + 1))
}

cp -R "$SRC/test/io/hostile" "$WORK/hostile" || exit 1
cd "$WORK/hostile" || exit 1
ESC=$(printf '\033')
BEL=$(printf '\007')

# generated here (too large to keep in the repository)
TAB=$(printf '\t')
yes 'a: 1' | head -c 17000000 > gen-size-17mb.yaml
echo "gen-size-17mb.yaml${TAB}gen-size-17mb.yaml: the scene file is 17000000 bytes, more than 16777216" > ../gen.txt
{ printf 'materials: ['; yes '1,' | head -n 150000 | tr -d '\n'; printf ']\n'; } > gen-flow-items.yaml
echo "gen-flow-items.yaml${TAB}gen-flow-items.yaml:1:200012: the document has more than 100000 items" >> ../gen.txt
{ printf 'materials:\n'; yes '  - 1' | head -n 120000; } > gen-nodes.yaml
echo "gen-nodes.yaml${TAB}gen-nodes.yaml:99999:5: the document has more than 100000 nodes" >> ../gen.txt
{ printf 'materials: '; yes '[' | head -n 300000 | tr -d '\n'; printf '\n'; } > gen-deep-flow.yaml
echo "gen-deep-flow.yaml${TAB}gen-deep-flow.yaml:1:44: the document nests deeper than 32 levels" >> ../gen.txt
printf 'x,y,z,radius\n' > data/gen-large.csv
truncate -s 270000000 data/gen-large.csv 2> /dev/null ||
    dd if=/dev/null of=data/gen-large.csv bs=1 seek=270000000 2> /dev/null
sed 's#data/nothere.csv#data/gen-large.csv#' file-missing.yaml > gen-data-size.yaml
echo "gen-data-size.yaml${TAB}is 270000000 bytes, more than 268435456 (the limit on a data file" >> ../gen.txt

# mesh files (issue 42): bounded, regular, only the named file read
cube_obj() { # name, offset, [extra first line]
    { [ -n "${3:-}" ] && echo "$3"
      o=$2
      for z in 0 1; do for y in 0 1; do for x in 0 1; do echo "v $((x + o)) $((y + o)) $((z + o))"; done; done; done
    } > "$1"
    # outward facets of the cube whose vertices were just written (indices from $4, default 1)
    b=${4:-1}
    awk -v b="$b" 'BEGIN { split("1 3 4 2 5 6 8 7 1 2 6 5 3 7 8 4 1 5 7 3 2 4 8 6", q, " ");
        for (i = 0; i < 6; i++) { a = q[4*i+1]+b-1; c = q[4*i+2]+b-1; d = q[4*i+3]+b-1; e = q[4*i+4]+b-1;
            printf "f %d %d %d\nf %d %d %d\n", a, c, d, a, d, e } }' >> "$1"
}
mesh_scene() { # scene, shape mesh spec (YAML flow)
    cat > "$1" <<YAML
talus: 1
gravity: [0, 0, -9.81]
materials:
  glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}
laws:
  - {between: [any, any], normal: hertz, damping: tsuji, e: 0.5}
shapes:
  body: {mesh: $2}
particles:
  - {material: glass, shape: body, position: [0, 0, 0.5]}
walls:
  - {type: plane, material: glass, point: [0, 0, -10], normal: [0, 0, 1]}
stages:
  - {duration: 1.0e-3}
YAML
}
mkfifo data/fifo.stl 2> /dev/null || fail "mkfifo failed"
mesh_scene gen-mesh-fifo.yaml "{file: data/fifo.stl}"
echo "gen-mesh-fifo.yaml${TAB}data/fifo.stl: not a regular file (it is a FIFO)" >> ../gen.txt
printf 'solid x\n' > data/big.stl
truncate -s 40000000 data/big.stl 2> /dev/null || dd if=/dev/null of=data/big.stl bs=1 seek=40000000 2> /dev/null
mesh_scene gen-mesh-big.yaml "{file: data/big.stl}"
echo "gen-mesh-big.yaml${TAB}data/big.stl: the mesh file is 40000000 bytes, more than 33554432" >> ../gen.txt
awk 'BEGIN { n = 100000; for (i = 0; i < n; i++) printf "v %.9f %.9f 0\n", cos(6.283185307 * i / n), sin(6.283185307 * i / n);
             printf "f"; for (i = 1; i <= n; i++) printf " %d", i; printf "\n" }' > data/polygon.obj
mesh_scene gen-mesh-polygon.yaml "{file: data/polygon.obj}"
echo "gen-mesh-polygon.yaml${TAB}data/polygon.obj: a polygon has 100000 vertices, more than 1000" >> ../gen.txt
cube_obj data/two-cubes.obj 0
cube_obj data/two-cubes-b.obj 0 "" 9
sed -n 's/^v \(.*\)/\1/p' data/two-cubes-b.obj | awk '{ printf "v %g %g %g\n", $1 + 0.5, $2 + 0.5, $3 + 0.5 }' > data/tc-v.txt
{ grep '^v' data/two-cubes.obj; cat data/tc-v.txt; grep '^f' data/two-cubes.obj; grep '^f' data/two-cubes-b.obj; } > data/overlap.obj
rm -f data/two-cubes.obj data/two-cubes-b.obj data/tc-v.txt
mesh_scene gen-mesh-overlap.yaml "{file: data/overlap.obj, units: cm}"
echo "gen-mesh-overlap.yaml${TAB}cross each other" >> ../gen.txt
cube_obj data/c-outer.obj 0
cube_obj data/c-inner.obj 0 "" 9
sed -n 's/^v \(.*\)/\1/p' data/c-inner.obj | awk '{ printf "v %g %g %g\n", 0.25 + 0.5 * $1, 0.25 + 0.5 * $2, 0.25 + 0.5 * $3 }' > data/ci-v.txt
{ grep '^v' data/c-outer.obj; cat data/ci-v.txt; grep '^f' data/c-outer.obj; grep '^f' data/c-inner.obj; } > data/nested.obj
rm -f data/c-outer.obj data/c-inner.obj data/ci-v.txt
mesh_scene gen-mesh-nested.yaml "{file: data/nested.obj, units: cm}"
echo "gen-mesh-nested.yaml${TAB}lies inside another of the mesh's closed surfaces" >> ../gen.txt
cube_obj data/cube.obj 0
mesh_scene gen-mesh-scale-far.yaml "{file: data/cube.obj, scale: 1.0e300}"
echo "gen-mesh-scale-far.yaml${TAB}the scale must be > 0 and at most 1e+06" >> ../gen.txt
sed 's/^v 1 1 1$/v 1e30 1 1/' data/cube.obj > data/cube-far.obj
mesh_scene gen-mesh-vertex-far.yaml "{file: data/cube-far.obj, units: mm}"
echo "gen-mesh-vertex-far.yaml${TAB}beyond 1e+12 m" >> ../gen.txt
# closed and manifold, no facet degenerate or repeated, but flat: a square's two sides
printf 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\nf 2 1 4\nf 2 4 3\n' > data/flat.obj
mesh_scene gen-mesh-flat.yaml "{file: data/flat.obj, units: cm}"
echo "gen-mesh-flat.yaml${TAB}encloses no volume" >> ../gen.txt
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\nf 1 2 3\n' > data/wall-dup.obj
sed 's#  - {type: plane, material: glass, point: \[0, 0, -10\], normal: \[0, 0, 1\]}#  - {type: mesh, material: glass, file: data/wall-dup.obj}#' gen-mesh-flat.yaml |
    sed 's#body: {mesh: {file: data/flat.obj, units: cm}}#body: {mesh: {icosphere: 0.01, subdivisions: 1}}#' > gen-mesh-wall-dup.yaml
echo "gen-mesh-wall-dup.yaml${TAB}facet 2 repeats facet 0" >> ../gen.txt
cat EXPECT ../gen.txt > ../expect.txt

find . | sort > ../before.txt
COUNT=0
while IFS="$TAB" read -r NAME EXPECT; do
    [ -n "$NAME" ] || continue
    [ -f "$NAME" ] || { fail "$NAME: listed in EXPECT but missing"; continue; }
    COUNT=$((COUNT + 1))
    for CMD in check run; do
        if [ "$CMD" = run ]; then
            timeout 10 "$TALUS" run "$NAME" -o "../out-$NAME" --quiet > ../msg.txt 2>&1
        else
            timeout 10 "$TALUS" check "$NAME" > ../msg.txt 2>&1
        fi
        RC=$?
        [ "$RC" -eq 124 ] && fail "$NAME: talus $CMD took more than 10 s"
        [ "$RC" -eq 1 ] || fail "$NAME: talus $CMD exited with $RC, not 1: $(tail -c 300 ../msg.txt)"
        grep -qF -- "$NAME" ../msg.txt ||
            fail "$NAME: talus $CMD does not name the file: $(tail -c 300 ../msg.txt)"
        grep -qF -- "$EXPECT" ../msg.txt ||
            fail "$NAME: talus $CMD: expected '$EXPECT', got: $(tail -c 400 ../msg.txt)"
        grep -q "[$ESC$BEL]" ../msg.txt && fail "$NAME: talus $CMD printed a raw control character"
        grep -q "root:" ../msg.txt && fail "$NAME: talus $CMD quoted a file outside the scene's folder"
        [ -e "../out-$NAME" ] && fail "$NAME: talus run left ../out-$NAME behind"
    done
done < ../expect.txt
find . | sort > ../after.txt
cmp -s ../before.txt ../after.txt || fail "files appeared: $(diff ../before.txt ../after.txt | head -5)"

# Unwritable outputs: a valid scene (check accepts it) whose run cannot write
# where it is told to. Each is refused with status 1 and the path and reason
# (before the first step; the full disk at the first flush of its file), and
# the folder is left as it was: no .part, no checkpoint, no directory the run
# made, new/a/b included (CI runs as root, so permissions cannot be the
# obstacle: a file in the way, a directory in the way, /proc, a full disk).
mkdir ../unwritable && cd ../unwritable || exit 1
cat > ok.yaml <<'YAML'
talus: 1
gravity: [0, 0, -9.81]
materials:
  glass: {density: 2500, youngs_modulus: 5.0e6, poisson_ratio: 0.25}
laws:
  - {between: [glass, glass], normal: hertz, damping: tsuji, e: 0.5}
walls:
  - {type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}
particles:
  - {material: glass, radius: 1.0e-3, position: [0, 0, 2.0e-3]}
stages:
  - {duration: 0.01}
checkpoint: {every: 0.004}
outputs:
  - {type: energy, file: energy.csv, every: 1.0e-3}
  - {type: particles, file: sub/p.csv, every: 1.0e-3}
  - {type: vtk, file: frames, every: 0.005}
YAML
sed 's#checkpoint: {every: 0.004}#checkpoint: {every: 0.004, dir: /proc/talus-ck}#' ok.yaml > ck-proc.yaml
touch afile
mkdir -p dir-energy/energy.csv dir-latest/checkpoint/latest dir-pvd/frames.pvd file-sub full
touch file-sub/sub
ln -s /dev/full full/energy.csv.part
"$TALUS" check ok.yaml > /dev/null 2>&1 || fail "unwritable: the scene itself is refused by check"
UCOUNT=0
unwritable() { # scene, -o dir, expected text[, the one entry the run may remove]
    UCOUNT=$((UCOUNT + 1))
    find . | sort > ../u-before.txt
    timeout 10 "$TALUS" run "$1" -o "$2" --quiet > ../msg.txt 2>&1
    RC=$?
    [ "$RC" -eq 1 ] || fail "unwritable $2: exit status $RC, not 1: $(tail -c 300 ../msg.txt)"
    grep -qF -- "$3" ../msg.txt || fail "unwritable $2: expected '$3', got: $(tail -c 400 ../msg.txt)"
    find . | sort > ../u-after.txt
    [ -n "${4:-}" ] && grep -vxF -- "$4" ../u-before.txt > ../u-want.txt && mv ../u-want.txt ../u-before.txt
    cmp -s ../u-before.txt ../u-after.txt ||
        fail "unwritable $2: the folder changed: $(diff ../u-before.txt ../u-after.txt | head -5)"
}
unwritable ok.yaml afile/out "cannot create directory 'afile': a file of that name exists"
unwritable ok.yaml /proc/talus-out "cannot create directory '/proc/talus-out'"
unwritable ck-proc.yaml ckp "ck-proc.yaml:13: checkpoint: cannot create directory '/proc/talus-ck'"
unwritable ok.yaml dir-energy "cannot write 'dir-energy/energy.csv': a directory of that name exists"
unwritable ok.yaml dir-latest "ok.yaml:13: checkpoint: cannot write 'dir-latest/checkpoint/latest': a directory"
unwritable ok.yaml dir-pvd "cannot write 'dir-pvd/frames.pvd': a directory of that name exists"
unwritable ok.yaml file-sub "cannot create directory 'file-sub/sub': a file of that name exists"
# (the run's own .part, here the link to /dev/full, is removed as a failed run's .part is)
unwritable ok.yaml full "cannot write 'full/energy.csv.part': No space left on device" ./full/energy.csv.part
unwritable ck-proc.yaml new/a/b "ck-proc.yaml:13: checkpoint: cannot create directory '/proc/talus-ck'"
COUNT=$((COUNT + UCOUNT))

# a resume whose newest checkpoint is a FIFO, or a huge file that is not one: refused from its
# type or header at once (no wait for a writer, no 3 GB read), and the run falls back to the
# older intact checkpoint
sed 's#checkpoint: {every: 0.004}#checkpoint: {every: 0.004, keep: 3}#' ok.yaml > ck-keep.yaml
"$TALUS" run ck-keep.yaml -o ckrun --quiet > /dev/null 2>&1 || fail "checkpoint run: the scene itself failed"
newest=$(cat ckrun/checkpoint/latest 2> /dev/null)
[ -n "$newest" ] && [ "$(ls ckrun/checkpoint/*.tlck | wc -l)" -ge 2 ] || fail "checkpoint run: fewer than two checkpoints"
for kind in fifo huge; do
    rm -rf "ck-$kind" && cp -R ckrun "ck-$kind"
    rm -f "ck-$kind/checkpoint/$newest"
    if [ $kind = fifo ]; then mkfifo "ck-$kind/checkpoint/$newest"
    else truncate -s 3000000000 "ck-$kind/checkpoint/$newest" 2> /dev/null ||
        dd if=/dev/null of="ck-$kind/checkpoint/$newest" bs=1 seek=3000000000 2> /dev/null; fi
    timeout 10 "$TALUS" run ck-keep.yaml -o "ck-$kind" --resume "ck-$kind" > ../msg.txt 2>&1
    RC=$?
    [ "$RC" -eq 0 ] || fail "resume past a $kind checkpoint: exit $RC: $(tail -c 300 ../msg.txt)"
    grep -q "the newest checkpoint was refused" ../msg.txt ||
        fail "resume past a $kind checkpoint: no fall-back note: $(tail -c 300 ../msg.txt)"
    COUNT=$((COUNT + 1))
done

# a mesh's material file is never opened: an OBJ naming a FIFO (it would hang the load) or a file
# outside the folder as its `mtllib` loads, quickly, without it
mkdir ../mtl && cd ../mtl || exit 1
cp ../hostile/data/cube.obj . 2> /dev/null || fail "no cube.obj"
mkfifo fifo.mtl
{ echo "mtllib fifo.mtl"; cat cube.obj; } > fifo-mtl.obj
{ echo "mtllib ../../../../../../../../etc/passwd"; cat cube.obj; } > far-mtl.obj
for obj in fifo-mtl.obj far-mtl.obj; do
    sed "s#data/flat.obj#$obj#" ../hostile/gen-mesh-flat.yaml > "s-$obj.yaml"
    timeout 10 "$TALUS" check "s-$obj.yaml" > ../msg.txt 2>&1
    RC=$?
    [ "$RC" -eq 0 ] || fail "$obj: talus check exited with $RC, not 0 (the material file must not be opened): $(tail -c 300 ../msg.txt)"
    grep -q "root:" ../msg.txt && fail "$obj: talus check quoted /etc/passwd"
    COUNT=$((COUNT + 1))
done
# a quaternion of huge components is a direction like any other (its squares overflow; the
# norm is taken by the largest component first): accepted, not "zero"
sed 's#position: \[0, 0, 0.5\]}#position: [0, 0, 0.5], orientation: [1.0e200, 1.0e200, 0, 0]}#' ../hostile/gen-mesh-wall-dup.yaml |
    sed 's#  - {type: mesh, material: glass, file: data/wall-dup.obj}#  - {type: plane, material: glass, point: [0, 0, -10], normal: [0, 0, 1]}#' > big-quaternion.yaml
grep -q "1.0e200" big-quaternion.yaml || fail "big-quaternion.yaml: the orientation was not written"
timeout 10 "$TALUS" check big-quaternion.yaml > ../msg.txt 2>&1 || fail "a huge quaternion: $(tail -c 300 ../msg.txt)"
COUNT=$((COUNT + 1))
# bodies of 1 nm falling from 1 m are no blow-up: their potential change is below the rounding of
# the potential's sum (the test allows for it), and shapes take a sphere's size range
cat > tiny.yaml <<'YAML'
talus: 1
gravity: [0, 0, -9.81]
materials:
  glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}
laws:
  - {between: [glass, glass], normal: hertz, damping: tsuji, e: 0.5}
shapes:
  e: {ellipsoid: [2.0e-9, 1.0e-9, 1.0e-9]}
particles:
  - {material: glass, radius: 1.0e-9, position: [0, 0, 1.0]}
  - {material: glass, shape: e, position: [1.0e-6, 0, 1.0]}
stages:
  - {steps: 50}
YAML
timeout 10 "$TALUS" run tiny.yaml -o tiny --quiet > ../msg.txt 2>&1 || fail "1 nm bodies falling: $(tail -c 300 ../msg.txt)"
sed 's/ellipsoid: \[2.0e-9/ellipsoid: [1.0e-13/' tiny.yaml > tiny13.yaml
timeout 10 "$TALUS" check tiny13.yaml > ../msg.txt 2>&1 && fail "a semi-axis of 1e-13 m was accepted"
grep -qF "ellipsoid semi_axes must be 1e-12 to 1e12 m" ../msg.txt || fail "a semi-axis of 1e-13 m: $(tail -c 300 ../msg.txt)"
COUNT=$((COUNT + 2))
# a blow-up's summary says how far the stage got and what ended it (it said "1 steps ... ended by
# duration" for a run stopped at step 2)
cat > blowup.yaml <<'YAML'
talus: 1
gravity: [0, 0, -9.81]
blowup: {every: 1, overlap: 0.001}
materials:
  glass: {density: 2500, youngs_modulus: 1.0e6, poisson_ratio: 0.25}
laws:
  - {between: [glass, glass], normal: hertz, damping: tsuji, e: 0.5}
walls:
  - {type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}
particles:
  - {material: glass, radius: 1.0e-3, position: [0, 0, 1.05e-3], velocity: [0, 0, -1]}
stages:
  - {name: fall, duration: 1.0e-3}
YAML
timeout 10 "$TALUS" run blowup.yaml -o blowup > ../msg.txt 2>&1
RC=$?
[ "$RC" -eq 3 ] || fail "blow-up run: exit $RC, not 3"
grep -q "blow-up at step 2 " ../msg.txt || fail "blow-up run: not at step 2: $(tail -c 300 ../msg.txt)"
grep -q "fall: 2 steps to t = .*, ended by failed" ../msg.txt || fail "blow-up run: the stage's summary: $(tail -c 300 ../msg.txt)"
grep -q "^stopped by the blow-up check: " ../msg.txt || fail "blow-up run: the summary's heading: $(tail -c 300 ../msg.txt)"
COUNT=$((COUNT + 1))
# a plane spinning about its normal at 1e12 rad/s under a sliding sphere: the step resolves its
# surface's speed (test_wall_motion checks the estimate) and the books, whose boundary work is
# what the wall gives, close (here they closed to 1.4e-10 before the step counted the surface's
# speed too; the issue's run, not reproduced here, reported 8e-6)
cat > spin.yaml <<'YAML'
talus: 1
gravity: [0, 0, -9.81]
materials:
  glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}
laws:
  - {between: [glass, glass], normal: hertz, damping: tsuji, tangential: mindlin, e: 0.5, mu: 0.5}
walls:
  - {type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1], motion: {rotate: {axis: [0, 0, 1], point: [0, 0, 0], speed: 1.0e12}}}
particles:
  - {material: glass, radius: 1.0e-3, position: [0.01, 0, 1.0e-3]}
stages:
  - {duration: 1.0e-3}
YAML
timeout 20 "$TALUS" run spin.yaml -o spin > ../msg.txt 2>&1 || fail "spinning plane: $(tail -c 300 ../msg.txt)"
err=$(sed -n 's/.*balance error \([^ ]*\) of.*/\1/p' ../msg.txt)
awk -v e="$err" 'BEGIN { exit !(e != "" && e + 0 < 1e-6) }' || fail "spinning plane: balance error '$err': $(tail -c 300 ../msg.txt)"
COUNT=$((COUNT + 1))
cd ../hostile || exit 1

[ "$COUNT" -ge 60 ] || fail "only $COUNT cases"
echo "$COUNT hostile cases, $FAILS failures"
[ "$FAILS" -eq 0 ]
