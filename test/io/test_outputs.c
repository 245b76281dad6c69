#define _DEFAULT_SOURCE
/* The run driver and its outputs: a scene built by hand (spheres falling on
 * a plane; the plan filled in directly, no loader), run into a fresh
 * directory. Checks every file's header and rows, the VTK frames and the
 * .pvd, the energy balance, and that failing runs leave no file behind.
 * Reaches into the engine (scene_plan.h, world.h). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv_options.h"
#include "output_kinds.h"
#include "output_plot.h"
#include "scene_plan.h"
#include "talus/talus.h"
#include "test.h"
#include "world_probe.h"

static const double DT = 1e-5;

/* ---- small helpers ---- */

static char *dupstr(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static char *join(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", a, b);
    return s;
}

static char *slurp(const char *path, size_t *size) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            char *b = realloc(buf, cap + 1);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(fp);
    if (buf) buf[n] = '\0';
    if (size) *size = n;
    return buf;
}

static bool exists(const char *dir, const char *name) {
    char *p = join(dir, name);
    struct stat st;
    bool ok = p && stat(p, &st) == 0;
    free(p);
    return ok;
}

/* Regular files under dir (recursive); those whose relative path starts with
 * `skip` are not counted. parts counts names ending in .part. */
static int count_files(const char *dir, const char *rel, const char *skip, int *parts) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char *p = join(dir, e->d_name);
        char *r = rel[0] ? join(rel, e->d_name) : dupstr(e->d_name);
        struct stat st;
        if (p && r && stat(p, &st) == 0) {
            size_t len = strlen(e->d_name);
            if (parts && len > 5 && strcmp(e->d_name + len - 5, ".part") == 0) (*parts)++;
            bool skipped = skip && strncmp(r, skip, strlen(skip)) == 0;
            if (S_ISDIR(st.st_mode)) n += count_files(p, r, skip, parts);
            else if (!skipped) n++;
        }
        free(p);
        free(r);
    }
    closedir(d);
    return n;
}

