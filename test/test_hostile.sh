#!/bin/sh
# The corpus of hostile input (test/hostile/): every scene there, and the
# larger ones made here, must be refused by both `talus check` and
# `talus run -o DIR` with the error status (1), within 10 s, with a message
# that names the file (and its line where there is one: test/hostile/EXPECT
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

cp -R "$SRC/test/hostile" "$WORK/hostile" || exit 1
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

[ "$COUNT" -ge 60 ] || fail "only $COUNT cases"
echo "$COUNT hostile cases, $FAILS failures"
[ "$FAILS" -eq 0 ]
