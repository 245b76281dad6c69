/*
 * CSV outputs: the energy balance, particle fields, touching contacts (time
 * series, one record per interval), and the log of collisions that ended
 * (written after every chunk of steps). One header line, then rows; comma
 * separated, '.' decimal point, SI units (docs/outputs.md lists them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "csv_columns.h"
#include "csv_options.h"
#include "output_kind.h"
#include "outputs.h"
#include "world.h"

#define TIME_FMT "%.17g"   /* s: every digit, so that rows can be matched */
#define ENERGY_FMT "%.15g" /* J: a balance subtracts totals */
#define VALUE_FMT "%.12g"  /* particles, contacts, collisions */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- common ---- */

static tl_status fail_io(tl_output *o) {
    return tl_file_check(&o->file, o->ctx->err, o->ctx->errsize) == TL_OK ? TL_OK : TL_ERROR_IO;
}

/* a resumed run: the bytes written by the checkpoint, then appending */
static tl_status csv_reopen(tl_output *o) {
    char *part = tl_strdup_printf("%s.part", o->path);
    if (!part) {
        snprintf(o->ctx->err, o->ctx->errsize, "out of memory");
        return TL_ERROR_MEMORY;
    }
    tl_status s = tl_file_resume(&o->file, o->path, o->resume_part ? part : o->path,
                                 o->resume->length, o->ctx->err, o->ctx->errsize);
    free(part);
    if (s != TL_OK) return s;
    o->records = o->resume->records;
    o->hashed = o->resume->length;
    o->hash = o->resume->hash;
    return TL_OK;
}

static tl_status csv_open(tl_output *o) {
    tl_status s = tl_mkdir_parent(o->path, o->ctx->err, o->ctx->errsize);
    if (s != TL_OK) return s;
    if (o->resume) return csv_reopen(o);
    o->hashed = 0;
    o->hash = TL_FNV_START;
    s = tl_file_open(&o->file, o->path, o->ctx->err, o->ctx->errsize);
    if (s != TL_OK) return s;
    const char *names[TL_CSV_MAX_COLUMNS];
    size_t n = tl_csv_columns(o->spec, names, TL_CSV_MAX_COLUMNS);
    for (size_t k = 0; k < n; k++) fprintf(o->file.fp, "%s%s", k ? "," : "", names[k]);
    fputc('\n', o->file.fp);
    return fail_io(o);
}

/* ---- checkpoints ---- */

/* The file on disk (flushed and synced), its length and the checksum of its
 * bytes: the checksum goes on from the bytes checksummed at the last
 * checkpoint, so that each byte is read back once. */
static tl_status csv_save(tl_output *o, tl_output_saved *out) {
    uint64_t length, got;
    tl_status s = tl_file_sync(&o->file, &length, o->ctx->err, o->ctx->errsize);
    if (s != TL_OK) return s;
    if (length < o->hashed) {
        snprintf(o->ctx->err, o->ctx->errsize, "'%s' shrank while it was written", o->file.part);
        return TL_ERROR_IO;
    }
    s = tl_file_fnv(o->file.part, o->hashed, length, &o->hash, &got, o->ctx->err, o->ctx->errsize);
    if (s == TL_OK && got != length - o->hashed) {
        snprintf(o->ctx->err, o->ctx->errsize, "'%s' shrank while it was written", o->file.part);
        s = TL_ERROR_IO;
    }
    if (s != TL_OK) return s;
    o->hashed = length;
    out->records = o->records;
    out->length = length;
    out->hash = o->hash;
    out->log_was_enabled = o->log_was_enabled;
    return TL_OK;
}

/* How many of the first `length` bytes of path there are, and whether they
 * are those the checkpoint counted (*state: 0 missing, 1 shorter, 2
 * different, 3 good). */