static void remove_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char *p = join(dir, e->d_name);
            struct stat st;
            if (p && lstat(p, &st) == 0) {
                if (S_ISDIR(st.st_mode)) remove_tree(p);
                else unlink(p);
            }
            free(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* ---- CSV ---- */

typedef struct csv {
    char *text;
    char **lines; /* lines[0] is the header */
    size_t nlines;
} csv;

static bool csv_read(csv *c, const char *dir, const char *name) {
    memset(c, 0, sizeof *c);
    char *p = join(dir, name);
    c->text = p ? slurp(p, NULL) : NULL;
    free(p);
    if (!c->text) return false;
    size_t cap = 64;
    c->lines = malloc(cap * sizeof *c->lines);
    for (char *s = c->text; c->lines && *s;) {
        char *nl = strchr(s, '\n');
        if (nl) *nl = '\0';
        if (c->nlines == cap) {
            cap *= 2;
            c->lines = realloc(c->lines, cap * sizeof *c->lines);
            if (!c->lines) break;
        }
        c->lines[c->nlines++] = s;
        if (!nl) break;
        s = nl + 1;
    }
    return c->lines != NULL && c->nlines > 0;
}

static void csv_free(csv *c) {
    free(c->text);
    free(c->lines);
}

static size_t csv_rows(const csv *c) { return c->nlines ? c->nlines - 1 : 0; }

/* field `col` (0-based) of a row as a number */
static double field(const char *line, int col) {
    const char *s = line;
    for (int k = 0; k < col && s; k++) {
        s = strchr(s, ',');
        if (s) s++;
    }
    return s ? strtod(s, NULL) : NAN;
}

static int column_count(const char *line) {
    int n = 1;
    for (const char *s = line; *s; s++)
        if (*s == ',') n++;
    return n;
}

/* ---- XML (enough for the .vtp and .pvd: tags, attributes, raw appended data) ---- */

#define MAX_TAGS 64

typedef struct xml_doc {
    int ntags;
    char name[MAX_TAGS][32];
    char attrs[MAX_TAGS][256];
    int nblocks;                /* appended raw blocks */
    uint64_t block_at[16];      /* offset from the '_' */
    uint64_t block_size[16];
    const unsigned char *block_data[16];
} xml_doc;

static uint64_t get_u64(const unsigned char *b) {
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = (v << 8) | b[k];
    return v;
}

static uint32_t get_u32(const unsigned char *b) {
    uint32_t v = 0;
    for (int k = 3; k >= 0; k--) v = (v << 8) | b[k];
    return v;
}

static double get_f64(const unsigned char *b) {
    uint64_t v = get_u64(b);
    double x;
    memcpy(&x, &v, sizeof x);
    return x;
}

/* Checks that tags nest and close; collects start tags and the raw blocks
 * (nblocks_expected of them) of an AppendedData element. */
static bool xml_parse(const char *s, size_t len, int nblocks_expected, xml_doc *d) {
    memset(d, 0, sizeof *d);
    char stack[32][32];
    int depth = 0, roots = 0;
    size_t i = 0;
    while (i < len) {
        if (s[i] != '<') {
            i++; /* text: only TimeValue has some */
            continue;
        }
        if (s[i + 1] == '?') {
            const char *e = strstr(s + i, "?>");
            if (!e) return false;
            i = (size_t)(e - s) + 2;
            continue;
        }
        const char *e = memchr(s + i, '>', len - i);
        if (!e) return false;
        size_t end = (size_t)(e - s);
        bool closing = s[i + 1] == '/', self = s[end - 1] == '/';
        size_t nb = i + (closing ? 2 : 1), ne = nb;
        while (ne < end && s[ne] != ' ' && s[ne] != '/' && s[ne] != '\n') ne++;
        if (ne - nb == 0 || ne - nb >= 32) return false;
        char name[32];
        memcpy(name, s + nb, ne - nb);
        name[ne - nb] = '\0';
        if (closing) {
            if (depth == 0 || strcmp(stack[depth - 1], name) != 0) return false;
            depth--;
        } else {
            if (depth == 0 && ++roots > 1) return false;
            if (d->ntags < MAX_TAGS) {
                snprintf(d->name[d->ntags], sizeof d->name[0], "%s", name);
                size_t al = end - ne;
                if (al >= sizeof d->attrs[0]) al = sizeof d->attrs[0] - 1;
                memcpy(d->attrs[d->ntags], s + ne, al);
                d->attrs[d->ntags][al] = '\0';
                d->ntags++;
            }
            if (!self) {
                if (depth == 32) return false;
                snprintf(stack[depth++], sizeof stack[0], "%s", name);
            }
            if (strcmp(name, "AppendedData") == 0 && !self) {
                size_t u = end + 1;
                while (u < len && (s[u] == ' ' || s[u] == '\n')) u++;
                if (u >= len || s[u] != '_') return false;
                size_t base = u + 1, at = base;
                for (int b = 0; b < nblocks_expected && b < 16; b++) {
                    if (at + 8 > len) return false;
                    uint64_t n = get_u64((const unsigned char *)s + at);
                    d->block_at[b] = at - base;
                    d->block_size[b] = n;
                    d->block_data[b] = (const unsigned char *)s + at + 8;
                    at += 8 + n;
                    if (at > len) return false;
                    d->nblocks++;
                }
                i = at;
                continue;
            }
        }
        i = end + 1;
    }
    return depth == 0 && roots == 1;
}

/* attribute value of tag k ("" when absent) */
static const char *attr(const xml_doc *d, int k, const char *name, char *buf, size_t size) {
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *a = strstr(d->attrs[k], key);
    buf[0] = '\0';
    if (!a) return buf;
    a += strlen(key);
    const char *q = strchr(a, '"');
    size_t n = q ? (size_t)(q - a) : 0;
    if (n >= size) n = size - 1;
    memcpy(buf, a, n);
    buf[n] = '\0';
    return buf;
}

static int find_tag(const xml_doc *d, const char *name, const char *array_name) {
    char buf[64];
    for (int k = 0; k < d->ntags; k++)
        if (strcmp(d->name[k], name) == 0 &&
            (!array_name || strcmp(attr(d, k, "Name", buf, sizeof buf), array_name) == 0))
            return k;
    return -1;
}

/* ---- the scene ---- */

typedef struct scene_opts {
    bool escape;  /* a domain and a particle that leaves it */
    bool all_outputs;
} scene_opts;

static tl_output_spec spec_of(tl_output_kind kind, const char *file) {
    tl_output_spec o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.file = dupstr(file);
    if (kind == TL_OUTPUT_PLOT) { /* the first energy output */
        tl_plot_options *po = calloc(1, sizeof *po);
        po->of = -1;
        o.opts = po;
    } else if (kind == TL_OUTPUT_PARTICLES) {
        o.opts = calloc(1, sizeof(tl_particles_options));
    }
    return o;
}

static tl_scene *make_scene(scene_opts so) {
    tl_scene *sc = calloc(1, sizeof *sc);
    if (!sc) return NULL;
    tl_world_def wd = tl_world_default();
    wd.gravity = (tl_vec3){0, 0, -9.81};
    wd.dt = DT;
    if (so.escape) {
        wd.has_domain = true;
        wd.allow_unresolved_contacts = true; /* the fast particle meets nothing */
        wd.domain_min = (tl_vec3){-0.05, -0.05, -0.01};
        wd.domain_max = (tl_vec3){0.05, 0.05, 0.1};
    }
    if (tl_world_create(&wd, &sc->world) != TL_OK) return sc;
    tl_world *w = sc->world;
    tl_material_def md = tl_material_default();
    md.name = "glass";
    md.density = 2500;
    md.youngs_modulus = 1e7;
    md.poisson_ratio = 0.25;
    int glass = 0;
    ENSURE_OK(tl_world_add_material(w, &md, &glass));
    tl_law_def law = tl_law_default();
    tl_law_set(&law, "e", 0.5);
    tl_law_set(&law, "mu", 0.4);
    ENSURE_OK(tl_world_set_law(w, glass, glass, &law));
    tl_wall_def wl = tl_wall_default();
    wl.material = glass;
    ENSURE_OK(tl_world_add_wall(w, &wl, NULL));
    const double R = 0.001;
    const tl_vec3 pos[4] = {{0, 0, 0.004}, {0.003, 0, 0.003}, {0.0061, 0, 0.005}, {-0.004, 0.002, 0.002}};
    const tl_vec3 vel[4] = {{0.05, 0, 0}, {0, 0, 0}, {-0.2, 0, 0}, {0, 0, -0.1}};
    for (int i = 0; i < 4; i++) {
        tl_particle_def pd = tl_particle_default();
        pd.id = (uint32_t)(i + 1);
        pd.material = glass;
        pd.radius = R;
        pd.position = pos[i];
        pd.velocity = vel[i];
        pd.angular_velocity = (tl_vec3){0, 10.0 * i, 0};
        ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    }
    if (so.escape) {
        tl_particle_def pd = tl_particle_default();
        pd.id = 9;
        pd.material = glass;
        pd.radius = R;
        pd.position = (tl_vec3){0.0, 0, 0.05}; /* leaves at t = 0.025 s */
        pd.velocity = (tl_vec3){2.0, 0, 0};
        ENSURE_OK(tl_world_add_particle(w, &pd, NULL));
    }
    sc->path = dupstr("test_outputs.yaml");
    sc->title = dupstr("four spheres");
    sc->slug = dupstr("four-spheres");
    sc->nstages = 2;
    sc->stages = calloc(2, sizeof *sc->stages);
    sc->stages[0] = (tl_stage_spec){dupstr("fall"), 0.03};
    sc->stages[1] = (tl_stage_spec){dupstr("settle"), 0.02};
    sc->outputs = calloc(8, sizeof *sc->outputs);
    size_t n = 0;
    tl_output_spec o = spec_of(TL_OUTPUT_ENERGY, "energy.csv");
    o.every = 0.001;
    o.line = 10;
    sc->outputs[n++] = o;
    o = spec_of(TL_OUTPUT_VTK, "vtk/particles");
    o.every = 0.01;
    sc->outputs[n++] = o;
    o = spec_of(TL_OUTPUT_COLLISIONS, "collisions.csv");
    sc->outputs[n++] = o;
    if (so.all_outputs) {
        o = spec_of(TL_OUTPUT_PARTICLES, "particles.csv");
        o.every_steps = 1000;
        ((tl_particles_options *)o.opts)->fields =
            TL_FIELD_POSITION | TL_FIELD_VELOCITY | TL_FIELD_RADIUS | TL_FIELD_KINETIC_ENERGY;
        sc->outputs[n++] = o;
        o = spec_of(TL_OUTPUT_PARTICLES, "csv/chosen.csv");
        tl_particles_options *po = o.opts;
        po->ids = malloc(2 * sizeof *po->ids);
        po->ids[0] = 3;
        po->ids[1] = 1;
        po->nids = 2;
        po->fields = 0xffu;
        sc->outputs[n++] = o;
        o = spec_of(TL_OUTPUT_CONTACTS, "contacts.csv");
        o.every = 0.005;
        sc->outputs[n++] = o;
        o = spec_of(TL_OUTPUT_PLOT, "plots/energy.png");
        sc->outputs[n++] = o;
    }
    sc->noutputs = n;
    return sc;
}

static void free_scene(tl_scene *sc) {
    if (!sc) return;
    tl_world_destroy(sc->world);
    free(sc->path);
    free(sc->title);
    free(sc->slug);
    for (size_t k = 0; k < sc->nstages; k++) free(sc->stages[k].name);
    free(sc->stages);
    for (size_t k = 0; k < sc->noutputs; k++) {
        free(sc->outputs[k].file);
        tl_output_options_free(&sc->outputs[k]);
    }
    free(sc->outputs);
    free(sc);
}

static bool gnuplot_installed(void) {
    const char *path = getenv("PATH");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path ? path : "");
    for (char *tok = strtok(buf, ":"); tok; tok = strtok(NULL, ":")) {
        char *p = join(tok, "gnuplot");
        bool ok = p && access(p, X_OK) == 0;
        free(p);
        if (ok) return true;
    }
    return false;
}

