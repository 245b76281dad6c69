/* The case files of `talus validate` (app/cases.c): a case's scene is its file with the set:
 * values written over the old ones on the same lines and the drop: items taken out; its rows
 * are written from the measured quantities, in the file's order, once per call of a group;
 * and a mistake in a case file is named by file, line, column and key. The built-in files
 * are this test's own table (talus_validation_files, in place of the generated one). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "cases.h"
#include "test.h"
#include "validation_data.h"

#define FILE_ENTRY(name, text) {name, (const unsigned char *)(text), sizeof(text) - 1}

static const char SCENE[] = "talus: 1\n"
                            "gravity: [0, -9.81, 0]\n"
                            "integrator: {dt: auto, steps_per_contact: 50}\n"
                            "materials:\n"
                            "  sand: {density: 2500, k_n: 1.0e9}\n"
                            "laws:\n"
                            "  - {between: [sand, sand], normal: linear, damping: restitution, e: 0.5}\n"
                            "particles:\n"
                            "  - {id: 1, material: sand, radius: 0.5e-3, position: [0, 0, 0], fixed: true}\n"
                            "  - {id: 2, material: sand, radius: 0.5e-3, position: [0, 2.0e-3, 0]}\n"
                            "stages:\n"
                            "  - {name: fall, duration: 0.05}\n"
                            "outputs:\n"
                            "  - {type: energy, file: energy.csv, every: 1.0e-4}\n"
                            "  - {type: collisions, file: bounces.csv}\n";

static const char GOOD[] = "section: a test\n"
                           "parameters:\n"
                           "  e: 0.7\n"
                           "  steps: 40\n"
                           "quick:\n"
                           "  steps: 4\n"
                           "scenes:\n"
                           "  bounce:\n"
                           "    file: validation/cases/test/scene.yaml\n"
                           "    set: {laws.0.e: $e, stages.0.duration: 0.02}\n"
                           "    drop: [outputs.1]\n"
                           "reasons:\n"
                           "  digits: \"the paper's two digits\"\n"
                           "  ours: \"a bound of the test's own\"\n"
                           "checks:\n"
                           "  - {quantity: \"e at ${speed:%.1f} m/s\", paper: e, tolerance: {relative: 0.01},\n"
                           "     reason: digits, measured: e_out, source: \"a table\"}\n"
                           "  - {quantity: \"full only\", kind: value, measured: e_out, when: full}\n"
                           "  - {group: b, quantity: \"${law}: bound\", kind: check-at-most, expected: 1,\n"
                           "     reason: ours, measured: e_out}\n"
                           "  - {group: t, quantity: scaled, kind: check, expected: 1,\n"
                           "     tolerance: {absolute: 0.01, of: scale}, reason: ours, measured: x}\n"
                           "  - {group: t, quantity: named, kind: check, expected: 1,\n"
                           "     tolerance: {relative: width}, reason: ours, measured: x}\n"
                           "  - {group: f, quantity: fitted one, kind: fitted, fitted_by: \"E chosen\", paper: 1,\n"
                           "     tolerance: {relative: 0.01}, reason: digits, measured: x}\n"
                           "  - {group: f, quantity: claim, kind: at-least, paper: 1, margin: sd, measured: x}\n";

/* each refused, with its line:column and key */
static const char BAD_KEY[] = "checks:\n  - {quantity: q, measured: m, paper: 1,\n     tolerence: {relative: 1}}\n";
static const char BAD_TOL[] = "checks:\n  - {quantity: q, measured: m, paper: 1, tolerance: {percent: 1}}\n";
static const char BAD_SYNTAX[] = "checks:\n  - {quantity: \"q, measured: m}\n";
static const char BAD_FORMAT[] = "checks:\n  - {quantity: \"${x:%d}\", measured: m, kind: value}\n";
static const char BAD_FILE[] = "scenes:\n  s: {file: examples/none.yaml}\nchecks:\n  - {quantity: q, measured: m, "
                               "kind: value}\n";
static const char BAD_PATH[] = "scenes:\n  s:\n    file: validation/cases/test/scene.yaml\n    set: {laws.0.f: 1}\n"
                               "checks:\n  - {quantity: q, measured: m, kind: value}\n";
