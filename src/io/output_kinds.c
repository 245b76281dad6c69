/*
 * The table of output kinds: the operations of each kind, from the output
 * file that provides them (outputs.h). The output files do not call one
 * another; run.c reaches them through this table.
 */
#include "outputs.h"

const tl_output_ops *tl_output_ops_of(tl_output_kind kind) {
    switch (kind) {
    case TL_OUTPUT_VTK: return tl_vtk_ops();
    case TL_OUTPUT_PLOT: return tl_plot_ops();
    default: return tl_csv_ops(kind);
    }
}