static tl_status probe(tl_output *o, const char *path, const tl_output_saved *in, int *state,
                       uint64_t *size) {
    uint64_t h = TL_FNV_START;
    char msg[512];
    tl_status s = tl_file_fnv(path, 0, in->length, &h, size, msg, sizeof msg);
    if (s == TL_ERROR_NOT_FOUND) {
        *state = 0;
        return TL_OK;
    }
    if (s != TL_OK) {
        snprintf(o->ctx->err, o->ctx->errsize, "cannot resume: %s", msg);
        return s;
    }
    *state = *size < in->length ? 1 : h != in->hash ? 2 : 3;
    return TL_OK;
}

/* Its own .part (a process that was killed) or the final file (a run that
 * was interrupted and committed it) must begin with the bytes the
 * checkpoint counted; nothing is changed here. */
static tl_status csv_resume_check(tl_output *o, const tl_output_saved *in) {
    char *part = tl_strdup_printf("%s.part", o->path);
    if (!part) {
        snprintf(o->ctx->err, o->ctx->errsize, "out of memory");
        return TL_ERROR_MEMORY;
    }
    int sp = 0, sf = 0;
    uint64_t np = 0, nf = 0;
    tl_status s = probe(o, part, in, &sp, &np);
    if (s == TL_OK && sp != 3) s = probe(o, o->path, in, &sf, &nf);
    if (s != TL_OK || sp == 3 || sf == 3) {
        o->resume_part = sp == 3;
        free(part);
        return s;
    }
    const unsigned long long need = (unsigned long long)in->length;
    if (sf == 0 && sp == 0)
        snprintf(o->ctx->err, o->ctx->errsize,
                 "cannot resume: %s does not exist (nor its .part), the checkpoint needs its first "
                 "%llu bytes; rerun without --resume or restore the file",
                 o->path, need);
    else if (sf == 2 || (sf == 0 && sp == 2))
        snprintf(o->ctx->err, o->ctx->errsize,
                 "cannot resume: the first %llu bytes of %s%s are not those the checkpoint was "
                 "written with (the file was changed, or belongs to another run); rerun without "
                 "--resume or restore the file",
                 need, o->path, sf == 2 ? "" : ".part");
    else if (sf == 1)
        snprintf(o->ctx->err, o->ctx->errsize,
                 "cannot resume: %s has %llu bytes, the checkpoint needs %llu; rerun without "
                 "--resume or restore the file",
                 o->path, (unsigned long long)nf, need);
    else
        snprintf(o->ctx->err, o->ctx->errsize,
                 "cannot resume: %s does not exist and %s has %llu bytes, the checkpoint needs "
                 "%llu; rerun without --resume or restore the file",
                 o->path, part, (unsigned long long)np, need);
    free(part);
    return TL_ERROR_IO;
}

static tl_status csv_commit(tl_output *o) {
    tl_status s = tl_file_commit(&o->file, o->ctx->err, o->ctx->errsize);
    if (s == TL_OK) o->files_written = 1;
    return s;
}

static void csv_abort(tl_output *o) { tl_file_abort(&o->file); }

static void csv_release(tl_output *o) { tl_file_release(&o->file); }

static void row_start(tl_output *o) {
    const tl_world *w = o->ctx->world;
    fprintf(o->file.fp, TIME_FMT ",%lld", tl_world_time(w), (long long)tl_world_step_count(w));
}

/* + 0.0 writes -0 as 0 */
static void put3(FILE *fp, tl_vec3 v) {
    fprintf(fp, "," VALUE_FMT "," VALUE_FMT "," VALUE_FMT, v.x + 0.0, v.y + 0.0, v.z + 0.0);
}

/* ---- energy ---- */

static tl_status energy_record(tl_output *o) {
    tl_world *w = o->ctx->world;
    tl_energy e;
    tl_status s = tl_world_energy(w, &e);
    if (s != TL_OK) {
        snprintf(o->ctx->err, o->ctx->errsize, "energy: %s", tl_world_error(w));
        return s;
    }
    FILE *fp = o->file.fp;
    o->ctx->energy_scale = tl_energy_scale_update(o->ctx->energy_scale, &e, &o->ctx->energy0);
    row_start(o);
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++) fprintf(fp, "," ENERGY_FMT, e.term[k]); /* the table's order */
    fprintf(fp, "," ENERGY_FMT, e.total);
    fprintf(fp, "," ENERGY_FMT, (e.total - o->ctx->energy0.total) / o->ctx->energy_scale);
    fprintf(fp, ",%zu\n", tl_world_contact_count(w));
    o->records++;
    return fail_io(o);
}

