/* kryl spy: the sparsity pattern of a matrix as an SVG picture, binned to a
 * grid of at most SPY_GRID x SPY_GRID cells (each as dark as the share of
 * its entries that are stored); with --order K the pattern before and after
 * the ordering side by side, each titled with its bandwidth and profile. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "svg.h"

#define SPY_GRID   400 /* cells a side: a pixel each for large matrices */
#define SPY_PANEL  400 /* pixels a side of one pattern */
#define SPY_MARGIN 30
#define SPY_TOP    70
#define SPY_BOTTOM 40
#define SPY_SHADES 8 /* darkness levels: neighbouring cells of one level merge into a rect */

/* One pattern: A, or P A P^T under an ordering. */
typedef struct spy_panel {
    kryl_order_kind order;
    int64_t bandwidth, profile;
    int64_t *count; /* grid x grid stored entries per cell */
} spy_panel;

/* Count the stored entries of P A P^T per cell; perm[i] = the original row
 * at position i. */
static kryl_status bin_entries(kryl_matrix A, const int32_t *perm, int64_t n, int grid,
                               int64_t *count)
{
    const int64_t *row_ptr;
    const int32_t *col;
    const double *values;
    kryl_status st = kryl_matrix_csr_view(A, &row_ptr, &col, &values);
    if (st != KRYL_SUCCESS) {
        cli_error(st);
        return st;
    }
    int32_t *position = malloc((size_t)(n > 0 ? n : 1) * sizeof *position);
    if (position == NULL) {
        cli_error_message("out of memory for the positions of %" PRId64 " rows", n);
        return KRYL_ERR_OUT_OF_MEMORY;
    }
    for (int64_t i = 0; i < n; i++) position[perm[i]] = (int32_t)i;
    memset(count, 0, (size_t)grid * (size_t)grid * sizeof *count);
    for (int64_t i = 0; i < n; i++) {
        /* cell of position p: floor(p * grid / n) */
        const int64_t r = (int64_t)position[i] * grid / n;
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            count[r * grid + (int64_t)position[col[k]] * grid / n]++;
    }
    free(position);
    return KRYL_SUCCESS;
}

/* The panel of A under `order`; errors are printed. */
static kryl_status make_panel(kryl_matrix A, kryl_order_kind order, int64_t n, int grid,
                              spy_panel *p)
{
    p->order = order;
    p->count = malloc((size_t)grid * (size_t)grid * sizeof *p->count);
    int32_t *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof *perm);
    kryl_status st = KRYL_SUCCESS;
    if (p->count == NULL || perm == NULL) {
        cli_error_message("out of memory for a picture of %" PRId64 " rows", n);
        st = KRYL_ERR_OUT_OF_MEMORY;
    } else if ((st = kryl_matrix_order(A, order, perm, &p->bandwidth, &p->profile)) !=
               KRYL_SUCCESS) {
        cli_error(st);
    } else {
        st = bin_entries(A, perm, n, grid, p->count);
    }
    free(perm);
    return st;
}

/* Darkness level 1..SPY_SHADES of a cell holding `count` of its `capacity`
 * entries (0: empty): on a log scale, so a lone entry in a big cell shows. */
static int shade(int64_t count, double capacity)
{
    if (count == 0) return 0;
    const double t = log1p((double)count) / log1p(capacity);
    const int level = 1 + (int)(t * (SPY_SHADES - 1) + 0.5);
    return level < SPY_SHADES ? level : SPY_SHADES;
}

static void draw_panel(FILE *f, const spy_panel *p, int64_t n, int grid, double x0)
{
    const double cell = (double)SPY_PANEL / grid, y0 = SPY_TOP;
    const double per_cell = (double)n / grid, capacity = ceil(per_cell) * ceil(per_cell);
    char label[160];
    snprintf(label, sizeof label, "%s: bandwidth %" PRId64 ", profile %" PRId64,
             p->order == KRYL_ORDER_NONE ? "as stored" : kryl_order_name(p->order), p->bandwidth,
             p->profile);
    svg_text(f, x0 + SPY_PANEL / 2.0, y0 - 10, "middle", 13, label);
    /* a path per darkness level, a rectangle per run of cells of that level in a row */
    for (int level = 1; level <= SPY_SHADES; level++) {
        svg_path_begin(f, "#1a1a1a", (level + 2.0) / (SPY_SHADES + 2.0)); /* faintest 0.3 */
        for (int r = 0; r < grid; r++) {
            const int64_t *row = p->count + (int64_t)r * grid;
            int c = 0;
            while (c < grid) {
                const int here = shade(row[c], capacity);
                int end = c + 1;
                while (end < grid && shade(row[end], capacity) == here) end++;
                if (here == level)
                    svg_path_rect(f, x0 + c * cell, y0 + r * cell, (end - c) * cell, cell);
                c = end;
            }
        }
        svg_path_end(f);
    }
    svg_rect_outline(f, x0, y0, SPY_PANEL, SPY_PANEL, "#888888");
}