/* ---- the full run ---- */

static int progress_calls = 0;

static void count_progress(const tl_progress *p, void *user) {
    (void)user;
    progress_calls++;
    ENSURE(p->steps_total == 5000);
    ENSURE(p->step >= 0 && p->step <= p->steps_total);
    ENSURE(p->stage >= 0 && p->stage < 2);
}

static void check_energy(const char *dir, const tl_run_summary *sum) {
    csv c;
    ENSURE(csv_read(&c, dir, "energy.csv"));
    if (!c.nlines) return;
    /* time, step, the ledger's terms in the order of its table (tl_energy_term_get), the checks */
    char header[2048] = "time,step";
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) {
        strcat(header, ",");
        strcat(header, tl_energy_term_get(k)->name);
    }
    strcat(header, ",total,balance_error,contacts");
    ENSURE(strcmp(c.lines[0], header) == 0);
    ENSURE(strncmp(c.lines[0], "time,step,kinetic_translational,kinetic_rotational,potential,elastic_normal,", 76) == 0);
    ENSURE(csv_rows(&c) == 51); /* t = 0, 0.001, ..., 0.05 */
    for (size_t r = 1; r < c.nlines; r++) {
        double t = field(c.lines[r], 0), target = 0.001 * (double)(r - 1);
        ENSURE(column_count(c.lines[r]) == TL_ENERGY_TERM_COUNT + 5);
        ENSURE(t >= target - 1e-9 * DT && t < target + DT);
        ENSURE(field(c.lines[r], 1) == (double)llround(t / DT));
        ENSURE(fabs(field(c.lines[r], TL_ENERGY_TERM_COUNT + 3)) < 1e-3);
    }
    ENSURE(field(c.lines[1], TL_ENERGY_TERM_COUNT + 3) == 0.0);
    const char *last = c.lines[c.nlines - 1];
    ENSURE_NEAR(field(last, 0), 0.05, 1e-9);
    ENSURE_NEAR(fabs(field(last, TL_ENERGY_TERM_COUNT + 3)), sum->energy_balance_error, 1e-9 * sum->energy_balance_error + 1e-15);
    ENSURE_REL(field(c.lines[1], TL_ENERGY_TERM_COUNT + 2), sum->energy_initial, 1e-12);
    ENSURE_REL(field(last, TL_ENERGY_TERM_COUNT + 2), sum->energy_final, 1e-12);
    csv_free(&c);
}

