#include "fused.h"

#include <math.h>
#include <string.h>

#include "law.h"

typedef struct fused_row {
    const char *normal, *damping, *tangential, *history;
    tl_fused_fn fn;
    tl_fused_kind kind;
} fused_row;

static const fused_row fused_table[] = {
    {"hertz", "tsuji", "mindlin", "true", tl_fused_hertz_mindlin, TL_FUSED_HERTZ_MINDLIN},
    {"hertz", "tsuji", "mindlin-renzo", "true", tl_fused_hertz_mindlin, TL_FUSED_HERTZ_MINDLIN},
};

tl_fused_fn tl_fused_find(const tl_law *law, tl_fused_kind *kind) {
    *kind = TL_FUSED_NONE;
    if (law->spins || law->force_count) return NULL; /* the fused kernels have no torque or force slot */
    for (size_t i = 0; i < sizeof fused_table / sizeof fused_table[0]; i++) {
        const fused_row *r = &fused_table[i];
        if (strcmp(law->sub[TL_SLOT_NORMAL]->info.name, r->normal) == 0 &&
            strcmp(law->sub[TL_SLOT_DAMPING]->info.name, r->damping) == 0 &&
            strcmp(law->sub[TL_SLOT_TANGENTIAL]->info.name, r->tangential) == 0 &&
            strcmp(law->sub[TL_SLOT_HISTORY]->info.name, r->history) == 0)
        {
            *kind = r->kind;
            return r->fn;
        }
    }
    return NULL;
}

void tl_fused_attach(tl_law *law) {
    tl_fused_kind fk;
    law->fused = tl_fused_find(law, &fk);
    law->fused_kind = (int)fk;
}

void tl_fused_prepare(const tl_law *law, tl_pair_law *pl) {
    memset(pl->fused, 0, sizeof pl->fused);
    if (law->fused_kind == TL_FUSED_HERTZ_MINDLIN) {
        pl->fused[0] = sqrt(pl->p[TL_SLOT_NORMAL][0]);
        pl->fused[1] = sqrt(pl->p[TL_SLOT_TANGENTIAL][1]);
    }
}
