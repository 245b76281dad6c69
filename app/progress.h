/* A progress bar on the terminal (stderr), and the end-of-run summary. */
#ifndef TALUS_APP_PROGRESS_H
#define TALUS_APP_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "talus/talus.h"

typedef struct app_progress {
    bool enabled; /* stderr is a terminal and not --quiet */
    int last_len;
} app_progress;

void app_progress_init(app_progress *p, bool quiet);
/* tl_progress_fn: draws the bar */
void app_progress_draw(const tl_progress *pr, void *user);
void app_progress_end(app_progress *p);
/* "1.23 s", "4 min 05 s", "2 h 03 min" */
void app_format_duration(double seconds, char *buf, size_t size);
/* 12,345,678 */
void app_format_count(long long n, char *buf, size_t size);

#endif