static const char BAD_OF[] = "checks:\n  - {quantity: q, measured: m, kind: check, expected: 1, tolerance: {of: s}}\n";
static const char BAD_FITTED[] = "checks:\n  - {quantity: q, measured: m, kind: fitted, paper: 1, tolerance: {relative: 1}}\n";
static const char BAD_MARGIN[] = "checks:\n  - {quantity: q, measured: m, paper: 1, margin: 0.1, tolerance: {relative: 1}}\n";
static const char BAD_REASON[] = "checks:\n  - {quantity: q, measured: m, kind: check, expected: 1, tolerance: {relative: 1}}\n";
static const char BAD_REASON_NAME[] = "reasons: {a: \"a reason of ours\"}\nchecks:\n"
                                      "  - {quantity: q, measured: m, kind: check-at-most, expected: 1, reason: b}\n"
                                      "  - {quantity: p, measured: m, kind: check-at-most, expected: 1, reason: a}\n";
static const char BAD_REASON_UNUSED[] = "reasons: {a: \"a reason of ours\", b: \"another of ours\"}\nchecks:\n"
                                        "  - {quantity: q, measured: m, kind: check-at-most, expected: 1, reason: a}\n";
static const char BAD_REASON_KIND[] = "reasons: {a: \"a reason of ours\"}\nchecks:\n"
                                      "  - {quantity: q, measured: m, kind: value, reason: a}\n";
static const char BAD_PARAM[] = "parameters:\n  n: 2.5\nchecks:\n  - {quantity: q, measured: m, kind: value}\n";

const app_data_file talus_validation_files[] = {
    FILE_ENTRY("validation/cases/test/scene.yaml", SCENE),
    FILE_ENTRY("validation/cases/good/checks.yaml", GOOD),
    FILE_ENTRY("validation/cases/bad_key/checks.yaml", BAD_KEY),
    FILE_ENTRY("validation/cases/bad_tol/checks.yaml", BAD_TOL),
    FILE_ENTRY("validation/cases/bad_syntax/checks.yaml", BAD_SYNTAX),
    FILE_ENTRY("validation/cases/bad_format/checks.yaml", BAD_FORMAT),
    FILE_ENTRY("validation/cases/bad_file/checks.yaml", BAD_FILE),
    FILE_ENTRY("validation/cases/bad_path/checks.yaml", BAD_PATH),
    FILE_ENTRY("validation/cases/bad_of/checks.yaml", BAD_OF),
    FILE_ENTRY("validation/cases/bad_param/checks.yaml", BAD_PARAM),
    FILE_ENTRY("validation/cases/bad_fitted/checks.yaml", BAD_FITTED),
    FILE_ENTRY("validation/cases/bad_margin/checks.yaml", BAD_MARGIN),
    FILE_ENTRY("validation/cases/bad_reason/checks.yaml", BAD_REASON),
    FILE_ENTRY("validation/cases/bad_reason_name/checks.yaml", BAD_REASON_NAME),
    FILE_ENTRY("validation/cases/bad_reason_unused/checks.yaml", BAD_REASON_UNUSED),
    FILE_ENTRY("validation/cases/bad_reason_kind/checks.yaml", BAD_REASON_KIND),
    {0, 0, 0}};

/* stderr into the file at path until read back (descriptor 2 moved, the stream kept) */
static int saved_stderr = -1;

static bool stderr_to(const char *path) {
    fflush(stderr);
    int f = open(path, O_WRONLY | O_TRUNC);
    if (f < 0) return false;
    if (saved_stderr < 0) saved_stderr = dup(STDERR_FILENO);
    bool ok = dup2(f, STDERR_FILENO) >= 0;
    close(f);
    return ok;
}