static void check_particles(const char *dir) {
    csv c;
    ENSURE(csv_read(&c, dir, "particles.csv"));
    if (c.nlines) {
        ENSURE(strcmp(c.lines[0], "time,step,id,x,y,z,vx,vy,vz,radius,kinetic_energy") == 0);
        ENSURE(csv_rows(&c) == 6 * 4); /* steps 0, 1000, ..., 5000 */
        for (size_t r = 1; r < c.nlines; r++) {
            ENSURE(field(c.lines[r], 1) == 1000.0 * (double)((r - 1) / 4));
            ENSURE(field(c.lines[r], 2) == (double)((r - 1) % 4 + 1));
            ENSURE(field(c.lines[r], 9) == 0.001);
        }
    }
    csv_free(&c);
    ENSURE(csv_read(&c, dir, "csv/chosen.csv"));
    if (c.nlines) {
        ENSURE(strcmp(c.lines[0], "time,step,id,x,y,z,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz,qw,qx,qy,"
                                  "qz,radius,kinetic_energy") == 0);
        ENSURE(csv_rows(&c) == 2 * 101); /* the default: 100 intervals */
        for (size_t r = 1; r < c.nlines; r++) {
            ENSURE(column_count(c.lines[r]) == 24);
            ENSURE(field(c.lines[r], 2) == (r % 2 ? 3.0 : 1.0));
            ENSURE(field(c.lines[r], 1) == 50.0 * (double)((r - 1) / 2));
        }
    }
    csv_free(&c);
}

