/*
 * The image output's options (output_image.c): the picture's (tl_render_options, render.h) and
 * the movie's. Its row in the table of kinds (output_kinds.c) gives their size, its reader and
 * what frees them.
 */
#ifndef TL_OUTPUT_IMAGE_H
#define TL_OUTPUT_IMAGE_H

#include <stdbool.h>

#include "output_kind.h"

typedef struct tl_image_options {
    tl_render_options render; /* render.color_by points into color_by */
    char *color_by;           /* malloc'ed (NULL: material) */
    bool single;              /* the file ends in .png: one picture, of the end of the run */
    bool movie;               /* join the frames into <file>.mp4 at the end (ffmpeg) */
    double fps;               /* the movie's frames per second (10) */
} tl_image_options;

int tl_read_image_output(const tl_output_reader *r, const tl_yval *e, tl_output_spec *o);
void tl_drop_image_options(void *opts);

#endif
