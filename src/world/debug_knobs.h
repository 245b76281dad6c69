/* The tests' switches of a world (w->knobs; set through world_probe.h). */
#ifndef TL_DEBUG_KNOBS_H
#define TL_DEBUG_KNOBS_H

#include <stdbool.h>

typedef struct tl_debug_knobs {
    bool no_fast_path;     /* every contact through the general path */
    bool no_lanes;         /* steady contacts one at a time (no steady_lanes.h) */
    bool no_gap_skip;      /* every far candidate through the distance test */
    unsigned lanes_width;  /* 4 keeps the lanes at four where the CPU has eight (0: the widest) */
} tl_debug_knobs;

#endif