/* ---- particles ---- */

/* a kind's options, or its defaults (all zero) where it was given none */
static const tl_particles_options *particles_options(const tl_output *o) {
    static const tl_particles_options none = {0};
    return o->spec->opts ? o->spec->opts : &none;
}

static const tl_walls_options *walls_options(const tl_output *o) {
    static const tl_walls_options none = {0};
    return o->spec->opts ? o->spec->opts : &none;
}

static void particle_row(tl_output *o, const tl_particle_state *p) {
    FILE *fp = o->file.fp;
    unsigned f = particles_options(o)->fields;
    row_start(o);
    fprintf(fp, ",%lu", (unsigned long)p->id);
    if (f & TL_FIELD_POSITION) put3(fp, p->position);
    if (f & TL_FIELD_VELOCITY) put3(fp, p->velocity);
    if (f & TL_FIELD_ANGULAR_VELOCITY) put3(fp, p->angular_velocity);
    if (f & TL_FIELD_FORCE) put3(fp, p->force);
    if (f & TL_FIELD_TORQUE) put3(fp, p->torque);
    if (f & TL_FIELD_ORIENTATION)
        fprintf(fp, "," VALUE_FMT "," VALUE_FMT "," VALUE_FMT "," VALUE_FMT, p->orientation.w,
                p->orientation.x, p->orientation.y, p->orientation.z);
    if (f & TL_FIELD_RADIUS) fprintf(fp, "," VALUE_FMT, p->radius);
    if (f & TL_FIELD_KINETIC_ENERGY) {
        const tl_vec3 v = p->velocity;
        double ke = 0.5 * p->mass * (v.x * v.x + v.y * v.y + v.z * v.z) + tl_particle_rotational_energy(p);
        fprintf(fp, "," VALUE_FMT, ke);
    }
    fputc('\n', fp);
}

static tl_status particles_record(tl_output *o) {
    const tl_world *w = o->ctx->world;
    tl_particle_state p;
    const tl_particles_options *po = particles_options(o);
    if (po->ids) {
        /* the listed ids in the listed order; one that left the domain is skipped */
        for (size_t k = 0; k < po->nids; k++)
            if (tl_world_get_particle(w, po->ids[k], &p) == TL_OK) particle_row(o, &p);
    } else {
        size_t n = tl_world_particle_count(w);
        for (size_t i = 0; i < n; i++)
            if (tl_world_particle_at(w, i, &p) == TL_OK) particle_row(o, &p);
    }
    o->records++;
    return fail_io(o);
}

/* ---- contacts ---- */

static tl_status contacts_record(tl_output *o) {
    const tl_world *w = o->ctx->world;
    FILE *fp = o->file.fp;
    size_t n = tl_world_contact_count(w);
    for (size_t i = 0; i < n; i++) {
        tl_contact_info c;
        tl_status s = tl_world_get_contact(w, i, &c);
        if (s == TL_ERROR_NOT_FOUND) break;
        if (s != TL_OK) {
            snprintf(o->ctx->err, o->ctx->errsize, "contacts: cannot read contact %zu (%s)", i,
                     tl_status_name(s));
            return s;
        }
        row_start(o);
        fprintf(fp, ",%lu,%lu,%d," VALUE_FMT, (unsigned long)c.id_a, (unsigned long)c.id_b,
                c.with_wall ? 1 : 0, c.overlap);
        put3(fp, c.normal);
        put3(fp, c.point);
        fprintf(fp, "," VALUE_FMT "," VALUE_FMT, c.normal_force, c.normal_damping_force);
        put3(fp, c.tangential_force);
        fprintf(fp, ",%d\n", c.sliding ? 1 : 0);
    }
    o->records++;
    return fail_io(o);
}

