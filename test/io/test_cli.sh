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

# a run without the energy ledger says so in its summary instead of printing NaN
sed 's/^integrator:/track_energy: false\nintegrator:/' dt2.yaml > noledger.yaml
"$TALUS" run noledger.yaml -o noledger > out.txt 2> err.txt || fail "track_energy: false run: $(cat err.txt)"
grep -q "energy       not tracked (the scene sets track_energy: false)" out.txt || fail "untracked energy: $(cat out.txt)"
grep -qi "nan" out.txt && fail "NaN in a run's summary: $(cat out.txt)"

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

# Ctrl-C twice: the second ends the program at once, whatever loop it is in (the
# first waits for the chunk of steps to end); the outputs stay as .part files and
# no final file is written half
"$TALUS" run "$SRC/examples/default.yaml" -o demo2 --quiet > /dev/null 2> err.txt &
pid=$!
sleep 2
# (two signals of one kind sent at once would merge into one: SIGTERM, then SIGINT; when
# both are pending together the kernel delivers SIGINT first, so the second is SIGTERM and
# the status 128 + 15)
kill -TERM $pid; kill -INT $pid
wait $pid
status=$?
[ "$status" -eq 130 ] || [ "$status" -eq 143 ] || fail "twice interrupted run exit status $status ($(cat err.txt))"
grep -q "interrupted twice: stopped at once" err.txt || fail "second Ctrl-C: $(cat err.txt)"
# (the .part may still be empty: what the run wrote can sit in its stdio buffer, which the
# immediate exit does not flush; on a loaded machine 2 s may not fill one buffer)
[ -e demo2/energy.csv.part ] || fail "no energy.csv.part after a second Ctrl-C: $(ls demo2)"
[ -e demo2/energy.csv ] && fail "a final energy.csv after a second Ctrl-C"

# Ctrl-C while a scene loads (here 1.5 million random spheres; the scene is refused
# after its load, so without the handler the load would end in exit 1): it ends
# the program at once and writes nothing
cat > slowload.yaml <<'YAML'
talus: 1
materials:
  glass: {density: 2500, youngs_modulus: 5.0e6, poisson_ratio: 0.25}
laws:
  - {between: [glass, glass], normal: hertz, damping: tsuji, e: 0.5}
particles:
  - random: {region: {min: [0, 0, 0], max: [1, 1, 1]}, count: 1500000, radius: 1.0e-3, material: glass}
stages:
  - {duration: 1}
YAML
"$TALUS" run slowload.yaml -o slow > /dev/null 2> err.txt &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
status=$?
[ "$status" -eq 130 ] || fail "run interrupted while loading: exit status $status ($(cat err.txt))"
grep -q "interrupted while loading the scene; nothing was written" err.txt || fail "load Ctrl-C: $(cat err.txt)"
[ -e slow ] && fail "a run interrupted while loading wrote $(ls slow)"

# restarts: checkpoints every 1 ms (100 steps; none at the end, step 600); a resume from the earliest one, into a folder
# whose energy.csv is the .part a killed run leaves (with rows after the
# checkpoint) and whose .pvd is gone, rewrites every output as the straight run did
cat > ck.yaml <<'YAML'
talus: 1
name: restart
seed: 3
gravity: [0, 0, -9.81]
integrator: {dt: 1.0e-5}
materials:
  glass: {density: 2500, youngs_modulus: 5.0e6, poisson_ratio: 0.25}
laws:
  - {between: [glass, glass], normal: hertz, damping: tsuji, tangential: mindlin, e: 0.5, mu: 0.4}
walls:
  - {type: box, material: glass, min: [0, 0, 0], max: [0.01, 0.01, 0.03], open: [+z]}
particles:
  - random: {region: {min: [0, 0, 0], max: [0.01, 0.01, 0.02]}, count: 60,
             radius: 0.8e-3, material: glass, velocity_jitter: 0.1}
stages:
  - {name: fall, duration: 0.004}
  - {name: rest, duration: 0.002}
