/* kryl plot: residual histories (--history CSV files) as one SVG picture,
 * ||r||/||b|| on a log scale against the iteration, a curve per file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "svg.h"

#define PLOT_MAX_FILES 8
#define PLOT_W         800
#define PLOT_H         500
#define LEFT           80
#define RIGHT          20
#define TOP            40
#define BOTTOM         60

typedef struct history {
    const char *path;
    double *rel; /* relative residual of iteration k */
    long count;
} history;

/* Read "iteration,residual_norm,relative_residual" lines (kryl solve --history). */
static bool read_history(history *h)
{
    FILE *f = fopen(h->path, "r");
    if (f == NULL) {
        cli_error_message("%s: cannot open", h->path);
        return false;
    }
    char line[256];
    long capacity = 0, number = 0;
    h->rel = NULL;
    h->count = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        number++;
        if (number == 1 && strncmp(line, "iteration,", 10) == 0) continue;
        long it;
        double norm, rel;
        char extra;
        if (sscanf(line, "%ld,%lf,%lf %c", &it, &norm, &rel, &extra) != 3 || it != h->count ||
            !(rel >= 0.0) || !isfinite(rel)) {
            cli_error_message("%s:%ld: expected 'iteration,residual_norm,relative_residual' with "
                              "iterations 0, 1, 2, ... (kryl solve --history writes them)",
                              h->path, number);
            ok = false;
            break;
        }
        if (h->count == capacity) {
            capacity = capacity ? 2 * capacity : 256;
            double *bigger = realloc(h->rel, (size_t)capacity * sizeof *bigger);
            if (bigger == NULL) {
                cli_error_message("%s: out of memory", h->path);
                ok = false;
                break;
            }
            h->rel = bigger;
        }
        h->rel[h->count++] = rel;
    }
    fclose(f);
    if (ok && h->count == 0) {
        cli_error_message("%s: no residuals in the file", h->path);
        ok = false;
    }
    return ok;
}

/* A round step for about `ticks` intervals over [0, span]: 1, 2 or 5 times a power of ten. */
static double nice_step(double span, int ticks)
{
    double raw = span / ticks, decade = pow(10.0, floor(log10(raw)));
    double m = raw / decade;
    return decade * (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0);
}

static void draw(FILE *f, const history *h, int nh, const char *title)
{
    long maxit = 1;
    double lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < nh; k++) {
        if (h[k].count - 1 > maxit) maxit = h[k].count - 1;
        for (long i = 0; i < h[k].count; i++)
            if (h[k].rel[i] > 0.0) {
                lo = fmin(lo, log10(h[k].rel[i]));
                hi = fmax(hi, log10(h[k].rel[i]));
            }
    }
    if (!(lo <= hi)) lo = hi = 0.0;
    lo = floor(lo);
    hi = ceil(hi);
    if (hi <= lo) hi = lo + 1.0;
    const double w = PLOT_W - LEFT - RIGHT, hgt = PLOT_H - TOP - BOTTOM;
#define PX(i) (LEFT + w * (double)(i) / (double)maxit)
#define PY(l) (TOP + hgt * (hi - (l)) / (hi - lo))
    svg_begin(f, PLOT_W, PLOT_H);
    svg_text(f, PLOT_W / 2.0, 24, "middle", 16, title);
    char label[64];
    /* decades */
    int every = (int)ceil((hi - lo) / 12.0);
    for (double d = lo; d <= hi; d += 1.0) {
        svg_line(f, LEFT, PY(d), LEFT + w, PY(d), "#dddddd", 1);
        if ((int)(d - lo) % every != 0) continue;
        snprintf(label, sizeof label, "1e%+03d", (int)d);
        svg_text(f, LEFT - 8, PY(d) + 4, "end", 12, label);
    }
    double step = nice_step((double)maxit, 8);
    for (double x = 0; x <= (double)maxit + 1e-9; x += step) {
        svg_line(f, PX(x), TOP, PX(x), TOP + hgt, "#eeeeee", 1);
        snprintf(label, sizeof label, "%.0f", x);
        svg_text(f, PX(x), TOP + hgt + 18, "middle", 12, label);
    }
    svg_line(f, LEFT, TOP + hgt, LEFT + w, TOP + hgt, "#000000", 1);
    svg_line(f, LEFT, TOP, LEFT, TOP + hgt, "#000000", 1);
    svg_text(f, LEFT + w / 2, PLOT_H - 16, "middle", 13, "iteration");
    fprintf(f,
            "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\" "
            "transform=\"rotate(-90 18 %.1f)\">||r|| / ||b||</text>\n",
            TOP + hgt / 2, TOP + hgt / 2);
    for (int k = 0; k < nh; k++) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                svg_color(k));
        for (long i = 0; i < h[k].count; i++)
            if (h[k].rel[i] > 0.0) fprintf(f, "%.1f,%.1f ", PX(i), PY(log10(h[k].rel[i])));
        fprintf(f, "\"/>\n");
        /* legend, top right */
        double ly = TOP + 16 + 18 * k;
        svg_line(f, LEFT + w - 200, ly - 4, LEFT + w - 176, ly - 4, svg_color(k), 3);
        snprintf(label, sizeof label, "%s (%ld)", cli_basename(h[k].path), h[k].count - 1);
        svg_text(f, LEFT + w - 170, ly, "start", 12, label);
    }
#undef PX
#undef PY
    svg_end(f);
}

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL, *title = "Residual history";
    const arg_spec specs[] = {
        {"--out", "-o", ARG_STRING, &out, NULL},
        {"--title", NULL, ARG_STRING, &title, NULL},
    };
    const char *files[PLOT_MAX_FILES];
    int nfiles;
    args_result r = args_parse("plot", argc, argv, specs, 2, files, PLOT_MAX_FILES, &nfiles);
    if (r != ARGS_OK) return r == ARGS_HELP ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    if (nfiles == 0 || out == NULL) {
        args_usage_error("plot", "give one or more history files and -o FILE.svg");
        return CLI_EXIT_ERROR;
    }
    history h[PLOT_MAX_FILES] = {{0}};
    bool ok = true;
    for (int k = 0; k < nfiles && ok; k++) {
        h[k].path = files[k];
        ok = read_history(&h[k]);
    }
    FILE *f = ok ? fopen(out, "w") : NULL;
    if (ok && f == NULL) ok = cli_error_message("cannot open %s for writing", out) == 0;
    if (ok) {
        draw(f, h, nfiles, title);
        if (fclose(f) != 0) ok = cli_error_message("cannot write %s", out) == 0;
    }
    for (int k = 0; k < nfiles; k++) free(h[k].rel);
    return ok ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