/* ---- collisions ---- */

static tl_status collisions_open(tl_output *o) {
    tl_status s = csv_open(o);
    if (s != TL_OK) return s;
    tl_world *w = o->ctx->world;
    o->log_was_enabled = o->resume ? o->resume->log_was_enabled : w->log.on;
    tl_world_clear_collisions(w);
    tl_world_log_collisions(w, true);
    return TL_OK;
}

static tl_status collisions_sync(tl_output *o) {
    const tl_world *w = o->ctx->world;
    FILE *fp = o->file.fp;
    size_t n = tl_world_collision_count(w);
    const tl_collision *c = tl_world_collisions(w);
    for (size_t i = 0; i < n; i++) {
        fprintf(fp, "%lu,%lu,%d," TIME_FMT "," TIME_FMT "," VALUE_FMT, (unsigned long)c[i].id_a,
                (unsigned long)c[i].id_b, c[i].with_wall ? 1 : 0, c[i].t_begin, c[i].t_end,
                c[i].t_end - c[i].t_begin);
        fprintf(fp, "," VALUE_FMT "," VALUE_FMT "," VALUE_FMT "," VALUE_FMT "," VALUE_FMT "\n",
                c[i].normal_speed_in, c[i].normal_speed_out, c[i].restitution, c[i].max_overlap,
                c[i].max_normal_force);
        o->records++;
    }
    return fail_io(o);
}

static void restore_log(tl_output *o) {
    if (!o->log_was_enabled) tl_world_log_collisions(o->ctx->world, false);
}

static tl_status collisions_commit(tl_output *o) {
    restore_log(o);
    return csv_commit(o);
}

static void collisions_abort(tl_output *o) {
    if (o->file.fp || o->file.committed) restore_log(o);
    csv_abort(o);
}

/* ---- walls: one row per wall and record ---- */

static void wall_row(tl_output *o, int index) {
    tl_wall_state st;
    if (tl_world_get_wall(o->ctx->world, index, &st) != TL_OK) return;
    FILE *fp = o->file.fp;
    row_start(o);
    fprintf(fp, ",%d", index);
    put3(fp, st.displacement);
    put3(fp, st.velocity);
    put3(fp, st.force);
    /* the torque about the output's point P: T_O - P x F */
    const tl_vec3 P = walls_options(o)->torque_point, F = st.force;
    tl_vec3 t = {st.torque.x - (P.y * F.z - P.z * F.y), st.torque.y - (P.z * F.x - P.x * F.z),
                 st.torque.z - (P.x * F.y - P.y * F.x)};
    put3(fp, t);
    put3(fp, st.angular_velocity);
    fprintf(fp, "," VALUE_FMT ",%d\n", st.angle, st.servo ? 1 : 0);
}

static tl_status walls_record(tl_output *o) {
    const tl_walls_options *wo = walls_options(o);
    if (wo->walls) {
        for (size_t k = 0; k < wo->nwalls; k++) wall_row(o, wo->walls[k]);
    } else {
        int n = tl_world_wall_count(o->ctx->world);
        for (int i = 0; i < n; i++) wall_row(o, i);
    }
    o->records++;
    return fail_io(o);
}

/* ---- repose: a drum bed's angle of repose, one row per record ---- */

