/*
 * The columns of the CSV outputs, as written in their headers, in order:
 * output_csv.c writes them, output_plot.c reads them to draw the values.
 */
#include "csv_columns.h"

#include "csv_options.h"
#include "talus/talus.h"

/* ---- columns ---- */


static const char *const contact_columns[] = {
    "time", "step", "id_a", "id_b", "with_wall", "overlap", "nx", "ny", "nz", "px", "py",
    "pz", "fn", "fn_damping", "ftx", "fty", "ftz", "sliding"};

static const char *const collision_columns[] = {
    "id_a", "id_b", "with_wall", "t_begin", "t_end", "duration", "normal_speed_in",
    "normal_speed_out", "restitution", "max_overlap", "max_normal_force"};

static const char *const wall_columns[] = {"time", "step", "wall", "dx", "dy", "dz", "vx", "vy",
                                           "vz",   "fx",   "fy",   "fz", "tx", "ty", "tz", "wx", "wy",
                                           "wz",   "angle", "servo"};

static const char *const repose_columns[] = {
    "time", "step", "angle_surface", "angle_centroid", "surface_rms", "bins", "centroid_u",
    "centroid_v", "mass", "torque_gravity", "particles"};

/* particle fields in column order: the bit and its columns */
typedef struct field_columns {
    unsigned bit;
    int count;
    const char *names[4];
} field_columns;

static const field_columns particle_fields[] = {
    {TL_FIELD_POSITION, 3, {"x", "y", "z"}},
    {TL_FIELD_VELOCITY, 3, {"vx", "vy", "vz"}},
    {TL_FIELD_ANGULAR_VELOCITY, 3, {"wx", "wy", "wz"}},
    {TL_FIELD_FORCE, 3, {"fx", "fy", "fz"}},
    {TL_FIELD_TORQUE, 3, {"tx", "ty", "tz"}},
    {TL_FIELD_ORIENTATION, 4, {"qw", "qx", "qy", "qz"}},
    {TL_FIELD_RADIUS, 1, {"radius"}},
    {TL_FIELD_KINETIC_ENERGY, 1, {"kinetic_energy"}},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static size_t copy_names(const char *const *src, size_t n, const char **names, size_t max) {
    size_t k = 0;
    for (; k < n && k < max; k++) names[k] = src[k];
    return k;
}

size_t tl_csv_columns(const tl_output_spec *spec, const char **names, size_t max) {
    switch (spec->kind) {
    case TL_OUTPUT_ENERGY: { /* time, step, the ledger's terms (laws/energy_table.c), the checks */
        static const char *const lead[] = {"time", "step"}, *const tail[] = {"total", "balance_error", "contacts"};
        size_t k = copy_names(lead, COUNT(lead), names, max);
        for (int t = 0; t < TL_ENERGY_TERM_COUNT && k < max; t++) names[k++] = tl_energy_term_get(t)->name;
        return k + copy_names(tail, COUNT(tail), names + k, k < max ? max - k : 0);
    }
    case TL_OUTPUT_CONTACTS: return copy_names(contact_columns, COUNT(contact_columns), names, max);
    case TL_OUTPUT_COLLISIONS:
        return copy_names(collision_columns, COUNT(collision_columns), names, max);
    case TL_OUTPUT_WALLS: return copy_names(wall_columns, COUNT(wall_columns), names, max);
    case TL_OUTPUT_REPOSE: return copy_names(repose_columns, COUNT(repose_columns), names, max);
    case TL_OUTPUT_PARTICLES: {
        static const char *const lead[] = {"time", "step", "id"};
        const tl_particles_options *po = spec->opts;
        const unsigned fields = po ? po->fields : 0u;
        size_t k = copy_names(lead, COUNT(lead), names, max);
        for (size_t f = 0; f < COUNT(particle_fields); f++) {
            if (!(fields & particle_fields[f].bit)) continue;
            for (int c = 0; c < particle_fields[f].count && k < max; c++)
                names[k++] = particle_fields[f].names[c];
        }
        return k;
    }
    default: return 0;
    }
}