checkpoint: {every: 0.001, keep: 10}
outputs:
  - {type: energy, file: energy.csv, every: 2.0e-4}
  - {type: collisions, file: collisions.csv}
  - {type: vtk, file: frames, every: 1.0e-3}
YAML
"$TALUS" run ck.yaml -o full --quiet 2> err.txt || fail "checkpointed run: $(cat err.txt)"
[ "$(ls full/checkpoint/checkpoint-*.tlck | wc -l)" -eq 5 ] || fail "checkpoints: $(ls full/checkpoint)"
[ "$(cat full/checkpoint/latest)" = "checkpoint-500.tlck" ] || fail "latest: $(cat full/checkpoint/latest)"
first=$(ls full/checkpoint/checkpoint-*.tlck | sort -t- -k2 -n | head -n 1)
cp -r full res && rm -rf res/checkpoint res/frames.pvd
echo "0.0059,junk" >> res/energy.csv && mv res/energy.csv res/energy.csv.part
"$TALUS" run ck.yaml -o res --resume "$first" --quiet > out.txt 2> err.txt || fail "talus run --resume: $(cat err.txt)"
for f in energy.csv collisions.csv frames.pvd $(cd full && ls frames/*.vtp); do
  cmp -s "full/$f" "res/$f" || fail "resumed $f differs from the straight run's"
done
[ "$(find res -name '*.part' | wc -l)" -eq 0 ] || fail ".part files after a resume"
[ -s res/checkpoint/latest ] || fail "the resumed run wrote no checkpoint"
# --resume OUTDIR: the output folder itself finds its checkpoint folder's latest
cp -r full res2
"$TALUS" run ck.yaml -o res2 --resume res2 --quiet > out.txt 2> err.txt || fail "talus run --resume OUTDIR: $(cat err.txt)"
cmp -s full/energy.csv res2/energy.csv || fail "resumed from the output folder: energy.csv differs"

# a corrupted checkpoint is refused (non-zero, the reason on stderr), nothing changes
cp "$first" bad.tlck
printf 'AB' | dd of=bad.tlck bs=1 seek=300 conv=notrunc 2> /dev/null
before=$(ls -lR res | md5sum)
"$TALUS" run ck.yaml -o res --resume bad.tlck --quiet > out.txt 2> err.txt && fail "a corrupted checkpoint was accepted"
grep -q "bad.tlck: checksum mismatch (the file is corrupted)" err.txt || fail "corrupted checkpoint: $(cat err.txt)"
[ "$(ls -lR res | md5sum)" = "$before" ] || fail "a refused resume changed the output folder"
head -c 1000 "$first" > short.tlck
"$TALUS" run ck.yaml -o res --resume short.tlck --quiet > out.txt 2> err.txt && fail "a truncated checkpoint was accepted"
grep -q "short.tlck: truncated: 1000 of" err.txt || fail "truncated checkpoint: $(cat err.txt)"
"$TALUS" run ck.yaml --resume nowhere --quiet > out.txt 2> err.txt; [ $? -eq 1 ] || fail "--resume nowhere exit status"
grep -q "cannot resume: nowhere" err.txt || fail "--resume nowhere: $(cat err.txt)"
"$TALUS" run ck.yaml --resume > out.txt 2> err.txt; [ $? -eq 2 ] || fail "--resume without a directory"

# ---- the collision lab: talus collide and talus calibrate ----

# a sweep writes one CSV row per value (plus the header)
"$TALUS" collide --wall --sweep angle=0:60:7 > sweep.csv 2> err.txt || fail "collide --sweep: $(cat err.txt)"
[ "$(wc -l < sweep.csv)" -eq 8 ] || fail "collide --sweep angle=0:60:7 gave $(wc -l < sweep.csv) lines"
head -n 1 sweep.csv | grep -q "^angle,e_n,e_t,duration,max_overlap,max_normal_force,v_out_n,v_out_t,omega_out,alpha_v,alpha_c,psi1,psi2,diss_normal,diss_plastic,diss_tangential_damping,diss_friction,integration_residual,energy_error$" \
  || fail "collide --sweep header: $(head -n 1 sweep.csv)"
"$TALUS" collide --law linear,restitution --coef k_n=1e6 --sweep e=0.1,0.5,0.9 --csv e.csv > /dev/null 2> err.txt \
  || fail "collide --sweep e --csv: $(cat err.txt)"
[ "$(wc -l < e.csv)" -eq 4 ] || fail "collide --sweep e=0.1,0.5,0.9 gave $(wc -l < e.csv) lines"
awk -F, 'NR > 1 { d = $2 - $1; if (d < 0) d = -d; if (d > 1e-4) bad = 1 } END { exit bad }' e.csv \
  || fail "linear + restitution: e_n differs from e: $(cat e.csv)"
"$TALUS" collide --wall --sweep model=hertz/tsuji,linear/restitution --coef e=0.5 --coef k_n=1e6 > m.csv 2> err.txt \
  || fail "collide --sweep model: $(cat err.txt)"
[ "$(wc -l < m.csv)" -eq 3 ] || fail "collide --sweep model gave $(wc -l < m.csv) lines"

# a plain run, JSON, and the time series through a temporary name
"$TALUS" collide --wall --angle 30 > plain.txt 2> err.txt || fail "collide: $(cat err.txt)"
grep -q "e_n = 0.89999" plain.txt || fail "collide summary: $(cat plain.txt)"
"$TALUS" collide --json --csv series.csv > one.json 2> err.txt || fail "collide --json: $(cat err.txt)"
[ "$(wc -l < one.json)" -eq 1 ] && grep -q '^{.*"e_n": 0.89999' one.json || fail "collide --json: $(cat one.json)"
[ -s series.csv ] && [ ! -e series.csv.part ] || fail "collide --csv: $(ls)"
head -n 1 series.csv | grep -q "^t,overlap,overlap_rate,fn,fn_elastic,fn_damping,ft,ft_normal$" || fail "series header"

# errors: usage 2, refused law 1, nothing written
"$TALUS" collide --bogus > /dev/null 2> err.txt; [ $? -eq 2 ] || fail "collide --bogus exit status"
grep -q "unknown option '--bogus'" err.txt || fail "collide --bogus: $(cat err.txt)"
"$TALUS" collide --speed fast > /dev/null 2> err.txt; [ $? -eq 2 ] || fail "collide --speed fast exit status"
"$TALUS" collide --law hertz,tsujii > /dev/null 2> err.txt; [ $? -eq 2 ] || fail "collide unknown model exit status"
grep -q "unknown damping model 'tsujii'" err.txt || fail "unknown model: $(cat err.txt)"
"$TALUS" collide --law hertz,restitution --coef e=0.5 --csv refused.csv > out.txt 2> err.txt
[ $? -eq 1 ] || fail "collide refused law exit status"
grep -q "does not fit normal 'hertz'" err.txt || fail "refused law: $(cat err.txt)"
[ ! -e refused.csv ] && [ ! -e refused.csv.part ] && [ ! -s out.txt ] || fail "a refused collide wrote something"

# calibrate timestep: the step grows as c^(-2/5) when E is softened by c (Li et al. 2022: 2.5, 6.3, 15.9)
"$TALUS" calibrate timestep --soften 0.1,0.01,0.001 > ts.txt 2> err.txt || fail "calibrate timestep: $(cat err.txt)"
for ratio in 2.512 6.310 15.849; do
  grep -q " $ratio " ts.txt || fail "calibrate timestep: no step ratio $ratio in $(cat ts.txt)"
done

# calibrate actm: Ray et al. 2015 Table 1, e = 0.95 (direct method): k = 61491.7, d = 0.30165
"$TALUS" calibrate actm --e 0.95 --tc 0.01 --density 7800 --radius 0.01 --speed 1 --direct > actm.txt 2> err.txt \
  || fail "calibrate actm: $(cat err.txt)"
grep -q "k = 61491.7 N/m^1.5   d = 0.30165 N s/m" actm.txt || fail "calibrate actm: $(cat actm.txt)"
"$TALUS" calibrate actm --e 0.95 > /dev/null 2> err.txt; [ $? -eq 2 ] || fail "calibrate actm without --tc"
"$TALUS" calibrate lambda --lambda 0:0.2:3 > lambda.txt 2> err.txt || fail "calibrate lambda: $(cat err.txt)"
grep -q "3.2180655" lambda.txt || fail "calibrate lambda: $(cat lambda.txt)"
"$TALUS" calibrate restitution --e 0.5 --clamp > rest.txt 2> err.txt || fail "calibrate restitution: $(cat err.txt)"
grep -q "achieved e_n             0.5000" rest.txt || fail "calibrate restitution: $(cat rest.txt)"
# calibrate adhesion: the work of adhesion for a Bond number (DMT: w = Bo m g / (2 pi R*): 0.654 J/m2
# for the drum's 2 mm beads at Bo 5), JKR's sticking speed of 1 mm glass spheres (1.741 mm/s,
# docs/models.md), and the collision checks against e_n = sqrt(1 - (v_s/v)^2) to 1e-3
"$TALUS" calibrate adhesion --bond 5 --radius 2e-3 --E 2e6 --json > adh.txt 2> err.txt || fail "calibrate adhesion: $(cat err.txt)"
grep -q '"w_adhesion": 0.654' adh.txt || fail "calibrate adhesion --bond 5: $(cat adh.txt)"
"$TALUS" calibrate adhesion --w 0.5 --radius 1e-3 --json > adh.txt 2> err.txt || fail "calibrate adhesion: $(cat err.txt)"
/usr/bin/python3 - adh.txt <<'PY' || fail "calibrate adhesion --w 0.5: $(cat adh.txt)"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert abs(d["sticking_speed"] / 1.74112e-3 - 1) < 1e-4, d
for f, k in ((1.5, "e_n_at_1_5"), (3.0, "e_n_at_3")):
    assert abs(d[k] - math.sqrt(1 - 1 / f ** 2)) < 1e-3, d
PY
"$TALUS" calibrate adhesion --w 0.5 --bond 2 > /dev/null 2> err.txt; [ $? -eq 2 ] || fail "calibrate adhesion with --w and --bond"

# one command line (issue 14): --help on every subcommand, extra arguments refused,
# --threads 0 = all cores everywhere, no nan or inf printed as a result
for c in run check models collide calibrate validate bench version; do
  "$TALUS" $c --help > help.txt 2> err.txt || fail "talus $c --help: exit status $?: $(cat err.txt)"
  grep -qi "usage" help.txt || fail "talus $c --help prints no usage: $(head -2 help.txt)"
done
"$TALUS" check "$SRC/examples/001-falling-particle.yaml" extra.yaml > out.txt 2> err.txt
[ $? -eq 2 ] || fail "check A B: exit status not 2"
grep -q "one scene at a time" err.txt || fail "check A B: $(cat err.txt)"
"$TALUS" models extra > out.txt 2> err.txt; [ $? -eq 2 ] || fail "models with an argument accepted"
"$TALUS" version extra > out.txt 2> err.txt; [ $? -eq 2 ] || fail "version with an argument accepted"
cat > two.yaml <<'YAML'
talus: 1
gravity: [0, 0, -9.81]
materials: {glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}}
laws: [{between: [glass, glass], normal: hertz, damping: tsuji, tangential: none, history: none, e: 0.5}]
walls: [{type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}]
particles: [{material: glass, radius: 0.001, position: [0, 0, 0.002]}]
stages: [{duration: 0.01}]
YAML
"$TALUS" run two.yaml --threads 0 --no-output --quiet > out.txt 2> err.txt \
  || fail "run --threads 0 (all cores) refused: $(cat err.txt)"
"$TALUS" run --threads -1 --quiet > out.txt 2> err.txt; [ $? -eq 2 ] || fail "run --threads -1 accepted"
"$TALUS" calibrate lambda --lambda 2 > lambda2.txt 2> err.txt; rc=$?
[ $rc -eq 1 ] || fail "calibrate lambda --lambda 2 (no rebound): exit status $rc, not 1"
grep -qi "nan\|inf" lambda2.txt && fail "calibrate lambda prints nan or inf: $(cat lambda2.txt)"
grep -q "no rebound" err.txt || fail "calibrate lambda 2: no reason given: $(cat err.txt)"
# the README's sweep: over models, with the default e = 0.9 and mu = 0.3
"$TALUS" collide --sweep model=hertz/tsuji,hertz/hunt-crossley > sweep.csv 2> err.txt \
  || fail "the README's model sweep: $(cat err.txt)"
[ "$(grep -c '^hertz/' sweep.csv)" -eq 2 ] || fail "model sweep rows: $(cat sweep.csv)"
grep -q "^hertz/tsuji,0.8999" sweep.csv || fail "model sweep: tsuji e_n not 0.9: $(cat sweep.csv)"

# impossible initial geometry: refused at the particles key, with the ids; nothing written
cat > behind.yaml <<'YAML'
talus: 1
gravity: [0, 0, -9.81]
materials: {glass: {density: 2500, youngs_modulus: 1.0e7, poisson_ratio: 0.25}}
laws: [{between: [glass, glass], normal: hertz, damping: tsuji, tangential: none, history: none, e: 0.5}]
walls: [{name: floor, type: plane, material: glass, point: [0, 0, 0], normal: [0, 0, 1]}]
particles:
  - {id: 3, material: glass, radius: 0.001, position: [0, 0, -0.0005]}
stages: [{duration: 0.01}]
YAML
"$TALUS" run behind.yaml -o behind-out > out.txt 2> err.txt; rc=$?
[ $rc -eq 1 ] || fail "a centre behind the floor: exit status $rc"
grep -q "behind.yaml:6:.*particles: initial geometry: particle 3 overlaps wall 0 ('floor')" err.txt \
  || fail "behind the floor: $(cat err.txt)"
[ -e behind-out ] && fail "a refused start wrote behind-out/"
printf 'allow_initial_overlaps: true\n' >> behind.yaml
"$TALUS" check behind.yaml > out.txt 2> err.txt || fail "allow_initial_overlaps: true refused: $(cat err.txt)"

# a run that blows up (the demo at a step 14 times too long, allowed unresolved): exit
# status 3, a diagnostic, the records before it kept
sed -e 's/^  dt: auto .*/  dt: 2.0e-4\n  allow_unresolved_contacts: true/' "$SRC/examples/default.yaml" > blow.yaml
"$TALUS" run blow.yaml -o blow-out --quiet > out.txt 2> err.txt; rc=$?
[ $rc -eq 3 ] || fail "a blow-up: exit status $rc, not 3"
grep -q "blow-up at step [0-9]* (t = .*steps per contact" err.txt || fail "blow-up diagnostic: $(cat err.txt)"
[ -s blow-out/energy.csv ] || fail "a blow-up left no energy.csv"
last=$(tail -n 1 blow-out/energy.csv | cut -d, -f2)
at=$(sed -n 's/.*blow-up at step \([0-9]*\).*/\1/p' err.txt | head -n 1)
[ -n "$last" ] && [ -n "$at" ] && [ "$last" -lt "$at" ] || fail "a record at or after the blow-up (last $last, blow-up $at)"
printf 'blowup: {every: -1}\n' >> blow.yaml
"$TALUS" run blow.yaml --no-output --quiet > out.txt 2> err.txt || fail "blowup every -1 did not turn the check off"

# a long validation in pieces: --stop-after saves the runs where they are and stops with exit
# status 3 and no report; the same command continues them from there; a damaged piece is said
# and its run starts afresh
v="validate --long --only meshed --stop-after 6 --threads 2 --no-plots -o pieces"
"$TALUS" $v > out.txt 2> err.txt; rc=$?
[ $rc -eq 3 ] || fail "validate --stop-after: exit status $rc, not 3: $(cat err.txt)"
[ -e pieces/report.md ] && fail "a validation stopped part way wrote a report"
[ -s pieces/brazil_M1_seed1_mesh.resume ] || fail "validate --stop-after saved no piece: $(ls pieces)"
printf 'garbage' | dd of=pieces/brazil_M4_seed1_mesh.resume bs=1 seek=40 conv=notrunc 2> /dev/null
"$TALUS" $v > out.txt 2> err.txt; rc=$?
[ $rc -eq 3 ] || fail "validate --stop-after, second piece: exit status $rc"
t=$(sed -n 's/.*the run M1_seed1_mesh continues from t = \([0-9.]*\) s.*/\1/p' err.txt)
[ -n "$t" ] && awk "BEGIN { exit !($t > 0) }" || fail "the second piece did not continue the first: $(cat err.txt)"
grep -q "brazil_M4_seed1_mesh.resume is damaged: the run M4_seed1_mesh starts afresh" err.txt \
  || fail "a damaged piece not said: $(cat err.txt)"
# a piece continues only in the binary that began it: another build (here the same one with a byte
# appended) starts the run afresh, and says why
cp "$TALUS" talus-other && printf 'x' >> talus-other
./talus-other $v > out.txt 2> err.txt; rc=$?
[ $rc -eq 3 ] || fail "validate --stop-after in another build: exit status $rc: $(cat err.txt)"
grep -q "brazil_M1_seed1_mesh.resume is of another build (a binary other than the one that began it): the run M1_seed1_mesh starts afresh" err.txt \
  || fail "a piece of another build not refused: $(cat err.txt)"
rm -f talus-other
"$TALUS" validate --long --only meshed --mesh-seeds 0 > out.txt 2> err.txt; rc=$?
[ $rc -eq 2 ] && grep -q -- "--mesh-seeds expects an integer from 1 to 3, got '0'" err.txt \
  || fail "validate --mesh-seeds 0: exit status $rc: $(cat err.txt)"

# bench --warmup-threads: the warm-up on two threads, the timed steps on one, the same numbers
# as all on one (the results do not depend on the thread count); a bad value refused
gzip -dc "$SRC/bench/peers/bed_10k.data.gz" > bed.data || fail "gzip -dc bed_10k.data.gz"
for wt in 1 2; do
  "$TALUS" bench "$SRC/bench/bed.yaml" --data bed.data --warmup 20 --steps 10 --ke-every 10 --warmup-threads $wt \
    --json > bench_$wt.json 2> err.txt || fail "bench --warmup-threads $wt: $(cat err.txt)"
  grep -o '"ke": \[\[[^]]*\]\(, \[[^]]*\]\)*\]' bench_$wt.json > ke_$wt.txt
done
grep -q '"warmup_threads": 2' bench_2.json || fail "bench --warmup-threads 2: not in the JSON: $(cat bench_2.json)"
grep -q '"threads": 1' bench_2.json || fail "bench --warmup-threads 2: the timed run not on 1 thread"
grep -q '\[30, [0-9]' ke_1.txt && cmp -s ke_1.txt ke_2.txt \
  || fail "bench --warmup-threads 2 changed the energies: $(cat ke_1.txt) / $(cat ke_2.txt)"
# bench --warm-state: the warm-up made once and saved, then loaded in its place (on two threads):
# the timed steps give the same energies as a run that warms up itself; a state of another
# --warmup refused
rm -f warm.st
for k in saved loaded; do
  "$TALUS" bench "$SRC/bench/bed.yaml" --data bed.data --warmup 20 --steps 10 --ke-every 10 --warm-state warm.st \
    --threads $([ $k = saved ] && echo 1 || echo 2) --json > bench_$k.json 2> err.txt || fail "bench --warm-state ($k): $(cat err.txt)"
  grep -q "\"warmup_state\": \"$k\"" bench_$k.json || fail "bench --warm-state: not $k: $(cat bench_$k.json)"
  grep -o '\[30, [^]]*\]' bench_$k.json > ke30_$k.txt
done
grep -o '\[30, [^]]*\]' bench_1.json > ke30_straight.txt
[ -s ke30_straight.txt ] && cmp -s ke30_straight.txt ke30_saved.txt && cmp -s ke30_straight.txt ke30_loaded.txt \
  || fail "bench --warm-state changed the timed steps: $(cat ke30_straight.txt) / $(cat ke30_saved.txt) / $(cat ke30_loaded.txt)"
"$TALUS" bench "$SRC/bench/bed.yaml" --data bed.data --warmup 30 --steps 10 --warm-state warm.st > out.txt 2> err.txt; rc=$?
[ $rc -eq 1 ] && grep -q "holds the bed at step 20, not at the end of --warmup 30" err.txt \
  || fail "bench --warm-state of another --warmup: exit status $rc: $(cat err.txt)"
"$TALUS" bench "$SRC/bench/bed.yaml" --warmup-threads x > out.txt 2> err.txt; rc=$?
[ $rc -eq 2 ] && grep -q -- "--warmup-threads needs a whole number" err.txt \
  || fail "bench --warmup-threads x: exit status $rc: $(cat err.txt)"

# bench --write-state: the bed the timed steps start from, each body's orientation as its shape was
# given (a mesh whose principal axes are not its file's: the body frame's orientation times the
# conjugate of the shape's frame gives back the scene's orientation)
cat > state.yaml <<'EOF2'
talus: 1
gravity: [0, 0, 0]
integrator: {dt: 1.0e-5}
materials:
  m: {density: 1000, youngs_modulus: 1.0e6, poisson_ratio: 0.3}
shapes:
  egg: {mesh: {ellipsoid: [0.001, 0.003, 0.002], vertices: 200}}
laws:
  - {between: [any, any], normal: hertz}
particles:
  - {id: 7, material: m, shape: egg, position: [0.01, 0.02, 0.03], orientation: [0.8, 0.0, 0.6, 0.0]}
  - {id: 9, material: m, radius: 0.001, position: [0.05, 0, 0]}
stages:
  - {name: s, duration: 0.001}
EOF2
"$TALUS" bench state.yaml --warmup 0 --steps 1 --write-state st.csv > /dev/null 2> err.txt \
  || fail "bench --write-state: $(cat err.txt)"
[ ! -e st.csv.part ] && [ "$(head -1 st.csv)" = "id,x,y,z,qw,qx,qy,qz" ] && [ "$(wc -l < st.csv)" -eq 3 ] \
  || fail "bench --write-state: $(cat st.csv)"
awk -F, '$1 == 7 { s = ($5 < 0) ? -1 : 1; d = 0
  split("0.8 0 0.6 0", q, " "); for (k = 1; k <= 4; k++) { e = s * $(4 + k) - q[k]; d += (e < 0 ? -e : e) }
  ok = d < 1e-12 && $2 == 0.01 && $3 == 0.02 && $4 == 0.03 } END { exit !ok }' st.csv \
  || fail "bench --write-state: the mesh's orientation not as given: $(cat st.csv)"

# OpenMP's waiting threads spin 1,000 times unless the user chose (main.c, docs/engine.md)
spin=$(env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY "$TALUS" bench "$SRC/bench/bed.yaml" --data bed.data --warmup 0 --steps 2 --json 2> err.txt | tail -1)
echo "$spin" | grep -q '"gomp_spincount": "1000"' || fail "GOMP_SPINCOUNT not set to 1000: $spin $(cat err.txt)"
spin=$(env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=ACTIVE "$TALUS" bench "$SRC/bench/bed.yaml" --data bed.data --warmup 0 --steps 2 --json 2> err.txt | tail -1)
echo "$spin" | grep -q '"gomp_spincount": "", "omp_wait_policy": "ACTIVE"' || fail "the user's OMP_WAIT_POLICY not kept: $spin"

if [ $failures -eq 0 ]; then echo "test_cli: all checks passed"; fi
exit $failures