static tl_status repose_record(tl_output *o) {
    tl_repose r;
    static const tl_repose_def none = {0}; /* an output given no options (a scene's always has them) */
    const tl_repose_def *d = o->spec->opts ? o->spec->opts : &none;
    tl_status st = tl_world_repose(o->ctx->world, d, &r);
    if (st != TL_OK) {
        snprintf(o->ctx->err, o->ctx->errsize, "cannot measure the angle of repose: %s",
                 st == TL_ERROR_MEMORY ? "out of memory" : "the axis is along gravity");
        return st;
    }
    FILE *fp = o->file.fp;
    row_start(o);
    fprintf(fp, "," VALUE_FMT "," VALUE_FMT "," VALUE_FMT ",%d," VALUE_FMT "," VALUE_FMT "," VALUE_FMT
                "," VALUE_FMT ",%zu\n",
            r.angle_surface + 0.0, r.angle_centroid + 0.0, r.surface_rms, r.bins, r.centroid_u + 0.0,
            r.centroid_v + 0.0, r.mass, r.torque_gravity + 0.0, r.particles);
    o->records++;
    return fail_io(o);
}

/* ---- the CSV kinds' own keys (the table of kinds, output_kinds.c, calls these) ---- */

static const char *const field_names[] = {"position", "velocity", "angular_velocity",
                                          "force",    "torque",   "orientation",
                                          "radius",   "kinetic_energy"};

static int read_ids(const tl_output_reader *r, const tl_yval *e, tl_particles_options *o) {
    tl_yval v;
    tl_ymap_get(e, "ids", &v);
    if (!v.node) return 0;
    size_t n = tl_yseq_count(&v);
    if (!tl_yis_seq(&v) || n == 0)
        return tl_yexpected(r->doc, &v, "a non-empty sequence of particle ids");
    o->ids = malloc(n * sizeof *o->ids);
    if (!o->ids) return r->out_of_memory(r->scene);
    tl_yiter it = {0};
    tl_yval item;
    while (tl_yseq_next(&v, &it, &item)) {
        size_t i = it.index;
        int64_t id;
        tl_particle_state st;
        if (tl_yint(r->doc, &item, 1, 0x7fffffff, &id)) return -1;
        if (tl_world_get_particle(r->world, (uint32_t)id, &st) != TL_OK)
            return tl_yfail(r->doc, &item, "no particle has id %lld", (long long)id);
        o->ids[i] = (uint32_t)id;
        o->nids = i + 1;
    }
    return 0;
}

static int read_fields(const tl_output_reader *r, const tl_yval *e, tl_particles_options *o) {
    tl_yval v;
    tl_ymap_get(e, "fields", &v);
    o->fields = TL_FIELD_POSITION | TL_FIELD_VELOCITY;
    /* bodies of other shapes: their attitude and spin matter */
    if (tl_world_shape_count(r->world) > 0) o->fields |= TL_FIELD_ANGULAR_VELOCITY | TL_FIELD_ORIENTATION;
    if (!v.node) return 0;
    size_t n = tl_yseq_count(&v);
    if (!tl_yis_seq(&v) || n == 0)
        return tl_yexpected(r->doc, &v, "a non-empty sequence of fields, e.g. [position, velocity]");
    o->fields = 0;
    tl_yiter it = {0};
    tl_yval item;
    while (tl_yseq_next(&v, &it, &item)) {
        int f;
        if (tl_ychoice(r->doc, &item, field_names, COUNT(field_names), &f)) return -1;
        o->fields |= 1u << f;
    }
    return 0;
}

/* particles: {ids, fields} (docs/outputs.md) */
int tl_read_particles_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *o) {
    return read_ids(r, e, o->opts) || read_fields(r, e, o->opts) ? -1 : 0;
}

void tl_drop_particles_options(void *opts) {
    tl_particles_options *o = opts;
    free(o->ids);
    o->ids = NULL;
}

/* walls: {walls, torque_about} */
int tl_read_walls_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *spec) {
    tl_walls_options *o = spec->opts;
    tl_yval v;
    if (tl_ykey_vec3(r->doc, e, "torque_about", false, "m", &o->torque_point)) return -1;
    tl_ymap_get(e, "walls", &v);
    if (!v.node) {
        if (tl_world_wall_count(r->world) == 0) {
            tl_ymap_get(e, "type", &v);
            return tl_yfail(r->doc, &v, "the scene has no walls to write");
        }
        return 0;
    }
    size_t n = tl_yseq_count(&v);
    if (!tl_yis_seq(&v) || n == 0) return tl_yexpected(r->doc, &v, "a non-empty sequence of wall names");
    o->walls = malloc(n * sizeof *o->walls);
    if (!o->walls) return r->out_of_memory(r->scene);
    tl_yiter it = {0};
    tl_yval item;
    while (tl_yseq_next(&v, &it, &item)) {
        o->nwalls = it.index + 1;
        if (r->wall(r->scene, &item, &o->walls[it.index])) return -1;
    }
    return 0;
}

