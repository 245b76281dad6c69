#include "law.h"


#include <math.h>
#include <stdio.h>
#include <string.h>

#include "energy_table.h"
#include "names.h"
#include "talus/talus.h"

static void list_names(tl_slot slot, char *buf, size_t size) {
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < tl_registry_size(); i++) {
        const tl_submodel *r = tl_registry_row(i);
        if (r->info.slot != slot) continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", r->info.name);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
}

static void kind_names(unsigned kind, char *buf, size_t size) {
    buf[0] = '\0';
    size_t used = 0;
    for (const tl_submodel *r = tl_normal_models; r->info.name; r++) {
        if (!(r->normal_kind & kind)) continue;
        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", r->info.name);
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
}

void tl_coeff_range_text(const tl_coeff_info *ci, char *buf, size_t size) {
    char lo[64] = "", hi[64] = "";
    if (isfinite(ci->min)) snprintf(lo, sizeof lo, "%g %s ", ci->min, ci->min_open ? "<" : "<=");
    if (isfinite(ci->max)) snprintf(hi, sizeof hi, " %s %g", ci->max_open ? "<" : "<=", ci->max);
    snprintf(buf, size, "%s%s%s%s%s", lo, ci->name, hi, ci->unit[0] ? " " : "", ci->unit);
}

static bool in_range(const tl_coeff_info *ci, double v) {
    if (isnan(v)) return false;
    if (ci->min_open ? !(v > ci->min) : !(v >= ci->min)) return false;
    if (ci->max_open ? !(v < ci->max) : !(v <= ci->max)) return false;
    return true;
}

tl_status tl_law_assemble(const tl_law_def *def, tl_law *out, char *msg, size_t msg_size) {
    memset(out, 0, sizeof *out);
    char known[512];
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const char *name = tl_law_model(def, (tl_slot)s);
        if (!name) {
            list_names((tl_slot)s, known, sizeof known);
            snprintf(msg, msg_size, "the law needs a %s model (one of: %s)", tl_slot_name((tl_slot)s),
                     known);
            return TL_ERROR_ARGUMENT;
        }
        out->sub[s] = tl_registry_lookup((tl_slot)s, name);
        if (!out->sub[s]) {
            const char *sug = tl_registry_suggest((tl_slot)s, name);
            list_names((tl_slot)s, known, sizeof known);
            if (sug)
                snprintf(msg, msg_size, "unknown %s model '%s'; did you mean '%s'? (known: %s)",
                         tl_slot_name((tl_slot)s), name, sug, known);
            else
                snprintf(msg, msg_size, "unknown %s model '%s' (known: %s)", tl_slot_name((tl_slot)s),
                         name, known);
            return TL_ERROR_NOT_FOUND;
        }
    }
    const tl_submodel *nm = out->sub[TL_SLOT_NORMAL], *dm = out->sub[TL_SLOT_DAMPING];
    if (!(dm->normal_kind & nm->normal_kind)) {
        kind_names(dm->normal_kind, known, sizeof known);
        snprintf(msg, msg_size, "damping '%s' does not fit normal '%s': it needs one of: %s",
                 dm->info.name, nm->info.name, known);
        return TL_ERROR_ARGUMENT;
    }
    /* what each sub-model needs of the others (its row's fits) */
    const char *models[TL_SLOT_COUNT];
    for (int s = 0; s < TL_SLOT_COUNT; s++) models[s] = out->sub[s]->info.name;
    for (int s = 0; s < TL_SLOT_COUNT; s++)
        if (out->sub[s]->fits && !out->sub[s]->fits(models, msg, msg_size)) return TL_ERROR_ARGUMENT;
    out->clamp_tensile = def->clamp_tensile;
    out->coulomb_test = def->coulomb_test;
    if (def->coulomb_test != TL_COULOMB_TOTAL && def->coulomb_test != TL_COULOMB_SPRING &&
        def->coulomb_test != TL_COULOMB_SPRING_CAPPED && def->coulomb_test != TL_COULOMB_LAMMPS &&
        def->coulomb_test != TL_COULOMB_LIGGGHTS) {
        snprintf(msg, msg_size, "coulomb_test must be 'total', 'spring', 'spring-capped', 'lammps' or 'liggghts'");
        return TL_ERROR_ARGUMENT;
    }
    out->contact_point = def->contact_point;
    if (def->contact_point != TL_CONTACT_POINT_COMPLIANCE && def->contact_point != TL_CONTACT_POINT_SURFACE) {
        snprintf(msg, msg_size, "contact_point must be 'compliance' or 'surface'");
        return TL_ERROR_ARGUMENT;
    }
    out->entry_displacement = def->entry_displacement;
    if (def->entry_displacement != TL_ENTRY_IN_CONTACT && def->entry_displacement != TL_ENTRY_WHOLE_STEP) {
        snprintf(msg, msg_size, "entry_displacement must be 'in-contact' or 'whole-step'");
        return TL_ERROR_ARGUMENT;
    }

    /* the arrays the coefficients and histories go to are bounded: a law's
     * given coefficients (def->coeffs), a sub-model's (coeff[s]), a contact's
     * history (TL_MAX_HIST) */
    if (def->coeff_count < 0 || def->coeff_count > TL_LAW_MAX_COEFFS) {
        snprintf(msg, msg_size, "a law takes at most %d coefficients, got %d", TL_LAW_MAX_COEFFS,
                 def->coeff_count);
        return TL_ERROR_ARGUMENT;
    }
    int hist = 0;
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const tl_submodel *m = out->sub[s];
        if (m->info.coeff_count < 0 || m->info.coeff_count > TL_MAX_SUB_COEFFS ||
            m->info.history_count < 0) {
            snprintf(msg, msg_size, "internal error: sub-model '%s' declares %d coefficients (at "
                     "most %d) and %d history values", m->info.name, m->info.coeff_count,
                     TL_MAX_SUB_COEFFS, m->info.history_count);
            return TL_ERROR_STATE;
        }
        hist += m->info.history_count;
    }
    if (hist > TL_MAX_HIST) {
        snprintf(msg, msg_size, "internal error: the law's sub-models keep %d history values per "
                 "contact, more than %d", hist, TL_MAX_HIST);
        return TL_ERROR_STATE;
    }

    /* coefficients: defaults first, then the given values */
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const tl_submodel *m = out->sub[s];
        for (int i = 0; i < m->info.coeff_count; i++)
            out->coeff[s][i] = m->info.coeffs[i].default_value;
    }
    for (int c = 0; c < def->coeff_count; c++) {
        const char *cname = def->coeffs[c].name;
        double v = def->coeffs[c].value;
        bool used = false;
        for (int s = 0; s < TL_SLOT_COUNT; s++) {
            int i = tl_submodel_coeff_index(out->sub[s], cname);
            if (i < 0) continue;
            used = true;
            const tl_coeff_info *ci = &out->sub[s]->info.coeffs[i];
            /* NAN where the default is NAN: "derived", as tl_world_get_law reports it */
            if (isnan(v) && isnan(ci->default_value)) continue;
            if (!in_range(ci, v)) {
                char range[160];
                tl_coeff_range_text(ci, range, sizeof range);
                snprintf(msg, msg_size, "%s = %g is out of range: %s (%s)", cname, v, range,
                         ci->meaning);
                return TL_ERROR_ARGUMENT;
            }
            out->coeff[s][i] = v;
        }
        if (!used) {
            const char *cands[TL_SLOT_COUNT * TL_MAX_SUB_COEFFS];
            size_t n = 0;
            char takes[256] = "";
            size_t used_len = 0;
            for (int s = 0; s < TL_SLOT_COUNT; s++)
                for (int i = 0; i < out->sub[s]->info.coeff_count; i++) {
                    const char *nm2 = out->sub[s]->info.coeffs[i].name;
                    cands[n++] = nm2;
                    int k = snprintf(takes + used_len, sizeof takes - used_len, "%s%s",
                                     used_len ? ", " : "", nm2);
                    if (k > 0 && (size_t)k < sizeof takes - used_len) used_len += (size_t)k;
                }
            const char *sug = NULL;
            sug = tl_closest_name(cname, cands, n);
            char names_text[256];
            tl_law_models_text(out, names_text, sizeof names_text);
            snprintf(msg, msg_size, "unknown coefficient '%s' for this law (%s)%s%s%s; it takes: %s", cname, names_text,
                     sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "",
                     used_len ? takes : "no coefficients");
            return TL_ERROR_ARGUMENT;
        }
    }
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const tl_submodel *m = out->sub[s];
        for (int i = 0; i < m->info.coeff_count; i++) {
            const tl_coeff_info *ci = &m->info.coeffs[i];
            if (ci->required && isnan(out->coeff[s][i])) {
                char range[160];
                tl_coeff_range_text(ci, range, sizeof range);
                snprintf(msg, msg_size, "%s '%s' needs coefficient '%s' (%s; %s)", tl_slot_name((tl_slot)s),
                         m->info.name, ci->name, ci->meaning, range);
                return TL_ERROR_ARGUMENT;
            }
        }
    }
    int off = 0;
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        out->hist_offset[s] = off;
        off += out->sub[s]->info.history_count;
    }
    out->hist_count = off;
    out->torque_count = out->force_count = 0;
    out->reaches = false;
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const tl_slot_row *row = tl_slot_row_get(s);
        if (strcmp(out->sub[s]->info.name, "none") == 0) continue;
        const tl_energy_term lost = (tl_energy_term)tl_energy_term_of(s, TL_ENERGY_KIND_DISSIPATED);
        if (row->cls == TL_CLASS_TORQUE) {
            out->torque_slot[out->torque_count] = s;
            out->torque_at[out->torque_count] = row->place;
            out->torque_dissipated[out->torque_count] = lost;
            out->torque_count++;
        } else if (row->cls == TL_CLASS_FORCE) {
            out->force_slot[out->force_count] = s;
            out->force_at[out->force_count] = row->place;
            out->force_dissipated[out->force_count] = lost;
            out->force_count++;
            out->reaches = out->reaches || out->sub[s]->reach != NULL;
        }
    }
    out->spins = out->torque_count > 0;
    out->fused = NULL; /* the fast path is the contact stage's to attach (fused.h) */
    out->fused_kind = 0;
    return TL_OK;
}

tl_status tl_law_prepare(const tl_law *law, const tl_material *a, const tl_material *b,
                         tl_pair_law *out, char *msg, size_t msg_size) {
    memset(out->p, 0, sizeof out->p);
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        const tl_submodel *m = law->sub[s];
        if (!m->prepare) continue;
        tl_prep in = {a,   b, law->coeff[s], law, tl_law_coeff, law->coulomb_test, out->p[TL_SLOT_NORMAL],
                      msg, msg_size};
        tl_status st = m->prepare(&in, out->p[s]);
        if (st != TL_OK) return st;
    }
    return TL_OK;
}

void tl_law_models_text(const tl_law *law, char *buf, size_t size) {
    const char *names[TL_SLOT_COUNT];
    for (int s = 0; s < TL_SLOT_COUNT; s++) names[s] = law->sub[s]->info.name;
    tl_slot_models_text(names, buf, size);
}

double tl_law_coeff(const tl_law *law, const char *name) {
    for (int s = 0; s < TL_SLOT_COUNT; s++) {
        int i = tl_submodel_coeff_index(law->sub[s], name);
        if (i >= 0 && !isnan(law->coeff[s][i])) return law->coeff[s][i];
    }
    return NAN;
}
