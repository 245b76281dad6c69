#include "names.h"

#include "talus/talus.h"

#include <ctype.h>
#include <string.h>

static int norm(int c) {
    c = tolower(c);
    return c == '_' ? '-' : c;
}

int tl_edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return (int)(la > lb ? la : lb);
    int prev[65], cur[65];
    for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cost = norm((unsigned char)a[i - 1]) == norm((unsigned char)b[j - 1]) ? 0 : 1;
            int best = prev[j] + 1;
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
            if (prev[j - 1] + cost < best) best = prev[j - 1] + cost;
            cur[j] = best;
        }
        memcpy(prev, cur, sizeof(int) * (lb + 1));
    }
    return prev[lb];
}

const char *tl_closest_name(const char *name, const char *const *candidates, size_t count) {
    const char *best = NULL;
    int bestd = 1 << 30;
    for (size_t i = 0; i < count; i++) {
        if (!candidates[i]) continue;
        int d = tl_edit_distance(name, candidates[i]);
        if (d < bestd) {
            bestd = d;
            best = candidates[i];
        }
    }
    size_t len = strlen(name);
    int limit = len <= 3 ? 1 : (len <= 6 ? 2 : 3);
    /* a prefix of a longer name also counts ("dens" -> "density") */
    if (best && bestd > limit) {
        for (size_t i = 0; i < count; i++)
            if (candidates[i] && len >= 3 && strncmp(candidates[i], name, len) == 0) return candidates[i];
        return NULL;
    }
    return best;
}

const char *tl_suggest_name(const char *name, const char *const *candidates, size_t count) {
    if (!name || (!candidates && count)) return NULL;
    return tl_closest_name(name, candidates, count);
}