void tl_drop_walls_options(void *opts) {
    tl_walls_options *o = opts;
    free(o->walls);
    o->walls = NULL;
}

/* repose: {axis, point, material, bin_width, trim} (docs/outputs.md) */
int tl_read_repose_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *o) {
    tl_repose_def *d = o->opts;
    *d = tl_repose_default();
    tl_yval v;
    tl_ymap_get(e, "axis", &v);
    if (!v.node) return tl_ymissing(r->doc, &v, "the drum's axis, e.g. [0, 1, 0]");
    if (tl_ykey_vec3(r->doc, e, "axis", true, "", &d->axis) || tl_ykey_vec3(r->doc, e, "point", false, "m", &d->point))
        return -1;
    double ax = d->axis.x, ay = d->axis.y, az = d->axis.z;
    if (!(ax * ax + ay * ay + az * az > 0.0)) return tl_yfail(r->doc, &v, "the axis must not be zero");
    const tl_vec3 g = r->gravity;
    double gg = g.x * g.x + g.y * g.y + g.z * g.z, ga = g.x * ax + g.y * ay + g.z * az;
    if (!(gg - ga * ga / (ax * ax + ay * ay + az * az) > 1e-12 * gg) || !(gg > 0.0))
        return tl_yfail(r->doc, &v, "the axis must not be along gravity (nor the scene without it): "
                                    "the angle of repose is measured against gravity across the axis");
    if (tl_ykey_number(r->doc, e, "bin_width", false, (&(tl_yrange){0.0, INFINITY, true, false, "m"}), &d->bin_width) ||
        tl_ykey_number(r->doc, e, "trim", false, (&(tl_yrange){0.0, 0.5, false, true, ""}), &d->trim))
        return -1;
    tl_ymap_get(e, "material", &v);
    if (v.node && r->material(r->scene, &v, &d->material)) return -1;
    return 0;
}

/* ---- tables ---- */

#define CSV_OPS(label, record_fn)                                                           \
    {.name = label,          .time_series = true,   .open = csv_open,                        \
     .record = record_fn,    .commit = csv_commit,  .abort = csv_abort,                      \
     .release = csv_release, .save = csv_save,      .resume_check = csv_resume_check}

static const tl_output_ops energy_ops = CSV_OPS("energy", energy_record);
static const tl_output_ops particles_ops = CSV_OPS("particles", particles_record);
static const tl_output_ops contacts_ops = CSV_OPS("contacts", contacts_record);
static const tl_output_ops walls_ops = CSV_OPS("walls", walls_record);
static const tl_output_ops repose_ops = CSV_OPS("repose", repose_record);
static const tl_output_ops collisions_ops = {.name = "collisions",
                                             .open = collisions_open,
                                             .sync = collisions_sync,
                                             .commit = collisions_commit,
                                             .abort = collisions_abort,
                                             .release = csv_release,
                                             .save = csv_save,
                                             .resume_check = csv_resume_check};

const tl_output_ops *tl_csv_ops(tl_output_kind kind) {
    switch (kind) {
    case TL_OUTPUT_ENERGY: return &energy_ops;
    case TL_OUTPUT_PARTICLES: return &particles_ops;
    case TL_OUTPUT_CONTACTS: return &contacts_ops;
    case TL_OUTPUT_COLLISIONS: return &collisions_ops;
    case TL_OUTPUT_WALLS: return &walls_ops;
    case TL_OUTPUT_REPOSE: return &repose_ops;
    default: return NULL;
    }
}