/* what was written, into buf; stderr back where it was */
static void read_back(const char *path, char *buf, size_t size) {
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

static void good(const char *tmp) {
    vcase *c = vcase_load("good", false);
    ENSURE(c != NULL);
    ENSURE(vcase_param(c, "e") == 0.7);
    ENSURE(vcase_int(c, "steps", 1, 100) == 40);
    /* the scene: the values written over the old ones, the dropped item's line left blank */
    const char *file = NULL;
    char *text = vcase_scene_text(c, "bounce", &file);
    ENSURE(text != NULL && file && strcmp(file, "validation/cases/test/scene.yaml") == 0);
    ENSURE(strstr(text, "damping: restitution, e: 0.7}\n") != NULL);
    ENSURE(strstr(text, "{name: fall, duration: 0.02}") != NULL);
    ENSURE(strstr(text, "bounces.csv") == NULL && strstr(text, "energy.csv") != NULL);
    int lines = 0;
    for (const char *s = text; *s; s++) lines += *s == '\n';
    ENSURE(lines == 15); /* the file's lines, the same numbers */
    free(text);
    report r;
    FILE *out = tmpfile();
    ENSURE(out != NULL);
    report_open_stream(&r, out);
    tl_scene *sc = vcase_scene(c, &r, "bounce", "a test");
    ENSURE(sc != NULL);
    tl_scene_destroy(sc);
    /* rows: a name not measured is refused; then written in order, full-only rows too */
    ENSURE(stderr_to(tmp));
    ENSURE(vcase_rows(c, &r, "main") != 0);
    char msg[2048];
    read_back(tmp, msg, sizeof msg);
    ENSURE(strstr(msg, "validation/cases/good/checks.yaml:16: measured: 'e_out'") != NULL);
    vcase_measure(c, "e_out", 0.695);
    vcase_measure(c, "speed", 2.0);
    vcase_word(c, "law", "hertz");
    ENSURE(vcase_rows(c, &r, "main") == 0);
    ENSURE(vcase_rows(c, &r, "b") == 0);
    report_table_end(&r);
    ENSURE(r.n.ok == 1 && r.n.no_value == 1 && r.n.checks_ok == 1);
    rewind(out);
    char all[4096];
    size_t n = fread(all, 1, sizeof all - 1, out);
    all[n] = '\0';
    ENSURE(strstr(all, "| e at 2.0 m/s |  | 0.7 | 0.695 |") != NULL);
    ENSURE(strstr(all, "| hertz: bound |") != NULL);
    /* each tolerance's reason named in its row, its sentence once under the table */
    ENSURE(strstr(all, "ok (within 1% [*digits*])") != NULL);
    ENSURE(strstr(all, "Tolerances:\n\n- *digits*: the paper's two digits\n") != NULL);
    ENSURE(strstr(all, "e at 2.0") < strstr(all, "full only"));
    report_free(&r);
    fclose(out);
    /* a tolerance named, or a fraction of a measured quantity: resolved when the rows are written */
    out = tmpfile();
    ENSURE(out != NULL);
    report_open_stream(&r, out);
    vcase_measure(c, "x", 1.05);
    ENSURE(stderr_to(tmp));
    ENSURE(vcase_rows(c, &r, "t") != 0);
    read_back(tmp, msg, sizeof msg);
    ENSURE(strstr(msg, "good/checks.yaml:21: tolerance: 'scale' is neither a parameter nor a measured") != NULL);
    vcase_measure(c, "scale", 10.0); /* 0.01 of it: 0.1, and x is within */
    vcase_measure(c, "width", 0.01); /* relative: 0.01 of 1, and x is not */
    ENSURE(stderr_to(tmp));
    ENSURE(vcase_rows(c, &r, "t") == 0);
    report_table_end(&r);
    read_back(tmp, msg, sizeof msg);
    ENSURE(strstr(msg, "FAIL: named: expected 1, Talus 1.05") != NULL);
    ENSURE(r.n.checks_ok == 1 && r.n.checks_failed == 1);
    rewind(out);
    n = fread(all, 1, sizeof all - 1, out);
    all[n] = '\0';
    ENSURE(strstr(all, "| scaled |") != NULL && strstr(all, "within 0.1") != NULL);
    report_free(&r);
    fclose(out);
    /* a fitted row (shown, not counted) and a directional claim judged against a scatter: x = 1.005
     * is fitted (within 1 % of 1); "at least 1" with a scatter of 0.1 differs (within it), with a
     * scatter of 0.001 holds */
    out = tmpfile();
    report_open_stream(&r, out);
    vcase_measure(c, "x", 1.005);
    vcase_measure(c, "sd", 0.1);
    ENSURE(vcase_rows(c, &r, "f") == 0);
    ENSURE(r.n.fitted == 1 && r.n.differs == 1 && r.n.ok == 0);
    vcase_measure(c, "sd", 0.001);
    ENSURE(vcase_rows(c, &r, "f") == 0);
    ENSURE(r.n.fitted == 2 && r.n.differs == 1 && r.n.ok == 1);
    report_table_end(&r);
    rewind(out);
    n = fread(all, 1, sizeof all - 1, out);
    all[n] = '\0';
    ENSURE(strstr(all, "fitted (within 1% [*digits*]; E chosen: not counted as agreement)") != NULL);
    ENSURE(strstr(all, "within the scatter") != NULL);
    report_free(&r);
    fclose(out);
    vcase_free(c);
    /* under --quick: the quick: values, and no full-only rows */
    c = vcase_load("good", true);
    ENSURE(c != NULL && vcase_int(c, "steps", 1, 100) == 4);
    out = tmpfile();
    report_open_stream(&r, out);
    vcase_measure(c, "e_out", 0.7);
    vcase_measure(c, "speed", 2.0);
    ENSURE(vcase_rows(c, &r, "main") == 0);
    ENSURE(r.n.ok == 1 && r.n.no_value == 0);
    report_free(&r);
    fclose(out);
    vcase_free(c);
}

/* the section's case is refused (at loading, or when its scene or rows are made) with a
 * message naming the place */
static void refused(const char *tmp, const char *section, const char *where) {
    ENSURE(stderr_to(tmp));
    vcase *c = vcase_load(section, false);
    if (c) {
        report r;
        FILE *out = tmpfile();
        report_open_stream(&r, out);
        tl_scene *sc = vcase_scene(c, &r, "s", section);
        ENSURE(sc == NULL);
        if (vcase_int(c, "n", 1, 10) == 1) ENSURE(vcase_rows(c, &r, "main") != 0);
        report_free(&r);
        fclose(out);
        vcase_free(c);
    }
    char msg[2048];
    read_back(tmp, msg, sizeof msg);
    if (!strstr(msg, where)) fprintf(stderr, "%s: expected '%s' in: %s\n", section, where, msg);
    ENSURE(strstr(msg, where) != NULL);
}

int main(void) {
    char tmp[] = "/tmp/talus-test-cases-XXXXXX";
    int fd = mkstemp(tmp);
    ENSURE(fd >= 0);
    close(fd);
    good(tmp);
    refused(tmp, "bad_key", "bad_key/checks.yaml:3:6: checks[0].tolerence: unknown key");
    refused(tmp, "bad_tol", "bad_tol/checks.yaml:2:54: checks[0].tolerance: expected relative: or absolute:");
    refused(tmp, "bad_syntax", "bad_syntax/checks.yaml:2:");
    refused(tmp, "bad_format", "bad_format/checks.yaml:2:17: checks[0].quantity: '${x:%d}'");
    refused(tmp, "bad_file", "bad_file/checks.yaml:2:13: scenes.s.file: no built-in scene 'examples/none.yaml'");
    refused(tmp, "bad_path", "bad_path/checks.yaml:4:11: scenes.s.set.laws.0.f:");
    refused(tmp, "bad_of", "bad_of/checks.yaml:2:70: checks[0].tolerance: expected relative: or absolute: with of:");
    refused(tmp, "bad_fitted", "bad_fitted/checks.yaml:2:6: checks[0]: a fitted row says what was fitted (fitted_by:)");
    refused(tmp, "bad_margin", "bad_margin/checks.yaml:2:6: checks[0]: margin: is for a claim of the paper");
    /* every tolerance names its reason, one of the file's, and every reason is used */
    refused(tmp, "bad_reason", "bad_reason/checks.yaml:2:6: checks[0]: no reason: (every tolerance");
    refused(tmp, "bad_reason_name", "bad_reason_name/checks.yaml:3: checks[0].reason: 'b' is not one of the file's reasons:");
    refused(tmp, "bad_reason_unused", "bad_reason_unused/checks.yaml: reasons.b: no check names it");
    refused(tmp, "bad_reason_kind", "bad_reason_kind/checks.yaml:3:6: checks[0]: reason: is for a tolerance");
    refused(tmp, "bad_param", "bad_param/checks.yaml:2:6: parameters.n: expected an integer from 1 to 10, got 2.5");
    ENSURE(stderr_to(tmp));
    vcase *none = vcase_load("absent", false);
    char msg[512];
    read_back(tmp, msg, sizeof msg);
    ENSURE(none == NULL && strstr(msg, "no built-in case file 'validation/cases/absent/checks.yaml'") != NULL);
    unlink(tmp);
    return tl_test_report("test_cases");
}