/* contacts rows at each record = the contacts column of the energy row at the same step */
static void check_contacts(const char *dir) {
    csv c, e;
    ENSURE(csv_read(&c, dir, "contacts.csv"));
    ENSURE(csv_read(&e, dir, "energy.csv"));
    if (c.nlines && e.nlines) {
        ENSURE(strcmp(c.lines[0], "time,step,id_a,id_b,with_wall,overlap,nx,ny,nz,px,py,pz,fn,"
                                  "fn_damping,ftx,fty,ftz,sliding") == 0);
        size_t expected = 0, wall_rows = 0;
        for (size_t r = 1; r < e.nlines; r++)
            if ((r - 1) % 5 == 0) expected += (size_t)field(e.lines[r], TL_ENERGY_TERM_COUNT + 4); /* contacts, the last */
        ENSURE(expected > 0);
        ENSURE(csv_rows(&c) == expected);
        for (size_t r = 1; r < c.nlines; r++) {
            double step = field(c.lines[r], 1);
            ENSURE(fmod(step, 500.0) == 0.0);
            ENSURE(field(c.lines[r], 5) > 0.0); /* overlap */
            ENSURE(field(c.lines[r], 12) > -1e-12);
            if (field(c.lines[r], 4) == 1.0) wall_rows++;
        }
        ENSURE(wall_rows > 0);
    }
    csv_free(&c);
    csv_free(&e);
}

static void check_collisions(const char *dir) {
    csv c;
    ENSURE(csv_read(&c, dir, "collisions.csv"));
    if (c.nlines) {
        ENSURE(strcmp(c.lines[0], "id_a,id_b,with_wall,t_begin,t_end,duration,normal_speed_in,"
                                  "normal_speed_out,restitution,max_overlap,max_normal_force") == 0);
        ENSURE(csv_rows(&c) >= 4);
        for (size_t r = 1; r < c.nlines; r++) {
            double t0 = field(c.lines[r], 3), t1 = field(c.lines[r], 4);
            ENSURE(t1 > t0 && t1 <= 0.05);
            ENSURE_NEAR(field(c.lines[r], 5), t1 - t0, 1e-12);
            double e = field(c.lines[r], 8);
            if (field(c.lines[r], 6) > 0.05) ENSURE(e > 0.2 && e < 0.8); /* e = 0.5 */
        }
    }
    csv_free(&c);
}

/* positions of the particles CSV rows at a step, in id order 1..4 */
static void particle_positions(const char *dir, double step, double x[4][3]) {
    csv c;
    memset(x, 0, 12 * sizeof(double));
    if (!csv_read(&c, dir, "particles.csv")) return;
    for (size_t r = 1; r < c.nlines; r++) {
        if (field(c.lines[r], 1) != step) continue;
        int id = (int)field(c.lines[r], 2);
        if (id >= 1 && id <= 4)
            for (int k = 0; k < 3; k++) x[id - 1][k] = field(c.lines[r], 3 + k);
    }
    csv_free(&c);
}