static void draw(FILE *f, const char *title, const spy_panel *panels, int npanels, int64_t n,
                 int64_t nnz, int grid)
{
    const int width = npanels * (SPY_PANEL + 2 * SPY_MARGIN);
    svg_begin(f, width, SPY_TOP + SPY_PANEL + SPY_BOTTOM);
    char line[256];
    snprintf(line, sizeof line, "%s: n = %" PRId64 ", nnz = %" PRId64, title, n, nnz);
    svg_text(f, width / 2.0, 26, "middle", 16, line);
    for (int k = 0; k < npanels; k++)
        draw_panel(f, &panels[k], n, grid, SPY_MARGIN + k * (SPY_PANEL + 2 * SPY_MARGIN));
    if (grid < n)
        snprintf(line, sizeof line,
                 "a pixel holds %.3g x %.3g entries; darker: more of them stored", (double)n / grid,
                 (double)n / grid);
    else
        snprintf(line, sizeof line, "a square per stored entry");
    svg_text(f, width / 2.0, SPY_TOP + SPY_PANEL + 26, "middle", 12, line);
    svg_end(f);
}

int cmd_spy(int argc, char **argv)
{
    static const char *cmd = "spy";
    const char *path = NULL, *out = NULL, *title = NULL, *order_name = "none";
    const arg_spec specs[] = {
        {"--out", "-o", ARG_STRING, &out, NULL},
        {"--order", NULL, ARG_STRING, &order_name, NULL},
        {"--title", NULL, ARG_STRING, &title, NULL},
        {"--max-memory", NULL, ARG_MEMORY, NULL, NULL},
    };
    int npos;
    args_result r =
        args_parse(cmd, argc, argv, specs, (int)(sizeof specs / sizeof specs[0]), &path, 1, &npos);
    if (r == ARGS_OK && (npos == 0 || out == NULL))
        r = args_usage_error(cmd, "give the matrix file A.mtx and -o FILE.svg");
    kryl_order_kind order = KRYL_ORDER_NONE;
    if (r == ARGS_OK && kryl_order_from_name(order_name, &order) != KRYL_SUCCESS)
        r = args_usage_error(cmd, "--order: %s", kryl_last_error());
    const cli_path inputs[] = {{"the matrix", path}}, outputs[] = {{"--out", out}};
    if (r == ARGS_OK && !cli_outputs_distinct(inputs, 1, outputs, 1)) r = ARGS_ERROR;
    if (r != ARGS_OK) return r == ARGS_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;

    kryl_context ctx = NULL;
    kryl_matrix A = NULL;
    spy_panel panels[2] = {{0}};
    const int npanels = order == KRYL_ORDER_NONE ? 1 : 2;
    int64_t n = 0, ncols = 0, nnz = 0;
    kryl_status st = cli_context_create(&ctx, KRYL_BACKEND_REF, 0, 0, false);
    if (st == KRYL_SUCCESS) st = kryl_matrix_read_mtx(&A, ctx, path);
    if (st == KRYL_SUCCESS) st = kryl_matrix_size(A, &n, &ncols, &nnz);
    if (st != KRYL_SUCCESS && ctx != NULL) cli_error(st);
    if (st == KRYL_SUCCESS && n != ncols) {
        cli_error_message("%s is %" PRId64 " x %" PRId64 "; kryl spy draws square matrices", path,
                          n, ncols);
        st = KRYL_ERR_NOT_SQUARE;
    }
    const int grid = n < SPY_GRID ? (int)(n > 0 ? n : 1) : SPY_GRID;
    for (int k = 0; k < npanels && st == KRYL_SUCCESS; k++)
        st = make_panel(A, k == 0 ? KRYL_ORDER_NONE : order, n, grid, &panels[k]);
    FILE *f = NULL;
    if (st == KRYL_SUCCESS && (f = fopen(out, "w")) == NULL) {
        cli_error_message("cannot open %s for writing", out);
        st = KRYL_ERR_IO;
    }
    if (st == KRYL_SUCCESS) {
        draw(f, title != NULL ? title : cli_basename(path), panels, npanels, n, nnz, grid);
        if (fclose(f) != 0) {
            cli_error_message("cannot write %s", out);
            st = KRYL_ERR_IO;
        }
    }
    for (int k = 0; k < npanels; k++) free(panels[k].count);
    kryl_matrix_destroy(&A);
    kryl_context_destroy(&ctx);
    return st == KRYL_SUCCESS ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
