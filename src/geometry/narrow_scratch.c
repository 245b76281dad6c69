/* The narrow phase's working memory; see narrow_scratch.h. */
#include "narrow_scratch.h"

#include <string.h>

#include "pcm.h"

void tl_narrow_scratch_init(tl_narrow_scratch *s, const tl_allocator *a) {
    memset(s, 0, sizeof *s);
    tl_mem_init(&s->mem, a);
}

void tl_narrow_scratch_free(tl_narrow_scratch *s) {
    if (s->pcm) {
        tl_pcm_scratch_free(s->pcm);
        tl_mem_free(&s->mem, s->pcm, sizeof *s->pcm);
    }
    s->pcm = NULL;
}

void tl_narrow_scratch_moved(tl_narrow_scratch *s) {
    if (s->pcm) s->pcm->mem = &s->mem;
}

tl_pcm_scratch *tl_narrow_pcm(tl_narrow_scratch *s) {
    if (!s->pcm) {
        s->pcm = tl_mem_alloc(&s->mem, sizeof *s->pcm);
        if (s->pcm) tl_pcm_scratch_init(s->pcm, &s->mem);
    }
    return s->pcm;
}
