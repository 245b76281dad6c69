/* libFuzzer target: the checkpoint loader. The input is offered to a world
 * as its saved state (tl_world_load_state), or, when it begins as a piece of a
 * distributed checkpoint ("TALUSPC1"), as the only piece to join into the
 * world's frame (tl_world_join_state) and load: every checksum, count and
 * bound must refuse a corrupted state without touching memory it does not
 * own; a state that loads is stepped. The seed corpus: states and pieces of
 * this world (fuzz/make_seeds). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 22)) return 0;
    tl_world *w = fuzz_world(NULL);
    if (!w) return 0;
    if (tl_world_prepare(w) != TL_OK) {
        tl_world_destroy(w);
        return 0;
    }
    static const char piece_magic[8] = {'T', 'A', 'L', 'U', 'S', 'P', 'C', '1'};
    if (size >= 8 && memcmp(data, piece_magic, 8) == 0) {
        void *frame = NULL, *joined = NULL;
        size_t fs = 0, js = 0;
        const void *pieces[1] = {data};
        if (tl_world_save_frame(w, &frame, &fs) == TL_OK &&
            tl_world_join_state(w, frame, fs, pieces, &size, 1, &joined, &js) == TL_OK &&
            tl_world_load_state(w, joined, js) == TL_OK)
            tl_world_step(w, 5);
        free(frame);
        free(joined);
    } else if (tl_world_load_state(w, data, size) == TL_OK) {
        tl_world_step(w, 5);
    }
    tl_world_destroy(w);
    return 0;
}

#ifdef TALUS_FUZZ_SEEDS
/* writes seed states: the world after 0, 50 and 500 steps */
int main(int argc, char **argv) {
    if (argc < 2) return 2;
    tl_world *w = fuzz_world(NULL);
    if (!w) return 1;
    if (tl_world_prepare(w) != TL_OK) {
        fprintf(stderr, "%s\n", tl_world_error(w));
        return 1;
    }
    int steps[3] = {0, 50, 500};
    for (int k = 0; k < 3; k++) {
        if (steps[k]) tl_world_step(w, steps[k]);
        void *d = NULL;
        size_t n = 0;
        if (tl_world_save_state(w, &d, &n) != TL_OK) {
            fprintf(stderr, "%s\n", tl_world_error(w));
            return 1;
        }
        char p[512];
        snprintf(p, sizeof p, "%s/state-%d", argv[1], k);
        FILE *f = fopen(p, "wb");
        if (!f) return 1;
        fwrite(d, 1, n, f);
        fclose(f);
        free(d);
        if (tl_world_save_piece(w, &d, &n) != TL_OK) return 1;
        snprintf(p, sizeof p, "%s/piece-%d", argv[1], k);
        f = fopen(p, "wb");
        if (!f) return 1;
        fwrite(d, 1, n, f);
        fclose(f);
        free(d);
    }
    tl_world_destroy(w);
    return 0;
}
#endif
