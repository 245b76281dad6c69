#!/bin/sh
# The `talus` command as a user meets it: exit codes, messages, files.
# usage: test_cli.sh TALUS SOURCE_DIR
set -u
TALUS=$1
SRC=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

cd "$tmp" || exit 1

# models: every sub-model of the registry is listed
out=$("$TALUS" models) || fail "talus models exit status"
for name in linear hooke hertz hertz-stiffness none restitution tsuji viscous mass-proportional \
            mindlin mindlin-renzo true pseudo; do
  echo "$out" | grep -q -- "  $name " || fail "talus models does not list '$name'"
done

# a misspelt key: non-zero exit, file:line:column, key, suggestion; nothing written
cat > bad.yaml <<'YAML'
talus: 1
materials:
  sand: {desnity: 2500}
laws:
  - between: [sand, sand]
    normal: hertz
stages:
  - {duration: 1}
YAML
if "$TALUS" run bad.yaml > out.txt 2> err.txt; then fail "a bad scene ran"; fi
grep -q "bad.yaml:3:" err.txt || fail "no file:line in: $(cat err.txt)"
grep -q "did you mean 'density'" err.txt || fail "no suggestion in: $(cat err.txt)"
[ -e out ] && fail "a refused scene created out/"

# an out-of-range coefficient names the key and the range
sed 's/normal: hertz/normal: hertz\n    damping: tsuji\n    e: 1.5/; s/desnity/density/' bad.yaml > range.yaml
"$TALUS" check range.yaml > out.txt 2> err.txt && fail "e = 1.5 accepted"
grep -q "0 < e <= 1" err.txt || fail "no range in: $(cat err.txt)"

# a time step above the contact bound is refused unless allowed
cat > dt.yaml <<'YAML'
talus: 1
integrator: {dt: 5.0e-8}
materials:
  sand: {density: 2500, k_n: 1.0e9}
laws:
  - {between: [sand, sand], normal: linear, damping: restitution, e: 0.5}
particles:
  - {material: sand, radius: 0.5e-3, position: [0, 0, 0], fixed: true}
  - {material: sand, radius: 0.5e-3, position: [0, 2.0e-3, 0]}
stages:
  - {duration: 1.0e-6}
YAML
"$TALUS" check dt.yaml > out.txt 2> err.txt && fail "dt = 5e-8 accepted"
grep -q "allow_unresolved_contacts" err.txt || fail "dt message: $(cat err.txt)"
sed 's/{dt: 5.0e-8}/{dt: 5.0e-8, allow_unresolved_contacts: true}/' dt.yaml > dt2.yaml
"$TALUS" check dt2.yaml > /dev/null 2> err.txt || fail "allowed dt refused: $(cat err.txt)"

# check prints what the laws derive
"$TALUS" check "$SRC/examples/001-falling-particle.yaml" > out.txt || fail "check exit status"
grep -q "chosen dt   3.215e-09 s" out.txt || fail "check dt: $(cat out.txt)"
grep -q "damping 11.02 N s/m" out.txt || fail "check damping: $(cat out.txt)"

# a run writes its outputs and nothing half-written
"$TALUS" run "$SRC/examples/001-constant-approach.yaml" -o ca --quiet || fail "run exit status"
[ -s ca/contact.csv ] && [ -s ca/grain.csv ] || fail "run outputs missing: $(ls ca)"
[ "$(find ca -name '*.part' | wc -l)" -eq 0 ] || fail ".part files left"
rows=$(($(wc -l < ca/contact.csv) - 1))
[ "$rows" -ge 100 ] || fail "contact.csv has $rows rows"

# Ctrl-C: exit 130, complete files, no .part
"$TALUS" run "$SRC/examples/default.yaml" -o demo --quiet > /dev/null 2> err.txt &
pid=$!
sleep 2
kill -INT $pid
wait $pid
status=$?
[ "$status" -eq 130 ] || fail "interrupted run exit status $status ($(cat err.txt))"
[ -s demo/energy.csv ] || fail "no energy.csv after an interrupt"
[ "$(find demo -name '*.part' | wc -l)" -eq 0 ] || fail ".part files after an interrupt"
last=$(tail -n 1 demo/energy.csv | awk -F, '{print NF}')
first=$(head -n 1 demo/energy.csv | awk -F, '{print NF}')
[ "$last" = "$first" ] || fail "truncated last row after an interrupt"

if [ $failures -eq 0 ]; then echo "test_cli: all checks passed"; fi
exit $failures
