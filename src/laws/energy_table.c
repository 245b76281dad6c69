/*
 * The table of the energy ledger's terms (tl_energy_term): one row per term in tl_energy's order,
 * which is energy.csv's column order. The ledger's sums, the total, the CSV columns, the plot's
 * lines, the run summary's losses, the checkpoint's ledger and Python's names read it; a slot
 * with an energy of its own adds its terms here (and their tl_energy_term values).
 */
#include "energy_table.h"

static const tl_energy_term_info terms[TL_ENERGY_TERM_COUNT] = {
    {TL_ENERGY_KINETIC_TRANSLATIONAL, "kinetic_translational", "kinetic, translational",
     "of the free particles' translation", TL_ENERGY_KIND_KINETIC, +1, -1, "#1f77b4"},
    {TL_ENERGY_KINETIC_ROTATIONAL, "kinetic_rotational", "kinetic, rotational", "of the particles' spin",
     TL_ENERGY_KIND_KINETIC, +1, -1, "#17becf"},
    {TL_ENERGY_POTENTIAL, "potential", "potential (gravity)",
     "of gravity and the external forces (-F.x), relative to the origin", TL_ENERGY_KIND_POTENTIAL, +1, -1,
     "#2ca02c"},
    {TL_ENERGY_ELASTIC_NORMAL, "elastic_normal", "elastic, normal", "stored in the contacts' normal springs",
     TL_ENERGY_KIND_ELASTIC, +1, TL_SLOT_NORMAL, "#ff7f0e"},
    {TL_ENERGY_ELASTIC_TANGENTIAL, "elastic_tangential", "elastic, tangential",
     "stored in the contacts' tangential springs", TL_ENERGY_KIND_ELASTIC, +1, TL_SLOT_TANGENTIAL, "#bcbd22"},
    {TL_ENERGY_ELASTIC_ROLLING, "elastic_rolling", "elastic, rolling", "stored in the rolling springs",
     TL_ENERGY_KIND_ELASTIC, +1, TL_SLOT_ROLLING, "#dbdb8d"},
    {TL_ENERGY_ELASTIC_TWISTING, "elastic_twisting", "elastic, twisting", "stored in the twisting springs",
     TL_ENERGY_KIND_ELASTIC, +1, TL_SLOT_TWISTING, "#ffbb78"},
    {TL_ENERGY_ELASTIC_COHESION, "elastic_cohesion", "elastic, cohesion",
     "stored by cohesion: the adhesion's potential, negative while contacts are bound", TL_ENERGY_KIND_ELASTIC, +1,
     TL_SLOT_COHESION, "#f7b6d2"},
    {TL_ENERGY_DISSIPATED_NORMAL, "dissipated_normal", "dissipated, normal damping",
     "lost so far by the normal dashpots", TL_ENERGY_KIND_DISSIPATED, +1, TL_SLOT_DAMPING, "#d62728"},
    {TL_ENERGY_DISSIPATED_PLASTIC, "dissipated_plastic", "dissipated, plastic",
     "lost so far by plastic deformation (elastoplastic normal laws)", TL_ENERGY_KIND_DISSIPATED, +1,
     TL_SLOT_NORMAL, "#e377c2"},
    {TL_ENERGY_DISSIPATED_TANGENTIAL_DAMPING, "dissipated_tangential_damping", "dissipated, tangential damping",
     "lost so far by the tangential dashpots", TL_ENERGY_KIND_DISSIPATED, +1, TL_SLOT_TANGENTIAL, "#9467bd"},
    {TL_ENERGY_DISSIPATED_FRICTION, "dissipated_friction", "dissipated, friction", "lost so far by Coulomb sliding",
     TL_ENERGY_KIND_DISSIPATED, +1, TL_SLOT_TANGENTIAL, "#8c564b"},
    {TL_ENERGY_DISSIPATED_ROLLING, "dissipated_rolling", "dissipated, rolling",
     "lost so far by rolling resistance (its slip and its dashpot)", TL_ENERGY_KIND_DISSIPATED, +1,
     TL_SLOT_ROLLING, "#c49c94"},
    {TL_ENERGY_DISSIPATED_TWISTING, "dissipated_twisting", "dissipated, twisting",
     "lost so far by twisting resistance (its slip and its dashpot)", TL_ENERGY_KIND_DISSIPATED, +1,
     TL_SLOT_TWISTING, "#ff9896"},
    {TL_ENERGY_DISSIPATED_COHESION, "dissipated_cohesion", "dissipated, cohesion",
     "lost so far by cohesion's hysteresis", TL_ENERGY_KIND_DISSIPATED, +1, TL_SLOT_COHESION, "#9edae5"},
    {TL_ENERGY_BOUNDARY_WORK, "boundary_work", "boundary work",
     "done so far on the particles by moving walls and prescribed particles", TL_ENERGY_KIND_WORK, -1, -1,
     "#7f7f7f"},
    {TL_ENERGY_INTEGRATION_RESIDUAL, "integration_residual", "integration residual",
     "what the conservative springs did not give back: the integration's error so far", TL_ENERGY_KIND_RESIDUAL,
     +1, -1, "#aec7e8"},
    {TL_ENERGY_CURVATURE_WORK, "curvature_work", "curvature work",
     "put into the normal springs so far by their contacts' changing radius of curvature", TL_ENERGY_KIND_WORK, -1,
     -1, "#c5b0d5"},
    {TL_ENERGY_TANGENTIAL_STIFFNESS_WORK, "tangential_stiffness_work", "tangential stiffness work",
     "put into the tangential springs so far by their stiffness changing under a held displacement "
     "(total-form springs), negative where it takes energy out (a loaded spring whose contact ends)",
     TL_ENERGY_KIND_WORK, -1, TL_SLOT_TANGENTIAL, "#7b4173"},
};

const tl_energy_term_info *tl_energy_term_get(int term) {
    return term >= 0 && term < TL_ENERGY_TERM_COUNT ? &terms[term] : NULL;
}

int tl_energy_term_of(int slot, tl_energy_kind kind) {
    for (int k = 0; k < TL_ENERGY_TERM_COUNT; k++)
        if (terms[k].slot == slot && terms[k].kind == kind) return k;
    return -1;
}