static void check_frame(const char *dir, const char *name, double step) {
    char *path = join(dir, name);
    size_t len = 0;
    char *text = path ? slurp(path, &len) : NULL;
    free(path);
    ENSURE(text != NULL);
    if (!text) return;
    xml_doc d;
    ENSURE(xml_parse(text, len, 11, &d));
    ENSURE(strstr(text, "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
                        "header_type=\"UInt64\">") != NULL);
    char buf[64];
    int piece = find_tag(&d, "Piece", NULL);
    ENSURE(piece >= 0);
    if (piece >= 0) {
        ENSURE(strcmp(attr(&d, piece, "NumberOfPoints", buf, sizeof buf), "4") == 0);
        ENSURE(strcmp(attr(&d, piece, "NumberOfVerts", buf, sizeof buf), "4") == 0);
    }
    /* every appended array: its offset is where its block starts, its size fits */
    static const struct {
        const char *name;
        uint64_t bytes;
    } want[] = {{"id", 32},         {"material", 16},         {"radius", 32},
                {"velocity", 96},   {"angular_velocity", 96}, {"force", 96},
                {"Points", 96},     {"connectivity", 32},     {"offsets", 32},
                {"shape", 16},      {"orientation", 128}};
    ENSURE(d.nblocks == 11);
    for (int b = 0; b < 11 && b < d.nblocks; b++) {
        int k = find_tag(&d, "DataArray", want[b].name);
        ENSURE(k >= 0);
        if (k < 0) continue;
        ENSURE(strcmp(attr(&d, k, "format", buf, sizeof buf), "appended") == 0);
        ENSURE(strtoull(attr(&d, k, "offset", buf, sizeof buf), NULL, 10) == d.block_at[b]);
        ENSURE(d.block_size[b] == want[b].bytes);
    }
    if (d.nblocks == 11) {
        double x[4][3];
        particle_positions(dir, step, x);
        for (int i = 0; i < 4; i++) {
            ENSURE(get_u64(d.block_data[0] + 8 * i) == (uint64_t)(i + 1)); /* id */
            ENSURE_NEAR(get_f64(d.block_data[2] + 8 * i), 0.001, 0.0);     /* radius */
            for (int k = 0; k < 3; k++)
                ENSURE_NEAR(get_f64(d.block_data[6] + 24 * i + 8 * k), x[i][k], 1e-12);
            ENSURE(get_u64(d.block_data[7] + 8 * i) == (uint64_t)i);     /* connectivity */
            ENSURE(get_u64(d.block_data[8] + 8 * i) == (uint64_t)i + 1); /* offsets */
            ENSURE(get_u32(d.block_data[9] + 4 * i) == 0);              /* shape: spheres */
            double q2 = 0.0;                                             /* a unit quaternion */
            for (int k = 0; k < 4; k++) q2 += get_f64(d.block_data[10] + 32 * i + 8 * k) * get_f64(d.block_data[10] + 32 * i + 8 * k);
            ENSURE_NEAR(q2, 1.0, 1e-12);
        }
    }
    static const char tail[] = "\n  </AppendedData>\n</VTKFile>\n";
    ENSURE(len > sizeof tail && memcmp(text + len - (sizeof tail - 1), tail, sizeof tail - 1) == 0);
    free(text);
}

static void check_vtk(const char *dir, int frames, double every) {
    char *path = join(dir, "vtk/particles.pvd");
    size_t len = 0;
    char *text = path ? slurp(path, &len) : NULL;
    free(path);
    ENSURE(text != NULL);
    if (!text) return;
    xml_doc d;
    ENSURE(xml_parse(text, len, 0, &d));
    ENSURE(strstr(text, "<VTKFile type=\"Collection\"") != NULL);
    int sets = 0;
    char buf[128], want[128];
    for (int k = 0; k < d.ntags; k++) {
        if (strcmp(d.name[k], "DataSet") != 0) continue;
        snprintf(want, sizeof want, "particles/particles_%06d.vtp", sets);
        ENSURE(strcmp(attr(&d, k, "file", buf, sizeof buf), want) == 0);
        ENSURE_NEAR(strtod(attr(&d, k, "timestep", buf, sizeof buf), NULL), every * sets, 1e-9);
        snprintf(want, sizeof want, "vtk/particles/particles_%06d.vtp", sets);
        ENSURE(exists(dir, want));
        sets++;
    }
    ENSURE(sets == frames);
    snprintf(want, sizeof want, "vtk/particles/particles_%06d.vtp", frames);
    ENSURE(!exists(dir, want));
    free(text);
}

