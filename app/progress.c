#include "progress.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

void app_progress_init(app_progress *p, bool quiet) {
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->last_len = 0;
}

void app_format_duration(double s, char *buf, size_t size) {
    if (!(s >= 0.0) || !isfinite(s)) snprintf(buf, size, "?");
    else if (s < 60.0) snprintf(buf, size, "%.1f s", s);
    else if (s < 3600.0) snprintf(buf, size, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60.0));
    else snprintf(buf, size, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60.0, 60.0));
}

void app_format_count(long long n, char *buf, size_t size) {
    char raw[32];
    /* the magnitude in unsigned arithmetic: -LLONG_MIN overflows a long long */
    unsigned long long mag = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
    snprintf(raw, sizeof raw, "%llu", mag);
    size_t len = strlen(raw), o = 0;
    if (n < 0 && o + 1 < size) buf[o++] = '-';
    for (size_t i = 0; i < len && o + 1 < size; i++) {
        buf[o++] = raw[i];
        size_t left = len - i - 1;
        if (left > 0 && left % 3 == 0 && o + 1 < size) buf[o++] = ',';
    }
    buf[o] = '\0';
}

void app_progress_draw(const tl_progress *pr, void *user) {
    app_progress *p = user;
    if (!p->enabled) return;
    double frac = pr->steps_total > 0 ? (double)pr->step / (double)pr->steps_total : 0.0;
    if (frac > 1.0) frac = 1.0;
    const int width = 24;
    char bar[32];
    int filled = (int)(frac * width);
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    char eta[32], step[32], total[32];
    app_format_duration(pr->eta_seconds, eta, sizeof eta);
    app_format_count(pr->step, step, sizeof step);
    app_format_count(pr->steps_total, total, sizeof total);
    char line[256];
    int n = snprintf(line, sizeof line, "[%s] %3.0f%%  %s  step %s/%s  t = %.4g/%.4g s  %.3g steps/s  ETA %s",
                     bar, 100.0 * frac, pr->stage_name ? pr->stage_name : "", step, total, pr->time,
                     pr->time_total, pr->steps_per_second, eta);
    if (n < 0) return;
    int pad = p->last_len > n ? p->last_len - n : 0;
    fprintf(stderr, "\r%s%*s", line, pad, "");
    fflush(stderr);
    p->last_len = n;
}

void app_progress_end(app_progress *p) {
    if (p->enabled && p->last_len > 0) {
        fprintf(stderr, "\r%*s\r", p->last_len, "");
        fflush(stderr);
    }
    p->last_len = 0;
}
