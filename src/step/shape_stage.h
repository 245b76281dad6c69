/*
 * The shape stage: the contacts of bodies other than spheres, and of mesh walls (shape_stage.c;
 * the records it keeps: contact/shape_contacts.h).
 */
#ifndef TL_SHAPE_STAGE_H
#define TL_SHAPE_STAGE_H

#include "world.h"

/* The stage (accumulate as tl_contact_forces). TL_OK or an error set on the world. */
tl_status tl_shape_stage(tl_world *w, bool accumulate);
/* Before a neighbor rebuild (while the candidates' particle indices are still
 * valid): notes the live candidates by the keys of their ids. */
int tl_shape_contacts_stash(tl_world *w);
/* After it: gives the new candidates the records of their pairs. */
int tl_shape_contacts_give(tl_world *w);
/* Between the two, on several ranks: the m live records (and their states) of the pair `key`
 * that another rank sent with a migrating particle, noted as the stash's; a pair already noted
 * keeps its own. 0 on success. */
int tl_shape_contacts_adopt(tl_world *w, uint64_t key, size_t m, const double *rec, const uint8_t *state);

#endif