static void test_full_run(const char *root) {
    char *dir = join(root, "full");
    tl_scene *sc = make_scene((scene_opts){false, true});
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = dir;
    opt.progress = count_progress;
    opt.progress_interval = 0.0;
    tl_run_summary sum;
    tl_status s = tl_scene_run(sc, &opt, &sum);
    ENSURE(s == TL_OK);
    if (s != TL_OK) fprintf(stderr, "run failed: %s\n", tl_scene_run_error(sc));
    ENSURE(progress_calls > 0);
    ENSURE(sum.steps == 5000);
    ENSURE_NEAR(sum.simulated_time, 0.05, 1e-9);
    ENSURE(sum.particles == 4);
    ENSURE(sum.neighbor_builds >= 1);
    ENSURE(sum.energy_scale > 0.0);
    ENSURE(sum.energy_balance_error < 1e-3);
    ENSURE(strcmp(sum.output_dir, dir) == 0);
    ENSURE(sum.particle_steps_per_second > 0.0);
    fprintf(stderr, "full run: %lld steps in %.3f s, balance error %.3g of %.4g J, %d files\n",
            (long long)sum.steps, sum.wall_seconds, sum.energy_balance_error, sum.energy_scale,
            sum.files_written);
    bool plot = gnuplot_installed();
    /* 5 CSV + 6 frames + .pvd + plot script (+ PNG) */
    ENSURE(sum.files_written == 5 + 6 + 1 + 1 + (plot ? 1 : 0));
    int parts = 0;
    ENSURE(count_files(dir, "", NULL, &parts) == sum.files_written);
    ENSURE(parts == 0);
    check_energy(dir, &sum);
    check_particles(dir);
    check_contacts(dir);
    check_collisions(dir);
    check_vtk(dir, 6, 0.01);
    for (int f = 0; f < 6; f++) {
        char name[64];
        snprintf(name, sizeof name, "vtk/particles/particles_%06d.vtp", f);
        check_frame(dir, name, 1000.0 * f);
    }
    ENSURE(exists(dir, "plots/energy.png.gp"));
    if (plot) {
        char *png = join(dir, "plots/energy.png");
        size_t n = 0;
        char *img = png ? slurp(png, &n) : NULL;
        ENSURE(img && n > 1000 && memcmp(img, "\x89PNG\r\n\x1a\n", 8) == 0);
        free(img);
        free(png);
    } else {
        fprintf(stderr, "test_outputs: gnuplot is not installed: PNG check skipped "
                        "(apt-get install gnuplot-nox)\n");
    }
    free_scene(sc);

    /* a second run into the same directory with fewer frames: the old ones go */
    sc = make_scene((scene_opts){false, false});
    sc->outputs[1].every = 0.025;
    s = tl_scene_run(sc, &opt, &sum);
    ENSURE(s == TL_OK);
    check_vtk(dir, 3, 0.025);
    free_scene(sc);
    free(dir);
}

/* ---- failing runs ---- */

static void test_output_dir_is_a_file(const char *root) {
    char *file = join(root, "plain-file");
    FILE *fp = file ? fopen(file, "w") : NULL;
    ENSURE(fp != NULL);
    if (fp) fclose(fp);
    tl_scene *sc = make_scene((scene_opts){false, true});
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = file;
    tl_run_summary sum;
    tl_status s = tl_scene_run(sc, &opt, &sum);
    ENSURE(s == TL_ERROR_IO);
    ENSURE(strstr(tl_scene_run_error(sc), "plain-file") != NULL);
    ENSURE(tl_world_step_count(sc->world) == 0);
    fprintf(stderr, "expected failure: %s\n", tl_scene_run_error(sc));
    free_scene(sc);
    free(file);
}

typedef struct sabotage {
    const char *dir;
    tl_world *world;
    bool io;    /* replace the VTK frame folder by a file */
    bool done;
} sabotage;

static void sabotage_progress(const tl_progress *p, void *user) {
    sabotage *sb = user;
    if (p->time < 0.02) return;
    if (sb->io && !sb->done) {
        char *folder = join(sb->dir, "vtk/particles");
        char *moved = join(sb->dir, "vtk/moved");
        ENSURE(folder && moved && rename(folder, moved) == 0);
        FILE *fp = folder ? fopen(folder, "w") : NULL;
        ENSURE(fp != NULL);
        if (fp) fclose(fp);
        free(folder);
        free(moved);
    }
    if (!sb->io) tl_probe_fail_alloc_in(sb->world, 1); /* the next allocation of the world fails */
    sb->done = true;
}

static void test_failure_mid_run(const char *root, bool io) {
    char *dir = join(root, io ? "io-failure" : "world-failure");
    tl_scene *sc = make_scene((scene_opts){!io, true});
    sabotage sb = {dir, sc->world, io, false};
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = dir;
    opt.progress = sabotage_progress;
    opt.progress_user = &sb;
    opt.progress_interval = 0.0;
    tl_run_summary sum;
    tl_status s = tl_scene_run(sc, &opt, &sum);
    ENSURE(sb.done);
    ENSURE(s == (io ? TL_ERROR_IO : TL_ERROR_MEMORY));
    fprintf(stderr, "expected failure: %s\n", tl_scene_run_error(sc));
    if (io) ENSURE(strstr(tl_scene_run_error(sc), "vtk output 'vtk/particles'") != NULL);
    else ENSURE(strstr(tl_scene_run_error(sc), "stage 'fall'") != NULL);
    ENSURE(tl_world_time(sc->world) > 0.02 && tl_world_time(sc->world) < 0.05);
    /* nothing but what the test itself made: the moved frames and the blocking file */
    int parts = 0;
    int left = count_files(dir, "", "vtk/moved", &parts);
    ENSURE(left == (io ? 1 : 0));
    ENSURE(parts == 0);
    ENSURE(!exists(dir, "energy.csv") && !exists(dir, "vtk/particles.pvd"));
    ENSURE(!exists(dir, "plots/energy.png.gp"));
    tl_probe pr;
    tl_probe_read(sc->world, &pr);
    ENSURE(pr.log_on == false);
    free_scene(sc);
    free(dir);
}

static void test_no_outputs(const char *root) {
    char *dir = join(root, "never");
    tl_scene *sc = make_scene((scene_opts){false, true});
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = dir;
    opt.write_outputs = false;
    tl_run_summary sum;
    ENSURE(tl_scene_run(sc, &opt, &sum) == TL_OK);
    ENSURE(sum.steps == 5000 && sum.files_written == 0 && sum.output_dir[0] == '\0');
    ENSURE(sum.energy_balance_error < 1e-3);
    struct stat st;
    ENSURE(stat(dir, &st) != 0);
    free_scene(sc);
    free(dir);
}

static void test_without_gnuplot(const char *root) {
    char *dir = join(root, "no-gnuplot");
    char *bin = join(root, "empty-bin");
    mkdir(bin, 0777);
    const char *old = getenv("PATH");
    char *saved = dupstr(old ? old : "/usr/bin:/bin");
    setenv("PATH", bin, 1);
    tl_scene *sc = make_scene((scene_opts){false, false});
    sc->outputs[sc->noutputs++] = spec_of(TL_OUTPUT_PLOT, "energy.png");
    sc->stages[0].duration = 0.001;
    sc->stages[1].duration = 0.001;
    tl_run_options opt = tl_run_options_default();
    opt.output_dir = dir;
    tl_run_summary sum;
    fprintf(stderr, "expected warning follows:\n");
    ENSURE(tl_scene_run(sc, &opt, &sum) == TL_OK);
    setenv("PATH", saved, 1);
    ENSURE(exists(dir, "energy.png.gp") && !exists(dir, "energy.png"));
    ENSURE(exists(dir, "energy.csv"));
    int parts = 0;
    count_files(dir, "", NULL, &parts);
    ENSURE(parts == 0);
    free_scene(sc);
    free(saved);
    free(bin);
    free(dir);
}

int main(void) {
    char root[] = "/tmp/talus-test-outputs-XXXXXX";
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    test_full_run(root);
    test_output_dir_is_a_file(root);
    test_failure_mid_run(root, true);
    test_failure_mid_run(root, false);
    test_no_outputs(root);
    test_without_gnuplot(root);
    if (tl_test_failures == 0 && !getenv("TALUS_TEST_KEEP")) remove_tree(root);
    else fprintf(stderr, "files kept in %s\n", root);
    return tl_test_report("test_outputs");
}
